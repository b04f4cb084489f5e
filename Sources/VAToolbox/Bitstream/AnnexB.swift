/// The Annex B byte stream format (H.264 / H.265 Annex B): NAL units separated by start codes
/// `00 00 01` or `00 00 00 01`, as in raw `.h264` / `.265` files and MPEG-TS.
public enum AnnexB {
    /// Splits a complete byte stream into its NAL units, without copying.
    ///
    /// Accepts 3- and 4-byte start codes, any number of leading zero bytes and trailing zero
    /// bytes (`leading_zero_8bits`, `trailing_zero_8bits`); empty units between two start codes are
    /// skipped. Bytes before the first start code are not a NAL unit and are ignored.
    ///
    /// - Returns: Each NAL unit's bytes (header first), as slices of `stream`.
    public static func split(_ stream: [UInt8]) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        var start: Int? = nil
        stream.withUnsafeBufferPointer { buffer in
            var index = 0
            while let code = nextStartCode(in: buffer, from: index) {
                if let start { append(stream, start..<code, to: &units) }
                start = code + 3
                index = code + 3
            }
        }
        if let start { append(stream, start..<stream.count, to: &units) }
        return units
    }

    /// Joins NAL units into a byte stream with 4-byte start codes (`00 00 00 01`).
    ///
    /// - Parameters:
    ///   - units: The NAL units, each without a start code.
    ///   - startCodeSize: 4 (the default, what most tools write) or 3.
    public static func join<Unit: Collection<UInt8>>(_ units: some Sequence<Unit>, startCodeSize: Int = 4) -> [UInt8] {
        precondition(startCodeSize == 3 || startCodeSize == 4, "a start code has 3 or 4 bytes")
        var stream: [UInt8] = []
        for unit in units {
            if startCodeSize == 4 { stream.append(0) }
            stream += [0, 0, 1]
            stream += unit
        }
        return stream
    }

    /// Whether `bytes` begins with a start code (after optional zero bytes): a hint that data
    /// meant to be length-prefixed is Annex B.
    public static func startsWithStartCode(_ bytes: some Collection<UInt8>) -> Bool {
        var zeros = 0
        for byte in bytes {
            if byte == 0 {
                zeros += 1
            } else {
                return byte == 1 && zeros >= 2
            }
        }
        return false
    }

    /// The index of the first `00 00 01` at or after `from`, or nil.
    static func nextStartCode(in buffer: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        var index = from
        let count = buffer.count
        while index + 2 < count {
            // Skip fast over bytes that cannot end a start code: the third byte must be 1 and the
            // second 0, so step by 3 while the byte two ahead is greater than 1.
            let third = buffer[index + 2]
            if third > 1 {
                index += 3
            } else if third == 1 {
                if buffer[index] == 0 && buffer[index + 1] == 0 { return index }
                index += 3
            } else {
                index += 1
            }
        }
        return nil
    }

    /// Appends `stream[range]` minus its trailing zero bytes, unless that leaves nothing.
    private static func append(_ stream: [UInt8], _ range: Range<Int>, to units: inout [ArraySlice<UInt8>]) {
        var end = range.upperBound
        while end > range.lowerBound && stream[end - 1] == 0 { end -= 1 }
        if end > range.lowerBound { units.append(stream[range.lowerBound..<end]) }
    }
}
