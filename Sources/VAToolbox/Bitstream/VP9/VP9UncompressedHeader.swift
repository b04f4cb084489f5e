/// The uncompressed header of a VP9 frame, `uncompressed_header()` (VP9 bitstream specification
/// v0.6 §6.2, semantics §7.2).
///
/// Field names are the spec's syntax elements in lowerCamelCase. What a frame does not code is
/// nil or empty: the colour configuration of an inter frame (it keeps the key frame's), the size of
/// an inter frame that takes it from a reference (`frame_size_with_refs()` with `found_ref` = 1,
/// see ``frameSizeFromRef``) unless the reference sizes were passed in, and everything after
/// `frame_to_show_map_idx` in a show-existing frame.
public struct VP9UncompressedHeader: Sendable, Hashable, CustomStringConvertible {
    /// `frame_type` (§7.2).
    public enum FrameType: Int, Sendable, Hashable {
        /// `KEY_FRAME` (0): resets the decoder; refreshes every reference slot.
        case keyFrame = 0
        /// `NON_KEY_FRAME` (1): an inter frame, or an intra-only frame (``VP9UncompressedHeader/intraOnly``).
        case nonKeyFrame = 1
    }

    /// `Profile` (0 to 3), from `profile_low_bit` and `profile_high_bit`.
    public var profile: Int
    /// `show_existing_frame`: the frame only shows the reference in slot ``frameToShowMapIdx``.
    public var showExistingFrame: Bool
    /// `frame_to_show_map_idx` (0 to 7), for a show-existing frame.
    public var frameToShowMapIdx: Int?
    /// `frame_type`. A show-existing frame has none; it is reported as ``FrameType/nonKeyFrame``.
    public var frameType: FrameType = .nonKeyFrame
    /// `show_frame`: whether the decoded frame is output. 0 for a hidden (alternate reference)
    /// frame; also 0 for a show-existing frame, which has no `show_frame` (see ``isOutput``).
    public var showFrame = false
    /// `error_resilient_mode`.
    public var errorResilientMode = false
    /// `intra_only`: a non-key frame coded without inter prediction (only in hidden frames).
    public var intraOnly = false
    /// `reset_frame_context` (0 to 3).
    public var resetFrameContext = 0
    /// `color_config()`: present in key frames and intra-only frames (implied for profile 0, §7.2).
    public var colorConfig: VP9ColorConfig?
    /// `refresh_frame_flags`: bit *i* set when the frame replaces reference slot *i*
    /// (0xFF for key frames, 0 for show-existing frames).
    public var refreshFrameFlags: UInt8 = 0
    /// `ref_frame_idx[3]`: the slots of LAST, GOLDEN and ALTREF, for inter frames.
    public var refFrameIdx: [Int] = []
    /// `ref_frame_sign_bias[LAST…ALTREF]`, for inter frames.
    public var refFrameSignBias: [Bool] = []
    /// For an inter frame whose size is that of a reference (`found_ref` = 1 in
    /// `frame_size_with_refs()`): which of the three references, 0 LAST, 1 GOLDEN, 2 ALTREF. The
    /// reference slot is `refFrameIdx[frameSizeFromRef]` (see ``frameSizeReferenceSlot``).
    public var frameSizeFromRef: Int?
    /// `FrameWidth` (`frame_width_minus_1` + 1); nil when taken from an unknown reference.
    public var frameWidth: Int?
    /// `FrameHeight` (`frame_height_minus_1` + 1); nil when taken from an unknown reference.
    public var frameHeight: Int?
    /// `render_and_frame_size_different`.
    public var renderAndFrameSizeDifferent = false
    /// The intended display width (`render_width_minus_1` + 1, else ``frameWidth``).
    public var renderWidth: Int?
    /// The intended display height (`render_height_minus_1` + 1, else ``frameHeight``).
    public var renderHeight: Int?
    /// `allow_high_precision_mv`, for inter frames.
    public var allowHighPrecisionMv = false
    /// `interpolation_filter`, for inter frames: 0 EIGHTTAP, 1 EIGHTTAP_SMOOTH, 2 EIGHTTAP_SHARP,
    /// 3 BILINEAR, 4 SWITCHABLE.
    public var interpolationFilter: Int?
    /// `refresh_frame_context`.
    public var refreshFrameContext = false
    /// `frame_parallel_decoding_mode`.
    public var frameParallelDecodingMode = false
    /// `frame_context_idx` as coded (0 to 3; the decoder uses 0 after `setup_past_independence()`).
    public var frameContextIdx = 0
    /// `loop_filter_params()`.
    public var loopFilter = VP9LoopFilterParams()
    /// `quantization_params()`.
    public var quantization = VP9QuantizationParams()
    /// `segmentation_params()`.
    public var segmentation = VP9SegmentationParams()
    /// `tile_cols_log2` (needs the frame width; nil when it is unknown).
    public var tileColsLog2: Int?
    /// `tile_rows_log2` (0 to 2); nil when ``tileColsLog2`` is.
    public var tileRowsLog2: Int?
    /// `header_size_in_bytes`: the size of the compressed header that follows; nil when
    /// ``tileColsLog2`` is, and for show-existing frames.
    public var headerSizeInBytes: Int?
    /// The size in bytes of this uncompressed header (including `trailing_bits()`): where the
    /// compressed header starts. nil when parsing stopped early (see ``headerSizeInBytes``).
    public var uncompressedHeaderSize: Int?

    /// The first two bytes of a VP9 frame: `frame_marker` is 2.
    static let frameMarker = 2
    /// `frame_sync_code()`: 0x49 0x83 0x42.
    static let syncCode: UInt32 = 0x49_8342

    /// Parses the uncompressed header at the start of one frame (a superframe already split,
    /// see ``VP9Superframe``).
    ///
    /// - Parameters:
    ///   - frame: The frame's bytes.
    ///   - referenceFrameSizes: The sizes in the reference slots before this frame, if the caller
    ///     tracks them (``VP9ReferenceFrameSizes``). With them an inter frame that takes its size
    ///     from a reference gets ``frameWidth``/``frameHeight`` and is parsed to the end; without
    ///     them parsing stops before `tile_info()`, which depends on the width.
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the header is truncated,
    ///   `frame_marker` is not 2, the sync code is wrong, a reserved bit is set, or
    ///   `header_size_in_bytes` is 0 or reaches past the end of the frame.
    public init(_ frame: ArraySlice<UInt8>, referenceFrameSizes: VP9ReferenceFrameSizes? = nil) throws(VTError) {
        // The longest uncompressed header (all segmentation features coded) is under 100 bytes.
        var r = BitReader(Array(frame.prefix(256)), context: "VP9 uncompressed header")
        do throws(VTError) {
            guard try r.int(2, "frame_marker") == Self.frameMarker else {
                throw VTError.formatDescriptionInvalidParameter.with(
                    "VP9 uncompressed header: frame_marker is not 2 (not a VP9 frame)")
            }
            let profileLowBit = try r.int(1, "profile_low_bit")
            profile = (try r.int(1, "profile_high_bit") << 1) | profileLowBit
            if profile == 3, try r.flag("reserved_zero") {
                throw VTError.formatDescriptionInvalidParameter.with("VP9 uncompressed header: reserved_zero is 1")
            }
            showExistingFrame = try r.flag("show_existing_frame")
            if showExistingFrame {
                frameToShowMapIdx = try r.int(3, "frame_to_show_map_idx")
                return
            }
            try parseFrame(&r, frameCount: frame.count, referenceFrameSizes: referenceFrameSizes)
        } catch {
            throw error.asInvalidHeader()
        }
    }

    /// Everything after `show_existing_frame` = 0.
    private mutating func parseFrame(
        _ r: inout BitReader, frameCount: Int, referenceFrameSizes: VP9ReferenceFrameSizes?
    ) throws(VTError) {
        frameType = try r.flag("frame_type") ? .nonKeyFrame : .keyFrame
        showFrame = try r.flag("show_frame")
        errorResilientMode = try r.flag("error_resilient_mode")
        if frameType == .keyFrame {
            try Self.frameSyncCode(&r)
            colorConfig = try VP9ColorConfig(from: &r, profile: profile)
            try frameSize(&r)
            try renderSize(&r)
            refreshFrameFlags = 0xFF
        } else {
            intraOnly = showFrame ? false : try r.flag("intra_only")
            resetFrameContext = errorResilientMode ? 0 : try r.int(2, "reset_frame_context")
            if intraOnly {
                try Self.frameSyncCode(&r)
                colorConfig = profile > 0 ? try VP9ColorConfig(from: &r, profile: profile) : .profile0IntraOnly
                refreshFrameFlags = UInt8(try r.bits(8, "refresh_frame_flags"))
                try frameSize(&r)
                try renderSize(&r)
            } else {
                refreshFrameFlags = UInt8(try r.bits(8, "refresh_frame_flags"))
                for _ in 0..<3 {
                    refFrameIdx.append(try r.int(3, "ref_frame_idx"))
                    refFrameSignBias.append(try r.flag("ref_frame_sign_bias"))
                }
                try frameSizeWithRefs(&r, referenceFrameSizes: referenceFrameSizes)
                allowHighPrecisionMv = try r.flag("allow_high_precision_mv")
                interpolationFilter = try Self.readInterpolationFilter(&r)
            }
        }
        if !errorResilientMode {
            refreshFrameContext = try r.flag("refresh_frame_context")
            frameParallelDecodingMode = try r.flag("frame_parallel_decoding_mode")
        } else {
            frameParallelDecodingMode = true
        }
        frameContextIdx = try r.int(2, "frame_context_idx")
        loopFilter = try VP9LoopFilterParams(from: &r)
        quantization = try VP9QuantizationParams(from: &r)
        segmentation = try VP9SegmentationParams(from: &r)
        guard let width = frameWidth else { return }
        try tileInfo(&r, frameWidth: width)
        let headerSize = try r.int(16, "header_size_in_bytes")
        let uncompressedSize = r.bytesConsumed
        guard headerSize > 0 else {
            throw VTError.formatDescriptionInvalidParameter.with("VP9 uncompressed header: header_size_in_bytes is 0")
        }
        guard headerSize <= frameCount - uncompressedSize else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "VP9 uncompressed header: the \(headerSize)-byte compressed header reaches past the end of the "
                    + "\(frameCount)-byte frame (it starts at byte \(uncompressedSize))")
        }
        headerSizeInBytes = headerSize
        uncompressedHeaderSize = uncompressedSize
    }

    /// `frame_sync_code()` (§6.2.1).
    private static func frameSyncCode(_ r: inout BitReader) throws(VTError) {
        guard try r.bits(24, "frame_sync_code") == syncCode else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "VP9 uncompressed header: frame_sync_code is not 0x49 0x83 0x42")
        }
    }

    /// `frame_size()` (§6.2.3).
    private mutating func frameSize(_ r: inout BitReader) throws(VTError) {
        frameWidth = try r.int(16, "frame_width_minus_1") + 1
        frameHeight = try r.int(16, "frame_height_minus_1") + 1
    }

    /// `render_size()` (§6.2.4).
    private mutating func renderSize(_ r: inout BitReader) throws(VTError) {
        renderAndFrameSizeDifferent = try r.flag("render_and_frame_size_different")
        if renderAndFrameSizeDifferent {
            renderWidth = try r.int(16, "render_width_minus_1") + 1
            renderHeight = try r.int(16, "render_height_minus_1") + 1
        } else {
            renderWidth = frameWidth
            renderHeight = frameHeight
        }
    }

    /// `frame_size_with_refs()` (§6.2.5).
    private mutating func frameSizeWithRefs(
        _ r: inout BitReader, referenceFrameSizes: VP9ReferenceFrameSizes?
    ) throws(VTError) {
        for i in 0..<3 where try r.flag("found_ref") {
            frameSizeFromRef = i
            if let size = referenceFrameSizes?[refFrameIdx[i]] {
                frameWidth = size.width
                frameHeight = size.height
            }
            break
        }
        if frameSizeFromRef == nil { try frameSize(&r) }
        try renderSize(&r)
    }

    /// `read_interpolation_filter()` (§6.2.7), mapped through `literal_to_type`.
    private static func readInterpolationFilter(_ r: inout BitReader) throws(VTError) -> Int {
        if try r.flag("is_filter_switchable") { return 4 }
        return [1, 0, 2, 3][try r.int(2, "raw_interpolation_filter")]
    }

    /// `tile_info()` (§6.2.12), with `calc_min_log2_tile_cols()` / `calc_max_log2_tile_cols()`.
    private mutating func tileInfo(_ r: inout BitReader, frameWidth: Int) throws(VTError) {
        let miCols = (frameWidth + 7) >> 3
        let sb64Cols = (miCols + 7) >> 3
        var minLog2 = 0
        while (64 << minLog2) < sb64Cols { minLog2 += 1 }
        var maxLog2 = 1
        while (sb64Cols >> maxLog2) >= 4 { maxLog2 += 1 }
        maxLog2 -= 1
        var colsLog2 = minLog2
        while colsLog2 < maxLog2, try r.flag("increment_tile_cols_log2") { colsLog2 += 1 }
        var rowsLog2 = try r.int(1, "tile_rows_log2")
        if rowsLog2 == 1 { rowsLog2 += try r.int(1, "increment_tile_rows_log2") }
        tileColsLog2 = colsLog2
        tileRowsLog2 = rowsLog2
    }

    /// Whether this is a key frame (`frame_type` = `KEY_FRAME`).
    public var isKeyFrame: Bool { !showExistingFrame && frameType == .keyFrame }

    /// `FrameIsIntra`: a key frame or an intra-only frame.
    public var frameIsIntra: Bool { isKeyFrame || intraOnly }

    /// Whether the frame produces an output picture: `show_frame`, or `show_existing_frame`.
    public var isOutput: Bool { showFrame || showExistingFrame }

    /// The frame size, when known.
    public var frameSize: VP9FrameSize? {
        guard let frameWidth, let frameHeight else { return nil }
        return VP9FrameSize(width: frameWidth, height: frameHeight)
    }

    /// For an inter frame that takes its size from a reference: the reference slot (0 to 7).
    public var frameSizeReferenceSlot: Int? {
        guard let frameSizeFromRef, refFrameIdx.indices.contains(frameSizeFromRef) else { return nil }
        return refFrameIdx[frameSizeFromRef]
    }

    /// The bit depth (8, 10 or 12) when the frame carries a colour configuration.
    public var bitDepth: Int? { colorConfig?.bitDepth }
    /// `color_space` when the frame carries a colour configuration.
    public var colorSpace: Int? { colorConfig?.colorSpace }
    /// `color_range` (1 = full range) when the frame carries a colour configuration.
    public var colorRange: Int? { colorConfig?.colorRange }
    /// `subsampling_x` when the frame carries a colour configuration.
    public var subsamplingX: Int? { colorConfig?.subsamplingX }
    /// `subsampling_y` when the frame carries a colour configuration.
    public var subsamplingY: Int? { colorConfig?.subsamplingY }

    /// One line for `vatoolbox probe`, such as
    /// `VP9 profile 0 key frame 320x240, 8-bit 4:2:0 BT.601 studio range, shown, refresh 0xff`.
    public var description: String {
        if showExistingFrame {
            return "VP9 profile \(profile) show existing frame from slot \(frameToShowMapIdx ?? 0)"
        }
        var parts: [String] = []
        let kind = isKeyFrame ? "key frame" : intraOnly ? "intra-only frame" : "inter frame"
        var head = "VP9 profile \(profile) \(kind)"
        if let size = frameSize {
            head += " \(size)"
            if let slot = frameSizeReferenceSlot { head += " (size of slot \(slot))" }
        } else if let slot = frameSizeReferenceSlot {
            head += " (size of slot \(slot))"
        }
        if let renderWidth, let renderHeight, renderAndFrameSizeDifferent {
            head += " render \(renderWidth)x\(renderHeight)"
        }
        parts.append(head)
        if let color = colorConfig {
            parts.append(
                "\(color.bitDepth)-bit \(color.chromaFormat) \(color.colorSpaceName) "
                    + (color.isFullRange ? "full range" : "studio range"))
        }
        parts.append(showFrame ? "shown" : "hidden")
        if errorResilientMode { parts.append("error resilient") }
        parts.append("refresh 0x" + String(refreshFrameFlags, radix: 16))
        return parts.joined(separator: ", ")
    }
}
