/// An H.264 sequence parameter set, `seq_parameter_set_data()` (clause 7.3.2.1.1), with its VUI.
///
/// Field names are the spec's syntax elements in lowerCamelCase. Derived values (sizes after
/// cropping, bit depths, the profile name) are computed properties.
public struct H264SequenceParameterSet: Sendable, Hashable {
    /// `profile_idc`: 66 Baseline, 77 Main, 88 Extended, 100 High, 110 High 10, 122 High 4:2:2,
    /// 244 High 4:4:4 Predictive, 44 CAVLC 4:4:4 Intra, and others (Annex A, G, H).
    public var profileIdc: Int
    /// `constraint_set0_flag` … `constraint_set5_flag`: bit *i* holds `constraint_set<i>_flag`.
    public var constraintSetFlags: UInt8
    /// `level_idc`: ten times the level number (30 for level 3.0); 9 denotes level 1b.
    public var levelIdc: Int
    /// `seq_parameter_set_id` (0 to 31).
    public var seqParameterSetId: Int
    /// `chroma_format_idc`: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4. Inferred 1 when absent.
    public var chromaFormatIdc: Int = 1
    /// `separate_colour_plane_flag` (4:4:4 coded as three monochrome planes).
    public var separateColourPlaneFlag = false
    /// `bit_depth_luma_minus8` (0 to 6).
    public var bitDepthLumaMinus8 = 0
    /// `bit_depth_chroma_minus8` (0 to 6).
    public var bitDepthChromaMinus8 = 0
    /// `qpprime_y_zero_transform_bypass_flag` (lossless macroblocks allowed).
    public var qpprimeYZeroTransformBypassFlag = false
    /// `seq_scaling_matrix_present_flag`.
    public var seqScalingMatrixPresentFlag = false
    /// The sequence-level scaling lists, 6 of 4x4 then 2 or 6 of 8x8; empty when not present.
    public var scalingLists: [H264ScalingList] = []
    /// `log2_max_frame_num_minus4` (0 to 12).
    public var log2MaxFrameNumMinus4: Int
    /// `pic_order_cnt_type` (0 to 2).
    public var picOrderCntType: Int
    /// `log2_max_pic_order_cnt_lsb_minus4` (0 to 12), for `pic_order_cnt_type` 0.
    public var log2MaxPicOrderCntLsbMinus4 = 0
    /// `delta_pic_order_always_zero_flag`, for `pic_order_cnt_type` 1.
    public var deltaPicOrderAlwaysZeroFlag = false
    /// `offset_for_non_ref_pic`, for `pic_order_cnt_type` 1.
    public var offsetForNonRefPic = 0
    /// `offset_for_top_to_bottom_field`, for `pic_order_cnt_type` 1.
    public var offsetForTopToBottomField = 0
    /// `offset_for_ref_frame[i]`, for `pic_order_cnt_type` 1 (at most 255 entries).
    public var offsetForRefFrame: [Int] = []
    /// `max_num_ref_frames`.
    public var maxNumRefFrames: Int
    /// `gaps_in_frame_num_value_allowed_flag`.
    public var gapsInFrameNumValueAllowedFlag: Bool
    /// `pic_width_in_mbs_minus1`.
    public var picWidthInMbsMinus1: Int
    /// `pic_height_in_map_units_minus1`.
    public var picHeightInMapUnitsMinus1: Int
    /// `frame_mbs_only_flag`: 0 when pictures may be coded as fields (interlaced).
    public var frameMbsOnlyFlag: Bool
    /// `mb_adaptive_frame_field_flag` (MBAFF), when `frame_mbs_only_flag` is 0.
    public var mbAdaptiveFrameFieldFlag = false
    /// `direct_8x8_inference_flag`.
    public var direct8x8InferenceFlag: Bool
    /// `frame_cropping_flag`.
    public var frameCroppingFlag: Bool
    /// `frame_crop_left_offset`, in crop units (see ``cropUnitX``).
    public var frameCropLeftOffset = 0
    /// `frame_crop_right_offset`, in crop units.
    public var frameCropRightOffset = 0
    /// `frame_crop_top_offset`, in crop units (see ``cropUnitY``).
    public var frameCropTopOffset = 0
    /// `frame_crop_bottom_offset`, in crop units.
    public var frameCropBottomOffset = 0
    /// `vui_parameters()`, when `vui_parameters_present_flag` is 1.
    public var vui: H264VUIParameters?

    /// Parses an SPS NAL unit.
    ///
    /// - Throws: ``VTError/videoDecoderBadData`` when the unit is not an SPS, is truncated, or
    ///   holds a value outside the range the spec allows.
    public init(_ nalUnit: NALUnit) throws(VTError) {
        guard nalUnit.h264Type == .sequenceParameterSet else {
            throw VTError.videoDecoderBadData.with("expected an H.264 SPS, got NAL unit \(nalUnit)")
        }
        try self.init(rbsp: nalUnit.rbsp)
    }

    /// Parses the RBSP of an SPS (the NAL unit payload after its header, unescaped).
    ///
    /// - Throws: ``VTError/videoDecoderBadData`` when the payload is truncated or out of range.
    public init(rbsp: [UInt8]) throws(VTError) {
        var r = BitReader(rbsp, context: "H.264 SPS")
        profileIdc = try r.int(8, "profile_idc")
        constraintSetFlags = 0
        for i in 0..<6 where try r.flag("constraint_set_flag") { constraintSetFlags |= 1 << i }
        try r.skip(2, "reserved_zero_2bits")
        levelIdc = try r.int(8, "level_idc")
        seqParameterSetId = try r.unsignedExpGolomb("seq_parameter_set_id", maximum: 31)
        if Self.profilesWithChromaInfo.contains(profileIdc) {
            chromaFormatIdc = try r.unsignedExpGolomb("chroma_format_idc", maximum: 3)
            if chromaFormatIdc == 3 {
                separateColourPlaneFlag = try r.flag("separate_colour_plane_flag")
            }
            bitDepthLumaMinus8 = try r.unsignedExpGolomb("bit_depth_luma_minus8", maximum: 6)
            bitDepthChromaMinus8 = try r.unsignedExpGolomb("bit_depth_chroma_minus8", maximum: 6)
            qpprimeYZeroTransformBypassFlag = try r.flag("qpprime_y_zero_transform_bypass_flag")
            seqScalingMatrixPresentFlag = try r.flag("seq_scaling_matrix_present_flag")
            if seqScalingMatrixPresentFlag {
                let count = chromaFormatIdc != 3 ? 8 : 12
                for i in 0..<count {
                    scalingLists.append(try H264ScalingList(from: &r, size: i < 6 ? 16 : 64))
                }
            }
        }
        log2MaxFrameNumMinus4 = try r.unsignedExpGolomb("log2_max_frame_num_minus4", maximum: 12)
        picOrderCntType = try r.unsignedExpGolomb("pic_order_cnt_type", maximum: 2)
        if picOrderCntType == 0 {
            log2MaxPicOrderCntLsbMinus4 = try r.unsignedExpGolomb("log2_max_pic_order_cnt_lsb_minus4", maximum: 12)
        } else if picOrderCntType == 1 {
            deltaPicOrderAlwaysZeroFlag = try r.flag("delta_pic_order_always_zero_flag")
            offsetForNonRefPic = Int(try r.signedExpGolomb("offset_for_non_ref_pic"))
            offsetForTopToBottomField = Int(try r.signedExpGolomb("offset_for_top_to_bottom_field"))
            let cycle = try r.unsignedExpGolomb("num_ref_frames_in_pic_order_cnt_cycle", maximum: 255)
            for _ in 0..<cycle { offsetForRefFrame.append(Int(try r.signedExpGolomb("offset_for_ref_frame"))) }
        }
        maxNumRefFrames = try r.unsignedExpGolomb("max_num_ref_frames", maximum: 16)
        gapsInFrameNumValueAllowedFlag = try r.flag("gaps_in_frame_num_value_allowed_flag")
        // Level 6.2 allows 139264 macroblocks per frame; 2^16 per dimension bounds every sum below.
        picWidthInMbsMinus1 = try r.unsignedExpGolomb("pic_width_in_mbs_minus1", maximum: 4095)
        picHeightInMapUnitsMinus1 = try r.unsignedExpGolomb("pic_height_in_map_units_minus1", maximum: 4095)
        frameMbsOnlyFlag = try r.flag("frame_mbs_only_flag")
        if !frameMbsOnlyFlag {
            mbAdaptiveFrameFieldFlag = try r.flag("mb_adaptive_frame_field_flag")
        }
        direct8x8InferenceFlag = try r.flag("direct_8x8_inference_flag")
        frameCroppingFlag = try r.flag("frame_cropping_flag")
        if frameCroppingFlag {
            frameCropLeftOffset = try r.unsignedExpGolomb("frame_crop_left_offset", maximum: 1 << 16)
            frameCropRightOffset = try r.unsignedExpGolomb("frame_crop_right_offset", maximum: 1 << 16)
            frameCropTopOffset = try r.unsignedExpGolomb("frame_crop_top_offset", maximum: 1 << 16)
            frameCropBottomOffset = try r.unsignedExpGolomb("frame_crop_bottom_offset", maximum: 1 << 16)
            let horizontal = cropUnitX * (frameCropLeftOffset + frameCropRightOffset)
            let vertical = cropUnitY * (frameCropTopOffset + frameCropBottomOffset)
            guard horizontal < codedWidth, vertical < codedHeight else {
                throw VTError.videoDecoderBadData.with(
                    "H.264 SPS: the cropping window (\(horizontal) x \(vertical) samples cropped) leaves no picture of \(codedWidth)x\(codedHeight)"
                )
            }
        }
        if try r.flag("vui_parameters_present_flag") {
            vui = try H264VUIParameters(from: &r)
        }
    }

    /// The profiles whose SPS carries `chroma_format_idc` and the bit depths (clause 7.3.2.1.1).
    static let profilesWithChromaInfo: Set<Int> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    /// `ChromaArrayType`: `chroma_format_idc`, or 0 when the colour planes are coded separately.
    public var chromaArrayType: Int { separateColourPlaneFlag ? 0 : chromaFormatIdc }

    /// `BitDepthY`, 8 to 14.
    public var bitDepthLuma: Int { 8 + bitDepthLumaMinus8 }
    /// `BitDepthC`, 8 to 14.
    public var bitDepthChroma: Int { 8 + bitDepthChromaMinus8 }

    /// `MaxFrameNum` = 2^(log2_max_frame_num_minus4 + 4).
    public var maxFrameNum: Int { 1 << (log2MaxFrameNumMinus4 + 4) }

    /// The decoded picture width in luma samples, a multiple of 16.
    public var codedWidth: Int { (picWidthInMbsMinus1 + 1) * 16 }
    /// The decoded frame height in luma samples: `FrameHeightInMbs * 16`.
    public var codedHeight: Int { (2 - (frameMbsOnlyFlag ? 1 : 0)) * (picHeightInMapUnitsMinus1 + 1) * 16 }

    /// `CropUnitX` (equation 7-19/7-21): the horizontal crop step in luma samples.
    public var cropUnitX: Int { chromaArrayType == 0 || chromaFormatIdc == 3 ? 1 : 2 }
    /// `CropUnitY` (equation 7-20/7-22): the vertical crop step in luma samples.
    public var cropUnitY: Int {
        let fieldFactor = 2 - (frameMbsOnlyFlag ? 1 : 0)
        return chromaArrayType == 0 || chromaFormatIdc != 1 ? fieldFactor : 2 * fieldFactor
    }

    /// The cropping window in luma samples: left, right, top, bottom.
    public var cropRectangle: (left: Int, right: Int, top: Int, bottom: Int) {
        (
            cropUnitX * frameCropLeftOffset, cropUnitX * frameCropRightOffset,
            cropUnitY * frameCropTopOffset, cropUnitY * frameCropBottomOffset
        )
    }

    /// The width of the picture after cropping (what is displayed).
    public var displayWidth: Int { codedWidth - cropUnitX * (frameCropLeftOffset + frameCropRightOffset) }
    /// The height of the picture after cropping.
    public var displayHeight: Int { codedHeight - cropUnitY * (frameCropTopOffset + frameCropBottomOffset) }

    /// The profile's name as libavcodec and ffprobe print it, for example `"Constrained Baseline"`
    /// (Baseline with `constraint_set1_flag`) or `"High 10 Intra"` (with `constraint_set3_flag`).
    public var profileName: String {
        let set1 = constraintSetFlags & 0b10 != 0
        let set3 = constraintSetFlags & 0b1000 != 0
        switch profileIdc {
        case 66: return set1 ? "Constrained Baseline" : "Baseline"
        case 77: return "Main"
        case 88: return "Extended"
        case 100: return "High"
        case 110: return set3 ? "High 10 Intra" : "High 10"
        case 122: return set3 ? "High 4:2:2 Intra" : "High 4:2:2"
        case 244: return set3 ? "High 4:4:4 Intra" : "High 4:4:4 Predictive"
        case 44: return "CAVLC 4:4:4"
        case 118: return "Multiview High"
        case 128: return "Stereo High"
        default: return "profile_idc \(profileIdc)"
        }
    }

    /// The number of frames a decoder holds back to output pictures in order: the VUI's
    /// `max_num_reorder_frames` when present; otherwise 0 for profiles without B slices
    /// (Baseline, and intra-only profiles), else `MaxDpbFrames` as clause E.2.1 infers.
    public var maxNumReorderFrames: Int {
        if let restriction = vui?.bitstreamRestriction { return restriction.maxNumReorderFrames }
        let intraOnly = constraintSetFlags & 0b1000 != 0 && [44, 86, 100, 110, 122, 244].contains(profileIdc)
        if profileIdc == 66 || intraOnly { return 0 }
        return maxDpbFrames
    }

    /// `MaxDpbFrames` (clause A.3.1 h): the DPB size the level allows for this picture size,
    /// capped at 16 frames; `max_dec_frame_buffering` when the VUI gives it.
    public var maxDpbFrames: Int {
        if let restriction = vui?.bitstreamRestriction { return restriction.maxDecFrameBuffering }
        let frameSizeInMbs = (picWidthInMbsMinus1 + 1) * (codedHeight / 16)
        let maxDpbMbs = Self.maxDpbMbs(levelIdc: levelIdc, constraintSet3: constraintSetFlags & 0b1000 != 0)
        return max(1, min(16, maxDpbMbs / max(1, frameSizeInMbs)))
    }

    /// `MaxDpbMbs` from Table A-1 for a level.
    static func maxDpbMbs(levelIdc: Int, constraintSet3: Bool) -> Int {
        switch levelIdc {
        case 9: return 396
        case 10: return 396
        case 11: return constraintSet3 ? 396 : 900
        case 12, 13, 20: return 2376
        case 21: return 4752
        case 22, 30: return 8100
        case 31: return 18000
        case 32: return 20480
        case 40, 41: return 32768
        case 42: return 34816
        case 50: return 110400
        case 51, 52: return 184320
        default: return 696320
        }
    }
}

/// One scaling list of an H.264 SPS or PPS (`scaling_list()`, clause 7.3.2.1.1.1).
public enum H264ScalingList: Sendable, Hashable {
    /// Not transmitted: fall-back rule A or B applies (Table 7-2).
    case notPresent
    /// Transmitted as "use the default list" (`useDefaultScalingMatrixFlag`).
    case useDefault
    /// Transmitted values, in zig-zag scan order (16 or 64 entries).
    case explicit([UInt8])

    /// Reads one `seq_scaling_list_present_flag[i]` and, when set, the list.
    init(from r: inout BitReader, size: Int) throws(VTError) {
        guard try r.flag("seq_scaling_list_present_flag") else {
            self = .notPresent
            return
        }
        var lastScale = 8
        var nextScale = 8
        var values: [UInt8] = []
        for j in 0..<size {
            if nextScale != 0 {
                let delta = try r.signedExpGolomb("delta_scale", in: -128...127)
                nextScale = (lastScale + delta + 256) % 256
                if j == 0 && nextScale == 0 {
                    self = .useDefault
                    return
                }
            }
            let scale = nextScale == 0 ? lastScale : nextScale
            values.append(UInt8(scale))
            lastScale = scale
        }
        self = .explicit(values)
    }
}
