import Testing

@testable import VAToolbox

@Suite struct BitReaderTests {
    @Test func readsFixedWidthFieldsMostSignificantBitFirst() throws {
        var reader = BitReader([0b1010_0000, 0xFF, 0x12, 0x34, 0x56, 0x78, 0x9A], context: "test")
        #expect(try reader.bits(1, "a") == 1)
        #expect(try reader.bits(3, "b") == 0b010)
        #expect(try reader.bits(4, "c") == 0)
        #expect(try reader.bits(8, "d") == 0xFF)
        #expect(try reader.bits(32, "e") == 0x1234_5678)
        #expect(reader.bitsLeft == 8)
        #expect(reader.isByteAligned)
    }

    /// Codes from H.264 Table 9-2 and 9-3: bit string → codeNum → se(v).
    @Test(arguments: [
        ("1", 0, 0), ("010", 1, 1), ("011", 2, -1), ("00100", 3, 2), ("00101", 4, -2),
        ("00111", 6, -3), ("0001000", 7, 4), ("000010000", 15, 8),
    ])
    func expGolombCodesMatchTheSpecTables(bits: String, codeNum: Int, signed: Int) throws {
        let bytes = pack(bits)
        var unsigned = BitReader(bytes, context: "test")
        #expect(try unsigned.unsignedExpGolomb("ue") == UInt32(codeNum))
        #expect(unsigned.bitPosition == bits.count)
        var signedReader = BitReader(bytes, context: "test")
        #expect(try signedReader.signedExpGolomb("se") == Int32(signed))
    }

    @Test func largestUnsignedExpGolombValueFits() throws {
        // 31 leading zeros, a one, then 31 ones: 2^32 - 2, the largest value with a 31-bit suffix.
        var reader = BitReader(
            pack(String(repeating: "0", count: 31) + "1" + String(repeating: "1", count: 31) + "0"), context: "test")
        #expect(try reader.unsignedExpGolomb("ue") == UInt32.max - 1)
    }

    @Test func overlongExpGolombThrowsBadData() {
        var reader = BitReader([0, 0, 0, 0, 0x80], context: "H.264 SPS")
        #expect(throws: VTError.videoDecoderBadData) { try reader.unsignedExpGolomb("log2_max_frame_num_minus4") }
    }

    @Test func readingPastTheEndThrowsNamingTheElement() {
        var reader = BitReader([0xAB], context: "H.264 SPS")
        do {
            _ = try reader.bits(9, "level_idc")
            Issue.record("no error")
        } catch {
            #expect(error == .videoDecoderBadData)
            #expect(error.reason.contains("H.264 SPS"))
            #expect(error.reason.contains("level_idc"))
        }
        var zeros = BitReader([0, 0], context: "x")
        #expect(throws: VTError.videoDecoderBadData) { try zeros.unsignedExpGolomb("ue") }
        var empty = BitReader([], context: "x")
        #expect(throws: VTError.videoDecoderBadData) { try empty.flag("f") }
    }

    @Test func boundedReadsRejectValuesOutsideTheSpecRange() {
        var reader = BitReader(pack("0001000"), context: "x")  // ue = 7
        #expect(throws: VTError.videoDecoderBadData) { try reader.unsignedExpGolomb("chroma_format_idc", maximum: 3) }
        var signed = BitReader(pack("0001000"), context: "x")  // se = 4
        #expect(throws: VTError.videoDecoderBadData) { try signed.signedExpGolomb("offset", in: -2...2) }
    }

    @Test func moreRBSPDataStopsAtTheStopBit() throws {
        // Payload bits 101, then the stop bit and alignment zeros.
        var reader = BitReader([0b1011_0000], context: "x")
        #expect(reader.moreRBSPData)
        _ = try reader.bits(3, "payload")
        #expect(!reader.moreRBSPData)
        // Trailing cabac_zero_words after the stop bit do not count as data.
        var padded = BitReader([0b1000_0000, 0, 0], context: "x")
        #expect(!padded.moreRBSPData)
        _ = try padded.bits(0, "nothing")
        #expect(!BitReader([], context: "x").moreRBSPData)
    }

    private func pack(_ bits: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var current: UInt8 = 0
        for (index, bit) in bits.enumerated() {
            current = current << 1 | (bit == "1" ? 1 : 0)
            if index % 8 == 7 {
                bytes.append(current)
                current = 0
            }
        }
        if bits.count % 8 != 0 { bytes.append(current << UInt8(8 - bits.count % 8)) }
        return bytes
    }
}

@Suite struct RBSPTests {
    @Test func unescapeRemovesEmulationPreventionBytes() {
        #expect(RBSP.unescape([0, 0, 3, 1, 0, 0, 3, 0, 0, 3]) == [0, 0, 1, 0, 0, 0, 0])
        #expect(RBSP.unescape([0, 3, 0, 0, 3, 3]) == [0, 3, 0, 0, 3])
    }

    @Test func escapeInsertsThemAndRoundTrips() {
        #expect(RBSP.escape([0, 0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 4]) == [0, 0, 3, 0, 0, 3, 0, 1, 0, 0, 3, 2, 0, 0, 4])
        #expect(RBSP.escape([0x80, 0]) == [0x80, 0, 3])
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<500 {
            let length = Int.random(in: 0..<64, using: &generator)
            // Zero-heavy payloads exercise every escape; a payload ends in a non-zero byte.
            var payload = (0..<length).map { _ in
                UInt8.random(in: 0...4, using: &generator) == 0 ? UInt8.random(in: 0...3, using: &generator) : 0
            }
            payload.append(0x80)
            let escaped = RBSP.escape(payload)
            #expect(RBSP.unescape(escaped) == payload)
            #expect(
                AnnexB.split([0, 0, 1, 0x65] + escaped).count == 1, "an escaped payload never contains a start code")
        }
    }
}
