/// Reads the syntax elements of a raw byte sequence payload (RBSP), most significant bit first.
///
/// The descriptors follow H.264 / H.265 clause 7.2: `u(n)` (``bits(_:_:)``), `ue(v)`
/// (``unsignedExpGolomb(_:)``), `se(v)` (``signedExpGolomb(_:)``) and `more_rbsp_data()`
/// (``moreRBSPData``). Every read names the syntax element it reads, so that running out of data
/// or meeting an impossible value throws an error that says where, instead of trapping.
///
/// The input must already be unescaped (see ``RBSP/unescape(_:)``): emulation prevention bytes
/// are not skipped here.
///
/// One reader serves every codec: it reads an `ArraySlice` in place (an AV1 frame OBU's tile data
/// is never copied to read its header), and throws the error its owner chose at initialisation
/// (``VTError/videoDecoderBadData`` unless told otherwise: a malformed AV1 sequence header is a bad
/// format description instead). Codec-specific descriptors are extensions in the codec's folder
/// (AV1's `f(n)` and `uvlc()`, VP9's `su(n)`).
public struct BitReader: Sendable {
    /// The bytes being read, in place.
    let storage: ArraySlice<UInt8>
    /// The position of the next bit to read, counted from the first bit of ``bytes``.
    public private(set) var bitPosition: Int = 0
    /// What is being parsed, for error messages (for example `"H.264 SPS"`).
    public let context: String
    /// The error thrown when the data runs out or a value is out of range; its reason is added.
    let error: VTError

    /// Creates a reader over an RBSP.
    ///
    /// - Parameters:
    ///   - rbsp: The unescaped payload.
    ///   - context: What the payload is, used in error messages.
    public init(_ rbsp: [UInt8], context: String) {
        self.init(rbsp[...], context: context, error: .videoDecoderBadData)
    }

    /// Creates a reader over `bytes`, read in place, that throws `error` with the reason added.
    init(_ bytes: ArraySlice<UInt8>, context: String, error: VTError) {
        self.storage = bytes
        self.context = context
        self.error = error
    }

    /// The bytes being read.
    public var bytes: [UInt8] { Array(storage) }

    /// The number of bits not yet read.
    public var bitsLeft: Int { storage.count * 8 - bitPosition }

    /// Whether the next bit is the first bit of a byte.
    public var isByteAligned: Bool { bitPosition % 8 == 0 }

    /// `u(n)`: reads `count` bits (0 to 32) as an unsigned number.
    ///
    /// - Throws: The reader's error (``VTError/videoDecoderBadData`` unless the owner chose
    ///   another) when fewer than `count` bits are left.
    public mutating func bits(_ count: Int, _ element: StaticString) throws(VTError) -> UInt32 {
        precondition((0...32).contains(count), "u(n) reads at most 32 bits")
        guard count <= bitsLeft else { throw truncated(element) }
        var value: UInt64 = 0
        var remaining = count
        while remaining > 0 {
            let byte = UInt64(storage[storage.startIndex + bitPosition >> 3])
            let offset = bitPosition & 7
            let take = min(8 - offset, remaining)
            let chunk = (byte >> UInt64(8 - offset - take)) & ((1 << UInt64(take)) - 1)
            value = (value << UInt64(take)) | chunk
            remaining -= take
            bitPosition += take
        }
        return UInt32(value)
    }

    /// `u(1)`: reads one bit as a flag.
    public mutating func flag(_ element: StaticString) throws(VTError) -> Bool {
        try bits(1, element) == 1
    }

    /// Reads `count` bits into an `Int` (for fields compared with sizes and counts).
    public mutating func int(_ count: Int, _ element: StaticString) throws(VTError) -> Int {
        Int(try bits(count, element))
    }

    /// Skips `count` bits.
    ///
    /// - Throws: The reader's error when fewer than `count` bits are left.
    public mutating func skip(_ count: Int, _ element: StaticString) throws(VTError) {
        guard count >= 0, count <= bitsLeft else { throw truncated(element) }
        bitPosition += count
    }

    /// `ue(v)`: reads an unsigned Exp-Golomb code (clause 9.1).
    ///
    /// - Throws: The reader's error when the data ends inside the code, or when the code has more
    ///   than 31 leading zero bits (its value would not fit in 32 bits).
    public mutating func unsignedExpGolomb(_ element: StaticString) throws(VTError) -> UInt32 {
        var leadingZeroBits = 0
        while try bits(1, element) == 0 {
            leadingZeroBits += 1
            guard leadingZeroBits <= 31 else {
                throw invalid("\(element) is an Exp-Golomb code longer than 32 bits (corrupt data)")
            }
        }
        guard leadingZeroBits > 0 else { return 0 }
        let suffix = UInt64(try bits(leadingZeroBits, element))
        return UInt32((UInt64(1) << UInt64(leadingZeroBits)) - 1 + suffix)
    }

    /// `ue(v)` read into an `Int`, checked against an inclusive upper bound from the spec.
    ///
    /// - Throws: The reader's error when the value exceeds `maximum`.
    public mutating func unsignedExpGolomb(_ element: StaticString, maximum: Int) throws(VTError) -> Int {
        let value = Int(try unsignedExpGolomb(element))
        guard value <= maximum else {
            throw invalid("\(element) is \(value), more than \(maximum)")
        }
        return value
    }

    /// `se(v)`: reads a signed Exp-Golomb code (clause 9.1.1).
    public mutating func signedExpGolomb(_ element: StaticString) throws(VTError) -> Int32 {
        let codeNum = Int64(try unsignedExpGolomb(element))
        let magnitude = (codeNum + 1) / 2
        return Int32(codeNum % 2 == 1 ? magnitude : -magnitude)
    }

    /// `se(v)` read into an `Int`, checked against an inclusive range from the spec.
    ///
    /// - Throws: The reader's error when the value is outside `range`.
    public mutating func signedExpGolomb(_ element: StaticString, in range: ClosedRange<Int>) throws(VTError) -> Int {
        let value = Int(try signedExpGolomb(element))
        guard range.contains(value) else {
            throw invalid("\(element) is \(value), outside \(range)")
        }
        return value
    }

    /// `more_rbsp_data()`: whether anything but the RBSP trailing bits is left (clause 7.2).
    ///
    /// True when a bit equal to 1 follows the current position other than the last 1 bit of the
    /// payload (the `rbsp_stop_one_bit`).
    public var moreRBSPData: Bool {
        guard let lastNonZero = storage.lastIndex(where: { $0 != 0 }) else { return false }
        let stopBit = (lastNonZero - storage.startIndex) * 8 + 7 - storage[lastNonZero].trailingZeroBitCount
        return bitPosition < stopBit
    }

    /// An error of the reader's kind, with `reason` prefixed by the context.
    func invalid(_ reason: String) -> VTError {
        error.with("\(context): \(reason)")
    }

    private func truncated(_ element: StaticString) -> VTError {
        error.with(
            "\(context) is truncated: \(element) reaches past its end (bit \(bitPosition) of \(storage.count * 8))")
    }
}
