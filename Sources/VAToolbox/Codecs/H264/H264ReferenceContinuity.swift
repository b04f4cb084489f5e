/// Notices a lost H.264 reference picture, which libavcodec conceals without flagging the frames
/// it damages, by following `frame_num`.
///
/// Clause 7.4.3: unless the SPS allows gaps (`gaps_in_frame_num_value_allowed_flag`), every
/// picture's `frame_num` equals the previous reference picture's (`PrevRefFrameNum`) or the next
/// value after it. Anything else means a reference picture went missing, and every picture from
/// there up to the next IDR (or recovery point) may be wrong. The session reports those frames
/// with ``VTError/videoDecoderReferenceMissing``.
struct H264ReferenceContinuity: ReferenceTracker {
    private var sequenceParameterSets: [Int: H264SequenceParameterSet] = [:]
    private var pictureParameterSets: [Int: H264PictureParameterSet] = [:]
    private var prevRefFrameNum: Int?
    /// Whether pictures are being decoded without a reference they need.
    private(set) var isDamaged = false

    /// Learns the parameter sets of a format description.
    mutating func learn(_ format: VideoFormatDescription) {
        for unit in format.parameterSetNALUnits { learn(unit) }
    }

    /// Follows one sample: whether its picture may be wrong for want of a reference, and whether
    /// it is a field picture (`field_pic_flag`: two such samples make one output picture).
    mutating func follow(_ sample: SampleBuffer) -> FrameContinuity {
        let damaged = followFrameNumbers(sample)
        return FrameContinuity(
            missingReference: damaged ? "a reference picture this frame depends on is missing (frame_num gap)" : nil,
            isFieldPicture: lastWasFieldPicture)
    }

    /// Whether the last sample followed was a field picture.
    private var lastWasFieldPicture = false

    /// Follows `frame_num`; true while pictures are decoded without a reference they need.
    private mutating func followFrameNumbers(_ sample: SampleBuffer) -> Bool {
        lastWasFieldPicture = false
        let units = sample.nalUnits
        for unit in units where unit.isParameterSet { learn(unit) }
        guard let slice = units.first(where: { $0.h264Type == .nonIDRSlice || $0.h264Type == .idrSlice }),
            let header = try? H264SliceHeader(
                slice, pictureParameterSet: { pictureParameterSets[$0] },
                sequenceParameterSet: { sequenceParameterSets[$0] }),
            let pps = pictureParameterSets[header.picParameterSetId],
            let sps = sequenceParameterSets[pps.seqParameterSetId]
        else { return isDamaged }
        lastWasFieldPicture = header.fieldPicFlag
        if header.nalUnitType.isIDR || sample.attachments.contains(.partialSync) {
            isDamaged = false
        } else if let previous = prevRefFrameNum, !sps.gapsInFrameNumValueAllowedFlag,
            header.frameNum != previous, header.frameNum != (previous + 1) % sps.maxFrameNum
        {
            isDamaged = true
        }
        if header.nalRefIdc != 0 {
            prevRefFrameNum = header.hasMemoryManagementReset ? 0 : header.frameNum
        }
        return isDamaged
    }

    /// Forgets the reference state (after a drain, decoding restarts at a sync sample).
    mutating func reset() {
        prevRefFrameNum = nil
        isDamaged = false
    }

    private mutating func learn(_ unit: NALUnit) {
        if let sps = try? H264SequenceParameterSet(unit) { sequenceParameterSets[sps.seqParameterSetId] = sps }
        if let pps = try? H264PictureParameterSet(unit) { pictureParameterSets[pps.picParameterSetId] = pps }
    }
}
