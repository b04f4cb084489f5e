import Foundation
import Testing

@testable import VAToolbox

/// `vatoolbox probe --json`'s `streams` (Docs/CLI.md, "probe --json"): every stream of the file,
/// video or not, with ffprobe's keys, types and values, against `ffprobe -show_streams` on every
/// fixture (its committed `FILE.streams.json`); and `framemd5` on MPEG-2 in every container
/// against its committed oracle.
@Suite("vatoolbox probe --json streams", .enabled(if: CommandRunner.hasTool))
struct ProbeStreamsCommandTests {
    /// The ffprobe keys `probe --json` writes for each stream (its own keys stand beside them).
    static let ffprobeKeys = [
        "index", "codec_name", "profile", "codec_type", "width", "height", "coded_width", "coded_height", "pix_fmt",
        "level", "color_range", "color_space", "color_transfer", "color_primaries", "field_order", "sample_fmt",
        "sample_rate", "channels", "r_frame_rate", "avg_frame_rate", "time_base", "duration_ts", "duration",
        "nb_frames",
    ]

    /// Runs `probe --json FILE` and returns the whole object.
    static func probe(_ url: URL) throws -> [String: Any] {
        let result = try CommandRunner.vatoolbox(["probe", "--json", url.path])
        // The damaged fixtures probe too: only decoding them reports damage.
        try #require(result.status == 0, "probe \(url.lastPathComponent): \(result.standardError)")
        return try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
    }

    @Test("each stream's ffprobe keys equal ffprobe -show_streams, key by key", arguments: StreamsOracle.fixtures)
    func streamsEqualFFprobe(_ file: String) throws {
        let url = TestData.fixtures.appendingPathComponent(file)
        let theirs = try StreamsOracle.streams(of: url)
        let json = try Self.probe(url)
        let ours = try #require(json["streams"] as? [[String: Any]], "no streams array")
        try #require(ours.count == theirs.count, "\(file): \(ours.count) streams, ffprobe lists \(theirs.count)")
        for (stream, expected) in zip(ours, theirs) {
            let index = expected["index"] as? Int ?? -1
            for key in Self.ffprobeKeys {
                #expect(stream.keys.contains(key), "\(file) stream \(index): no \(key)")
                if let value = expected[key] {
                    #expect(
                        StreamsOracle.same(stream[key], value),
                        "\(file) stream \(index) \(key): ours \(stream[key] ?? "absent"), ffprobe \(value)")
                } else {
                    #expect(
                        stream[key] is NSNull,
                        "\(file) stream \(index) \(key): ffprobe has none, ours \(stream[key] ?? "absent")")
                }
            }
        }
        // One stream is marked: the video track the report describes and the tool decodes.
        let selected = ours.filter { $0["selected"] as? Bool == true }
        try #require(selected.count == 1, "\(file): \(selected.count) streams selected")
        #expect(selected[0]["index"] as? Int == json["track"] as? Int)
        #expect(selected[0]["codec_type"] as? String == "video")
        #expect(selected[0]["codec_name"] as? String == json["codec"] as? String)
        #expect(selected[0]["codec_fourcc"] as? String == json["codec_fourcc"] as? String)
        for stream in ours {
            let decodable = stream["codec_type"] as? String == "video" && stream["codec_fourcc"] is String
            #expect(stream["decodable"] as? Bool == decodable, "\(file) stream \(stream["index"] ?? "?")")
        }
    }

    @Test("audio and subtitle streams are listed beside the video, with ffprobe's values")
    func nonVideoStreams() throws {
        let mp4 = try Self.probe(TestData.fixtures.appendingPathComponent("mpeg2-bframes.mp4"))
        let streams = try #require(mp4["streams"] as? [[String: Any]])
        #expect(streams.map { $0["codec_type"] as? String } == ["video", "audio", "subtitle"])
        #expect(streams.map { $0["selected"] as? Bool } == [true, false, false])
        #expect(streams.map { $0["decodable"] as? Bool } == [true, false, false])
        let audio = streams[1]
        #expect(audio["codec_name"] as? String == "aac")
        #expect(audio["profile"] as? String == "LC")
        #expect(audio["sample_rate"] as? String == "48000")
        #expect(audio["channels"] as? Int == 1)
        #expect(audio["width"] is NSNull && audio["pix_fmt"] is NSNull && audio["level"] is NSNull)
        #expect(audio["r_frame_rate"] as? String == "0/0")
        #expect(streams[2]["codec_name"] as? String == "mov_text")
        // MPEG-2's decoder takes no size from the container: ffprobe's coded size is 0x0.
        #expect(streams[0]["coded_width"] as? Int == 0 && streams[0]["width"] as? Int == 320)
        let ts = try Self.probe(TestData.fixtures.appendingPathComponent("mpeg2-bframes.ts"))
        let tsStreams = try #require(ts["streams"] as? [[String: Any]])
        #expect(tsStreams.map { $0["codec_name"] as? String } == ["mpeg2video", "mp2"])
        // The text report lists them too, the one read marked.
        let text = try CommandRunner.vatoolbox(
            ["probe", TestData.fixtures.appendingPathComponent("mpeg2-bframes.mp4").path])
        #expect(text.text.contains("streams: 3\n"))
        #expect(text.text.contains("  stream 0: video mpeg2video (Main), 320x240, yuv420p, 30000/1001 fps"))
        #expect(text.text.contains(" — read\n"))
        #expect(text.text.contains("  stream 1: audio aac (LC), 48000 Hz, 1 channel, fltp"))
        #expect(text.text.contains("  stream 2: subtitle mov_text"))
    }

    @Test("standard input has no stream list (null); a raw stream file has its one stream, selected")
    func rawAndStandardInput() throws {
        let url = TestData.fixtures.appendingPathComponent("hevc-main.265")
        let piped = try CommandRunner.vatoolbox(["probe", "--json", "-"], input: url)
        #expect(piped.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: piped.standardOutput) as? [String: Any])
        #expect(object["streams"] is NSNull)
        #expect(object["track"] is NSNull)
        let file = try Self.probe(url)
        #expect((file["streams"] as? [[String: Any]])?.map { $0["selected"] as? Bool } == [true])
        #expect(file["track"] as? Int == 0)
    }

    @Test("the second video track of a file is listed, the default one selected")
    func twoVideoTracks() throws {
        let json = try Self.probe(TestData.fixtures.appendingPathComponent("two-video-tracks.mkv"))
        let streams = try #require(json["streams"] as? [[String: Any]])
        #expect(streams.map { $0["selected"] as? Bool } == [true, false])
        #expect(streams.map { $0["decodable"] as? Bool } == [true, true])
        #expect(streams.map { $0["width"] as? Int } == [176, 320])
    }
}

/// `framemd5` on MPEG-2 in each container (elementary stream, MPEG-TS, MP4 with B-frames and
/// other tracks) against the committed `ffmpeg -map 0:v:0 -fflags +bitexact -f framemd5` oracle,
/// byte for byte but the `#software` line (`+bitexact` leaves it out).
@Suite("vatoolbox framemd5 on MPEG-2", .enabled(if: CommandRunner.hasTool))
struct MPEG2FrameMD5CommandTests {
    @Test(
        "byte-identical to the committed oracle, to the last picture's time stamp",
        arguments: ["mpeg2-progressive.m2v", "mpeg2-interlaced.ts", "mpeg2-bframes.mp4", "mpeg2-bframes.ts"])
    func equalsOracle(_ file: String) throws {
        let url = TestData.fixtures.appendingPathComponent(file)
        let result = try CommandRunner.vatoolbox(["framemd5", url.path])
        #expect(result.status == 0, "\(result.standardError)")
        let ours = result.text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("#software:") }.joined(separator: "\n")
        let oracle = try String(contentsOf: url.appendingPathExtension("framemd5"), encoding: .utf8)
        #expect(!oracle.isEmpty)
        if ours != oracle {
            let a = ours.split(separator: "\n")
            let b = oracle.split(separator: "\n")
            let line = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
            let mine = line < a.count ? String(a[line]) : ""
            let theirs = line < b.count ? String(b[line]) : ""
            Issue.record("\(file): first difference at line \(line + 1): ours '\(mine)', ffmpeg '\(theirs)'")
        }
    }
}
