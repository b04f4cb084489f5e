/// How ``ElementaryStreamParser`` reads an HEVC stream: access units by clause 7.4.2.4.4, and
/// the VPS, SPS and PPS by id.
struct HEVCStreamSyntax: NALStreamSyntax {
    typealias Header = HEVCNALUnitHeader

    private var store = ParameterSetStore()
    /// VPSs, raw, by id.
    private var videoParameterSets: [Int: [UInt8]] = [:]

    /// VPS, SPS, PPS, AUD, prefix SEI and types 41–44, 48–55 start an access unit after a
    /// picture; so does a slice with `first_slice_segment_in_pic_flag`. Units of layers above 0
    /// belong to the current access unit.
    mutating func role(of unit: TypedNALUnit<Header>, accessUnitHasVCL: Bool) -> (
        role: AccessUnitRole, slice: SliceNote?, error: VTError?
    ) {
        let header = unit.header
        guard header.nuhLayerId == 0 else { return (header.isVCL ? .vcl : .follows, nil, nil) }
        if header.isVCL {
            // first_slice_segment_in_pic_flag is the payload's first bit.
            guard let first = unit.payload.first else { return (.vcl, nil, nil) }
            return (first & 0x80 != 0 ? .startsAccessUnit : .vcl, nil, nil)
        }
        return (header.type.startsAccessUnit ? .startsAccessUnit : .follows, nil, nil)
    }

    mutating func store(parameterSet unit: TypedNALUnit<Header>) throws(VTError) {
        let bytes = Array(unit.bytes)
        switch unit.header.type {
        case .videoParameterSet:
            var reader = BitReader(unit.rbsp, context: "HEVC VPS")
            videoParameterSets[try reader.int(4, "vps_video_parameter_set_id")] = bytes
        case .sequenceParameterSet:
            let sps = try HEVCSequenceParameterSet(unit.unit)
            store.storeSequenceParameterSet(bytes, id: sps.spsSeqParameterSetId)
        case .pictureParameterSet:
            var reader = BitReader(unit.rbsp, context: "HEVC PPS")
            let id = try reader.unsignedExpGolomb("pps_pic_parameter_set_id", maximum: 63)
            let spsId = try reader.unsignedExpGolomb("pps_seq_parameter_set_id", maximum: 15)
            store.storePictureParameterSet(bytes, id: id, spsId: spsId)
        default:
            break
        }
    }

    /// The VPSs, the active SPS, the other SPSs, then the PPSs whose SPS is known.
    func orderedSets(forSlice slice: TypedNALUnit<Header>?) -> [[UInt8]]? {
        guard let sets = store.ordered(activeSPS: slice.flatMap(activeSPSId(forSlice:))),
            !videoParameterSets.isEmpty
        else { return nil }
        return videoParameterSets.sorted { $0.key < $1.key }.map(\.value) + sets.sps + sets.pps
    }

    func formatDescription(parameterSets: [[UInt8]], nalUnitHeaderLength: Int) throws(VTError)
        -> VideoFormatDescription
    {
        try VideoFormatDescription(hevcParameterSets: parameterSets, nalUnitHeaderLength: nalUnitHeaderLength)
    }

    /// The id of the SPS a slice uses through its PPS, or nil when it cannot be told.
    private func activeSPSId(forSlice unit: TypedNALUnit<Header>) -> Int? {
        var reader = BitReader(RBSP.unescape(unit.payload.prefix(16)), context: "HEVC slice segment header")
        guard (try? reader.flag("first_slice_segment_in_pic_flag")) != nil else { return nil }
        if unit.header.type.isIRAP, (try? reader.flag("no_output_of_prior_pics_flag")) == nil { return nil }
        guard let ppsId = try? reader.unsignedExpGolomb("slice_pic_parameter_set_id") else { return nil }
        return store.spsIdOfPPS[Int(ppsId)]
    }
}
