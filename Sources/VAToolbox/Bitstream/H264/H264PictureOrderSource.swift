/// The picture order counts of an H.264 stream's pictures, for ``AnnexBTimeStamper``.
struct H264PictureOrderSource: PictureOrderSource {
    typealias Header = H264NALUnitHeader

    private var sequenceParameterSets: [Int: H264SequenceParameterSet] = [:]
    private var pictureParameterSets: [Int: H264PictureParameterSet] = [:]
    private var counter = H264PictureOrderCounter()

    mutating func learn(_ unit: TypedNALUnit<Header>) {
        switch unit.header.type {
        case .sequenceParameterSet:
            if let sps = try? H264SequenceParameterSet(unit.unit) { sequenceParameterSets[sps.seqParameterSetId] = sps }
        case .pictureParameterSet:
            if let pps = try? H264PictureParameterSet(unit.unit) { pictureParameterSets[pps.picParameterSetId] = pps }
        default:
            break
        }
    }

    /// Nothing: an H.264 end of sequence is followed by an IDR picture, which starts new counts.
    mutating func noteEndOfSequence() {}

    mutating func picture(of slice: TypedNALUnit<Header>, lastOpenField: OpenField?) -> (PictureOrderInfo?, Bool) {
        let header: H264SliceHeader
        do throws(VTError) {
            header = try H264SliceHeader(
                slice.unit, pictureParameterSet: { pictureParameterSets[$0] },
                sequenceParameterSet: { sequenceParameterSets[$0] })
        } catch {
            return (nil, false)
        }
        guard let pps = pictureParameterSets[header.picParameterSetId],
            let sps = sequenceParameterSets[pps.seqParameterSetId]
        else {
            return (nil, header.fieldPicFlag)
        }
        let counts = counter.next(header, sps: sps)
        var info = PictureOrderInfo(
            pictureOrderCount: counts.pictureOrderCount, startsSequence: counts.startsSequence, isOutput: true)
        info.isFieldPicture = header.fieldPicFlag
        info.isBottomField = header.bottomFieldFlag
        info.frameNum = header.frameNum
        info.isIDR = header.nalUnitType.isIDR
        info.isSecondField = header.fieldPicFlag && !header.hasMemoryManagementReset
        // The second field of an IDR frame is an IDR picture too, but starts nothing.
        if info.isSecondField, let last = lastOpenField, last.isIDR && info.isIDR,
            last.bottom != info.isBottomField, last.frameNum == info.frameNum
        {
            info.startsSequence = false
        }
        return (info, header.fieldPicFlag)
    }
}
