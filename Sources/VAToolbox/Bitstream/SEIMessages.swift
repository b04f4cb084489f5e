/// The `sei_message()` framing shared by H.264 (clause 7.3.2.3.1) and HEVC (clause 7.3.5):
/// each message is a payload type and size, coded as runs of `0xFF` bytes plus a last byte.
public enum SEIMessages {
    /// `recovery_point` (payloadType 6 in both codecs): decoding may start at this picture and
    /// becomes exact after `recovery_frame_cnt` frames.
    public static let recoveryPointPayloadType = 6

    /// The payload types of the messages in an SEI NAL unit's RBSP, in order.
    ///
    /// Stops quietly at the first message that does not fit: a damaged SEI loses its tail, it
    /// does not fail the stream.
    public static func payloadTypes(inRBSP rbsp: [UInt8]) -> [Int] {
        var types: [Int] = []
        var index = 0
        // A message needs at least a type byte and a size byte; the last byte is rbsp_trailing_bits.
        while index + 2 <= rbsp.count, !(index == rbsp.count - 1 && rbsp[index] == 0x80) {
            guard let type = readValue(rbsp, &index), let size = readValue(rbsp, &index),
                size <= rbsp.count - index
            else { break }
            types.append(type)
            index += size
            if index >= rbsp.count - 1 { break }
        }
        return types
    }

    /// Reads a value coded as `0xFF` bytes, each adding 255, then one byte below `0xFF`.
    private static func readValue(_ bytes: [UInt8], _ index: inout Int) -> Int? {
        var value = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            value += Int(byte)
            if byte != 0xFF { return value }
            guard value < 1 << 24 else { return nil }
        }
        return nil
    }
}
