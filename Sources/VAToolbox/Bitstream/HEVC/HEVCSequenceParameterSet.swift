/// An HEVC sequence parameter set (SPS, `seq_parameter_set_rbsp()`, H.265 clause 7.3.2.2.1):
/// the picture size and format, the coding tools and the reference structure of a coded video
/// sequence.
///
/// Parsing covers everything up to and including `vui_parameters()` and stops before
/// `sps_extension_present_flag`: the range, multilayer, 3D and SCC extensions are not read. The
/// VUI is the last part needed to describe the stream (display size, colour, aspect ratio, timing);
/// a decoder that needs the extension flags reads them from the NAL unit itself (libavcodec does).
///
/// Parses the base-layer syntax: an SPS of a layer above 0 whose `sps_ext_or_max_sub_layers_minus1`
/// is 7 (multilayer extension syntax) throws, as 7 is out of range for `sps_max_sub_layers_minus1`.
///
/// The values VideoToolbox exposes in a format description (dimensions, clean aperture, pixel
/// aspect ratio, colour extensions) derive from this structure: see ``displayWidth``,
/// ``sampleAspectRatio`` and ``vuiParameters``.
public struct HEVCSequenceParameterSet: Sendable, Hashable {
    /// `sps_video_parameter_set_id`, 0 to 15.
    public internal(set) var spsVideoParameterSetId: Int
    /// `sps_max_sub_layers_minus1`, 0 to 6.
    public internal(set) var spsMaxSubLayersMinus1: Int
    /// `sps_temporal_id_nesting_flag`.
    public internal(set) var spsTemporalIdNestingFlag: Bool
    /// `profile_tier_level(1, sps_max_sub_layers_minus1)`.
    public internal(set) var profileTierLevel: HEVCProfileTierLevel
    /// `sps_seq_parameter_set_id`, 0 to 15.
    public internal(set) var spsSeqParameterSetId: Int
    /// `chroma_format_idc`: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4 (Table 6-1).
    public internal(set) var chromaFormatIdc: Int
    /// `separate_colour_plane_flag` (4:4:4 only): the three colour planes are coded separately.
    public internal(set) var separateColourPlaneFlag: Bool
    /// `pic_width_in_luma_samples`: the coded width, a multiple of `MinCbSizeY`.
    public internal(set) var picWidthInLumaSamples: Int
    /// `pic_height_in_luma_samples`: the coded height, a multiple of `MinCbSizeY`.
    public internal(set) var picHeightInLumaSamples: Int
    /// `conformance_window_flag`.
    public internal(set) var conformanceWindowFlag: Bool
    /// `conf_win_left_offset`, in units of `SubWidthC` luma samples.
    public internal(set) var confWinLeftOffset: Int
    /// `conf_win_right_offset`, in units of `SubWidthC` luma samples.
    public internal(set) var confWinRightOffset: Int
    /// `conf_win_top_offset`, in units of `SubHeightC` luma samples.
    public internal(set) var confWinTopOffset: Int
    /// `conf_win_bottom_offset`, in units of `SubHeightC` luma samples.
    public internal(set) var confWinBottomOffset: Int
    /// `bit_depth_luma_minus8`, 0 to 8.
    public internal(set) var bitDepthLumaMinus8: Int
    /// `bit_depth_chroma_minus8`, 0 to 8.
    public internal(set) var bitDepthChromaMinus8: Int
    /// `log2_max_pic_order_cnt_lsb_minus4`, 0 to 12.
    public internal(set) var log2MaxPicOrderCntLsbMinus4: Int
    /// `sps_sub_layer_ordering_info_present_flag`.
    public internal(set) var spsSubLayerOrderingInfoPresentFlag: Bool
    /// `sps_max_dec_pic_buffering_minus1[i]` for each sub-layer (inferred values filled in), 0 to 15.
    public internal(set) var spsMaxDecPicBufferingMinus1: [Int]
    /// `sps_max_num_reorder_pics[i]` for each sub-layer (inferred values filled in).
    public internal(set) var spsMaxNumReorderPics: [Int]
    /// `sps_max_latency_increase_plus1[i]` for each sub-layer (inferred values filled in).
    public internal(set) var spsMaxLatencyIncreasePlus1: [UInt32]
    /// `log2_min_luma_coding_block_size_minus3`.
    public internal(set) var log2MinLumaCodingBlockSizeMinus3: Int
    /// `log2_diff_max_min_luma_coding_block_size`.
    public internal(set) var log2DiffMaxMinLumaCodingBlockSize: Int
    /// `log2_min_luma_transform_block_size_minus2`.
    public internal(set) var log2MinLumaTransformBlockSizeMinus2: Int
    /// `log2_diff_max_min_luma_transform_block_size`.
    public internal(set) var log2DiffMaxMinLumaTransformBlockSize: Int
    /// `max_transform_hierarchy_depth_inter`.
    public internal(set) var maxTransformHierarchyDepthInter: Int
    /// `max_transform_hierarchy_depth_intra`.
    public internal(set) var maxTransformHierarchyDepthIntra: Int
    /// `scaling_list_enabled_flag`.
    public internal(set) var scalingListEnabledFlag: Bool
    /// `sps_scaling_list_data_present_flag`.
    public internal(set) var spsScalingListDataPresentFlag: Bool
    /// The scaling lists in use: the coded `scaling_list_data()` when
    /// `sps_scaling_list_data_present_flag`, the default lists when only
    /// `scaling_list_enabled_flag`; nil when scaling lists are off (flat scaling).
    public internal(set) var scalingListData: HEVCScalingListData?
    /// `amp_enabled_flag`: asymmetric motion partitions.
    public internal(set) var ampEnabledFlag: Bool
    /// `sample_adaptive_offset_enabled_flag`.
    public internal(set) var sampleAdaptiveOffsetEnabledFlag: Bool
    /// `pcm_enabled_flag`.
    public internal(set) var pcmEnabledFlag: Bool
    /// `pcm_sample_bit_depth_luma_minus1` (when PCM is enabled).
    public internal(set) var pcmSampleBitDepthLumaMinus1: Int
    /// `pcm_sample_bit_depth_chroma_minus1` (when PCM is enabled).
    public internal(set) var pcmSampleBitDepthChromaMinus1: Int
    /// `log2_min_pcm_luma_coding_block_size_minus3` (when PCM is enabled).
    public internal(set) var log2MinPcmLumaCodingBlockSizeMinus3: Int
    /// `log2_diff_max_min_pcm_luma_coding_block_size` (when PCM is enabled).
    public internal(set) var log2DiffMaxMinPcmLumaCodingBlockSize: Int
    /// `pcm_loop_filter_disabled_flag` (when PCM is enabled).
    public internal(set) var pcmLoopFilterDisabledFlag: Bool
    /// `num_short_term_ref_pic_sets`, 0 to 64.
    public var numShortTermRefPicSets: Int { shortTermRefPicSets.count }
    /// `st_ref_pic_set(i)` for `i` in 0 to `num_short_term_ref_pic_sets − 1`.
    public internal(set) var shortTermRefPicSets: [HEVCShortTermRefPicSet]
    /// `long_term_ref_pics_present_flag`.
    public internal(set) var longTermRefPicsPresentFlag: Bool
    /// `num_long_term_ref_pics_sps`, 0 to 32.
    public var numLongTermRefPicsSps: Int { ltRefPicPocLsbSps.count }
    /// `lt_ref_pic_poc_lsb_sps[i]`.
    public internal(set) var ltRefPicPocLsbSps: [Int]
    /// `used_by_curr_pic_lt_sps_flag[i]`.
    public internal(set) var usedByCurrPicLtSpsFlag: [Bool]
    /// `sps_temporal_mvp_enabled_flag`.
    public internal(set) var spsTemporalMvpEnabledFlag: Bool
    /// `strong_intra_smoothing_enabled_flag`.
    public internal(set) var strongIntraSmoothingEnabledFlag: Bool
    /// `vui_parameters_present_flag`.
    public var vuiParametersPresentFlag: Bool { vuiParameters != nil }
    /// `vui_parameters()`, when `vui_parameters_present_flag` is 1.
    public internal(set) var vuiParameters: HEVCVUIParameters?

    /// The largest `pic_width_in_luma_samples` / `pic_height_in_luma_samples` accepted:
    /// `Sqrt(MaxLumaPs * 8)` for level 6.2, the largest `MaxLumaPs` (35 651 584) of Table A.8
    /// (clause A.4.1). It also bounds the CTB counts derived from the size.
    public static let maxPicDimension = 16888
    /// `sps_seq_parameter_set_id` and `pps_seq_parameter_set_id` are at most 15 (clause 7.4.3.2.1).
    public static let maxId = 15

    /// Parses an SPS NAL unit.
    ///
    /// - Throws: ``VTError/parameter`` when the unit is not an HEVC SPS (type 33);
    ///   ``VTError/videoDecoderBadData`` when it is truncated or a value is out of range.
    public init(_ nalUnit: NALUnit) throws(VTError) {
        try self.init(rbsp: nalUnit.hevcRBSP(of: .sequenceParameterSet, for: "an HEVC SPS"))
    }

    /// Parses the RBSP of an SPS (the NAL unit payload after its 2-byte header, with emulation
    /// prevention bytes removed).
    ///
    /// - Throws: ``VTError/videoDecoderBadData`` when the payload ends before the VUI is complete,
    ///   or a value is outside the range clause 7.4.3.2.1 gives it: an unknown
    ///   `chroma_format_idc`, a picture size of 0, over ``maxPicDimension`` or not a multiple of
    ///   the minimum coding block, a conformance window as wide or high as the picture, a bit depth
    ///   over 16, a CTB size other than 16, 32 or 64 (clause A.3), transform or PCM block sizes that
    ///   do not fit the coding blocks, or reference picture sets larger than the DPB.
    public init(rbsp: [UInt8]) throws(VTError) {
        var reader = BitReader(rbsp, context: "HEVC SPS")
        spsVideoParameterSetId = try reader.int(4, "sps_video_parameter_set_id")
        spsMaxSubLayersMinus1 = try reader.int(3, "sps_max_sub_layers_minus1")
        guard spsMaxSubLayersMinus1 <= HEVCProfileTierLevel.maxSubLayersMinus1 else {
            throw Self.badData("sps_max_sub_layers_minus1 is \(spsMaxSubLayersMinus1), more than 6")
        }
        spsTemporalIdNestingFlag = try reader.flag("sps_temporal_id_nesting_flag")
        profileTierLevel = try HEVCProfileTierLevel(&reader, maxNumSubLayersMinus1: spsMaxSubLayersMinus1)
        spsSeqParameterSetId = try reader.unsignedExpGolomb("sps_seq_parameter_set_id", maximum: Self.maxId)
        chromaFormatIdc = try reader.unsignedExpGolomb("chroma_format_idc", maximum: 3)
        separateColourPlaneFlag = chromaFormatIdc == 3 ? try reader.flag("separate_colour_plane_flag") : false
        picWidthInLumaSamples = try reader.unsignedExpGolomb(
            "pic_width_in_luma_samples", maximum: Self.maxPicDimension)
        picHeightInLumaSamples = try reader.unsignedExpGolomb(
            "pic_height_in_luma_samples", maximum: Self.maxPicDimension)

        conformanceWindowFlag = try reader.flag("conformance_window_flag")
        if conformanceWindowFlag {
            // Each offset is below the picture size (checked exactly once the chroma format and
            // size are known); this first bound keeps the sums small.
            confWinLeftOffset = try reader.unsignedExpGolomb("conf_win_left_offset", maximum: Self.maxPicDimension)
            confWinRightOffset = try reader.unsignedExpGolomb("conf_win_right_offset", maximum: Self.maxPicDimension)
            confWinTopOffset = try reader.unsignedExpGolomb("conf_win_top_offset", maximum: Self.maxPicDimension)
            confWinBottomOffset = try reader.unsignedExpGolomb("conf_win_bottom_offset", maximum: Self.maxPicDimension)
        } else {
            (confWinLeftOffset, confWinRightOffset, confWinTopOffset, confWinBottomOffset) = (0, 0, 0, 0)
        }

        bitDepthLumaMinus8 = try reader.unsignedExpGolomb("bit_depth_luma_minus8", maximum: 8)
        bitDepthChromaMinus8 = try reader.unsignedExpGolomb("bit_depth_chroma_minus8", maximum: 8)
        log2MaxPicOrderCntLsbMinus4 = try reader.unsignedExpGolomb("log2_max_pic_order_cnt_lsb_minus4", maximum: 12)

        let ordering = try HEVCSubLayerOrderingInfo(&reader, maxSubLayersMinus1: spsMaxSubLayersMinus1)
        spsSubLayerOrderingInfoPresentFlag = ordering.presentFlag
        spsMaxDecPicBufferingMinus1 = ordering.maxDecPicBufferingMinus1
        spsMaxNumReorderPics = ordering.maxNumReorderPics
        spsMaxLatencyIncreasePlus1 = ordering.maxLatencyIncreasePlus1

        // CtbLog2SizeY is 4 to 6 in every profile (clause A.3), which bounds both fields.
        log2MinLumaCodingBlockSizeMinus3 = try reader.unsignedExpGolomb(
            "log2_min_luma_coding_block_size_minus3", maximum: 3)
        log2DiffMaxMinLumaCodingBlockSize = try reader.unsignedExpGolomb(
            "log2_diff_max_min_luma_coding_block_size", maximum: 3)
        let minCbLog2SizeY = log2MinLumaCodingBlockSizeMinus3 + 3
        let ctbLog2SizeY = minCbLog2SizeY + log2DiffMaxMinLumaCodingBlockSize
        guard (4...6).contains(ctbLog2SizeY) else {
            throw Self.badData("CtbLog2SizeY is \(ctbLog2SizeY), outside 4...6 (clause A.3)")
        }
        try Self.checkPictureSize(
            width: picWidthInLumaSamples, height: picHeightInLumaSamples, minCbLog2SizeY: minCbLog2SizeY)
        try Self.checkConformanceWindow(
            chromaFormatIdc: separateColourPlaneFlag ? 0 : chromaFormatIdc,
            width: picWidthInLumaSamples, height: picHeightInLumaSamples,
            offsets: (confWinLeftOffset, confWinRightOffset, confWinTopOffset, confWinBottomOffset))

        // MinTbLog2SizeY < MinCbLog2SizeY; MaxTbLog2SizeY <= Min(CtbLog2SizeY, 5) (clause 7.4.3.2.1).
        log2MinLumaTransformBlockSizeMinus2 = try reader.unsignedExpGolomb(
            "log2_min_luma_transform_block_size_minus2", maximum: minCbLog2SizeY - 3)
        let minTbLog2SizeY = log2MinLumaTransformBlockSizeMinus2 + 2
        log2DiffMaxMinLumaTransformBlockSize = try reader.unsignedExpGolomb(
            "log2_diff_max_min_luma_transform_block_size", maximum: min(ctbLog2SizeY, 5) - minTbLog2SizeY)
        maxTransformHierarchyDepthInter = try reader.unsignedExpGolomb(
            "max_transform_hierarchy_depth_inter", maximum: ctbLog2SizeY - minTbLog2SizeY)
        maxTransformHierarchyDepthIntra = try reader.unsignedExpGolomb(
            "max_transform_hierarchy_depth_intra", maximum: ctbLog2SizeY - minTbLog2SizeY)

        scalingListEnabledFlag = try reader.flag("scaling_list_enabled_flag")
        spsScalingListDataPresentFlag = false
        scalingListData = nil
        if scalingListEnabledFlag {
            spsScalingListDataPresentFlag = try reader.flag("sps_scaling_list_data_present_flag")
            scalingListData = spsScalingListDataPresentFlag ? try HEVCScalingListData(&reader) : .default
        }
        ampEnabledFlag = try reader.flag("amp_enabled_flag")
        sampleAdaptiveOffsetEnabledFlag = try reader.flag("sample_adaptive_offset_enabled_flag")

        pcmEnabledFlag = try reader.flag("pcm_enabled_flag")
        (pcmSampleBitDepthLumaMinus1, pcmSampleBitDepthChromaMinus1) = (0, 0)
        (log2MinPcmLumaCodingBlockSizeMinus3, log2DiffMaxMinPcmLumaCodingBlockSize) = (0, 0)
        pcmLoopFilterDisabledFlag = false
        if pcmEnabledFlag {
            // PcmBitDepthY <= BitDepthY, PcmBitDepthC <= BitDepthC; Log2MinIpcmCbSizeY in
            // Min(MinCbLog2SizeY, 5)...Min(CtbLog2SizeY, 5) and Log2MaxIpcmCbSizeY <= Min(CtbLog2SizeY, 5).
            pcmSampleBitDepthLumaMinus1 = try reader.int(4, "pcm_sample_bit_depth_luma_minus1")
            pcmSampleBitDepthChromaMinus1 = try reader.int(4, "pcm_sample_bit_depth_chroma_minus1")
            guard pcmSampleBitDepthLumaMinus1 + 1 <= bitDepthLumaMinus8 + 8,
                pcmSampleBitDepthChromaMinus1 + 1 <= bitDepthChromaMinus8 + 8
            else {
                throw Self.badData(
                    "the PCM bit depths \(pcmSampleBitDepthLumaMinus1 + 1)/\(pcmSampleBitDepthChromaMinus1 + 1) exceed the bit depths \(bitDepthLumaMinus8 + 8)/\(bitDepthChromaMinus8 + 8)"
                )
            }
            log2MinPcmLumaCodingBlockSizeMinus3 = try reader.unsignedExpGolomb(
                "log2_min_pcm_luma_coding_block_size_minus3", maximum: min(ctbLog2SizeY, 5) - 3)
            let log2MinIpcmCbSizeY = log2MinPcmLumaCodingBlockSizeMinus3 + 3
            guard log2MinIpcmCbSizeY >= min(minCbLog2SizeY, 5) else {
                throw Self.badData("Log2MinIpcmCbSizeY is \(log2MinIpcmCbSizeY), less than Min(MinCbLog2SizeY, 5)")
            }
            log2DiffMaxMinPcmLumaCodingBlockSize = try reader.unsignedExpGolomb(
                "log2_diff_max_min_pcm_luma_coding_block_size", maximum: min(ctbLog2SizeY, 5) - log2MinIpcmCbSizeY)
            pcmLoopFilterDisabledFlag = try reader.flag("pcm_loop_filter_disabled_flag")
        }

        let numShortTermRefPicSets = try reader.unsignedExpGolomb("num_short_term_ref_pic_sets", maximum: 64)
        let maxDecPicBufferingMinus1 = spsMaxDecPicBufferingMinus1.last ?? 0
        var sets: [HEVCShortTermRefPicSet] = []
        for stRpsIdx in 0..<numShortTermRefPicSets {
            sets.append(
                try HEVCShortTermRefPicSet(
                    &reader, stRpsIdx: stRpsIdx, previousSets: sets, numShortTermRefPicSets: numShortTermRefPicSets,
                    maxDecPicBufferingMinus1: maxDecPicBufferingMinus1))
        }
        shortTermRefPicSets = sets

        longTermRefPicsPresentFlag = try reader.flag("long_term_ref_pics_present_flag")
        ltRefPicPocLsbSps = []
        usedByCurrPicLtSpsFlag = []
        if longTermRefPicsPresentFlag {
            let count = try reader.unsignedExpGolomb("num_long_term_ref_pics_sps", maximum: 32)
            for _ in 0..<count {
                ltRefPicPocLsbSps.append(try reader.int(log2MaxPicOrderCntLsbMinus4 + 4, "lt_ref_pic_poc_lsb_sps"))
                usedByCurrPicLtSpsFlag.append(try reader.flag("used_by_curr_pic_lt_sps_flag"))
            }
        }
        spsTemporalMvpEnabledFlag = try reader.flag("sps_temporal_mvp_enabled_flag")
        strongIntraSmoothingEnabledFlag = try reader.flag("strong_intra_smoothing_enabled_flag")
        let vuiPresent = try reader.flag("vui_parameters_present_flag")
        vuiParameters = vuiPresent ? try HEVCVUIParameters(&reader, spsMaxSubLayersMinus1: spsMaxSubLayersMinus1) : nil
        // sps_extension_present_flag and the extensions are not parsed (see the type's discussion).
    }

    // MARK: Derived values

    /// The coded width, `pic_width_in_luma_samples`.
    public var codedWidth: Int { picWidthInLumaSamples }
    /// The coded height, `pic_height_in_luma_samples`.
    public var codedHeight: Int { picHeightInLumaSamples }
    /// `ChromaArrayType`: `chroma_format_idc`, or 0 when the colour planes are coded separately.
    public var chromaArrayType: Int { separateColourPlaneFlag ? 0 : chromaFormatIdc }
    /// `SubWidthC` (Table 6-1): 2 for 4:2:0 and 4:2:2, 1 otherwise.
    public var subWidthC: Int { Self.subSampling(chromaArrayType).width }
    /// `SubHeightC` (Table 6-1): 2 for 4:2:0, 1 otherwise.
    public var subHeightC: Int { Self.subSampling(chromaArrayType).height }
    /// The width after the conformance window, what a player displays:
    /// `pic_width_in_luma_samples − SubWidthC * (conf_win_left_offset + conf_win_right_offset)`
    /// (clause 7.4.3.2.1).
    public var displayWidth: Int { picWidthInLumaSamples - subWidthC * (confWinLeftOffset + confWinRightOffset) }
    /// The height after the conformance window:
    /// `pic_height_in_luma_samples − SubHeightC * (conf_win_top_offset + conf_win_bottom_offset)`.
    public var displayHeight: Int { picHeightInLumaSamples - subHeightC * (confWinTopOffset + confWinBottomOffset) }
    /// The conformance window's left edge in luma samples, `SubWidthC * conf_win_left_offset`.
    public var displayLeft: Int { subWidthC * confWinLeftOffset }
    /// The conformance window's top edge in luma samples, `SubHeightC * conf_win_top_offset`.
    public var displayTop: Int { subHeightC * confWinTopOffset }
    /// `BitDepthY` = 8 + `bit_depth_luma_minus8`.
    public var bitDepthLuma: Int { bitDepthLumaMinus8 + 8 }
    /// `BitDepthC` = 8 + `bit_depth_chroma_minus8`.
    public var bitDepthChroma: Int { bitDepthChromaMinus8 + 8 }
    /// `MaxPicOrderCntLsb` = 2^(`log2_max_pic_order_cnt_lsb_minus4` + 4).
    public var maxPicOrderCntLsb: Int { 1 << (log2MaxPicOrderCntLsbMinus4 + 4) }
    /// `sps_max_num_reorder_pics` of the highest sub-layer: how many pictures may precede a
    /// picture in decoding order and follow it in output order (libavcodec's `has_b_frames`).
    public var maxNumReorderPics: Int { spsMaxNumReorderPics.last ?? 0 }
    /// `sps_max_dec_pic_buffering_minus1 + 1` of the highest sub-layer: the decoded picture buffer
    /// size in pictures.
    public var maxDecPicBuffering: Int { (spsMaxDecPicBufferingMinus1.last ?? 0) + 1 }
    /// `MinCbLog2SizeY` = `log2_min_luma_coding_block_size_minus3 + 3`.
    public var minCbLog2SizeY: Int { log2MinLumaCodingBlockSizeMinus3 + 3 }
    /// `CtbLog2SizeY` = `MinCbLog2SizeY + log2_diff_max_min_luma_coding_block_size`, 4 to 6.
    public var ctbLog2SizeY: Int { minCbLog2SizeY + log2DiffMaxMinLumaCodingBlockSize }
    /// `CtbSizeY`: 16, 32 or 64.
    public var ctbSizeY: Int { 1 << ctbLog2SizeY }
    /// `PicWidthInCtbsY` = `Ceil(pic_width_in_luma_samples ÷ CtbSizeY)`.
    public var picWidthInCtbsY: Int { (picWidthInLumaSamples + ctbSizeY - 1) >> ctbLog2SizeY }
    /// `PicHeightInCtbsY` = `Ceil(pic_height_in_luma_samples ÷ CtbSizeY)`.
    public var picHeightInCtbsY: Int { (picHeightInLumaSamples + ctbSizeY - 1) >> ctbLog2SizeY }
    /// `PicSizeInCtbsY` = `PicWidthInCtbsY * PicHeightInCtbsY`.
    public var picSizeInCtbsY: Int { picWidthInCtbsY * picHeightInCtbsY }
    /// The sample aspect ratio from the VUI (see ``HEVCVUIParameters/sampleAspectRatio``); nil
    /// when the SPS has no VUI or the VUI leaves it unspecified.
    public var sampleAspectRatio: (width: Int, height: Int)? { vuiParameters?.sampleAspectRatio }

    // MARK: Checks

    /// `SubWidthC` and `SubHeightC` for a `ChromaArrayType` (Table 6-1).
    static func subSampling(_ chromaArrayType: Int) -> (width: Int, height: Int) {
        switch chromaArrayType {
        case 1: (2, 2)
        case 2: (2, 1)
        default: (1, 1)
        }
    }

    /// The picture size is not 0 and a multiple of `MinCbSizeY` (clause 7.4.3.2.1).
    private static func checkPictureSize(width: Int, height: Int, minCbLog2SizeY: Int) throws(VTError) {
        let minCbSizeY = 1 << minCbLog2SizeY
        guard width > 0, height > 0, width % minCbSizeY == 0, height % minCbSizeY == 0 else {
            throw badData(
                "the picture size \(width)x\(height) is not a non-zero multiple of MinCbSizeY (\(minCbSizeY))")
        }
    }

    /// The conformance window leaves at least one sample: `SubWidthC * (left + right)` is less
    /// than the width and `SubHeightC * (top + bottom)` less than the height (clause 7.4.3.2.1).
    ///
    /// The offsets are at most ``maxPicDimension``, so the sums cannot overflow.
    private static func checkConformanceWindow(
        chromaFormatIdc: Int, width: Int, height: Int, offsets: (left: Int, right: Int, top: Int, bottom: Int)
    ) throws(VTError) {
        let (subWidthC, subHeightC) = subSampling(chromaFormatIdc)
        guard subWidthC * (offsets.left + offsets.right) < width,
            subHeightC * (offsets.top + offsets.bottom) < height
        else {
            throw badData(
                "the conformance window (\(offsets.left), \(offsets.right), \(offsets.top), \(offsets.bottom)) leaves nothing of the \(width)x\(height) picture"
            )
        }
    }

    private static func badData(_ reason: String) -> VTError {
        VTError.videoDecoderBadData.with("HEVC SPS: \(reason)")
    }
}
