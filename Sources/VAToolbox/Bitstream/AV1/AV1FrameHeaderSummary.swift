/// The beginning of an AV1 frame header (`uncompressed_header()`, AV1 specification §5.9.2): whether
/// the frame is shown, its type, and its size when the header states it.
///
/// Parsing needs the sequence header in force and stops at the frame size, before anything that
/// depends on the state of the reference frames this parser does not keep:
/// - a `show_existing_frame` header stops after `display_frame_id`; the frame type it shows is
///   `RefFrameType[frame_to_show_map_idx]`, reference state, so ``frameType`` is nil;
/// - a key or intra-only frame stops after `render_size()`, before `allow_intrabc`;
/// - an inter or switch frame stops after `frame_size()` / `render_size()`, or, with
///   `frame_size_override_flag` and without error resilience, at the first `found_ref` = 1 of
///   `frame_size_with_refs()` (the size is then that reference's: ``frameSizeFromReference``).
///
/// A `frame_header_obu()` that repeats the current header (`SeenFrameHeader` = 1,
/// `frame_header_copy()`) cannot be told apart without tile state: parse only the first header of
/// each frame (OBU types ``AV1OBUType/frameHeader`` and ``AV1OBUType/frame``).
public struct AV1FrameHeaderSummary: Sendable, Hashable, CustomStringConvertible {
    /// `frame_type` (§6.8.2).
    public enum FrameType: Int, Sendable, Hashable, CustomStringConvertible {
        /// `KEY_FRAME` (0): intra, resets the references when shown.
        case key = 0
        /// `INTER_FRAME` (1).
        case inter = 1
        /// `INTRA_ONLY_FRAME` (2): intra, keeps some references.
        case intraOnly = 2
        /// `SWITCH_FRAME` (3): an inter frame that allows switching between streams.
        case `switch` = 3

        /// `key`, `inter`, `intra-only` or `switch`.
        public var description: String {
            switch self {
            case .key: "key"
            case .inter: "inter"
            case .intraOnly: "intra-only"
            case .switch: "switch"
            }
        }
    }

    /// A frame size stated in the header (`frame_size()`, `superres_params()`, `render_size()`).
    public struct FrameSize: Sendable, Hashable {
        /// `UpscaledWidth`: the width after super-resolution, `frame_width_minus_1 + 1` or the
        /// sequence's maximum.
        public internal(set) var upscaledWidth: Int
        /// `FrameWidth`: the coded width, `UpscaledWidth` scaled by 8 / `SuperresDenom`.
        public internal(set) var frameWidth: Int
        /// `FrameHeight`.
        public internal(set) var frameHeight: Int
        /// `SuperresDenom`: 8 without super-resolution, 9 to 16 with.
        public internal(set) var superresDenom: Int
        /// `RenderWidth`: the intended display width.
        public internal(set) var renderWidth: Int
        /// `RenderHeight`: the intended display height.
        public internal(set) var renderHeight: Int
        /// `render_and_frame_size_different`.
        public internal(set) var renderAndFrameSizeDifferent: Bool
    }

    /// `show_existing_frame`: the header only shows the frame in slot ``frameToShowMapIdx``.
    public internal(set) var showExistingFrame: Bool
    /// `frame_to_show_map_idx` (0 when ``showExistingFrame`` is false).
    public internal(set) var frameToShowMapIdx: Int
    /// `display_frame_id`, for a shown existing frame when frame ids are present.
    public internal(set) var displayFrameId: Int?
    /// `frame_type`; nil for a shown existing frame (its type is reference state).
    public internal(set) var frameType: FrameType?
    /// `show_frame`: the frame is output once decoded. False for a `show_existing_frame` header,
    /// which outputs a frame decoded before: see ``showsFrame``.
    public internal(set) var showFrame: Bool
    /// `showable_frame`: a hidden frame that a later `show_existing_frame` may output.
    public internal(set) var showableFrame: Bool
    /// `error_resilient_mode` (inferred 1 for switch frames and shown key frames).
    public internal(set) var errorResilientMode: Bool
    /// `disable_cdf_update`.
    public internal(set) var disableCdfUpdate: Bool
    /// `allow_screen_content_tools` (coded, or `seq_force_screen_content_tools`).
    public internal(set) var allowScreenContentTools: Bool
    /// `force_integer_mv` (1 for intra frames).
    public internal(set) var forceIntegerMv: Bool
    /// `current_frame_id`, when frame ids are present.
    public internal(set) var currentFrameId: Int?
    /// `frame_size_override_flag`: the header codes its own size instead of the sequence maximum.
    public internal(set) var frameSizeOverrideFlag: Bool
    /// `order_hint` (0 when `enable_order_hint` is 0).
    public internal(set) var orderHint: Int
    /// `primary_ref_frame` (7, `PRIMARY_REF_NONE`, for intra frames and error resilience).
    public internal(set) var primaryRefFrame: Int
    /// `refresh_frame_flags`: bit `i` set when the frame is stored in reference slot `i`.
    public internal(set) var refreshFrameFlags: Int
    /// `ref_frame_idx[0..6]` of an inter or switch frame, when coded (not with
    /// `frame_refs_short_signaling`, which derives them from reference state); empty otherwise.
    public internal(set) var refFrameIdx: [Int]
    /// The size the header states; nil for a shown existing frame and when the size is a
    /// reference's (see ``frameSizeFromReference``).
    public internal(set) var frameSize: FrameSize?
    /// The `i` of `frame_size_with_refs()` whose `found_ref` is 1: the frame has the size of
    /// reference `ref_frame_idx[i]`.
    public internal(set) var frameSizeFromReference: Int?

    /// `PRIMARY_REF_NONE` (§3).
    public static let primaryRefNone = 7
    /// `refresh_frame_flags` with every one of the `NUM_REF_FRAMES` (8) slots, `allFrames`.
    public static let allFrames = 0xff

    /// Whether the header outputs a frame: `show_frame` or `show_existing_frame`.
    public var showsFrame: Bool { showFrame || showExistingFrame }

    /// `FrameIsIntra`: a key or intra-only frame.
    public var frameIsIntra: Bool { frameType == .key || frameType == .intraOnly }

    /// Parses the start of the `uncompressed_header()` of a frame header or frame OBU.
    ///
    /// - Parameters:
    ///   - obu: An OBU of type ``AV1OBUType/frameHeader``, ``AV1OBUType/frame`` or
    ///     ``AV1OBUType/redundantFrameHeader``; its `temporal_id` and `spatial_id` select which
    ///     `buffer_removal_time` fields are present.
    ///   - sequenceHeader: The sequence header in force.
    /// - Throws: ``VTError/videoDecoderBadData`` when the payload ends before the parse stops, or
    ///   an intra-only frame refreshes every reference slot; ``VTError/parameter`` when the OBU
    ///   does not carry a frame header.
    public init(_ obu: AV1OBU, sequenceHeader: AV1SequenceHeader) throws(VTError) {
        guard obu.obuType.startsFrame || obu.obuType == .redundantFrameHeader else {
            throw VTError.parameter.with("an AV1 \(obu.obuType) OBU has no frame header")
        }
        try self.init(
            obu.payload, sequenceHeader: sequenceHeader, temporalId: obu.temporalId, spatialId: obu.spatialId)
    }

    /// Parses the start of an `uncompressed_header()` (the payload of a frame header OBU, or the
    /// beginning of a frame OBU's).
    ///
    /// - Throws: ``VTError/videoDecoderBadData`` when the payload ends before the parse stops, or
    ///   an intra-only frame refreshes every reference slot (§6.8.2).
    public init(
        _ payload: ArraySlice<UInt8>, sequenceHeader seq: AV1SequenceHeader, temporalId: Int = 0, spatialId: Int = 0
    ) throws(VTError) {
        var reader = BitReader(payload, context: "AV1 frame header", error: .videoDecoderBadData)
        (showExistingFrame, frameToShowMapIdx, displayFrameId, currentFrameId) = (false, 0, nil, nil)
        (refFrameIdx, frameSize, frameSizeFromReference) = ([], nil, nil)
        let temporalPointInfo = seq.decoderModelInfo.flatMap { model in
            seq.timingInfo?.equalPictureInterval == true ? nil : model.framePresentationTimeLengthMinus1 + 1
        }
        if seq.reducedStillPictureHeader {
            (frameType, showFrame, showableFrame, errorResilientMode) = (.key, true, false, true)
        } else {
            showExistingFrame = try reader.flag("show_existing_frame")
            if showExistingFrame {
                frameToShowMapIdx = try reader.int(3, "frame_to_show_map_idx")
                if let temporalPointInfo { try reader.skip(temporalPointInfo, "frame_presentation_time") }
                if let idLen = seq.frameIdLength { displayFrameId = try reader.int(idLen, "display_frame_id") }
                (frameType, showFrame, showableFrame, errorResilientMode) = (nil, false, false, false)
                (disableCdfUpdate, allowScreenContentTools, forceIntegerMv) = (false, false, false)
                (frameSizeOverrideFlag, orderHint, primaryRefFrame, refreshFrameFlags) = (false, 0, 7, 0)
                return
            }
            let type = FrameType(rawValue: try reader.int(2, "frame_type")) ?? .key
            frameType = type
            showFrame = try reader.flag("show_frame")
            if showFrame, let temporalPointInfo { try reader.skip(temporalPointInfo, "frame_presentation_time") }
            showableFrame = try showFrame ? type != .key : reader.flag("showable_frame")
            errorResilientMode =
                try type == .switch || (type == .key && showFrame) ? true : reader.flag("error_resilient_mode")
        }
        let type = frameType ?? .key
        let frameIsIntra = type == .key || type == .intraOnly
        disableCdfUpdate = try reader.flag("disable_cdf_update")
        allowScreenContentTools =
            try seq.seqForceScreenContentTools == AV1SequenceHeader.selectScreenContentTools
            ? reader.flag("allow_screen_content_tools") : seq.seqForceScreenContentTools == 1
        if allowScreenContentTools {
            forceIntegerMv =
                try seq.seqForceIntegerMv == AV1SequenceHeader.selectIntegerMv
                ? reader.flag("force_integer_mv") : seq.seqForceIntegerMv == 1
        } else {
            forceIntegerMv = false
        }
        if frameIsIntra { forceIntegerMv = true }
        if let idLen = seq.frameIdLength { currentFrameId = try reader.int(idLen, "current_frame_id") }
        frameSizeOverrideFlag =
            try type == .switch ? true : seq.reducedStillPictureHeader ? false : reader.flag("frame_size_override_flag")
        orderHint = try reader.int(seq.orderHintBits, "order_hint")
        primaryRefFrame =
            try frameIsIntra || errorResilientMode ? Self.primaryRefNone : reader.int(3, "primary_ref_frame")
        if let model = seq.decoderModelInfo, try reader.flag("buffer_removal_time_present_flag") {
            for point in seq.operatingPoints where point.decoderModelPresentForThisOp {
                let idc = point.operatingPointIdc
                let inTemporalLayer = (idc >> temporalId) & 1 == 1
                let inSpatialLayer = (idc >> (spatialId + 8)) & 1 == 1
                if idc == 0 || (inTemporalLayer && inSpatialLayer) {
                    try reader.skip(model.bufferRemovalTimeLengthMinus1 + 1, "buffer_removal_time")
                }
            }
        }
        refreshFrameFlags =
            try type == .switch || (type == .key && showFrame) ? Self.allFrames : reader.int(8, "refresh_frame_flags")
        if type == .intraOnly, refreshFrameFlags == Self.allFrames {
            throw reader.invalid("an intra-only frame has refresh_frame_flags 0xFF (§6.8.2)")
        }
        if !frameIsIntra || refreshFrameFlags != Self.allFrames, errorResilientMode, seq.enableOrderHint {
            try reader.skip(seq.orderHintBits * 8, "ref_order_hint[i]")
        }
        if frameIsIntra {
            frameSize = try Self.frameSize(&reader, seq, override: frameSizeOverrideFlag)
            return
        }
        // Inter and switch frames: the references, then the size (§5.9.2, §5.9.7).
        let shortSignaling = try seq.enableOrderHint ? reader.flag("frame_refs_short_signaling") : false
        if shortSignaling {
            try reader.skip(6, "last_frame_idx, gold_frame_idx")
        }
        for _ in 0..<7 {
            if !shortSignaling { refFrameIdx.append(try reader.int(3, "ref_frame_idx[i]")) }
            if seq.frameIdNumbersPresentFlag {
                try reader.skip(seq.deltaFrameIdLengthMinus2 + 2, "delta_frame_id_minus_1")
            }
        }
        if frameSizeOverrideFlag, !errorResilientMode {
            for index in 0..<7 {
                guard try reader.flag("found_ref") else { continue }
                frameSizeFromReference = index
                return
            }
        }
        frameSize = try Self.frameSize(&reader, seq, override: frameSizeOverrideFlag)
    }

    /// `frame_size()`, `superres_params()` and `render_size()` (§5.9.5, §5.9.8, §5.9.6).
    private static func frameSize(_ reader: inout BitReader, _ seq: AV1SequenceHeader, override: Bool)
        throws(VTError) -> FrameSize
    {
        var width = seq.maxFrameWidth
        var height = seq.maxFrameHeight
        if override {
            width = try reader.int(seq.frameWidthBitsMinus1 + 1, "frame_width_minus_1") + 1
            height = try reader.int(seq.frameHeightBitsMinus1 + 1, "frame_height_minus_1") + 1
        }
        let useSuperres = try seq.enableSuperres ? reader.flag("use_superres") : false
        let denom = try useSuperres ? reader.int(3, "coded_denom") + 9 : 8
        let frameWidth = (width * 8 + denom / 2) / denom
        let different = try reader.flag("render_and_frame_size_different")
        var renderWidth = width
        var renderHeight = height
        if different {
            renderWidth = try reader.int(16, "render_width_minus_1") + 1
            renderHeight = try reader.int(16, "render_height_minus_1") + 1
        }
        return FrameSize(
            upscaledWidth: width, frameWidth: frameWidth, frameHeight: height, superresDenom: denom,
            renderWidth: renderWidth, renderHeight: renderHeight, renderAndFrameSizeDifferent: different)
    }

    /// A short summary for listings: `"key shown"`, `"inter hidden"`, `"show-existing 3"`, with the
    /// size when the header codes one (`"key shown 1920x1080"` after an override).
    public var description: String {
        if showExistingFrame { return "show-existing \(frameToShowMapIdx)" }
        var text = "\(frameType ?? .key) \(showFrame ? "shown" : showableFrame ? "hidden showable" : "hidden")"
        if frameSizeOverrideFlag, let frameSize { text += " \(frameSize.upscaledWidth)x\(frameSize.frameHeight)" }
        return text
    }
}
