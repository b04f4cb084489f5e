extension BitReader {
    /// `f(n)` (AV1 specification §4.10.2): reads `count` bits (0 to 32) as an unsigned number, the
    /// same read as H.264's `u(n)` (``bits(_:_:)``).
    ///
    /// - Throws: The reader's error when fewer than `count` bits are left.
    mutating func f(_ count: Int, _ element: StaticString) throws(VTError) -> UInt32 {
        try bits(count, element)
    }

    /// `uvlc()` (§4.10.3): a variable-length unsigned number, `2^32 − 1` when it has 32 or more
    /// leading zero bits.
    ///
    /// - Throws: The reader's error when the data ends inside the code.
    mutating func uvlc(_ element: StaticString) throws(VTError) -> UInt32 {
        var leadingZeros = 0
        while try bits(1, element) == 0 {
            leadingZeros += 1
        }
        guard leadingZeros < 32 else { return UInt32.max }
        let value = UInt64(try bits(leadingZeros, element))
        return UInt32(value + (UInt64(1) << UInt64(leadingZeros)) - 1)
    }
}
