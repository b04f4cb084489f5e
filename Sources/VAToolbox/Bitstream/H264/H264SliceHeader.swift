/// An H.264 slice header (clause 7.3.3) up to `dec_ref_pic_marking()`: the fields that tell
/// whether a slice begins a new primary coded picture (clause 7.4.1.2.4) and whether the picture
/// resets the decoder's references (`memory_management_control_operation` 5).
///
/// Parsing stops before `cabac_init_idc` and `slice_qp_delta`.
public struct H264SliceHeader: Sendable, Hashable {
    /// `nal_unit_type` of the slice (1 to 5).
    public var nalUnitType: H264NALUnitType
    /// `nal_ref_idc` of the slice's NAL unit.
    public var nalRefIdc: UInt8
    /// `first_mb_in_slice`.
    public var firstMbInSlice: Int
    /// `slice_type` (0 to 9; values above 4 mean all slices of the picture have that type).
    public var sliceType: Int
    /// `pic_parameter_set_id`.
    public var picParameterSetId: Int
    /// `colour_plane_id`, when the SPS codes colour planes separately.
    public var colourPlaneId = 0
    /// `frame_num`.
    public var frameNum: Int
    /// `field_pic_flag`: the slice belongs to a field picture.
    public var fieldPicFlag = false
    /// `bottom_field_flag`: the field is the bottom one.
    public var bottomFieldFlag = false
    /// `idr_pic_id`, for IDR slices.
    public var idrPicId = 0
    /// `pic_order_cnt_lsb`, for `pic_order_cnt_type` 0.
    public var picOrderCntLsb = 0
    /// `delta_pic_order_cnt_bottom`, for `pic_order_cnt_type` 0.
    public var deltaPicOrderCntBottom = 0
    /// `delta_pic_order_cnt[0]` and `[1]`, for `pic_order_cnt_type` 1.
    public var deltaPicOrderCnt = [0, 0]
    /// `redundant_pic_cnt`: above 0 for slices of a redundant coded picture.
    public var redundantPicCnt = 0
    /// `num_ref_idx_l0_active_minus1` in force for the slice (the PPS default unless overridden).
    public var numRefIdxL0ActiveMinus1 = 0
    /// `num_ref_idx_l1_active_minus1` in force for the slice.
    public var numRefIdxL1ActiveMinus1 = 0
    /// `memory_management_control_operation` values of `dec_ref_pic_marking()`, in order.
    public var memoryManagementControlOperations: [Int] = []
    /// `no_output_of_prior_pics_flag`, for IDR slices.
    public var noOutputOfPriorPicsFlag = false
    /// `long_term_reference_flag`, for IDR slices.
    public var longTermReferenceFlag = false

    /// Whether the slice carries `memory_management_control_operation` 5: all references are
    /// dropped and frame numbering restarts, as at an IDR picture.
    public var hasMemoryManagementReset: Bool { memoryManagementControlOperations.contains(5) }

    /// The slice type without the "all slices alike" offset: 0 P, 1 B, 2 I, 3 SP, 4 SI.
    public var baseSliceType: Int { sliceType % 5 }

    /// Parses the start of a slice header.
    ///
    /// - Parameters:
    ///   - nalUnit: A slice NAL unit: type 1, 5, or 2 (partition A; partitions B and C have no header).
    ///   - pictureParameterSet: Finds the PPS with a given `pic_parameter_set_id`.
    ///   - sequenceParameterSet: Finds the SPS with a given `seq_parameter_set_id`.
    /// - Throws: ``VTError/videoDecoderBadData`` for a truncated header, a value out of range,
    ///   or a reference to a parameter set that has not been seen.
    public init(
        _ nalUnit: NALUnit,
        pictureParameterSet: (Int) -> H264PictureParameterSet?,
        sequenceParameterSet: (Int) -> H264SequenceParameterSet?
    ) throws(VTError) {
        guard let type = nalUnit.h264Type, type.carriesSliceHeader else {
            throw VTError.videoDecoderBadData.with("expected an H.264 slice, got NAL unit \(nalUnit)")
        }
        nalUnitType = type
        nalRefIdc = nalUnit.nalRefIdc
        // The header is at the start of the payload; 1 KiB covers the largest one (32 weighted
        // references in both lists) without unescaping a whole large slice.
        var r = BitReader(RBSP.unescape(nalUnit.payload.prefix(1024)), context: "H.264 slice header")
        firstMbInSlice = try r.unsignedExpGolomb("first_mb_in_slice", maximum: 139264)
        sliceType = try r.unsignedExpGolomb("slice_type", maximum: 9)
        picParameterSetId = try r.unsignedExpGolomb("pic_parameter_set_id", maximum: 255)
        guard let pps = pictureParameterSet(picParameterSetId) else {
            throw VTError.videoDecoderBadData.with(
                "H.264 slice refers to PPS \(picParameterSetId), which the stream has not sent")
        }
        guard let sps = sequenceParameterSet(pps.seqParameterSetId) else {
            throw VTError.videoDecoderBadData.with(
                "H.264 PPS \(pps.picParameterSetId) refers to SPS \(pps.seqParameterSetId), which the stream has not sent"
            )
        }
        if sps.separateColourPlaneFlag {
            colourPlaneId = try r.int(2, "colour_plane_id")
        }
        frameNum = try r.int(sps.log2MaxFrameNumMinus4 + 4, "frame_num")
        if !sps.frameMbsOnlyFlag {
            fieldPicFlag = try r.flag("field_pic_flag")
            if fieldPicFlag {
                bottomFieldFlag = try r.flag("bottom_field_flag")
            }
        }
        if type == .idrSlice {
            idrPicId = try r.unsignedExpGolomb("idr_pic_id", maximum: 65535)
        }
        if sps.picOrderCntType == 0 {
            picOrderCntLsb = try r.int(sps.log2MaxPicOrderCntLsbMinus4 + 4, "pic_order_cnt_lsb")
            if pps.bottomFieldPicOrderInFramePresentFlag && !fieldPicFlag {
                deltaPicOrderCntBottom = Int(try r.signedExpGolomb("delta_pic_order_cnt_bottom"))
            }
        }
        if sps.picOrderCntType == 1 && !sps.deltaPicOrderAlwaysZeroFlag {
            deltaPicOrderCnt[0] = Int(try r.signedExpGolomb("delta_pic_order_cnt[0]"))
            if pps.bottomFieldPicOrderInFramePresentFlag && !fieldPicFlag {
                deltaPicOrderCnt[1] = Int(try r.signedExpGolomb("delta_pic_order_cnt[1]"))
            }
        }
        if pps.redundantPicCntPresentFlag {
            redundantPicCnt = try r.unsignedExpGolomb("redundant_pic_cnt", maximum: 127)
        }
        // Partition A (type 2) carries slice_id after the header; the rest is the same.
        let isB = baseSliceType == 1
        let isPOrSP = baseSliceType == 0 || baseSliceType == 3
        if isB {
            try r.skip(1, "direct_spatial_mv_pred_flag")
        }
        numRefIdxL0ActiveMinus1 = pps.numRefIdxL0DefaultActiveMinus1
        numRefIdxL1ActiveMinus1 = pps.numRefIdxL1DefaultActiveMinus1
        if isPOrSP || isB {
            if try r.flag("num_ref_idx_active_override_flag") {
                numRefIdxL0ActiveMinus1 = try r.unsignedExpGolomb("num_ref_idx_l0_active_minus1", maximum: 31)
                if isB {
                    numRefIdxL1ActiveMinus1 = try r.unsignedExpGolomb("num_ref_idx_l1_active_minus1", maximum: 31)
                }
            }
            try Self.skipRefPicListModification(&r)
            if isB { try Self.skipRefPicListModification(&r) }
        }
        if (pps.weightedPredFlag && isPOrSP) || (pps.weightedBipredIdc == 1 && isB) {
            try skipPredWeightTable(&r, chromaArrayType: sps.chromaArrayType, isB: isB)
        }
        if nalRefIdc != 0 {
            if type == .idrSlice {
                noOutputOfPriorPicsFlag = try r.flag("no_output_of_prior_pics_flag")
                longTermReferenceFlag = try r.flag("long_term_reference_flag")
            } else if try r.flag("adaptive_ref_pic_marking_mode_flag") {
                try readMemoryManagementControlOperations(&r)
            }
        }
    }

    /// Reads past `ref_pic_list_modification()` for one list (clause 7.3.3.1).
    private static func skipRefPicListModification(_ r: inout BitReader) throws(VTError) {
        guard try r.flag("ref_pic_list_modification_flag") else { return }
        // At most one modification per reference index plus the terminating 3.
        for _ in 0...32 {
            let idc = try r.unsignedExpGolomb("modification_of_pic_nums_idc", maximum: 5)
            if idc == 3 { return }
            _ = try r.unsignedExpGolomb("abs_diff_pic_num_minus1 / long_term_pic_num")
        }
        throw VTError.videoDecoderBadData.with("H.264 slice header: ref_pic_list_modification has more than 32 entries")
    }

    /// Reads past `pred_weight_table()` (clause 7.3.3.2).
    private func skipPredWeightTable(_ r: inout BitReader, chromaArrayType: Int, isB: Bool) throws(VTError) {
        _ = try r.unsignedExpGolomb("luma_log2_weight_denom", maximum: 7)
        if chromaArrayType != 0 {
            _ = try r.unsignedExpGolomb("chroma_log2_weight_denom", maximum: 7)
        }
        for count in isB ? [numRefIdxL0ActiveMinus1, numRefIdxL1ActiveMinus1] : [numRefIdxL0ActiveMinus1] {
            for _ in 0...count {
                if try r.flag("luma_weight_flag") {
                    _ = try r.signedExpGolomb("luma_weight")
                    _ = try r.signedExpGolomb("luma_offset")
                }
                if chromaArrayType != 0, try r.flag("chroma_weight_flag") {
                    for _ in 0..<4 { _ = try r.signedExpGolomb("chroma_weight / chroma_offset") }
                }
            }
        }
    }

    /// Reads the operations of `dec_ref_pic_marking()` (clause 7.3.3.3).
    private mutating func readMemoryManagementControlOperations(_ r: inout BitReader) throws(VTError) {
        // Each operation appears at most a few times per picture; 66 bounds a hostile list.
        for _ in 0..<66 {
            let operation = try r.unsignedExpGolomb("memory_management_control_operation", maximum: 6)
            if operation == 0 { return }
            memoryManagementControlOperations.append(operation)
            if operation == 1 || operation == 3 { _ = try r.unsignedExpGolomb("difference_of_pic_nums_minus1") }
            if operation == 2 { _ = try r.unsignedExpGolomb("long_term_pic_num") }
            if operation == 3 || operation == 6 { _ = try r.unsignedExpGolomb("long_term_frame_idx") }
            if operation == 4 { _ = try r.unsignedExpGolomb("max_long_term_frame_idx_plus1") }
        }
        throw VTError.videoDecoderBadData.with("H.264 slice header: dec_ref_pic_marking has more than 66 operations")
    }

    /// Whether this slice belongs to a different primary coded picture than `previous`, the
    /// slice before it: the comparison of clause 7.4.1.2.4.
    public func startsNewPicture(after previous: H264SliceHeader) -> Bool {
        frameNum != previous.frameNum
            || picParameterSetId != previous.picParameterSetId
            || fieldPicFlag != previous.fieldPicFlag
            || (fieldPicFlag && bottomFieldFlag != previous.bottomFieldFlag)
            || (nalRefIdc == 0) != (previous.nalRefIdc == 0)
            || picOrderCntLsb != previous.picOrderCntLsb
            || deltaPicOrderCntBottom != previous.deltaPicOrderCntBottom
            || deltaPicOrderCnt != previous.deltaPicOrderCnt
            || nalUnitType.isIDR != previous.nalUnitType.isIDR
            || (nalUnitType.isIDR && idrPicId != previous.idrPicId)
    }
}
