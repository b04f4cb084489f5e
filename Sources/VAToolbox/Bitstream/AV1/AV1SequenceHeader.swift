/// An AV1 sequence header (`sequence_header_obu()`, AV1 specification §5.5): the profile, levels,
/// maximum picture size, coding tools and colour format of a coded video sequence.
///
/// It is the AV1 counterpart of an H.264 / HEVC SPS, and what VideoToolbox's format description
/// for `kCMVideoCodecType_AV1` derives from (through the `av1C` atom, see
/// ``AV1CodecConfigurationRecord``). The whole syntax is parsed; the trailing bits are not checked.
public struct AV1SequenceHeader: Sendable, Hashable, CustomStringConvertible {
    /// `seq_profile`: 0 Main, 1 High, 2 Professional (Annex A.2); 3 to 7 are reserved and rejected.
    public internal(set) var seqProfile: Int
    /// `still_picture`: the sequence holds a single picture.
    public internal(set) var stillPicture: Bool
    /// `reduced_still_picture_header`: the abbreviated syntax of a still picture (no timing, one
    /// operating point, no frame ids, every frame a shown key frame).
    public internal(set) var reducedStillPictureHeader: Bool
    /// `timing_info()`, when `timing_info_present_flag` is 1.
    public internal(set) var timingInfo: AV1TimingInfo?
    /// `decoder_model_info()`, when `decoder_model_info_present_flag` is 1.
    public internal(set) var decoderModelInfo: AV1DecoderModelInfo?
    /// `initial_display_delay_present_flag`.
    public internal(set) var initialDisplayDelayPresentFlag: Bool
    /// The operating points, `operating_points_cnt_minus_1 + 1` of them (1 to 32); the first is
    /// the one a decoder chooses by default (`choose_operating_point()` returns 0 unless told).
    public internal(set) var operatingPoints: [AV1OperatingPoint]
    /// `frame_width_bits_minus_1`: `frame_width_minus_1` in frame headers has this many bits + 1.
    public internal(set) var frameWidthBitsMinus1: Int
    /// `frame_height_bits_minus_1`.
    public internal(set) var frameHeightBitsMinus1: Int
    /// `max_frame_width_minus_1`.
    public internal(set) var maxFrameWidthMinus1: Int
    /// `max_frame_height_minus_1`.
    public internal(set) var maxFrameHeightMinus1: Int
    /// `frame_id_numbers_present_flag`: frame headers carry frame ids.
    public internal(set) var frameIdNumbersPresentFlag: Bool
    /// `delta_frame_id_length_minus_2` (0 when frame ids are absent).
    public internal(set) var deltaFrameIdLengthMinus2: Int
    /// `additional_frame_id_length_minus_1` (0 when frame ids are absent).
    public internal(set) var additionalFrameIdLengthMinus1: Int
    /// `use_128x128_superblock`: superblocks are 128×128 rather than 64×64.
    public internal(set) var use128x128Superblock: Bool
    /// `enable_filter_intra`.
    public internal(set) var enableFilterIntra: Bool
    /// `enable_intra_edge_filter`.
    public internal(set) var enableIntraEdgeFilter: Bool
    /// `enable_interintra_compound`.
    public internal(set) var enableInterintraCompound: Bool
    /// `enable_masked_compound`.
    public internal(set) var enableMaskedCompound: Bool
    /// `enable_warped_motion`.
    public internal(set) var enableWarpedMotion: Bool
    /// `enable_dual_filter`.
    public internal(set) var enableDualFilter: Bool
    /// `enable_order_hint`: frame headers carry `order_hint`.
    public internal(set) var enableOrderHint: Bool
    /// `enable_jnt_comp`.
    public internal(set) var enableJntComp: Bool
    /// `enable_ref_frame_mvs`.
    public internal(set) var enableRefFrameMvs: Bool
    /// `seq_choose_screen_content_tools`.
    public internal(set) var seqChooseScreenContentTools: Bool
    /// `seq_force_screen_content_tools`: 0, 1, or ``selectScreenContentTools`` (2) when each frame
    /// header says.
    public internal(set) var seqForceScreenContentTools: Int
    /// `seq_choose_integer_mv`.
    public internal(set) var seqChooseIntegerMv: Bool
    /// `seq_force_integer_mv`: 0, 1, or ``selectIntegerMv`` (2) when each frame header says.
    public internal(set) var seqForceIntegerMv: Int
    /// `OrderHintBits`: `order_hint_bits_minus_1 + 1`, or 0 when `enable_order_hint` is 0.
    public internal(set) var orderHintBits: Int
    /// `enable_superres`.
    public internal(set) var enableSuperres: Bool
    /// `enable_cdef`.
    public internal(set) var enableCdef: Bool
    /// `enable_restoration`.
    public internal(set) var enableRestoration: Bool
    /// `color_config()` (§5.5.2).
    public internal(set) var colorConfig: AV1ColorConfig
    /// `film_grain_params_present`: shown frames may carry film grain synthesis parameters.
    public internal(set) var filmGrainParamsPresent: Bool

    /// `SELECT_SCREEN_CONTENT_TOOLS` (§3): each frame header says whether it uses screen content tools.
    public static let selectScreenContentTools = 2
    /// `SELECT_INTEGER_MV` (§3): each frame header says whether motion vectors are whole pixels.
    public static let selectIntegerMv = 2

    /// Parses the payload of a sequence header OBU (``AV1OBU/payload`` of an OBU of type
    /// ``AV1OBUType/sequenceHeader``).
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the payload ends before
    ///   `film_grain_params_present`, or `seq_profile` is reserved (3 to 7).
    public init(_ payload: ArraySlice<UInt8>) throws(VTError) {
        var reader = BitReader(
            payload, context: "AV1 sequence header", error: .formatDescriptionInvalidParameter)
        seqProfile = try reader.int(3, "seq_profile")
        guard seqProfile <= 2 else { throw reader.invalid("seq_profile \(seqProfile) is reserved (§6.4.1)") }
        stillPicture = try reader.flag("still_picture")
        reducedStillPictureHeader = try reader.flag("reduced_still_picture_header")
        if reducedStillPictureHeader {
            timingInfo = nil
            decoderModelInfo = nil
            initialDisplayDelayPresentFlag = false
            operatingPoints = [AV1OperatingPoint(seqLevelIdx: try reader.int(5, "seq_level_idx[0]"))]
        } else {
            timingInfo = try reader.flag("timing_info_present_flag") ? try AV1TimingInfo(&reader) : nil
            decoderModelInfo =
                try (timingInfo != nil ? reader.flag("decoder_model_info_present_flag") : false)
                ? AV1DecoderModelInfo(&reader) : nil
            initialDisplayDelayPresentFlag = try reader.flag("initial_display_delay_present_flag")
            let count = try reader.int(5, "operating_points_cnt_minus_1") + 1
            operatingPoints = []
            for _ in 0..<count {
                operatingPoints.append(
                    try AV1OperatingPoint(
                        &reader, decoderModelInfo: decoderModelInfo,
                        initialDisplayDelayPresentFlag: initialDisplayDelayPresentFlag))
            }
        }
        frameWidthBitsMinus1 = try reader.int(4, "frame_width_bits_minus_1")
        frameHeightBitsMinus1 = try reader.int(4, "frame_height_bits_minus_1")
        maxFrameWidthMinus1 = try reader.int(frameWidthBitsMinus1 + 1, "max_frame_width_minus_1")
        maxFrameHeightMinus1 = try reader.int(frameHeightBitsMinus1 + 1, "max_frame_height_minus_1")
        frameIdNumbersPresentFlag =
            try reducedStillPictureHeader ? false : reader.flag("frame_id_numbers_present_flag")
        if frameIdNumbersPresentFlag {
            deltaFrameIdLengthMinus2 = try reader.int(4, "delta_frame_id_length_minus_2")
            additionalFrameIdLengthMinus1 = try reader.int(3, "additional_frame_id_length_minus_1")
        } else {
            (deltaFrameIdLengthMinus2, additionalFrameIdLengthMinus1) = (0, 0)
        }
        use128x128Superblock = try reader.flag("use_128x128_superblock")
        enableFilterIntra = try reader.flag("enable_filter_intra")
        enableIntraEdgeFilter = try reader.flag("enable_intra_edge_filter")
        if reducedStillPictureHeader {
            (enableInterintraCompound, enableMaskedCompound, enableWarpedMotion) = (false, false, false)
            (enableDualFilter, enableOrderHint, enableJntComp, enableRefFrameMvs) = (false, false, false, false)
            (seqChooseScreenContentTools, seqChooseIntegerMv) = (true, true)
            seqForceScreenContentTools = Self.selectScreenContentTools
            seqForceIntegerMv = Self.selectIntegerMv
            orderHintBits = 0
        } else {
            enableInterintraCompound = try reader.flag("enable_interintra_compound")
            enableMaskedCompound = try reader.flag("enable_masked_compound")
            enableWarpedMotion = try reader.flag("enable_warped_motion")
            enableDualFilter = try reader.flag("enable_dual_filter")
            enableOrderHint = try reader.flag("enable_order_hint")
            enableJntComp = try enableOrderHint ? reader.flag("enable_jnt_comp") : false
            enableRefFrameMvs = try enableOrderHint ? reader.flag("enable_ref_frame_mvs") : false
            seqChooseScreenContentTools = try reader.flag("seq_choose_screen_content_tools")
            seqForceScreenContentTools =
                try seqChooseScreenContentTools
                ? Self.selectScreenContentTools : reader.int(1, "seq_force_screen_content_tools")
            if seqForceScreenContentTools > 0 {
                seqChooseIntegerMv = try reader.flag("seq_choose_integer_mv")
                seqForceIntegerMv =
                    try seqChooseIntegerMv ? Self.selectIntegerMv : reader.int(1, "seq_force_integer_mv")
            } else {
                seqChooseIntegerMv = true
                seqForceIntegerMv = Self.selectIntegerMv
            }
            orderHintBits = try enableOrderHint ? reader.int(3, "order_hint_bits_minus_1") + 1 : 0
        }
        enableSuperres = try reader.flag("enable_superres")
        enableCdef = try reader.flag("enable_cdef")
        enableRestoration = try reader.flag("enable_restoration")
        colorConfig = try AV1ColorConfig(&reader, seqProfile: seqProfile)
        filmGrainParamsPresent = try reader.flag("film_grain_params_present")
    }

    /// `timing_info_present_flag`.
    public var timingInfoPresentFlag: Bool { timingInfo != nil }
    /// `decoder_model_info_present_flag`.
    public var decoderModelInfoPresentFlag: Bool { decoderModelInfo != nil }
    /// `operating_points_cnt_minus_1`, 0 to 31.
    public var operatingPointsCntMinus1: Int { operatingPoints.count - 1 }
    /// `seq_level_idx[0]`: the level of the default operating point.
    public var seqLevelIdx: Int { operatingPoints[0].seqLevelIdx }
    /// `seq_tier[0]`: the tier of the default operating point (0 Main, 1 High).
    public var seqTier: Int { operatingPoints[0].seqTier }
    /// The largest frame width in the sequence, `max_frame_width_minus_1 + 1`.
    public var maxFrameWidth: Int { maxFrameWidthMinus1 + 1 }
    /// The largest frame height in the sequence, `max_frame_height_minus_1 + 1`.
    public var maxFrameHeight: Int { maxFrameHeightMinus1 + 1 }
    /// The length of `current_frame_id` and `display_frame_id` (`idLen`, §5.9.2), when frame ids
    /// are present.
    public var frameIdLength: Int? {
        frameIdNumbersPresentFlag ? additionalFrameIdLengthMinus1 + deltaFrameIdLengthMinus2 + 3 : nil
    }

    /// The profile's name (Annex A.2): `"Main"`, `"High"` or `"Professional"`.
    public var profileName: String { ["Main", "High", "Professional"][seqProfile] }

    /// The default operating point's level name (Annex A.3), for example `"4.0"`; see
    /// ``AV1OperatingPoint/levelName``.
    public var levelName: String { operatingPoints[0].levelName }

    /// A one-line summary: `"Main@4.0 1920x1080 8-bit 4:2:0"`, with the tier, `still` and
    /// `film grain` added when they apply.
    public var description: String {
        var text = "\(profileName)@\(levelName)"
        if seqTier == 1 { text += " high tier" }
        text += " \(maxFrameWidth)x\(maxFrameHeight) \(colorConfig.bitDepth)-bit \(colorConfig.chromaFormatName)"
        if stillPicture { text += " still" }
        if filmGrainParamsPresent { text += " film grain" }
        return text
    }
}

/// `timing_info()` of an AV1 sequence header (§5.5.3): the display clock.
public struct AV1TimingInfo: Sendable, Hashable {
    /// `num_units_in_display_tick`: time units per display tick.
    public internal(set) var numUnitsInDisplayTick: UInt32
    /// `time_scale`: time units per second.
    public internal(set) var timeScale: UInt32
    /// `equal_picture_interval`: pictures are shown at a constant rate.
    public internal(set) var equalPictureInterval: Bool
    /// `num_ticks_per_picture_minus_1` (`uvlc()`), when `equal_picture_interval` is 1; else 0.
    public internal(set) var numTicksPerPictureMinus1: UInt32

    init(_ reader: inout BitReader) throws(VTError) {
        numUnitsInDisplayTick = try reader.f(32, "num_units_in_display_tick")
        timeScale = try reader.f(32, "time_scale")
        guard numUnitsInDisplayTick > 0, timeScale > 0 else {
            throw reader.invalid("num_units_in_display_tick and time_scale must be greater than 0 (§6.4.2)")
        }
        equalPictureInterval = try reader.flag("equal_picture_interval")
        numTicksPerPictureMinus1 = try equalPictureInterval ? reader.uvlc("num_ticks_per_picture_minus_1") : 0
        guard numTicksPerPictureMinus1 != UInt32.max else {
            throw reader.invalid("num_ticks_per_picture_minus_1 is 2^32 - 1 (§6.4.2)")
        }
    }

    /// The frame rate `time_scale / (num_units_in_display_tick × (num_ticks_per_picture_minus_1 + 1))`
    /// when `equal_picture_interval` is 1, else the display tick rate
    /// `time_scale / num_units_in_display_tick` (libavcodec reports the latter).
    public var frameRate: (numerator: UInt64, denominator: UInt64) {
        let ticks = equalPictureInterval ? UInt64(numTicksPerPictureMinus1) + 1 : 1
        return (UInt64(timeScale), UInt64(numUnitsInDisplayTick) * ticks)
    }
}

/// `decoder_model_info()` of an AV1 sequence header (§5.5.4): the field widths frame headers use
/// for their decoder model timing.
public struct AV1DecoderModelInfo: Sendable, Hashable {
    /// `buffer_delay_length_minus_1`: `decoder_buffer_delay` and `encoder_buffer_delay` have this
    /// many bits + 1.
    public internal(set) var bufferDelayLengthMinus1: Int
    /// `num_units_in_decoding_tick`.
    public internal(set) var numUnitsInDecodingTick: UInt32
    /// `buffer_removal_time_length_minus_1`: `buffer_removal_time` in frame headers has this many
    /// bits + 1.
    public internal(set) var bufferRemovalTimeLengthMinus1: Int
    /// `frame_presentation_time_length_minus_1`: `frame_presentation_time` in frame headers has
    /// this many bits + 1.
    public internal(set) var framePresentationTimeLengthMinus1: Int

    init(_ reader: inout BitReader) throws(VTError) {
        bufferDelayLengthMinus1 = try reader.int(5, "buffer_delay_length_minus_1")
        numUnitsInDecodingTick = try reader.f(32, "num_units_in_decoding_tick")
        bufferRemovalTimeLengthMinus1 = try reader.int(5, "buffer_removal_time_length_minus_1")
        framePresentationTimeLengthMinus1 = try reader.int(5, "frame_presentation_time_length_minus_1")
    }
}

/// One operating point of an AV1 sequence header (§5.5.1): a choice of temporal and spatial layers
/// with its level.
public struct AV1OperatingPoint: Sendable, Hashable {
    /// `operating_point_idc[i]`: bit `t` set when temporal layer `t` is included, bit `8 + s` when
    /// spatial layer `s` is; 0 when the stream is not layered.
    public internal(set) var operatingPointIdc: Int
    /// `seq_level_idx[i]`: the level, 0 to 23 for levels 2.0 to 7.3, 31 for no level constraint.
    public internal(set) var seqLevelIdx: Int
    /// `seq_tier[i]`: 0 Main tier, 1 High tier (only coded for levels above 3.3).
    public internal(set) var seqTier: Int
    /// `decoder_model_present_for_this_op[i]`.
    public internal(set) var decoderModelPresentForThisOp: Bool
    /// `decoder_buffer_delay[i]`, when the decoder model is present for this point; else 0.
    public internal(set) var decoderBufferDelay: UInt32
    /// `encoder_buffer_delay[i]`, when the decoder model is present for this point; else 0.
    public internal(set) var encoderBufferDelay: UInt32
    /// `low_delay_mode_flag[i]`, when the decoder model is present for this point; else false.
    public internal(set) var lowDelayModeFlag: Bool
    /// `initial_display_delay_present_for_this_op[i]`.
    public internal(set) var initialDisplayDelayPresentForThisOp: Bool
    /// `initial_display_delay_minus_1[i]`, when present; else 9 (the inferred value, §6.4.1).
    public internal(set) var initialDisplayDelayMinus1: Int

    /// The single operating point of a reduced still picture header.
    init(seqLevelIdx: Int) {
        operatingPointIdc = 0
        self.seqLevelIdx = seqLevelIdx
        seqTier = 0
        decoderModelPresentForThisOp = false
        (decoderBufferDelay, encoderBufferDelay, lowDelayModeFlag) = (0, 0, false)
        initialDisplayDelayPresentForThisOp = false
        initialDisplayDelayMinus1 = 9
    }

    init(
        _ reader: inout BitReader, decoderModelInfo: AV1DecoderModelInfo?, initialDisplayDelayPresentFlag: Bool
    ) throws(VTError) {
        operatingPointIdc = try reader.int(12, "operating_point_idc[i]")
        seqLevelIdx = try reader.int(5, "seq_level_idx[i]")
        seqTier = try seqLevelIdx > 7 ? reader.int(1, "seq_tier[i]") : 0
        decoderModelPresentForThisOp =
            try decoderModelInfo != nil ? reader.flag("decoder_model_present_for_this_op[i]") : false
        if let decoderModelInfo, decoderModelPresentForThisOp {
            // operating_parameters_info(i), §5.5.5.
            let length = decoderModelInfo.bufferDelayLengthMinus1 + 1
            decoderBufferDelay = try reader.f(length, "decoder_buffer_delay[i]")
            encoderBufferDelay = try reader.f(length, "encoder_buffer_delay[i]")
            lowDelayModeFlag = try reader.flag("low_delay_mode_flag[i]")
        } else {
            (decoderBufferDelay, encoderBufferDelay, lowDelayModeFlag) = (0, 0, false)
        }
        initialDisplayDelayPresentForThisOp =
            try initialDisplayDelayPresentFlag
            ? reader.flag("initial_display_delay_present_for_this_op[i]") : false
        initialDisplayDelayMinus1 =
            try initialDisplayDelayPresentForThisOp ? reader.int(4, "initial_display_delay_minus_1[i]") : 9
    }

    /// The level's name (Annex A.3): `"X.Y"` with X = 2 + `seq_level_idx` / 4 and Y =
    /// `seq_level_idx` mod 4 for 0 to 23 (`"2.0"` to `"7.3"`), `"max"` for 31 (no constraint),
    /// `"reserved N"` otherwise.
    public var levelName: String {
        switch seqLevelIdx {
        case 0...23: "\(2 + seqLevelIdx / 4).\(seqLevelIdx % 4)"
        case 31: "max"
        default: "reserved \(seqLevelIdx)"
        }
    }
}
