/// The length-delimited AV1 bitstream format (AV1 specification Annex B): a sequence of
/// `temporal_unit(temporal_unit_size)`, each a sequence of `frame_unit(frame_unit_size)`, each a
/// sequence of `obu_length` + `open_bitstream_unit(obu_length)`, all sizes `leb128()`.
///
/// OBUs in this format usually have no `obu_size` field; ``lowOverhead(_:)`` rewrites a temporal unit
/// in the low-overhead form (§5.2) that MP4, Matroska and libavcodec's decoders take.
public enum AV1AnnexB {
    /// Splits an Annex B bitstream (one or more `temporal_unit()`s) into temporal units.
    ///
    /// - Returns: The OBUs of each temporal unit, in order; the frame unit boundaries are not kept
    ///   (each frame unit starts with the frame's frame header or frame OBU).
    /// - Throws: ``VTError/sampleBufferInvalidSampleData`` when a size is a malformed `leb128()`, a
    ///   frame unit reaches past its temporal unit, an OBU past its frame unit, a temporal unit past
    ///   the data, or an OBU is empty or malformed (see ``AV1OBU/init(_:)``).
    public static func temporalUnits(in data: ArraySlice<UInt8>) throws(VTError) -> [[AV1OBU]] {
        var units: [[AV1OBU]] = []
        var index = data.startIndex
        while index < data.endIndex {
            let size = try AV1LEB128.read(data, at: &index, "temporal_unit_size")
            let end = try Self.end(of: size, at: index, within: data.endIndex, "temporal_unit_size", "the data")
            units.append(try temporalUnit(data[index..<end]))
            index = end
        }
        return units
    }

    /// Splits the contents of one `temporal_unit(sz)` (after its `temporal_unit_size`) into OBUs.
    ///
    /// - Throws: ``VTError/sampleBufferInvalidSampleData`` as ``temporalUnits(in:)``.
    public static func temporalUnit(_ contents: ArraySlice<UInt8>) throws(VTError) -> [AV1OBU] {
        var obus: [AV1OBU] = []
        var index = contents.startIndex
        while index < contents.endIndex {
            let frameUnitSize = try AV1LEB128.read(contents, at: &index, "frame_unit_size")
            let frameEnd = try end(
                of: frameUnitSize, at: index, within: contents.endIndex, "frame_unit_size", "its temporal unit")
            while index < frameEnd {
                let obuLength = try AV1LEB128.read(contents[..<frameEnd], at: &index, "obu_length")
                let obuEnd = try end(of: obuLength, at: index, within: frameEnd, "obu_length", "its frame unit")
                obus.append(try AV1OBU(contents[index..<obuEnd]))
                index = obuEnd
            }
        }
        return obus
    }

    /// Whether `data` looks like the start of an Annex B bitstream rather than a low-overhead one.
    ///
    /// The test of libavformat's `av1` demuxer (`annexb_probe`): the first `temporal_unit_size`,
    /// `frame_unit_size` and `obu_length` nest, the first OBU is an empty temporal delimiter, and
    /// the OBUs of the first frame unit reach a sequence header and then a frame header or frame
    /// before any other type (metadata and padding are skipped). A low-overhead stream starts with
    /// the bytes `0x12 0x00` (a temporal delimiter with a zero `obu_size`), which fail the nesting.
    /// Reads only what it needs of `data`, so a prefix of a file will do; never throws.
    public static func looksLikeAnnexB(_ data: ArraySlice<UInt8>) -> Bool {
        var index = data.startIndex
        guard let temporalUnitSize = try? AV1LEB128.read(data, at: &index, "temporal_unit_size") else { return false }
        let temporalStart = index
        guard let frameUnitSize = try? AV1LEB128.read(data, at: &index, "frame_unit_size"),
            Int(frameUnitSize) + (index - temporalStart) <= Int(temporalUnitSize)
        else { return false }
        let frameEnd = index + Int(frameUnitSize)
        var sawSequenceHeader = false
        var first = true
        while index < frameEnd {
            let lengthStart = index
            guard let obuLength = try? AV1LEB128.read(data, at: &index, "obu_length"), obuLength > 0,
                Int(obuLength) + (index - lengthStart) <= frameEnd - lengthStart, index < data.endIndex,
                // A probe may hold only the start of a large OBU: its header is enough.
                let obu = try? AV1OBU(data[index..<min(index + Int(obuLength), data.endIndex)])
            else { return false }
            index += Int(obuLength)
            if first {
                guard obu.obuType == .temporalDelimiter, obu.payload.isEmpty, index < frameEnd else { return false }
                first = false
                continue
            }
            switch obu.obuType {
            case .sequenceHeader: sawSequenceHeader = true
            case .frame, .frameHeader: return sawSequenceHeader
            case .metadata, .padding: continue
            default: return false
            }
        }
        return false
    }

    /// Rewrites a temporal unit's OBUs in the low-overhead form: each with `obu_has_size_field` = 1
    /// and its `obu_size` (§5.2), one after the other, as an MP4 or Matroska sample holds them.
    ///
    /// The temporal delimiter is kept; MP4 samples leave it out (AV1-ISOBMFF §2.4), so drop it
    /// first for that use.
    public static func lowOverhead(_ obus: [AV1OBU]) -> [UInt8] {
        var out: [UInt8] = []
        for obu in obus { out += obu.lowOverheadBytes }
        return out
    }

    /// The end index of a `size`-byte unit that starts at `start`, checked against `limit`.
    private static func end(
        of size: UInt32, at start: Int, within limit: Int, _ element: String, _ container: String
    ) throws(VTError) -> Int {
        guard Int(size) <= limit - start else {
            throw VTError.sampleBufferInvalidSampleData.with(
                "AV1 Annex B: \(element) is \(size) but only \(limit - start) bytes are left in \(container)")
        }
        return start + Int(size)
    }
}
