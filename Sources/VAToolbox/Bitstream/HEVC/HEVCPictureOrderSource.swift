/// The picture order counts of an HEVC stream's pictures, and which of them a decoder outputs,
/// for ``AnnexBTimeStamper``.
struct HEVCPictureOrderSource: PictureOrderSource {
    typealias Header = HEVCNALUnitHeader

    private var sequenceParameterSets: [Int: HEVCSequenceParameterSet] = [:]
    private var pictureParameterSets: [Int: HEVCPictureParameterSet] = [:]
    private var counter = HEVCPictureOrderCounter()

    mutating func learn(_ unit: TypedNALUnit<Header>) {
        switch unit.header.type {
        case .sequenceParameterSet:
            if let sps = try? HEVCSequenceParameterSet(unit.unit) {
                sequenceParameterSets[sps.spsSeqParameterSetId] = sps
            }
        case .pictureParameterSet:
            var reader = BitReader(unit.rbsp, context: "HEVC PPS")
            let spsId = (try? reader.unsignedExpGolomb("pps_pic_parameter_set_id", maximum: 63)).flatMap { _ in
                try? reader.unsignedExpGolomb("pps_seq_parameter_set_id", maximum: 15)
            }
            if let pps = try? HEVCPictureParameterSet(unit.unit, sps: spsId.flatMap { sequenceParameterSets[$0] }) {
                pictureParameterSets[pps.ppsPicParameterSetId] = pps
            }
        default:
            break
        }
    }

    mutating func noteEndOfSequence() { counter.noteEndOfSequence() }

    mutating func picture(of slice: TypedNALUnit<Header>, lastOpenField: OpenField?) -> (PictureOrderInfo?, Bool) {
        guard let first = try? HEVCSliceSegmentHeader(slice.unit),
            let pps = pictureParameterSets[first.slicePicParameterSetId],
            let sps = sequenceParameterSets[pps.ppsSeqParameterSetId],
            let header = try? HEVCSliceSegmentHeader(slice.unit, pps: pps, sps: sps)
        else { return (nil, false) }
        let counts = counter.next(header, sps: sps, temporalId: slice.header.temporalId)
        var info = PictureOrderInfo(
            pictureOrderCount: counts.pictureOrderCount, startsSequence: counts.startsSequence,
            isOutput: counts.isOutput)
        info.isSkipped = counts.isSkippedLeadingPicture
        info.discardsPriorPictures = counts.discardsPriorPictures
        return (info, false)
    }
}
