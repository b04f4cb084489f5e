/// The header of a VP8 frame (RFC 6386): the uncompressed data chunk of §9.1 and the start of
/// the boolean-coded frame header in the first partition (§9.2–9.7, syntax in §19.2), up to
/// `refresh_last`.
///
/// The header stops before `token_prob_update()`, whose coefficient probability updates need
/// the 1056-entry update-probability table (§13.4); a decoder reads them itself. Field names are
/// the RFC's in lowerCamelCase.
public struct VP8FrameHeader: Sendable, Hashable, CustomStringConvertible {
    /// Whether this is a key frame (`key_frame`: frame type bit 0).
    public var isKeyFrame: Bool
    /// `version` (0 to 3): the reconstruction filter and loop filter type (§9.1). Values above 3
    /// are accepted and reported, as libvpx decodes them like 3.
    public var version: Int
    /// `show_frame`: whether the decoded frame is output (0 for a hidden alternate reference).
    public var showFrame: Bool
    /// `first_part_size`: the size in bytes of the first partition (modes and motion vectors).
    public var firstPartitionSize: Int
    /// The width in pixels (14 bits), for key frames.
    public var width: Int?
    /// `horizontal_scale` (2 bits, 0 = no upscaling), for key frames.
    public var horizontalScale: Int?
    /// The height in pixels (14 bits), for key frames.
    public var height: Int?
    /// `vertical_scale` (2 bits), for key frames.
    public var verticalScale: Int?
    /// `color_space` (key frames): 0 YUV (BT.601), 1 reserved.
    public var colorSpace: Int?
    /// `clamping_type` (key frames): 0 the decoder must clamp reconstructed pixels, 1 no clamping needed.
    public var clampingType: Int?
    /// `segmentation_enabled`.
    public var segmentationEnabled = false
    /// `update_mb_segmentation_map`.
    public var updateMbSegmentationMap = false
    /// `update_segment_feature_data`.
    public var updateSegmentFeatureData = false
    /// `segment_feature_mode`: 1 absolute values, 0 deltas.
    public var segmentFeatureMode = 0
    /// The quantizer value of each of the 4 segments, when updated (nil where not coded).
    public var segmentQuantizerUpdate: [Int?] = []
    /// The loop filter level of each of the 4 segments, when updated (nil where not coded).
    public var segmentLoopFilterUpdate: [Int?] = []
    /// `segment_prob[3]`, when the map is updated (255 where not coded).
    public var segmentProbs: [Int] = []
    /// `filter_type`: 0 normal loop filter, 1 simple.
    public var filterType = 0
    /// `loop_filter_level` (0 to 63).
    public var loopFilterLevel = 0
    /// `sharpness_level` (0 to 7).
    public var sharpnessLevel = 0
    /// `loop_filter_adj_enable`.
    public var loopFilterAdjEnable = false
    /// `mode_ref_lf_delta_update`.
    public var modeRefLfDeltaUpdate = false
    /// `ref_frame_delta_update` values (intra, last, golden, altref), when updated (nil where not coded).
    public var refFrameDeltas: [Int?] = []
    /// `mb_mode_delta_update` values (B_PRED, ZEROMV, NEARESTMV…, SPLITMV), when updated (nil where not coded).
    public var mbModeDeltas: [Int?] = []
    /// `log2_nbr_of_dct_partitions` (0 to 3): 1, 2, 4 or 8 DCT token partitions.
    public var log2NbrOfDctPartitions = 0
    /// `y_ac_qi` (0 to 127): the base quantizer index.
    public var yAcQi = 0
    /// `y_dc_delta`, `y2_dc_delta`, `y2_ac_delta`, `uv_dc_delta`, `uv_ac_delta` (0 when not coded).
    public var quantizerDeltas: [Int] = [0, 0, 0, 0, 0]
    /// `refresh_golden_frame` (1 for key frames).
    public var refreshGoldenFrame = true
    /// `refresh_alternate_frame` (1 for key frames).
    public var refreshAlternateFrame = true
    /// `copy_buffer_to_golden` (0 none, 1 last frame, 2 alternate), when golden is not refreshed.
    public var copyBufferToGolden = 0
    /// `copy_buffer_to_alternate` (0 none, 1 last frame, 2 golden), when alternate is not refreshed.
    public var copyBufferToAlternate = 0
    /// `sign_bias_golden`.
    public var signBiasGolden = false
    /// `sign_bias_alternate`.
    public var signBiasAlternate = false
    /// `refresh_entropy_probs`: 0 when the probabilities of this frame are used for it only.
    public var refreshEntropyProbs = false
    /// `refresh_last` (1 for key frames).
    public var refreshLast = true

    /// The key frame start code `9d 01 2a` (§9.1).
    static let startCode: [UInt8] = [0x9D, 0x01, 0x2A]

    /// Parses the header at the start of a VP8 frame.
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the frame is shorter than its
    ///   frame tag (3 bytes, 10 for key frames), a key frame lacks the start code, the first
    ///   partition reaches past the end of the frame, or the header reaches past the first partition.
    public init(_ frame: ArraySlice<UInt8>) throws(VTError) {
        guard frame.count >= 3 else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "VP8 frame header: the frame has \(frame.count) bytes, fewer than the 3-byte frame tag")
        }
        let base = frame.startIndex
        let tag = Int(frame[base]) | Int(frame[base + 1]) << 8 | Int(frame[base + 2]) << 16
        isKeyFrame = tag & 1 == 0
        version = (tag >> 1) & 7
        showFrame = (tag >> 4) & 1 == 1
        firstPartitionSize = tag >> 5
        var headerSize = 3
        if isKeyFrame {
            guard frame.count >= 10 else {
                throw VTError.formatDescriptionInvalidParameter.with(
                    "VP8 frame header: the key frame has \(frame.count) bytes, fewer than the 10-byte uncompressed chunk"
                )
            }
            guard frame[(base + 3)..<(base + 6)].elementsEqual(Self.startCode) else {
                throw VTError.formatDescriptionInvalidParameter.with(
                    "VP8 frame header: the key frame lacks the start code 9d 01 2a")
            }
            let horizontal = Int(frame[base + 6]) | Int(frame[base + 7]) << 8
            let vertical = Int(frame[base + 8]) | Int(frame[base + 9]) << 8
            width = horizontal & 0x3FFF
            horizontalScale = horizontal >> 14
            height = vertical & 0x3FFF
            verticalScale = vertical >> 14
            headerSize = 10
        }
        guard firstPartitionSize <= frame.count - headerSize else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "VP8 frame header: first_part_size \(firstPartitionSize) reaches past the end of the "
                    + "\(frame.count)-byte frame (the partition starts at byte \(headerSize))")
        }
        let start = base + headerSize
        var d = VP8BoolDecoder(frame[start..<start + firstPartitionSize])
        try parseFrameHeader(&d)
    }

    /// §19.2 `frame_header()` from `color_space` to `refresh_last`.
    private mutating func parseFrameHeader(_ d: inout VP8BoolDecoder) throws(VTError) {
        if isKeyFrame {
            colorSpace = try d.literal(1, "color_space")
            clampingType = try d.literal(1, "clamping_type")
        }
        segmentationEnabled = try d.flag("segmentation_enabled")
        if segmentationEnabled { try updateSegmentation(&d) }
        filterType = try d.literal(1, "filter_type")
        loopFilterLevel = try d.literal(6, "loop_filter_level")
        sharpnessLevel = try d.literal(3, "sharpness_level")
        loopFilterAdjEnable = try d.flag("loop_filter_adj_enable")
        if loopFilterAdjEnable {
            modeRefLfDeltaUpdate = try d.flag("mode_ref_lf_delta_update")
            if modeRefLfDeltaUpdate {
                for _ in 0..<4 {
                    refFrameDeltas.append(
                        try d.flag("ref_frame_delta_update_flag") ? try d.signedLiteral(6, "delta_magnitude") : nil)
                }
                for _ in 0..<4 {
                    mbModeDeltas.append(
                        try d.flag("mb_mode_delta_update_flag") ? try d.signedLiteral(6, "delta_magnitude") : nil)
                }
            }
        }
        log2NbrOfDctPartitions = try d.literal(2, "log2_nbr_of_dct_partitions")
        yAcQi = try d.literal(7, "y_ac_qi")
        for i in 0..<5 { quantizerDeltas[i] = try d.optionalSignedLiteral(4, "quantizer delta") ?? 0 }
        if isKeyFrame {
            refreshEntropyProbs = try d.flag("refresh_entropy_probs")
        } else {
            refreshGoldenFrame = try d.flag("refresh_golden_frame")
            refreshAlternateFrame = try d.flag("refresh_alternate_frame")
            if !refreshGoldenFrame { copyBufferToGolden = try d.literal(2, "copy_buffer_to_golden") }
            if !refreshAlternateFrame { copyBufferToAlternate = try d.literal(2, "copy_buffer_to_alternate") }
            signBiasGolden = try d.flag("sign_bias_golden")
            signBiasAlternate = try d.flag("sign_bias_alternate")
            refreshEntropyProbs = try d.flag("refresh_entropy_probs")
            refreshLast = try d.flag("refresh_last")
        }
    }

    /// §9.3 / §19.2 `update_segmentation()`.
    private mutating func updateSegmentation(_ d: inout VP8BoolDecoder) throws(VTError) {
        updateMbSegmentationMap = try d.flag("update_mb_segmentation_map")
        updateSegmentFeatureData = try d.flag("update_segment_feature_data")
        if updateSegmentFeatureData {
            segmentFeatureMode = try d.literal(1, "segment_feature_mode")
            for _ in 0..<4 { segmentQuantizerUpdate.append(try d.optionalSignedLiteral(7, "quantizer_update_value")) }
            for _ in 0..<4 { segmentLoopFilterUpdate.append(try d.optionalSignedLiteral(6, "lf_update_value")) }
        }
        if updateMbSegmentationMap {
            for _ in 0..<3 {
                segmentProbs.append(try d.flag("segment_prob_update") ? try d.literal(8, "segment_prob") : 255)
            }
        }
    }

    /// Whether decoding this frame changes nothing a later frame reads, so that a decoder that
    /// never sees it decodes every later frame the same (a droppable frame, as libvpx's temporal
    /// layers make them): an inter frame that refreshes no reference buffer — neither with its
    /// own picture (`refresh_last`, `refresh_golden_frame`, `refresh_alternate_frame`) nor by a
    /// copy between buffers (`copy_buffer_to_golden`, `copy_buffer_to_alternate`) —, keeps its
    /// probability updates to itself (`refresh_entropy_probs` 0: §9.7, §9.11), and updates none
    /// of the state that persists from frame to frame: the segment feature data and map (§9.3;
    /// a frame with segmentation on but no map update reuses the previous map, which a later
    /// frame then reads unchanged) and the loop filter deltas (§9.6) — unless the update
    /// restates the deltas in force, as error-resilient encoders send them with every frame.
    ///
    /// - Parameter deltasInForce: The loop filter deltas before this frame
    ///   (``loopFilterDeltas(after:)`` of the frames before it); nil when unknown, and then any
    ///   update counts as a change.
    public func isDroppable(deltasInForce: [Int]?) -> Bool {
        guard
            !isKeyFrame && !refreshLast && !refreshGoldenFrame && !refreshAlternateFrame && copyBufferToGolden == 0
                && copyBufferToAlternate == 0 && !refreshEntropyProbs && !updateMbSegmentationMap
                && !updateSegmentFeatureData
        else { return false }
        return !modeRefLfDeltaUpdate
            || (deltasInForce != nil && loopFilterDeltas(after: deltasInForce) == deltasInForce)
    }

    /// The loop filter deltas in force after this frame, given those before it: the four
    /// reference frame deltas (intra, last, golden, altref) then the four mode deltas (B_PRED,
    /// ZEROMV, NEARESTMV…, SPLITMV). A key frame resets them to 0 before its own updates
    /// (libavcodec's vp8.c `vp8_decode_frame_header`, libvpx's `vp8_decode_frame`); an update
    /// replaces a value, it does not add to it (§9.6). Nil when `previous` is nil and this frame
    /// neither resets nor sets them all.
    public func loopFilterDeltas(after previous: [Int]?) -> [Int]? {
        var deltas = isKeyFrame ? Array(repeating: 0, count: 8) : previous
        guard modeRefLfDeltaUpdate else { return deltas }
        let updates = refFrameDeltas + mbModeDeltas
        if deltas == nil {
            guard updates.count == 8, updates.allSatisfy({ $0 != nil }) else { return nil }
            deltas = Array(repeating: 0, count: 8)
        }
        guard var result = deltas, result.count == 8 else { return nil }
        for (index, update) in updates.enumerated() where index < 8 {
            if let update { result[index] = update }
        }
        return result
    }

    /// The reference buffers this frame changes: `"last"`, `"golden"`, `"altref"` for the frame
    /// itself, `"golden=last"` and the like for a copy (§9.7).
    public var refreshedReferences: [String] {
        if isKeyFrame { return ["last", "golden", "altref"] }
        var names: [String] = []
        if refreshLast { names.append("last") }
        if refreshGoldenFrame {
            names.append("golden")
        } else if copyBufferToGolden != 0 {
            names.append(copyBufferToGolden == 1 ? "golden=last" : "golden=altref")
        }
        if refreshAlternateFrame {
            names.append("altref")
        } else if copyBufferToAlternate != 0 {
            names.append(copyBufferToAlternate == 1 ? "altref=last" : "altref=golden")
        }
        return names
    }

    /// The number of DCT token partitions (1, 2, 4 or 8).
    public var numberOfDctPartitions: Int { 1 << log2NbrOfDctPartitions }

    /// The size of the uncompressed data chunk before the first partition: 10 for key frames, else 3.
    public var uncompressedChunkSize: Int { isKeyFrame ? 10 : 3 }

    /// One line for `vatoolbox probe`, such as `VP8 key frame 320x240, version 0, shown, first partition 1234 bytes`.
    public var description: String {
        var text = isKeyFrame ? "VP8 key frame" : "VP8 inter frame"
        if let width, let height { text += " \(width)x\(height)" }
        if let horizontalScale, let verticalScale, horizontalScale != 0 || verticalScale != 0 {
            text += " (scale \(horizontalScale)/\(verticalScale))"
        }
        text += ", version \(version), " + (showFrame ? "shown" : "hidden")
        text += ", first partition \(firstPartitionSize) bytes, \(numberOfDctPartitions) DCT partition(s), q \(yAcQi)"
        if !isKeyFrame {
            let refreshed = refreshedReferences
            text += refreshed.isEmpty ? ", refreshes no reference" : ", refreshes " + refreshed.joined(separator: "+")
        }
        return text
    }
}
