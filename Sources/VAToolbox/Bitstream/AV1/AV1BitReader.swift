/// Reads the fixed-width syntax elements of an AV1 OBU payload, most significant bit first.
///
/// The descriptors follow the AV1 specification, §4.10: `f(n)` (``f(_:_:)``), `uvlc()`
/// (``uvlc(_:)``). Unlike ``BitReader`` it reads an `ArraySlice` in place (a frame OBU's tile data
/// is never copied to read its header) and throws the error its owner chooses: a malformed
/// sequence header is a bad format description, a malformed frame header bad sample data.
struct AV1BitReader {
    /// The bytes being read.
    let bytes: ArraySlice<UInt8>
    /// The position of the next bit to read, counted from the first bit of ``bytes``.
    private(set) var bitPosition = 0
    /// What is being parsed, for error messages (for example `"AV1 sequence header"`).
    let context: String
    /// The error thrown when the data runs out or a value is out of range.
    let error: VTError

    /// Creates a reader over `bytes`.
    init(_ bytes: ArraySlice<UInt8>, context: String, error: VTError) {
        self.bytes = bytes
        self.context = context
        self.error = error
    }

    /// The number of bits not yet read.
    var bitsLeft: Int { bytes.count * 8 - bitPosition }

    /// `f(n)`: reads `count` bits (0 to 32) as an unsigned number.
    mutating func f(_ count: Int, _ element: StaticString) throws(VTError) -> UInt32 {
        precondition((0...32).contains(count), "f(n) reads at most 32 bits")
        guard count <= bitsLeft else {
            throw error.with(
                "\(context) is truncated: \(element) reaches past its end (bit \(bitPosition) of \(bytes.count * 8))")
        }
        var value: UInt64 = 0
        var remaining = count
        while remaining > 0 {
            let byte = UInt64(bytes[bytes.startIndex + bitPosition >> 3])
            let offset = bitPosition & 7
            let take = min(8 - offset, remaining)
            let chunk = (byte >> UInt64(8 - offset - take)) & ((1 << UInt64(take)) - 1)
            value = (value << UInt64(take)) | chunk
            remaining -= take
            bitPosition += take
        }
        return UInt32(value)
    }

    /// `f(1)` read as a flag.
    mutating func flag(_ element: StaticString) throws(VTError) -> Bool {
        try f(1, element) == 1
    }

    /// `f(n)` read into an `Int`.
    mutating func int(_ count: Int, _ element: StaticString) throws(VTError) -> Int {
        Int(try f(count, element))
    }

    /// Skips `count` bits (fields parsed only to reach what follows).
    mutating func skip(_ count: Int, _ element: StaticString) throws(VTError) {
        guard count >= 0, count <= bitsLeft else {
            throw error.with(
                "\(context) is truncated: \(element) reaches past its end (bit \(bitPosition) of \(bytes.count * 8))")
        }
        bitPosition += count
    }

    /// `uvlc()` (§4.10.3): a variable-length unsigned number, `2^32 − 1` when it has 32 or more
    /// leading zero bits.
    mutating func uvlc(_ element: StaticString) throws(VTError) -> UInt32 {
        var leadingZeros = 0
        while try f(1, element) == 0 {
            leadingZeros += 1
        }
        guard leadingZeros < 32 else { return UInt32.max }
        let value = UInt64(try f(leadingZeros, element))
        return UInt32(value + (UInt64(1) << UInt64(leadingZeros)) - 1)
    }

    /// An error of the reader's kind, with `reason` prefixed by the context.
    func invalid(_ reason: String) -> VTError {
        error.with("\(context): \(reason)")
    }
}
