import Testing

@testable import VAToolbox

/// Random and mutated input through every entry point that takes bytes: each must return or
/// throw a `VTError`, never trap or hang. Seeded, so that a failure repeats.
@Suite struct HostileInputTests {
    /// Real parameter sets and slices to mutate, from fixtures of both codecs.
    static let seeds: [(codec: VideoCodecType, units: [[UInt8]])] = StreamFile.validFixtures.compactMap { stream in
        guard let bytes = try? stream.bytes() else { return nil }
        return (stream.codec, Array(AnnexB.split(bytes).prefix(12).map(Array.init)))
    }

    static func mutate(_ input: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = input
        switch Int.random(in: 0..<6, using: &generator) {
        case 0 where !bytes.isEmpty:
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &generator)
            }
        case 1:
            bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
        case 2:
            bytes = (0..<Int.random(in: 0...96, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
        case 3 where bytes.count > 2:
            // ue(v) overflow: a long run of zero bits after the header.
            let start = min(bytes.count - 1, Int.random(in: 1...3, using: &generator))
            bytes.replaceSubrange(start..<bytes.count, with: [UInt8](repeating: 0, count: 12) + [0x01])
        case 4 where !bytes.isEmpty:
            let index = Int.random(in: 0..<bytes.count, using: &generator)
            bytes.insert(
                contentsOf: [UInt8](repeating: 0xFF, count: Int.random(in: 1...16, using: &generator)), at: index)
        default:
            bytes = bytes.map { $0 & UInt8.random(in: 0...255, using: &generator) }
        }
        return bytes
    }

    @Test func mutatedParameterSetsAndSliceHeadersNeverTrap() {
        var generator = SeededGenerator(seed: 0x5EED)
        var parsed = 0
        for _ in 0..<4000 {
            let (codec, units) = Self.seeds[Int.random(in: 0..<Self.seeds.count, using: &generator)]
            guard !units.isEmpty else { continue }
            let original = units[Int.random(in: 0..<units.count, using: &generator)]
            let bytes = Self.mutate(original, using: &generator)
            guard let unit = try? NALUnit(bytes[...], codec: codec) else { continue }
            if codec == .h264 {
                if (try? H264SequenceParameterSet(rbsp: unit.rbsp)) != nil { parsed += 1 }
                _ = try? H264PictureParameterSet(rbsp: unit.rbsp)
                let sps = units.first { $0.first.map { $0 & 0x1F == 7 } ?? false }.flatMap {
                    try? H264SequenceParameterSet(NALUnit($0[...], codec: .h264))
                }
                let pps = units.first { $0.first.map { $0 & 0x1F == 8 } ?? false }.flatMap {
                    try? H264PictureParameterSet(NALUnit($0[...], codec: .h264))
                }
                _ = try? H264SliceHeader(unit, pictureParameterSet: { _ in pps }, sequenceParameterSet: { _ in sps })
                _ = try? VideoFormatDescription(
                    h264ParameterSets: units.filter { [7, 8].contains($0[0] & 0x1F) } + [bytes])
            } else {
                if (try? HEVCSequenceParameterSet(rbsp: unit.rbsp)) != nil { parsed += 1 }
                _ = try? HEVCVideoParameterSet(rbsp: unit.rbsp)
                _ = try? HEVCPictureParameterSet(rbsp: unit.rbsp)
                _ = try? VideoFormatDescription(
                    hevcParameterSets: units.filter { (32...34).contains(($0[0] >> 1) & 0x3F) } + [bytes])
            }
            _ = SEIMessages.payloadTypes(inRBSP: unit.rbsp)
        }
        // The mutations must not all be rejected at the first byte: some still parse.
        #expect(parsed > 0)
    }

    @Test func mutatedStreamsNeverTrapTheParser() throws {
        var generator = SeededGenerator(seed: 0xBAD)
        let streams = try StreamFile.validFixtures.filter { $0.name.hasSuffix(".264") || $0.name.hasSuffix(".265") }
            .map { ($0.codec, try $0.bytes()) }
        for round in 0..<200 {
            let (codec, original) = streams[round % streams.count]
            var bytes = original
            for _ in 0..<Int.random(in: 1...40, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &generator)
                case 1: bytes[index] = 0
                case 2:
                    bytes.removeSubrange(index..<min(bytes.count, index + Int.random(in: 1...500, using: &generator)))
                default: bytes.insert(contentsOf: [0, 0, 1], at: index)
                }
                if bytes.isEmpty { break }
            }
            var parser = ElementaryStreamParser(codec: codec)
            var samples = parser.parse(bytes)
            samples += parser.finish()
            for sample in samples {
                // Every emitted sample is well-formed even when the stream was not.
                #expect((try? AVCC.split(sample.data[...], lengthSize: 4)) != nil)
            }
            #expect(parser.diagnostics.count <= ElementaryStreamParser.maximumDiagnostics)
        }
    }

    @Test func randomBytesEverywhere() {
        var generator = SeededGenerator(seed: 99)
        for _ in 0..<3000 {
            let length = Int.random(in: 0...300, using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = ElementaryStreamParser.samples(in: bytes, codec: Bool.random(using: &generator) ? .h264 : .hevc)
            for size in [1, 2, 4] { _ = try? AVCC.split(bytes[...], lengthSize: size) }
            _ = try? VideoFormatDescription(avcC: bytes)
            _ = try? VideoFormatDescription(hvcC: bytes)
            _ = try? AVCDecoderConfigurationRecord(bytes: bytes)
            _ = AnnexB.split(bytes)
        }
    }

    @Test func absurdLengthsAreRejectedWithoutAllocating() {
        // A 4-byte length of 4 GiB - 1 must be refused, not trusted.
        #expect(throws: VTError.sampleBufferInvalidSampleData) {
            try AVCC.split([0xFF, 0xFF, 0xFF, 0xFF, 0x65][...], lengthSize: 4)
        }
        // An avcC claiming 31 SPSs of 65535 bytes each, with 3 bytes of data.
        #expect(throws: VTError.formatDescriptionInvalidParameter) {
            try AVCDecoderConfigurationRecord(bytes: [1, 100, 0, 40, 0xFF, 0xFF, 0xFF, 0xFF, 1])
        }
        // A stream of 1 MiB with no start code: nothing emitted, nothing kept beyond the limit.
        var options = ElementaryStreamParser.Options()
        options.maximumNALUnitSize = 4096
        var parser = ElementaryStreamParser(codec: .h264, options: options)
        _ = parser.parse([0, 0, 1, 0x65] + [UInt8](repeating: 0x55, count: 1 << 20))
        #expect(parser.finish().isEmpty)
    }
}
