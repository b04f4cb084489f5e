/// An AV1 open bitstream unit (OBU, `open_bitstream_unit()`, AV1 specification §5.3): a header
/// saying what the unit carries, an optional size, and the payload.
///
/// The unit refers to the bytes it was parsed from (``bytes``, ``payload``); nothing is copied.
///
/// Two framings carry OBUs. In the *low-overhead bitstream format* (§5.2; MP4, Matroska and IVF
/// samples, `.obu` files) every OBU has `obu_has_size_field` = 1, and ``split(_:)`` walks a sample.
/// In the *length-delimited* format of Annex B an `obu_length` precedes each OBU, which usually has
/// no size field; ``AV1AnnexB`` reads it, and ``lowOverheadBytes`` rewrites an OBU with a size field.
public struct AV1OBU: Sendable, Hashable, CustomStringConvertible {
    /// `obu_type`.
    public let obuType: AV1OBUType
    /// `obu_extension_flag`: whether the one-byte `obu_extension_header()` follows (§5.3.3).
    public let hasExtension: Bool
    /// `obu_has_size_field`: whether an `obu_size` follows the header.
    public let hasSizeField: Bool
    /// `temporal_id`, 0 to 7 (0 when there is no extension header).
    public let temporalId: Int
    /// `spatial_id`, 0 to 3 (0 when there is no extension header).
    public let spatialId: Int
    /// The payload: `obu_size` bytes after the header and size field.
    public let payload: ArraySlice<UInt8>
    /// The whole unit: header, extension header, size field and payload.
    public let bytes: ArraySlice<UInt8>

    /// Parses one OBU that occupies `unit` (for example an Annex B `obu_length` bytes).
    ///
    /// Without a size field the payload runs to the end of `unit` (`obu_size = sz − 1 −
    /// obu_extension_flag`, §5.3.1). With one, the payload is `obu_size` bytes and any bytes after
    /// it inside `unit` are not part of the OBU.
    ///
    /// - Throws: ``VTError/sampleBufferInvalidSampleData`` when the unit is empty,
    ///   `obu_forbidden_bit` is set, the header or size field is cut short, or `obu_size` reaches
    ///   past the end of `unit`.
    public init(_ unit: ArraySlice<UInt8>) throws(VTError) {
        var index = unit.startIndex
        self = try Self.parse(unit, at: &index)
    }

    /// Creates a unit from its parsed parts.
    private init(
        header: UInt8, temporalId: Int, spatialId: Int, payload: ArraySlice<UInt8>, bytes: ArraySlice<UInt8>
    ) {
        obuType = AV1OBUType(rawValue: (header >> 3) & 0x0f)
        hasExtension = header & 0x04 != 0
        hasSizeField = header & 0x02 != 0
        self.temporalId = temporalId
        self.spatialId = spatialId
        self.payload = payload
        self.bytes = bytes
    }

    /// Parses the OBU at `index` (`obu_header()` §5.3.2, `obu_extension_header()` §5.3.3, then
    /// `obu_size`), and moves `index` past it. An OBU without a size field runs to the end of `data`.
    static func parse(_ data: ArraySlice<UInt8>, at index: inout Int) throws(VTError) -> AV1OBU {
        let start = index
        guard index < data.endIndex else { throw invalid("an OBU header is missing (no bytes left)") }
        let header = data[index]
        index += 1
        guard header & 0x80 == 0 else { throw invalid("obu_forbidden_bit is 1 (§5.3.2)") }
        var temporalId = 0
        var spatialId = 0
        if header & 0x04 != 0 {
            guard index < data.endIndex else { throw invalid("obu_extension_header() is missing") }
            temporalId = Int(data[index] >> 5)
            spatialId = Int((data[index] >> 3) & 0x03)
            index += 1
        }
        let payloadEnd: Int
        if header & 0x02 != 0 {
            let size = try AV1LEB128.read(data, at: &index, "obu_size")
            guard Int(size) <= data.endIndex - index else {
                throw invalid(
                    "obu_size is \(size) but only \(data.endIndex - index) bytes follow "
                        + "(OBU type \(AV1OBUType(rawValue: (header >> 3) & 0x0f)))")
            }
            payloadEnd = index + Int(size)
        } else {
            payloadEnd = data.endIndex
        }
        let obu = AV1OBU(
            header: header, temporalId: temporalId, spatialId: spatialId,
            payload: data[index..<payloadEnd], bytes: data[start..<payloadEnd])
        index = payloadEnd
        return obu
    }

    /// Splits a sample in the low-overhead bitstream format (§5.2) into its OBUs.
    ///
    /// Every OBU but the last must have `obu_has_size_field` = 1; the last may lack it and then
    /// runs to the end of `data` (AV1-ISOBMFF §2.4 lets a sample's last OBU omit its size).
    /// An empty sample has no OBUs.
    ///
    /// - Throws: ``VTError/sampleBufferInvalidSampleData`` when an OBU header is malformed
    ///   (`obu_forbidden_bit` set, cut short), an `obu_size` is a malformed `leb128()` or reaches
    ///   past the end of `data`.
    public static func split(_ data: ArraySlice<UInt8>) throws(VTError) -> [AV1OBU] {
        var units: [AV1OBU] = []
        var index = data.startIndex
        while index < data.endIndex {
            units.append(try parse(data, at: &index))
        }
        return units
    }

    /// The OBU in low-overhead form: with `obu_has_size_field` = 1 and an `obu_size`, as MP4,
    /// Matroska and libavcodec want it. An OBU that has a size field is returned unchanged.
    public var lowOverheadBytes: [UInt8] {
        guard !hasSizeField, let header = bytes.first else { return Array(bytes) }
        var out: [UInt8] = [header | 0x02]
        if hasExtension { out.append(bytes[bytes.startIndex + 1]) }
        // An OBU without a size field comes from an Annex B obu_length, below 2^32.
        out += AV1LEB128.encode(UInt32(clamping: payload.count))
        out += payload
        return out
    }

    /// The type and payload size, with the layer when there is an extension header:
    /// `"FRAME 2204 bytes"`, `"FRAME_HDR 3 bytes T1S0"`.
    public var description: String {
        var text = "\(obuType) \(payload.count) bytes"
        if hasExtension { text += " T\(temporalId)S\(spatialId)" }
        return text
    }

    private static func invalid(_ reason: String) -> VTError {
        VTError.sampleBufferInvalidSampleData.with("AV1 OBU: \(reason)")
    }
}
