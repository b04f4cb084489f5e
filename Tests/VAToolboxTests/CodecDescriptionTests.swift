import Foundation
import Testing
import VAToolbox

/// The public codec description the tool reads instead of switching on codecs: the picture
/// counter against ffmpeg's frame count, the chroma siting and colour range against ffprobe.
@Suite struct CodecDescriptionTests {
    static let fixtures = [
        "h264-main-cabac.264", "h264-baseline-cavlc.264", "hevc-main.265", "vp9-profile0.ivf", "av1.ivf", "vp8.ivf",
        "mpeg2-progressive.m2v", "av1.mp4", "vp8.webm", "h264-high-bpyramid.mp4",
    ]

    /// The fixture's first stream in its `.ffprobe.json` (made by the ffprobe CLI).
    static func ffprobeStream(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: TestData.fixtures.appendingPathComponent(name + ".ffprobe.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let streams = try #require(json["streams"] as? [[String: Any]])
        return try #require(streams.first)
    }

    @Test(arguments: fixtures)
    func thePictureCounterCountsWhatFFmpegOutputs(name: String) throws {
        let samples = try TestData.samples(name)
        var counter = PictureCounter()
        for sample in samples { counter.add(sample) }
        let oracle = try FrameMD5Oracle(contentsOf: TestData.fixtures.appendingPathComponent(name + ".framemd5"))
        #expect(counter.pictures == oracle.frames.count)
    }

    @Test(arguments: fixtures.filter { !$0.hasSuffix(".mkv") && !$0.hasSuffix(".webm") && !$0.hasSuffix(".mp4") })
    func chromaSitingAndRangeAreFFprobes(name: String) throws {
        let format = try #require(try TestData.samples(name).first).formatDescription
        let stream = try Self.ffprobeStream(name)
        let siting: String? =
            switch format.decodedChromaSiting {
            case .left: "left"
            case .topLeft: "topleft"
            case .other: "other"
            case .unspecified: nil
            }
        #expect(siting == stream["chroma_location"] as? String)
        // ffprobe's stream-level range: stated for every codec but VP8 (whose decoder states it on
        // each frame only: the y4m tests compare that) and H.264 without a video signal type.
        if format.codecType != .vp8 {
            #expect(
                format.decoderStatesColorRange == (stream["color_range"] != nil), "\(stream["color_range"] ?? "none")")
        }
    }

    @Test func theCodecsWordsAndLevels() {
        #expect(VideoCodecType.h264.sampleNoun == "access unit")
        #expect(VideoCodecType.av1.sampleNoun == "temporal unit")
        #expect(VideoCodecType.vp9.sampleNoun == "sample")
        #expect(VideoCodecType.decodable.filter(\.statesLevel) == [.h264, .hevc, .av1, .mpeg2Video])
        #expect(VideoCodecType.decodable.filter(\.statesTier) == [.hevc])
    }
}
