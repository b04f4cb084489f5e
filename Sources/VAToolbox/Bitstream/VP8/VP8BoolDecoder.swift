/// The boolean entropy decoder of VP8 (RFC 6386 §7), enough to read the frame header at the start
/// of the first partition (§9.2–9.6, §19.2), where every value is coded at probability 128.
///
/// Written from the RFC's description (§7.3): a 2-byte window `value`, a `range` kept in
/// 128…255 by shifting, and a new byte every 8 shifts. Bytes past the end of the partition read
/// as zero, as in libvpx, but the decoder throws once it has shifted in more than two of them
/// (the two-byte look-ahead of the window): then the header really reaches past the partition.
struct VP8BoolDecoder {
    private let data: ArraySlice<UInt8>
    private var next: Int
    private var value: UInt32
    private var range: UInt32 = 255
    private var bitCount = 0
    private var bytesPastEnd = 0

    /// Starts decoding `partition` (§7.3 `init_bool_decoder`).
    init(_ partition: ArraySlice<UInt8>) {
        data = partition
        next = partition.startIndex
        value = 0
        for _ in 0..<2 { value = value << 8 | UInt32(loadByte()) }
    }

    /// The number of bits the decoder has consumed so far, rounded up to bytes (`bd.pos()` in some decoders).
    var bytesConsumed: Int { next - data.startIndex - bytesPastEnd }

    private mutating func loadByte() -> UInt8 {
        if next < data.endIndex {
            defer { next += 1 }
            return data[next]
        }
        bytesPastEnd += 1
        return 0
    }

    /// Decodes one boolean whose probability of being 0 is `probability` / 256 (§7.3 `bool_decoder`).
    mutating func bool(_ probability: UInt32, _ element: StaticString) throws(VTError) -> Bool {
        let split = 1 + (((range - 1) * probability) >> 8)
        let bigSplit = split << 8
        let bit: Bool
        if value >= bigSplit {
            bit = true
            range -= split
            value -= bigSplit
        } else {
            bit = false
            range = split
        }
        while range < 128 {
            value <<= 1
            range <<= 1
            bitCount += 1
            if bitCount == 8 {
                bitCount = 0
                value |= UInt32(loadByte())
            }
        }
        guard bytesPastEnd <= 2 else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "VP8 frame header: \(element) reaches past the end of the \(data.count)-byte first partition")
        }
        return bit
    }

    /// `L(n)`: an `n`-bit unsigned literal, most significant bit first, each bit at probability 128.
    mutating func literal(_ count: Int, _ element: StaticString) throws(VTError) -> Int {
        var result = 0
        for _ in 0..<count { result = result << 1 | (try bool(128, element) ? 1 : 0) }
        return result
    }

    /// `L(1)` as a flag.
    mutating func flag(_ element: StaticString) throws(VTError) -> Bool {
        try bool(128, element)
    }

    /// A magnitude of `count` bits followed by a sign flag (the deltas of §9.3, §9.6, §19.2).
    mutating func signedLiteral(_ count: Int, _ element: StaticString) throws(VTError) -> Int {
        let magnitude = try literal(count, element)
        return try flag(element) ? -magnitude : magnitude
    }

    /// An optional value: a presence flag, then a signed literal of `count` bits (`quant_indices()`).
    mutating func optionalSignedLiteral(_ count: Int, _ element: StaticString) throws(VTError) -> Int? {
        try flag(element) ? try signedLiteral(count, element) : nil
    }
}
