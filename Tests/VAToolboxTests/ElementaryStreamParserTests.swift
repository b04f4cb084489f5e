import Testing

@testable import VAToolbox

@Suite struct ElementaryStreamParserTests {
    /// Whether an H.264 NAL unit is an SPS or a PPS (nal_unit_type 7 or 8); an empty unit is not.
    static func isParameterSet(_ unit: ArraySlice<UInt8>) -> Bool {
        unit.first.map { [7, 8].contains($0 & 0x1F) } ?? false
    }

    /// Feeds a stream in seeded random chunk sizes, from 1 byte to 64 KiB.
    static func parseInRandomChunks(_ bytes: [UInt8], codec: VideoCodecType, seed: UInt64) -> (
        samples: [SampleBuffer], parser: ElementaryStreamParser
    ) {
        var generator = SeededGenerator(seed: seed)
        var parser = ElementaryStreamParser(codec: codec)
        var samples: [SampleBuffer] = []
        var index = 0
        while index < bytes.count {
            let sizes = [1, 2, 3, 5, 7, 188, 1000, 4096, 65536]
            let size = sizes[Int.random(in: 0..<sizes.count, using: &generator)]
            let end = min(index + Int.random(in: 1...size, using: &generator), bytes.count)
            samples += parser.parse(bytes[index..<end])
            index = end
        }
        samples += parser.finish()
        return (samples, parser)
    }

    /// Valid streams, and the truncated and bit-flipped fixtures: their oracles say how
    /// libavcodec's parser splits them, and damage inside slice data must not move a boundary.
    static let packetOracleStreams =
        StreamFile.allValid + StreamFile.fixtures.filter { !StreamFile.validFixtures.contains($0) }

    @Test(.enabled(if: TestData.hasFFprobe), arguments: packetOracleStreams)
    func accessUnitsAndSyncSamplesMatchFFprobePackets(stream: StreamFile) throws {
        let bytes = try stream.bytes()
        let (samples, parser) = Self.parseInRandomChunks(bytes, codec: stream.codec, seed: UInt64(bytes.count))
        let oracle = try FFprobeOracle.load(for: stream)
        #expect(samples.count == oracle.packetCount, "\(stream.name): access units vs ffprobe packets")
        #expect(parser.skippedAccessUnits == 0)
        // libavcodec's parser flags as key: IDR/IRAP pictures, pictures with a recovery point SEI,
        // and intra pictures of H.264 streams with max_num_ref_frames ≤ 1 — what ours calls sync
        // and partial sync. (It does not flag pictures with memory_management_control_operation 5.)
        let ours = samples.indices.filter { samples[$0].isSync || samples[$0].attachments.contains(.partialSync) }
        #expect(ours == oracle.keyPacketIndices, "\(stream.name): key frames")
        #expect(samples.first?.isSync == true || samples.first?.attachments.contains(.partialSync) == true)
    }

    /// The pictures of MR2_TANDBERG_E that reset references (memory_management_control_operation
    /// 5), found by the slice header parser: the conformance spec says the stream uses MMCO 5.
    @Test(.needsConformance)
    func memoryManagementResetIsParsed() throws {
        let stream = try #require(StreamFile.conformance.first { $0.name == "MR2_TANDBERG_E" })
        let samples = ElementaryStreamParser.samples(in: try stream.bytes(), codec: .h264)
        var sps: [Int: H264SequenceParameterSet] = [:]
        var pps: [Int: H264PictureParameterSet] = [:]
        var resets = 0
        for sample in samples {
            for unit in sample.nalUnits {
                if let parsed = try? H264SequenceParameterSet(unit) { sps[parsed.seqParameterSetId] = parsed }
                if let parsed = try? H264PictureParameterSet(unit) { pps[parsed.picParameterSetId] = parsed }
            }
            let slice = try #require(sample.nalUnits.first { $0.isVCL })
            let header = try H264SliceHeader(slice, pictureParameterSet: { pps[$0] }, sequenceParameterSet: { sps[$0] })
            if header.hasMemoryManagementReset { resets += 1 }
        }
        #expect(resets == 2)
    }

    @Test(arguments: StreamFile.allValid + StreamFile.fixtures.filter { $0.name.contains("bitflip") })
    func samplesConvertBackToTheInputNALUnits(stream: StreamFile) throws {
        let bytes = try stream.bytes()
        let (samples, _) = Self.parseInRandomChunks(bytes, codec: stream.codec, seed: 42)
        let input = AnnexB.split(bytes).map(Array.init)
        var output: [[UInt8]] = []
        for sample in samples {
            output += try AVCC.split(sample.data[...], lengthSize: 4).map(Array.init)
        }
        // Parameter sets before the first picture and every unit after are reproduced in order.
        #expect(output.count == input.count, "\(stream.name)")
        #expect(output == input, "\(stream.name)")
    }

    @Test func chunkSizeDoesNotChangeTheResult() throws {
        let stream = try #require(StreamFile.validFixtures.first { $0.name == "h264-slices.264" })
        let bytes = try stream.bytes()
        let whole = ElementaryStreamParser.samples(in: bytes, codec: .h264).map(\.data)
        for seed in UInt64(1)...5 {
            #expect(Self.parseInRandomChunks(bytes, codec: .h264, seed: seed).samples.map(\.data) == whole)
        }
    }

    @Test func resolutionChangeYieldsExactlyTwoFormatDescriptions() throws {
        let stream = try #require(StreamFile.validFixtures.first { $0.name == "h264-resolution-change.264" })
        let (samples, parser) = Self.parseInRandomChunks(try stream.bytes(), codec: .h264, seed: 3)
        #expect(parser.formatDescriptionCount == 2)
        var formats: [VideoFormatDescription] = []
        for sample in samples where formats.last != sample.formatDescription {
            formats.append(sample.formatDescription)
        }
        let oracle = try FFprobeOracle.load(for: stream)
        let oracleSizes = oracle.frameSizes.reduce(into: [VideoDimensions]()) { if $0.last != $1 { $0.append($1) } }
        #expect(formats.map(\.dimensions) == oracleSizes)
        #expect(oracleSizes.count == 2)
        #expect(samples.count == oracle.frameSizes.count)
    }

    @Test func repeatedIdenticalParameterSetsKeepTheFormatDescription() throws {
        let stream = try #require(StreamFile.validFixtures.first { $0.name == "h264-baseline-cavlc.264" })
        let bytes = try stream.bytes()
        let units = AnnexB.split(bytes)
        let parameterSets = units.filter { Self.isParameterSet($0) }.map(Array.init)
        // Resend the SPS and PPS before every picture: still one description.
        var repeated: [[UInt8]] = []
        for unit in units where !Self.isParameterSet(unit) {
            if [1, 5].contains((unit.first ?? 0) & 0x1F) { repeated += parameterSets }
            repeated.append(Array(unit))
        }
        var parser = ElementaryStreamParser(codec: .h264)
        let samples = parser.parse(AnnexB.join(repeated)) + parser.finish()
        #expect(parser.formatDescriptionCount == 1)
        #expect(samples.count == ElementaryStreamParser.samples(in: bytes, codec: .h264).count)
    }

    @Test func parameterSetsCanBeKeptOutOfTheSamples() throws {
        let stream = try #require(StreamFile.validFixtures.first { $0.name == "h264-high-bpyramid.264" })
        var options = ElementaryStreamParser.Options()
        options.keepsParameterSetsInSamples = false
        options.nalUnitHeaderLength = 2
        let samples = ElementaryStreamParser.samples(in: try stream.bytes(), codec: .h264, options: options)
        #expect(samples.count == 48)
        for sample in samples {
            #expect(sample.formatDescription.nalUnitHeaderLength == 2)
            #expect(!sample.nalUnits.contains { $0.isParameterSet })
        }
    }

    @Test func timingComesFromTheSPSOrTheOptions() throws {
        let stream = try #require(StreamFile.validFixtures.first { $0.name == "h264-high-bpyramid.264" })
        var options = ElementaryStreamParser.Options()
        options.frameDuration = MediaTime(value: 1001, timescale: 30000)
        let samples = ElementaryStreamParser.samples(in: try stream.bytes(), codec: .h264, options: options)
        #expect(samples[3].decodeTimeStamp == MediaTime(value: 3003, timescale: 30000))
        #expect(samples[3].duration == MediaTime(value: 1001, timescale: 30000))
    }

    @Test func accessUnitsBeforeTheFirstParameterSetsAreSkippedAndReported() throws {
        let stream = try #require(StreamFile.validFixtures.first { $0.name == "h264-high-bpyramid.264" })
        let units = AnnexB.split(try stream.bytes())
        // Drop the leading SPS and PPS: nothing can be described until they come again (never).
        let body = units.filter { !Self.isParameterSet($0) }
        var parser = ElementaryStreamParser(codec: .h264)
        let samples = parser.parse(AnnexB.join(body)) + parser.finish()
        #expect(samples.isEmpty)
        #expect(parser.skippedAccessUnits > 0)
        #expect(!parser.diagnostics.isEmpty)
    }
}
