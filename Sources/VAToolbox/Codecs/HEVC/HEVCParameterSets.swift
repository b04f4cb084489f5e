/// An HEVC stream's parameter sets, parsed, by id — the format description's, then those sent in
/// band — for the readers of slice segment headers (``HEVCReferenceContinuity``,
/// ``HEVCShownPictures``).
struct HEVCParameterSets {
    private var sequenceParameterSets: [Int: HEVCSequenceParameterSet] = [:]
    private var pictureParameterSets: [Int: HEVCPictureParameterSet] = [:]

    /// Learns a format description's parameter sets.
    mutating func learn(_ format: VideoFormatDescription) {
        for unit in format.parameterSetNALUnits { learn(unit) }
    }

    /// Learns a parameter set NAL unit (a PPS after the SPS it refers to); ignores any other unit.
    mutating func learn(_ unit: NALUnit) {
        switch unit.hevcType {
        case .sequenceParameterSet?:
            if let sps = try? HEVCSequenceParameterSet(unit) { sequenceParameterSets[sps.spsSeqParameterSetId] = sps }
        case .pictureParameterSet?:
            var reader = BitReader(unit.rbsp, context: "HEVC PPS")
            let spsId = (try? reader.unsignedExpGolomb("pps_pic_parameter_set_id", maximum: 63)).flatMap { _ in
                try? reader.unsignedExpGolomb("pps_seq_parameter_set_id", maximum: 15)
            }
            let sps = spsId.flatMap { sequenceParameterSets[$0] }
            if let pps = try? HEVCPictureParameterSet(unit, sps: sps) {
                pictureParameterSets[pps.ppsPicParameterSetId] = pps
            }
        default:
            break
        }
    }

    /// The slice segment header of `slice` read with its parameter sets, and its SPS; nil when
    /// the header cannot be read or a parameter set it names is unknown.
    func sliceSegmentHeader(
        _ slice: NALUnit, readingReferencePictureSets: Bool = false
    ) -> (header: HEVCSliceSegmentHeader, sps: HEVCSequenceParameterSet)? {
        guard let first = try? HEVCSliceSegmentHeader(slice),
            let pps = pictureParameterSets[first.slicePicParameterSetId],
            let sps = sequenceParameterSets[pps.ppsSeqParameterSetId],
            let header = try? HEVCSliceSegmentHeader(
                slice, pps: pps, sps: sps, readingReferencePictureSets: readingReferencePictureSets)
        else { return nil }
        return (header, sps)
    }
}
