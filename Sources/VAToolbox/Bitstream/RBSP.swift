/// Emulation prevention (H.264 / H.265 clause 7.4.1 / 7.4.2): the `0x03` bytes an encoder inserts
/// so that a NAL unit never contains a start code.
public enum RBSP {
    /// Removes emulation prevention bytes: every `00 00 03` becomes `00 00`.
    ///
    /// Returns the raw byte sequence payload that ``BitReader`` reads.
    public static func unescape(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var zeros = 0
        for byte in bytes {
            if zeros >= 2 && byte == 0x03 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            output.append(byte)
        }
        return output
    }

    /// Inserts emulation prevention bytes: `00 00` followed by a byte ≤ 3 becomes `00 00 03 xx`,
    /// and a payload ending in `00` gets a final `03`.
    public static func escape(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + bytes.count / 64)
        var zeros = 0
        for byte in bytes {
            if zeros >= 2 && byte <= 0x03 {
                output.append(0x03)
                zeros = 0
            }
            zeros = byte == 0 ? zeros + 1 : 0
            output.append(byte)
        }
        if zeros > 0 { output.append(0x03) }
        return output
    }
}
