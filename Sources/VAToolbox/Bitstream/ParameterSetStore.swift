/// The parameter sets of a stream, by kind and id, as the stream has sent them so far.
///
/// A set replaces the one with the same id; sending identical bytes again changes nothing, which
/// is how ``ElementaryStreamParser`` tells a repeat from a change.
struct ParameterSetStore {
    let codec: VideoCodecType
    /// H.264 SPSs (HEVC: SPSs), raw, by id.
    private(set) var sequenceParameterSets: [Int: [UInt8]] = [:]
    /// PPSs, raw, by id.
    private(set) var pictureParameterSets: [Int: [UInt8]] = [:]
    /// HEVC VPSs, raw, by id.
    private(set) var videoParameterSets: [Int: [UInt8]] = [:]
    /// H.264 SPS extensions, raw, by SPS id.
    private(set) var sequenceParameterSetExtensions: [Int: [UInt8]] = [:]
    /// Parsed H.264 SPSs, by id, for slice header parsing.
    private(set) var h264SPS: [Int: H264SequenceParameterSet] = [:]
    /// Parsed H.264 PPSs, by id, for slice header parsing.
    private(set) var h264PPS: [Int: H264PictureParameterSet] = [:]
    /// HEVC PPS id → the SPS id it refers to.
    private var hevcPPSToSPS: [Int: Int] = [:]

    init(codec: VideoCodecType) {
        self.codec = codec
    }

    /// Parses and stores a parameter set NAL unit.
    ///
    /// - Throws: ``VTError/videoDecoderBadData`` when the set does not parse; it is then not stored.
    mutating func store(_ unit: NALUnit) throws(VTError) {
        let bytes = Array(unit.bytes)
        if codec == .h264 {
            switch unit.typeCode {
            case 7:
                let sps = try H264SequenceParameterSet(unit)
                h264SPS[sps.seqParameterSetId] = sps
                sequenceParameterSets[sps.seqParameterSetId] = bytes
            case 8:
                let pps = try H264PictureParameterSet(unit)
                h264PPS[pps.picParameterSetId] = pps
                pictureParameterSets[pps.picParameterSetId] = bytes
            case 13:
                var reader = BitReader(unit.rbsp, context: "H.264 SPS extension")
                sequenceParameterSetExtensions[try reader.unsignedExpGolomb("seq_parameter_set_id", maximum: 31)] =
                    bytes
            default:
                break
            }
        } else {
            switch unit.typeCode {
            case 32:
                var reader = BitReader(unit.rbsp, context: "HEVC VPS")
                videoParameterSets[try reader.int(4, "vps_video_parameter_set_id")] = bytes
            case 33:
                let sps = try HEVCSequenceParameterSet(unit)
                sequenceParameterSets[sps.spsSeqParameterSetId] = bytes
            case 34:
                var reader = BitReader(unit.rbsp, context: "HEVC PPS")
                let id = try reader.unsignedExpGolomb("pps_pic_parameter_set_id", maximum: 63)
                hevcPPSToSPS[id] = try reader.unsignedExpGolomb("pps_seq_parameter_set_id", maximum: 15)
                pictureParameterSets[id] = bytes
            default:
                break
            }
        }
    }

    /// The id of the SPS a slice uses through its PPS, or nil when it cannot be told.
    func activeSPSId(forSlice unit: NALUnit) -> Int? {
        if codec == .h264 {
            var reader = BitReader(RBSP.unescape(unit.payload.prefix(16)), context: "H.264 slice header")
            guard (try? reader.unsignedExpGolomb("first_mb_in_slice")) != nil,
                (try? reader.unsignedExpGolomb("slice_type")) != nil,
                let ppsId = try? reader.unsignedExpGolomb("pic_parameter_set_id")
            else { return nil }
            return h264PPS[Int(ppsId)]?.seqParameterSetId
        }
        var reader = BitReader(RBSP.unescape(unit.payload.prefix(16)), context: "HEVC slice segment header")
        guard (try? reader.flag("first_slice_segment_in_pic_flag")) != nil else { return nil }
        if unit.hevcType?.isIRAP ?? false, (try? reader.flag("no_output_of_prior_pics_flag")) == nil { return nil }
        guard let ppsId = try? reader.unsignedExpGolomb("slice_pic_parameter_set_id") else { return nil }
        return hevcPPSToSPS[Int(ppsId)]
    }

    /// The parameter sets for a format description, the active SPS first, or nil when the
    /// stream has not yet sent what a description needs (an SPS and a PPS for it; for HEVC a VPS).
    ///
    /// - Parameter slice: The first slice of the access unit, which picks the active SPS.
    func orderedSets(forSlice slice: NALUnit?) -> [[UInt8]]? {
        let active = slice.flatMap { activeSPSId(forSlice: $0) } ?? sequenceParameterSets.keys.min()
        guard let active, let activeSPS = sequenceParameterSets[active] else { return nil }
        let otherSPS = sequenceParameterSets.filter { $0.key != active }.sorted { $0.key < $1.key }.map(\.value)
        let spsIds = Set(sequenceParameterSets.keys)
        let usablePPS = pictureParameterSets.sorted { $0.key < $1.key }.filter { entry in
            let spsId = codec == .h264 ? h264PPS[entry.key]?.seqParameterSetId : hevcPPSToSPS[entry.key]
            return spsId.map(spsIds.contains) ?? false
        }
        guard !usablePPS.isEmpty else { return nil }
        if codec == .h264 {
            let extensions = sequenceParameterSetExtensions.filter { spsIds.contains($0.key) }.sorted {
                $0.key < $1.key
            }
            return [activeSPS] + otherSPS + usablePPS.map(\.value) + extensions.map(\.value)
        }
        guard !videoParameterSets.isEmpty else { return nil }
        return videoParameterSets.sorted { $0.key < $1.key }.map(\.value) + [activeSPS] + otherSPS
            + usablePPS.map(\.value)
    }
}
