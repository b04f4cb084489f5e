import Testing

@testable import VAToolbox

/// The format description of every stream, compared field by field with ffprobe.
@Suite struct FormatDescriptionOracleTests {
    /// ffprobe's stream-level fields mix the two halves of a resolution change (width from the
    /// first SPS, coded size and level from the second); their frames are checked instead.
    static let streams = StreamFile.allValid.filter {
        !["h264-resolution-change.264", "h264-size-up.264", "hevc-size-up.265"].contains($0.name)
    }

    @Test(.enabled(if: TestData.hasFFprobe), arguments: streams)
    func firstFormatDescriptionMatchesFFprobe(stream: StreamFile) throws {
        let samples = ElementaryStreamParser.samples(in: try stream.bytes(), codec: stream.codec)
        let format = try #require(samples.first?.formatDescription, "\(stream.name): no access unit parsed")
        let oracle = try FFprobeOracle.load(for: stream)
        OracleExpectations.check(format, against: oracle, stream.name)
    }

    /// Reorder depth against ffprobe's `has_b_frames`, for streams whose SPS states it
    /// (`max_num_reorder_frames` in the VUI); libavcodec guesses otherwise.
    @Test(.enabled(if: TestData.hasFFprobe), arguments: StreamFile.allValid)
    func statedReorderDepthMatchesFFprobe(stream: StreamFile) throws {
        let samples = ElementaryStreamParser.samples(in: try stream.bytes(), codec: stream.codec)
        let format = try #require(samples.first?.formatDescription)
        let stated: Bool
        if let sps = format.h264SequenceParameterSet {
            stated = sps.vui?.bitstreamRestriction != nil
        } else {
            stated = true
        }
        guard stated else { return }
        let oracle = try FFprobeOracle.load(for: stream)
        #expect(oracle.stream["has_b_frames"] == "\(format.stream.maxNumReorderFrames)", "\(stream.name)")
    }
}
