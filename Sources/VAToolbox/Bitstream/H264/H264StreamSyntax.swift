/// How ``ElementaryStreamParser`` reads an H.264 stream: access units by clause 7.4.1.2.3 with
/// the first-slice-of-a-picture test of 7.4.1.2.4, and the SPS, PPS and SPS extensions by id.
struct H264StreamSyntax: NALStreamSyntax {
    typealias Header = H264NALUnitHeader

    private var store = ParameterSetStore()
    /// SPS extensions, raw, by SPS id.
    private var sequenceParameterSetExtensions: [Int: [UInt8]] = [:]
    /// Parsed SPSs, by id, for slice header parsing.
    private var sequenceParameterSets: [Int: H264SequenceParameterSet] = [:]
    /// Parsed PPSs, by id, for slice header parsing.
    private var pictureParameterSets: [Int: H264PictureParameterSet] = [:]
    /// The header of the last primary slice, which the next slice is compared with.
    private var lastSliceHeader: H264SliceHeader?

    /// AUD, SPS, PPS, SEI and types 14–18 start an access unit after a picture; so does the first
    /// slice of a new primary coded picture. Redundant slices belong to their primary picture.
    mutating func role(of unit: TypedNALUnit<Header>, accessUnitHasVCL: Bool) -> (
        role: AccessUnitRole, slice: SliceNote?, error: VTError?
    ) {
        let type = unit.header.type
        if type.startsAccessUnit { return (.startsAccessUnit, nil, nil) }
        guard type.isVCL else { return (.follows, nil, nil) }
        guard type.carriesSliceHeader else {
            lastSliceHeader = nil
            return (.vcl, nil, nil)
        }
        let header: H264SliceHeader
        do throws(VTError) {
            header = try H264SliceHeader(
                unit.unit, pictureParameterSet: { pictureParameterSets[$0] },
                sequenceParameterSet: { sequenceParameterSets[$0] })
        } catch {
            lastSliceHeader = nil
            // Without a header, fall back on the one field that needs no parameter set.
            var reader = BitReader(RBSP.unescape(unit.payload.prefix(8)), context: "H.264 slice header")
            let firstMb = try? reader.unsignedExpGolomb("first_mb_in_slice")
            return (firstMb == 0 ? .startsAccessUnit : .vcl, nil, error)
        }
        guard header.redundantPicCnt == 0 else {
            lastSliceHeader = nil
            return (.vcl, nil, nil)
        }
        let role: AccessUnitRole
        if !accessUnitHasVCL {
            role = .startsAccessUnit
        } else if let previous = lastSliceHeader {
            role = header.startsNewPicture(after: previous) ? .startsAccessUnit : .vcl
        } else {
            role = header.firstMbInSlice == 0 ? .startsAccessUnit : .vcl
        }
        let sps = pictureParameterSets[header.picParameterSetId].flatMap {
            sequenceParameterSets[$0.seqParameterSetId]
        }
        lastSliceHeader = header
        let note = SliceNote(
            isIntra: header.baseSliceType == 2 || header.baseSliceType == 4, isField: header.fieldPicFlag,
            singleReferenceStream: (sps?.maxNumRefFrames ?? 16) <= 1)
        return (role, note, nil)
    }

    mutating func store(parameterSet unit: TypedNALUnit<Header>) throws(VTError) {
        let bytes = Array(unit.bytes)
        switch unit.header.type {
        case .sequenceParameterSet:
            let sps = try H264SequenceParameterSet(unit.unit)
            sequenceParameterSets[sps.seqParameterSetId] = sps
            store.storeSequenceParameterSet(bytes, id: sps.seqParameterSetId)
        case .pictureParameterSet:
            let pps = try H264PictureParameterSet(unit.unit)
            pictureParameterSets[pps.picParameterSetId] = pps
            store.storePictureParameterSet(bytes, id: pps.picParameterSetId, spsId: pps.seqParameterSetId)
        case .sequenceParameterSetExtension:
            var reader = BitReader(unit.rbsp, context: "H.264 SPS extension")
            sequenceParameterSetExtensions[try reader.unsignedExpGolomb("seq_parameter_set_id", maximum: 31)] = bytes
        default:
            break
        }
    }

    /// The active SPS, the other SPSs, the PPSs whose SPS is known, then the SPS extensions.
    func orderedSets(forSlice slice: TypedNALUnit<Header>?) -> [[UInt8]]? {
        guard let sets = store.ordered(activeSPS: slice.flatMap(activeSPSId(forSlice:))) else { return nil }
        let extensions = sequenceParameterSetExtensions.filter { sets.spsIds.contains($0.key) }.sorted {
            $0.key < $1.key
        }
        return sets.sps + sets.pps + extensions.map(\.value)
    }

    func formatDescription(parameterSets: [[UInt8]], nalUnitHeaderLength: Int) throws(VTError)
        -> VideoFormatDescription
    {
        try VideoFormatDescription(h264ParameterSets: parameterSets, nalUnitHeaderLength: nalUnitHeaderLength)
    }

    /// The id of the SPS a slice uses through its PPS, or nil when it cannot be told.
    private func activeSPSId(forSlice unit: TypedNALUnit<Header>) -> Int? {
        var reader = BitReader(RBSP.unescape(unit.payload.prefix(16)), context: "H.264 slice header")
        guard (try? reader.unsignedExpGolomb("first_mb_in_slice")) != nil,
            (try? reader.unsignedExpGolomb("slice_type")) != nil,
            let ppsId = try? reader.unsignedExpGolomb("pic_parameter_set_id")
        else { return nil }
        return pictureParameterSets[Int(ppsId)]?.seqParameterSetId
    }
}
