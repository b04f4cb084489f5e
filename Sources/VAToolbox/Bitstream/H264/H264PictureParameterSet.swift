/// An H.264 picture parameter set, `pic_parameter_set_rbsp()` (clause 7.3.2.2).
///
/// Parsed up to `transform_8x8_mode_flag`: everything needed to find picture boundaries and to
/// report the stream's coding tools. The PPS scaling lists and `second_chroma_qp_index_offset`
/// that may follow are left to the decoder.
public struct H264PictureParameterSet: Sendable, Hashable {
    /// `pic_parameter_set_id` (0 to 255).
    public var picParameterSetId: Int
    /// `seq_parameter_set_id` (0 to 31): the SPS this PPS refers to.
    public var seqParameterSetId: Int
    /// `entropy_coding_mode_flag`: 1 for CABAC, 0 for CAVLC.
    public var entropyCodingModeFlag: Bool
    /// `bottom_field_pic_order_in_frame_present_flag`: slice headers carry `delta_pic_order_cnt_bottom`.
    public var bottomFieldPicOrderInFramePresentFlag: Bool
    /// `num_slice_groups_minus1` (flexible macroblock ordering when above 0).
    public var numSliceGroupsMinus1: Int
    /// `slice_group_map_type`, when there are several slice groups.
    public var sliceGroupMapType = 0
    /// `num_ref_idx_l0_default_active_minus1` (0 to 31).
    public var numRefIdxL0DefaultActiveMinus1: Int
    /// `num_ref_idx_l1_default_active_minus1` (0 to 31).
    public var numRefIdxL1DefaultActiveMinus1: Int
    /// `weighted_pred_flag`.
    public var weightedPredFlag: Bool
    /// `weighted_bipred_idc` (0 to 2).
    public var weightedBipredIdc: Int
    /// `pic_init_qp_minus26` (-26 to 25).
    public var picInitQpMinus26: Int
    /// `pic_init_qs_minus26` (-26 to 25).
    public var picInitQsMinus26: Int
    /// `chroma_qp_index_offset` (-12 to 12).
    public var chromaQpIndexOffset: Int
    /// `deblocking_filter_control_present_flag`.
    public var deblockingFilterControlPresentFlag: Bool
    /// `constrained_intra_pred_flag`.
    public var constrainedIntraPredFlag: Bool
    /// `redundant_pic_cnt_present_flag`: slice headers carry `redundant_pic_cnt`.
    public var redundantPicCntPresentFlag: Bool
    /// `transform_8x8_mode_flag` (High profiles), false when absent.
    public var transform8x8ModeFlag = false

    /// Parses a PPS NAL unit.
    ///
    /// - Throws: ``VTError/videoDecoderBadData`` when the unit is not a PPS, is truncated, or
    ///   holds a value outside the range the spec allows.
    public init(_ nalUnit: NALUnit) throws(VTError) {
        guard nalUnit.h264Type == .pictureParameterSet else {
            throw VTError.videoDecoderBadData.with("expected an H.264 PPS, got NAL unit \(nalUnit)")
        }
        try self.init(rbsp: nalUnit.rbsp)
    }

    /// Parses the RBSP of a PPS.
    ///
    /// - Throws: ``VTError/videoDecoderBadData`` when the payload is truncated or out of range.
    public init(rbsp: [UInt8]) throws(VTError) {
        var r = BitReader(rbsp, context: "H.264 PPS")
        picParameterSetId = try r.unsignedExpGolomb("pic_parameter_set_id", maximum: 255)
        seqParameterSetId = try r.unsignedExpGolomb("seq_parameter_set_id", maximum: 31)
        entropyCodingModeFlag = try r.flag("entropy_coding_mode_flag")
        bottomFieldPicOrderInFramePresentFlag = try r.flag("bottom_field_pic_order_in_frame_present_flag")
        numSliceGroupsMinus1 = try r.unsignedExpGolomb("num_slice_groups_minus1", maximum: 7)
        if numSliceGroupsMinus1 > 0 {
            sliceGroupMapType = try r.unsignedExpGolomb("slice_group_map_type", maximum: 6)
            try Self.skipSliceGroupMap(&r, type: sliceGroupMapType, numSliceGroupsMinus1: numSliceGroupsMinus1)
        }
        numRefIdxL0DefaultActiveMinus1 = try r.unsignedExpGolomb("num_ref_idx_l0_default_active_minus1", maximum: 31)
        numRefIdxL1DefaultActiveMinus1 = try r.unsignedExpGolomb("num_ref_idx_l1_default_active_minus1", maximum: 31)
        weightedPredFlag = try r.flag("weighted_pred_flag")
        weightedBipredIdc = try r.int(2, "weighted_bipred_idc")
        picInitQpMinus26 = try r.signedExpGolomb("pic_init_qp_minus26", in: -(26 + 6 * 6)...25)
        picInitQsMinus26 = try r.signedExpGolomb("pic_init_qs_minus26", in: -26...25)
        chromaQpIndexOffset = try r.signedExpGolomb("chroma_qp_index_offset", in: -12...12)
        deblockingFilterControlPresentFlag = try r.flag("deblocking_filter_control_present_flag")
        constrainedIntraPredFlag = try r.flag("constrained_intra_pred_flag")
        redundantPicCntPresentFlag = try r.flag("redundant_pic_cnt_present_flag")
        if r.moreRBSPData {
            transform8x8ModeFlag = try r.flag("transform_8x8_mode_flag")
        }
    }

    /// Reads past the slice group map of flexible macroblock ordering (clause 7.3.2.2).
    private static func skipSliceGroupMap(
        _ r: inout BitReader, type: Int, numSliceGroupsMinus1: Int
    ) throws(VTError) {
        switch type {
        case 0:
            for _ in 0...numSliceGroupsMinus1 { _ = try r.unsignedExpGolomb("run_length_minus1") }
        case 2:
            for _ in 0..<numSliceGroupsMinus1 {
                _ = try r.unsignedExpGolomb("top_left")
                _ = try r.unsignedExpGolomb("bottom_right")
            }
        case 3, 4, 5:
            try r.skip(1, "slice_group_change_direction_flag")
            _ = try r.unsignedExpGolomb("slice_group_change_rate_minus1")
        case 6:
            let units = try r.unsignedExpGolomb("pic_size_in_map_units_minus1", maximum: 1 << 20) + 1
            var bits = 0
            while (1 << bits) < numSliceGroupsMinus1 + 1 { bits += 1 }
            try r.skip(units * bits, "slice_group_id")
        default:
            break
        }
    }
}
