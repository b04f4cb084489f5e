/// The video usability information of an H.264 SPS, `vui_parameters()` (clause E.1.1).
public struct H264VUIParameters: Sendable, Hashable {
    /// `aspect_ratio_idc` (Table E-1); 255 is `Extended_SAR`. Nil when not present.
    public var aspectRatioIdc: Int?
    /// `sar_width`, for `Extended_SAR`.
    public var sarWidth = 0
    /// `sar_height`, for `Extended_SAR`.
    public var sarHeight = 0
    /// `overscan_appropriate_flag`, when `overscan_info_present_flag` is 1.
    public var overscanAppropriateFlag: Bool?
    /// `video_signal_type_present_flag`: whether `video_format`, the range and the colour
    /// description were sent (otherwise they keep their inferred defaults).
    public var videoSignalTypePresentFlag = false
    /// `video_format` (0 component, 1 PAL, 2 NTSC, 3 SECAM, 4 MAC, 5 unspecified).
    public var videoFormat = 5
    /// `video_full_range_flag`: 1 for full-range (0–255) samples, 0 for video range.
    public var videoFullRangeFlag = false
    /// `colour_primaries` (Table E-3, 2 = unspecified).
    public var colourPrimaries = 2
    /// `transfer_characteristics` (Table E-4, 2 = unspecified).
    public var transferCharacteristics = 2
    /// `matrix_coefficients` (Table E-5, 2 = unspecified).
    public var matrixCoefficients = 2
    /// `chroma_sample_loc_type_top_field`, when `chroma_loc_info_present_flag` is 1.
    public var chromaSampleLocTypeTopField: Int?
    /// `chroma_sample_loc_type_bottom_field`, when `chroma_loc_info_present_flag` is 1.
    public var chromaSampleLocTypeBottomField: Int?
    /// The timing fields, when `timing_info_present_flag` is 1.
    public var timingInfo: TimingInfo?
    /// `nal_hrd_parameters_present_flag`.
    public var nalHrdParametersPresentFlag = false
    /// `vcl_hrd_parameters_present_flag`.
    public var vclHrdParametersPresentFlag = false
    /// `low_delay_hrd_flag`, when either HRD is present.
    public var lowDelayHrdFlag = false
    /// `pic_struct_present_flag`: picture timing SEI carries `pic_struct` (field/frame display).
    public var picStructPresentFlag = false
    /// The bitstream restriction fields, when `bitstream_restriction_flag` is 1.
    public var bitstreamRestriction: BitstreamRestriction?

    /// The timing part of the VUI.
    public struct TimingInfo: Sendable, Hashable {
        /// `num_units_in_tick`: the clock ticks of one field (a frame lasts two ticks).
        public var numUnitsInTick: UInt32
        /// `time_scale`: clock ticks per second.
        public var timeScale: UInt32
        /// `fixed_frame_rate_flag`.
        public var fixedFrameRateFlag: Bool
    }

    /// The bitstream restriction part of the VUI.
    public struct BitstreamRestriction: Sendable, Hashable {
        /// `motion_vectors_over_pic_boundaries_flag`.
        public var motionVectorsOverPicBoundariesFlag: Bool
        /// `max_bytes_per_pic_denom`.
        public var maxBytesPerPicDenom: Int
        /// `max_bits_per_mb_denom`.
        public var maxBitsPerMbDenom: Int
        /// `log2_max_mv_length_horizontal`.
        public var log2MaxMvLengthHorizontal: Int
        /// `log2_max_mv_length_vertical`.
        public var log2MaxMvLengthVertical: Int
        /// `max_num_reorder_frames`: frames that may precede a frame in decoding order and follow
        /// it in output order — the reorder depth a decoder must delay output by.
        public var maxNumReorderFrames: Int
        /// `max_dec_frame_buffering`: the DPB size the stream needs, in frames.
        public var maxDecFrameBuffering: Int
    }

    /// The sample aspect ratio from `aspect_ratio_idc` (Table E-1), or nil when unspecified.
    public var sampleAspectRatio: (width: Int, height: Int)? {
        guard let idc = aspectRatioIdc else { return nil }
        if idc == 255 { return sarWidth > 0 && sarHeight > 0 ? (sarWidth, sarHeight) : nil }
        guard idc >= 1 && idc < Self.aspectRatios.count else { return nil }
        return Self.aspectRatios[idc]
    }

    /// Table E-1, indexed by `aspect_ratio_idc` 0 to 16.
    static let aspectRatios: [(width: Int, height: Int)] = [
        (0, 0), (1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
        (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1),
    ]

    /// Reads `vui_parameters()`.
    init(from r: inout BitReader) throws(VTError) {
        if try r.flag("aspect_ratio_info_present_flag") {
            let idc = try r.int(8, "aspect_ratio_idc")
            aspectRatioIdc = idc
            if idc == 255 {
                sarWidth = try r.int(16, "sar_width")
                sarHeight = try r.int(16, "sar_height")
            }
        }
        if try r.flag("overscan_info_present_flag") {
            overscanAppropriateFlag = try r.flag("overscan_appropriate_flag")
        }
        videoSignalTypePresentFlag = try r.flag("video_signal_type_present_flag")
        if videoSignalTypePresentFlag {
            videoFormat = try r.int(3, "video_format")
            videoFullRangeFlag = try r.flag("video_full_range_flag")
            if try r.flag("colour_description_present_flag") {
                colourPrimaries = try r.int(8, "colour_primaries")
                transferCharacteristics = try r.int(8, "transfer_characteristics")
                matrixCoefficients = try r.int(8, "matrix_coefficients")
            }
        }
        if try r.flag("chroma_loc_info_present_flag") {
            chromaSampleLocTypeTopField = try r.unsignedExpGolomb("chroma_sample_loc_type_top_field", maximum: 5)
            chromaSampleLocTypeBottomField = try r.unsignedExpGolomb("chroma_sample_loc_type_bottom_field", maximum: 5)
        }
        if try r.flag("timing_info_present_flag") {
            timingInfo = TimingInfo(
                numUnitsInTick: try r.bits(32, "num_units_in_tick"),
                timeScale: try r.bits(32, "time_scale"),
                fixedFrameRateFlag: try r.flag("fixed_frame_rate_flag"))
        }
        nalHrdParametersPresentFlag = try r.flag("nal_hrd_parameters_present_flag")
        if nalHrdParametersPresentFlag { try Self.skipHrdParameters(&r) }
        vclHrdParametersPresentFlag = try r.flag("vcl_hrd_parameters_present_flag")
        if vclHrdParametersPresentFlag { try Self.skipHrdParameters(&r) }
        if nalHrdParametersPresentFlag || vclHrdParametersPresentFlag {
            lowDelayHrdFlag = try r.flag("low_delay_hrd_flag")
        }
        picStructPresentFlag = try r.flag("pic_struct_present_flag")
        if try r.flag("bitstream_restriction_flag") {
            bitstreamRestriction = BitstreamRestriction(
                motionVectorsOverPicBoundariesFlag: try r.flag("motion_vectors_over_pic_boundaries_flag"),
                maxBytesPerPicDenom: try r.unsignedExpGolomb("max_bytes_per_pic_denom", maximum: 16),
                maxBitsPerMbDenom: try r.unsignedExpGolomb("max_bits_per_mb_denom", maximum: 16),
                log2MaxMvLengthHorizontal: try r.unsignedExpGolomb("log2_max_mv_length_horizontal", maximum: 16),
                log2MaxMvLengthVertical: try r.unsignedExpGolomb("log2_max_mv_length_vertical", maximum: 16),
                maxNumReorderFrames: try r.unsignedExpGolomb("max_num_reorder_frames", maximum: 16),
                maxDecFrameBuffering: try r.unsignedExpGolomb("max_dec_frame_buffering", maximum: 16))
        }
    }

    /// Reads past `hrd_parameters()` (clause E.1.2).
    private static func skipHrdParameters(_ r: inout BitReader) throws(VTError) {
        let cpbCount = try r.unsignedExpGolomb("cpb_cnt_minus1", maximum: 31) + 1
        try r.skip(8, "bit_rate_scale, cpb_size_scale")
        for _ in 0..<cpbCount {
            _ = try r.unsignedExpGolomb("bit_rate_value_minus1")
            _ = try r.unsignedExpGolomb("cpb_size_value_minus1")
            try r.skip(1, "cbr_flag")
        }
        try r.skip(20, "initial_cpb_removal_delay_length_minus1 … time_offset_length")
    }
}
