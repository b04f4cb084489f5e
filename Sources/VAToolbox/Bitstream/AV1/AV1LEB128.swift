/// `leb128()` (AV1 specification §4.10.5): the little-endian base-128 numbers that give OBU sizes,
/// and the sizes of Annex B temporal units, frame units and OBUs.
///
/// Each byte carries 7 bits of the value, least significant group first; its top bit says whether
/// another byte follows. The specification reads at most 8 bytes and requires the value to be at
/// most `2^32 − 1`; both limits are enforced, so a hostile size can neither run on nor overflow.
public enum AV1LEB128 {
    /// The most bytes a `leb128()` value occupies (§4.10.5).
    public static let maxBytes = 8

    /// Reads a `leb128()` value starting at `index`, and moves `index` past it.
    ///
    /// - Parameters:
    ///   - data: The bytes to read from.
    ///   - index: The index of the first byte, in `data`'s indices; on return, the index after
    ///     the last byte read.
    ///   - element: The syntax element being read (`obu_size`, `temporal_unit_size`), for the error.
    /// - Returns: The value, at most `2^32 − 1`.
    /// - Throws: ``VTError/sampleBufferInvalidSampleData`` when the data ends inside the number, when
    ///   its eighth byte still says that another follows, or when the value is `2^32` or more.
    public static func read(_ data: ArraySlice<UInt8>, at index: inout Int, _ element: String = "leb128")
        throws(VTError) -> UInt32
    {
        var value: UInt64 = 0
        for byteIndex in 0..<maxBytes {
            guard index < data.endIndex, index >= data.startIndex else {
                throw VTError.sampleBufferInvalidSampleData.with("AV1 \(element) (leb128) is truncated")
            }
            let byte = data[index]
            index += 1
            value |= UInt64(byte & 0x7f) << UInt64(byteIndex * 7)
            if byte & 0x80 == 0 {
                guard value <= UInt64(UInt32.max) else {
                    throw VTError.sampleBufferInvalidSampleData.with(
                        "AV1 \(element) is \(value), more than 2^32 - 1 (§4.10.5)")
                }
                return UInt32(value)
            }
        }
        throw VTError.sampleBufferInvalidSampleData.with(
            "AV1 \(element) (leb128) is longer than \(maxBytes) bytes (§4.10.5)")
    }

    /// The shortest `leb128()` encoding of `value`.
    public static func encode(_ value: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        repeat {
            let group = UInt8(rest & 0x7f)
            rest >>= 7
            bytes.append(rest == 0 ? group : group | 0x80)
        } while rest != 0
        return bytes
    }
}
