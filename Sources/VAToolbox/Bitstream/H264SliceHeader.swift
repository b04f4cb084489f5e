/// The start of an H.264 slice header (clause 7.3.3): the fields that tell whether a slice
/// begins a new primary coded picture (clause 7.4.1.2.4).
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
        guard let type = nalUnit.h264Type, [1, 2, 5].contains(type.rawValue) else {
            throw VTError.videoDecoderBadData.with("expected an H.264 slice, got NAL unit \(nalUnit)")
        }
        nalUnitType = type
        nalRefIdc = nalUnit.nalRefIdc
        // The header is at the start of the payload; 64 bytes cover it (`RBSP.unescape` of all
        // of a large slice would cost a copy of the whole slice).
        var r = BitReader(RBSP.unescape(nalUnit.payload.prefix(64)), context: "H.264 slice header")
        firstMbInSlice = try r.unsignedExpGolomb("first_mb_in_slice", maximum: 139264)
        sliceType = try r.unsignedExpGolomb("slice_type", maximum: 9)
        picParameterSetId = try r.unsignedExpGolomb("pic_parameter_set_id", maximum: 255)
        guard let pps = pictureParameterSet(picParameterSetId) else {
            throw VTError.videoDecoderBadData.with("H.264 slice refers to PPS \(picParameterSetId), which the stream has not sent")
        }
        guard let sps = sequenceParameterSet(pps.seqParameterSetId) else {
            throw VTError.videoDecoderBadData.with("H.264 PPS \(pps.picParameterSetId) refers to SPS \(pps.seqParameterSetId), which the stream has not sent")
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
