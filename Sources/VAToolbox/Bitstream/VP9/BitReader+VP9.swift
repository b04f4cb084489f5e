extension BitReader {
    /// `su(n)` (VP9 specification §4.10.6): an `n`-bit magnitude followed by a sign bit.
    mutating func signedMagnitude(_ count: Int, _ element: StaticString) throws(VTError) -> Int {
        let value = try int(count, element)
        return try flag(element) ? -value : value
    }

    /// The number of whole bytes read so far, counting a partly read byte as read
    /// (`trailing_bits()` pads to a byte boundary).
    var bytesConsumed: Int { (bitPosition + 7) / 8 }
}
