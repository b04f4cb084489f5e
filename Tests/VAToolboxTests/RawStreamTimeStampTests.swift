import Foundation
import Testing

@testable import VAToolbox

/// An `ffmpeg -f framemd5` output's time base and its pictures' pts and MD5s, in output order.
struct TimedFrameMD5 {
    /// One unit of the `#tb` time base (one frame at the rate ffmpeg picked).
    var tick: MediaTime
    var pts: [Int64]
    var md5s: [String]

    init(_ text: String) throws {
        let lines = text.split(separator: "\n")
        let base = try #require(lines.first { $0.hasPrefix("#tb 0: ") }?.dropFirst(7).split(separator: "/"))
        let numerator = try #require(base.first.flatMap { Int64($0) })
        let denominator = try #require(base.last.flatMap { Int32($0) })
        tick = MediaTime(value: numerator, timescale: denominator)
        let frames = lines.filter { !$0.hasPrefix("#") }.map {
            $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        pts = try frames.map { try #require(Int64($0[2])) }
        md5s = frames.map { $0[5] }
    }

    init(contentsOf url: URL) throws { try self.init(String(contentsOf: url, encoding: .utf8)) }

    /// Each picture's pts as a time.
    var presentationTimes: [MediaTime] {
        pts.map { MediaTime(value: $0 * tick.value, timescale: tick.timescale) }
    }
}

/// Raw H.264/HEVC streams carry no time stamps; the library gives their samples the ones the
/// ffmpeg CLI gives their pictures (`-fps_mode passthrough -f framemd5`), from the SPS timing
/// information, a frame rate given, or 25 frames per second.
@Suite struct RawStreamTimeStampTests {
    /// Raw streams with B-frames: with and without SPS timing, H.264 and HEVC (and HEVC whose
    /// timing is in the VPS only, which ffmpeg takes too).
    static let timedFiles = [
        "h264-vui-timing-30000-1001.264", "h264-no-vui-timing.264", "hevc-vui-timing-24.265", "hevc-no-vui-timing.265",
        "hevc-vps-timing-only.265",
    ]
    /// Those, and the older raw fixtures with B-frames (25 fps in their VUI).
    static let rawFiles = timedFiles + ["h264-high-bpyramid.264", "hevc-main.265", "h264-main-cabac.264"]

    static func fixture(_ name: String) -> URL { TestData.fixtures.appendingPathComponent(name) }

    static func oracle(_ name: String, _ suffix: String = ".framemd5") throws -> TimedFrameMD5 {
        try TimedFrameMD5(contentsOf: URL(fileURLWithPath: fixture(name).path + suffix))
    }

    /// Checks samples' times in decode order: presentation times as ffmpeg's pts, decode times
    /// rising one sample duration at a time and never after the presentation time.
    static func checkTimes(_ samples: [SampleBuffer], against oracle: TimedFrameMD5, _ file: String) {
        #expect(samples.map(\.presentationTimeStamp).sorted() == oracle.presentationTimes, "\(file): PTS")
        #expect(samples.allSatisfy { $0.duration == oracle.tick }, "\(file): durations")
        for (sample, next) in zip(samples, samples.dropFirst()) {
            #expect(next.decodeTimeStamp == sample.decodeTimeStamp + sample.duration, "\(file): DTS steps")
        }
        #expect(samples.allSatisfy { $0.decodeTimeStamp <= $0.presentationTimeStamp }, "\(file): DTS ≤ PTS")
        // B-frames: presentation order is not decode order.
        let inDecodeOrder = samples.map(\.presentationTimeStamp)
        #expect(inDecodeOrder != inDecodeOrder.sorted(), "\(file): no reordering to check")
    }

    @Test(arguments: rawFiles)
    func readerSamplesCarryFFmpegsPresentationTimes(file: String) throws {
        let reader = try MediaFileReader(path: Self.fixture(file).path)
        let samples = try reader.readAllSamples()
        let oracle = try Self.oracle(file)
        Self.checkTimes(samples, against: oracle, file)
        #expect(reader.track.frameDuration == oracle.tick, "\(file): the track's frame duration")
        #expect(reader.timescale == oracle.tick.timescale, "\(file): time scale")
    }

    @Test(arguments: rawFiles)
    func decodedFramesCarryFFmpegsPictureTimes(file: String) throws {
        let samples = try MediaFileReader(path: Self.fixture(file).path).readAllSamples()
        let outputs = try SampleAttachmentTests.outputs(samples)
        let oracle = try Self.oracle(file)
        #expect(outputs.map { $0.imageBuffer.map(planarMD5) ?? "none" } == oracle.md5s, "\(file): pictures")
        #expect(outputs.map(\.presentationTimeStamp) == oracle.presentationTimes, "\(file): PTS")
    }

    /// `frameRate` is ffmpeg's `-framerate`: the rate of a stream that states none; a stream's
    /// own rate wins.
    @Test(arguments: timedFiles)
    func aFrameRateGivenTimesOnlyStreamsThatStateNone(file: String) throws {
        let rate = try #require(FrameRate(numerator: 30000, denominator: 1001))
        let reader = try MediaFileReader(path: Self.fixture(file).path, frameRate: rate)
        let oracle = try Self.oracle(file, ".framerate-30000-1001.framemd5")
        Self.checkTimes(try reader.readAllSamples(), against: oracle, file)
        #expect(reader.track.frameDuration == oracle.tick, "\(file): the track's frame duration")
        let stated = file.contains("no-vui") ? nil : try Self.oracle(file).tick
        #expect((stated ?? rate.frameDuration) == oracle.tick, "\(file): which rate wins")
    }

    /// The time stamper on the parser's samples (how standard input is read) stamps what the
    /// reader stamps, fed in small chunks.
    @Test(arguments: timedFiles)
    func theTimeStamperOnParsedChunksAgreesWithTheReader(file: String) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.fixture(file)))
        let codec: VideoCodecType = file.hasSuffix(".265") ? .hevc : .h264
        var parser = ElementaryStreamParser(codec: codec)
        var stamper = AnnexBTimeStamper(codec: codec)
        var stamped: [SampleBuffer] = []
        var offset = 0
        while offset < bytes.count {
            let chunk = bytes[offset..<min(bytes.count, offset + 1000)]
            stamped += parser.parse(chunk).flatMap { stamper.stamp($0) }
            offset += chunk.count
        }
        stamped += parser.finish().flatMap { stamper.stamp($0) } + stamper.finish()
        let read = try MediaFileReader(path: Self.fixture(file).path).readAllSamples()
        #expect(stamped.map(\.timing) == read.map(\.timing))
        Self.checkTimes(stamped, against: try Self.oracle(file), file)
    }

    /// Conformance streams with no VUI at all (no reorder bound stated either), of every
    /// `pic_order_cnt_type`, against the ffmpeg CLI's pts.
    @Test(
        .needsConformance, .enabled(if: CommandRunner.hasFFmpeg),
        arguments: [
            "JVT-FR-EXT/HPCV_BRCM_A.264", "JVT-FR-EXT/HCAFR1_HHI.264", "JVT-AVC_V1/MR1_BT_A.h264",
            "JVT-AVC_V1/BA1_FT_C.264", "JVT-AVC_V1/CVPCMNL1_SVA_C.264", "cros-codecs-h265/64x64-I-P-B-P.h265",
            "cros-codecs-h265/bear.h265",
        ])
    func conformanceStreamsGetFFmpegsTimes(name: String) throws {
        let url = try #require(TestData.conformance).appendingPathComponent(name)
        let samples = try MediaFileReader(path: url.path).readAllSamples()
        let ffmpeg = try CommandRunner.ffmpeg(["-i", url.path, "-fps_mode", "passthrough", "-f", "framemd5", "-"])
        let oracle = try TimedFrameMD5(ffmpeg.text)
        #expect(samples.map(\.presentationTimeStamp).sorted() == oracle.presentationTimes, "\(name)")
        let outputs = try SampleAttachmentTests.outputs(samples)
        #expect(outputs.map(\.presentationTimeStamp) == oracle.presentationTimes, "\(name): decoded")
    }

    /// Field pictures (PAFF, here mixed with frame pictures, with IDR fields completed by P
    /// fields): the two fields of a frame share its presentation slot (the second presented half a
    /// frame after the first, its sample lasting half a frame); the frames' times are ffmpeg's.
    @Test(.needsConformance, .enabled(if: CommandRunner.hasFFmpeg))
    func fieldPairsShareTheirFramesSlot() throws {
        let url = try #require(TestData.conformance).appendingPathComponent("JVT-FR-EXT/FRExt2_Panasonic.avc")
        let samples = try MediaFileReader(path: url.path).readAllSamples()
        let ffmpeg = try CommandRunner.ffmpeg(["-i", url.path, "-fps_mode", "passthrough", "-f", "framemd5", "-"])
        let oracle = try TimedFrameMD5(ffmpeg.text)
        let pictures = try SampleAttachmentTests.outputs(samples).filter { $0.imageBuffer != nil }
        #expect(pictures.map(\.presentationTimeStamp) == oracle.presentationTimes)
        #expect(pictures.map { $0.imageBuffer.map(planarMD5) ?? "" } == oracle.md5s)
        #expect(samples.count > oracle.pts.count, "some samples are fields")
        let total = samples.reduce(MediaTime.zero) { $0 + $1.duration }
        #expect(
            total == MediaTime(value: oracle.tick.value * Int64(oracle.pts.count), timescale: oracle.tick.timescale))
    }

    /// Seeking in a raw stream (whose times exist only in order) reads on from the start: the first
    /// picture shown is ffmpeg's picture at that time, decoded from the sync sample before it.
    @Test(arguments: [("h264-vui-timing-30000-1001.264", 1.0), ("hevc-no-vui-timing.265", 0.9)])
    func seekingInARawStreamShowsThePictureAtThatTime(file: String, seconds: Double) throws {
        let reader = try MediaFileReader(path: Self.fixture(file).path)
        _ = try reader.nextSample()
        let time = MediaTime(seconds: seconds, preferredTimescale: 1000)
        try reader.seek(to: time)
        let samples = try reader.readAllSamples()
        let first = try #require(samples.first)
        #expect(first.isSync && first.attachments.contains(.resetDecoderBeforeDecoding))
        let oracle = try Self.oracle(file)
        let index = try #require(oracle.presentationTimes.firstIndex { $0 >= time })
        let shown = try SampleAttachmentTests.outputs(samples).filter { $0.imageBuffer != nil }
        #expect(shown.first?.imageBuffer.map(planarMD5) == oracle.md5s[index], "\(file) at \(seconds) s")
        #expect(shown.first?.presentationTimeStamp == oracle.presentationTimes[index])
        #expect(shown.count == oracle.md5s.count - index, "every picture from there on")
        #expect(samples.count < 40, "decoding starts at the sync sample before the time, not at the start")
    }

    /// `snapshot --time` on a raw stream writes the picture ffmpeg shows at that time: the same PNG
    /// as `--frame N`, N counted by the oracle's pts (ffmpeg's), not by the tool.
    @Test(
        .enabled(if: CommandRunner.hasTool),
        arguments: [("h264-vui-timing-30000-1001.264", 1.0), ("hevc-no-vui-timing.265", 0.9)])
    func snapshotAtATimeInARawStream(file: String, seconds: Double) throws {
        let oracle = try Self.oracle(file)
        let time = MediaTime(seconds: seconds, preferredTimescale: 1000)
        let index = try #require(oracle.presentationTimes.firstIndex { $0 >= time })
        #expect(index > 0, "the time is not the first picture's")
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let atTime = directory.appendingPathComponent("time.png")
        let atFrame = directory.appendingPathComponent("frame.png")
        let path = Self.fixture(file).path
        let timed = try CommandRunner.vatoolbox(["snapshot", path, "--time", "\(seconds)", "-o", atTime.path])
        #expect(timed.status == 0, "\(timed.standardError)")
        let counted = try CommandRunner.vatoolbox(["snapshot", path, "--frame", "\(index)", "-o", atFrame.path])
        #expect(counted.status == 0, "\(counted.standardError)")
        let timedPNG = try Data(contentsOf: atTime)
        #expect(!timedPNG.isEmpty)
        #expect(timedPNG == (try Data(contentsOf: atFrame)), "\(file) at \(seconds) s is picture \(index)")
    }

    /// The tool gives the same times (its framemd5 equals ffmpeg's, also from standard input and
    /// with --frame-rate), and `probe --json` reports the track as ffprobe does with -framerate.
    @Test(.enabled(if: CommandRunner.hasTool && CommandRunner.hasFFmpeg), arguments: timedFiles)
    func theToolAgreesWithTheLibrary(file: String) throws {
        let url = Self.fixture(file)
        func lines(_ text: String) -> [String] {
            text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#software") }
        }
        let expected = try String(contentsOf: URL(fileURLWithPath: url.path + ".framemd5"), encoding: .utf8)
        let fromFile = try CommandRunner.vatoolbox(["framemd5", url.path])
        #expect(fromFile.status == 0)
        #expect(lines(fromFile.text) == lines(expected), "\(file)")
        let fromInput = try CommandRunner.vatoolbox(["framemd5", "-"], input: url)
        #expect(lines(fromInput.text) == lines(expected), "\(file) from standard input")
        let withRate = try String(
            contentsOf: URL(fileURLWithPath: url.path + ".framerate-30000-1001.framemd5"), encoding: .utf8)
        let rated = try CommandRunner.vatoolbox(["framemd5", url.path, "--frame-rate", "30000/1001"])
        #expect(lines(rated.text) == lines(withRate), "\(file) --frame-rate")
        let ratedInput = try CommandRunner.vatoolbox(["framemd5", "-", "--frame-rate", "30000/1001"], input: url)
        #expect(lines(ratedInput.text) == lines(withRate), "\(file) --frame-rate from standard input")

        let probe = try CommandRunner.vatoolbox(["probe", "--json", "--frame-rate", "30000/1001", url.path])
        let json = try #require(try JSONSerialization.jsonObject(with: probe.standardOutput) as? [String: Any])
        let ffprobe = try CommandRunner.ffprobe([
            "-framerate", "30000/1001", "-select_streams", "v:0", "-show_entries",
            "stream=time_base,r_frame_rate,avg_frame_rate", "-of", "json", url.path,
        ])
        let root = try #require(try JSONSerialization.jsonObject(with: ffprobe.standardOutput) as? [String: Any])
        let stream = try #require((root["streams"] as? [[String: Any]])?.first)
        for key in ["time_base", "r_frame_rate", "avg_frame_rate"] {
            #expect(json[key] as? String == stream[key] as? String, "\(file): \(key)")
        }
    }

    /// Other raw streams are timed by libavformat itself; `frameRate` reaches it as `-framerate`
    /// does (an AV1 OBU stream without timing information).
    @Test(.enabled(if: CommandRunner.hasFFmpeg))
    func aFrameRateGivenReachesLibavformatsOtherRawDemuxers() throws {
        let url = Self.fixture("av1.obu")
        let rate = try #require(FrameRate("30"))
        let reader = try MediaFileReader(path: url.path, frameRate: rate)
        let samples = try reader.readAllSamples()
        let probe = try CommandRunner.ffprobe([
            "-framerate", "30", "-select_streams", "v:0", "-show_entries", "packet=pts", "-of", "csv=p=0", url.path,
        ])
        let expected = probe.text.split(separator: "\n").compactMap { Int64($0) }.map {
            MediaTime(value: $0, timescale: reader.timescale)
        }
        #expect(expected.count == samples.count)
        #expect(samples.map(\.presentationTimeStamp) == expected)
        #expect(reader.track.realFrameRate == rate)
        #expect(try MediaFileReader(path: url.path).track.realFrameRate == FrameRate("25"))
    }

    @Test func frameRatesParseAsFFmpegTakesThem() {
        #expect(FrameRate("30000/1001")?.frameDuration == MediaTime(value: 1001, timescale: 30000))
        #expect(FrameRate("24")?.description == "24/1")
        #expect(FrameRate("0") == nil)
        #expect(FrameRate("25/0") == nil)
        #expect(FrameRate("-25") == nil)
        #expect(FrameRate("29.97") == nil)
        #expect(FrameRate("1/2/3") == nil)
    }

    @Test(.enabled(if: CommandRunner.hasTool))
    func aBadFrameRateIsAUsageError() throws {
        let result = try CommandRunner.vatoolbox([
            "framemd5", Self.fixture("h264-no-vui-timing.264").path, "--frame-rate", "fast",
        ])
        #expect(result.status == 2)
        #expect(result.standardError.contains("--frame-rate"))
    }
}
