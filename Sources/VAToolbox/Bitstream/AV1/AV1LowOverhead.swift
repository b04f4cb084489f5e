/// The low-overhead AV1 bitstream format (AV1 specification §5.2) as a stream: OBUs one after the
/// other, each with `obu_has_size_field` = 1, temporal units starting at temporal delimiters (the
/// `.obu` files of libaom and of `ffmpeg -f obu`, "Section 5" streams).
public enum AV1LowOverhead {
    /// Splits a low-overhead stream into temporal units, each starting at a temporal delimiter.
    ///
    /// OBUs before the first temporal delimiter (a stream that does not start with one, which §7.5
    /// requires) form a unit of their own.
    ///
    /// - Throws: ``VTError/sampleBufferInvalidSampleData`` when the framing is malformed (see
    ///   ``AV1OBU/split(_:)``) or an OBU other than the last has no size field.
    public static func temporalUnits(in data: ArraySlice<UInt8>) throws(VTError) -> [[AV1OBU]] {
        var units: [[AV1OBU]] = []
        for obu in try AV1OBU.split(data) {
            if obu.obuType == .temporalDelimiter || units.isEmpty {
                units.append([obu])
            } else {
                units[units.count - 1].append(obu)
            }
        }
        return units
    }

    /// Whether `data` looks like the start of a low-overhead stream: the test of libavformat's
    /// `obu` demuxer (`obu_probe`). The first OBU is an empty temporal delimiter with a size field,
    /// and the OBUs that follow, all with size fields, reach a sequence header and then a frame
    /// header or frame (metadata and padding skipped). Never throws; a prefix of a file will do.
    public static func looksLikeLowOverhead(_ data: ArraySlice<UInt8>) -> Bool {
        var index = data.startIndex
        guard let first = try? AV1OBU.parse(data, at: &index), first.hasSizeField,
            first.obuType == .temporalDelimiter, first.payload.isEmpty
        else { return false }
        var sawSequenceHeader = false
        while index < data.endIndex {
            let header = data[index]
            let type = AV1OBUType(rawValue: (header >> 3) & 0x0f)
            guard header & 0x82 == 0x02 else { return false }
            // A probe may hold only the start of a large frame: its header is enough.
            if type == .frame || type == .frameHeader { return sawSequenceHeader }
            guard let obu = try? AV1OBU.parse(data, at: &index) else { return false }
            switch obu.obuType {
            case .sequenceHeader: sawSequenceHeader = true
            case .frame, .frameHeader: return sawSequenceHeader
            case .metadata, .padding: continue
            default: return false
            }
        }
        return false
    }
}
