import Foundation
import Testing

@testable import VAToolbox

/// The media files among the committed fixtures (Annex B, IVF, OBU, elementary streams and
/// containers) of every codec, by name.
let fixtureFiles: [String] = TestData.tsv(TestData.fixtures.appendingPathComponent("manifest.tsv"))
    .compactMap { $0["file"] }

/// Streams whose `ffmpeg -f framemd5` output the tool does not reproduce byte for byte, and why.
/// For these, the tool's output must still equal ffmpeg's with the time stamp columns left out
/// (or with the named ffmpeg option).
private let knownTimestampDifferences: [String: String] = [
    "HCAFF1_HHI": "PAFF field pictures: ffmpeg's raw H.264 demuxer time stamps start at 1",
    "HPCAFLNL_BRCM_C": "PAFF field pictures: ffmpeg's raw H.264 demuxer time stamps start at 1",
    "HPCAFL_BRCM_C": "PAFF field pictures: ffmpeg's raw H.264 demuxer time stamps start at 1",
    "HPCAMAPALQ_BRCM_B": "PAFF field pictures: ffmpeg's raw H.264 demuxer time stamps start at 1",
    "HPCVFLNL_BRCM_A": "PAFF field pictures: ffmpeg's raw H.264 demuxer time stamps start at 1",
    "HPCVFL_BRCM_A": "PAFF field pictures: ffmpeg's raw H.264 demuxer time stamps start at 1",
    "freh10": "field pictures: ffmpeg's raw H.264 demuxer time stamps start at 1",
    "freh11": "field pictures: ffmpeg's raw H.264 demuxer time stamps start at 1",
    "freh4": "field pictures: ffmpeg's raw H.264 demuxer time stamps start at 1",
    "freh6": "field pictures: ffmpeg's raw H.264 demuxer time stamps start at 1",
    "Freh7_B": "field pictures: ffmpeg's raw H.264 demuxer time stamps start at 1",
    "cros-codecs-h265/64x64-I.h265": "one or two pictures: ffmpeg's raw HEVC time stamps start at 1 or 2",
    "cros-codecs-h265/64x64-I-P.h265": "one or two pictures: ffmpeg's raw HEVC time stamps start at 1 or 2",
]

/// Extra ffmpeg options some streams need for ffmpeg to decode them as the standard says:
/// (before `-i`, after it).
let ffmpegOptions: [String: (input: [String], output: [String])] = [
    // libavcodec rounds an odd crop offset unless told not to (see the conformance README).
    "CVFC1_Sony_C": (["-flags", "unaligned"], []),
    // ffmpeg scales every picture to the first size unless told not to.
    "h264-resolution-change.264": ([], ["-autoscale", "0"]),
    "vp9-resolution-change.ivf": ([], ["-autoscale", "0"]),
    "vp8-size-up.ivf": ([], ["-autoscale", "0"]),
    "vp9-size-up.ivf": ([], ["-autoscale", "0"]),
    "av1-size-up.ivf": ([], ["-autoscale", "0"]),
    "h264-size-up.264": ([], ["-autoscale", "0"]),
    "hevc-size-up.265": ([], ["-autoscale", "0"]),
    "mpeg2-size-change.m2v": ([], ["-autoscale", "0"]),
    "cros-codecs-vp9/resolution_change_500frames-vp9.ivf": ([], ["-autoscale", "0"]),
]

/// The framemd5 lines without the dts and pts columns.
private func withoutTimestamps(_ text: String) -> [String] {
    text.split(separator: "\n").map { line in
        guard !line.hasPrefix("#") else { return String(line) }
        let columns = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return ([columns[0]] + columns.dropFirst(3)).joined(separator: ",")
    }
}

/// Runs both and compares; returns nil when they agree as required, else a message.
func compareFrameMD5(name: String, url: URL) throws -> String? {
    // Damaged streams on one thread each: libavcodec's concealment with frame threads depends on
    // timing (the ffmpeg CLI's own output for h264-bitflip.264 differs about one run in six).
    let isDamaged = name.contains("bitflip") || name.contains("truncated")
    let ours = try CommandRunner.vatoolbox(["framemd5", url.path] + (isDamaged ? ["--threads", "1"] : []))
    // A damaged stream's frames with errors make the exit status 1, after every line is written.
    guard ours.status == (isDamaged ? 1 : 0) else {
        return "vatoolbox exited with \(ours.status): \(ours.standardError)"
    }
    let options = ffmpegOptions[name] ?? ([], [])
    let threads = isDamaged ? ["-threads", "1"] : []
    // The video stream only (the tool decodes no audio): the same output as ffmpeg's default on
    // a file with one stream, and without the audio lines on one with an audio track
    // (mpeg2-bframes.mp4, .ts).
    let theirs = try CommandRunner.ffmpeg(
        threads + options.input + ["-i", url.path, "-map", "0:v:0"] + options.output + ["-f", "framemd5", "-"])
    guard theirs.status == 0 else { return "ffmpeg failed: \(theirs.standardError)" }
    if knownTimestampDifferences[name] != nil {
        return withoutTimestamps(ours.text) == withoutTimestamps(theirs.text) ? nil : "differs beyond time stamps"
    }
    if ours.text == theirs.text { return nil }
    let a = ours.text.split(separator: "\n")
    let b = theirs.text.split(separator: "\n")
    let index = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
    return "first difference at line \(index + 1): ours '\(index < a.count ? a[index] : "")', "
        + "ffmpeg '\(index < b.count ? b[index] : "")'"
}

@Suite("vatoolbox framemd5", .enabled(if: CommandRunner.hasTool && CommandRunner.hasFFmpeg))
struct FrameMD5CommandTests {
    @Test("byte-identical to ffmpeg -f framemd5 on every fixture", arguments: fixtureFiles)
    func fixture(_ file: String) throws {
        let problem = try compareFrameMD5(name: file, url: TestData.fixtures.appendingPathComponent(file))
        #expect(problem == nil, "\(file): \(problem ?? "")")
    }

    @Test(
        "byte-identical to ffmpeg -f framemd5 on the conformance streams", .needsConformance,
        arguments: StreamFile.conformance)
    func conformance(_ stream: StreamFile) throws {
        // JVT vectors are listed by their file's base name (`HCAFF1_HHI`), not the suite's name.
        let name = stream.name.contains("/") ? stream.name : stream.url.deletingPathExtension().lastPathComponent
        let problem = try compareFrameMD5(name: name, url: stream.url)
        #expect(problem == nil, "\(stream.name): \(problem ?? "")")
    }

    @Test(
        "--pixel-format hashes what ffmpeg -pix_fmt hashes",
        arguments: [("420v", "nv12"), ("x420", "p010le"), ("BGRA", "bgra"), ("y420", "yuv420p")],
        ["hevc-main10.265", "h264-main-cabac.ts", "vp9-profile1-440.ivf"])
    func pixelFormat(_ formats: (fourCC: String, ffmpeg: String), _ file: String) throws {
        let url = TestData.fixtures.appendingPathComponent(file)
        let ours = try CommandRunner.vatoolbox(["framemd5", url.path, "--pixel-format", formats.fourCC])
        let theirs = try CommandRunner.ffmpeg(["-i", url.path, "-pix_fmt", formats.ffmpeg, "-f", "framemd5", "-"])
        #expect(ours.status == 0)
        #expect(ours.text == theirs.text)
    }

    /// Exit statuses as Docs/CLI.md gives them: 0 for a stream ffmpeg decodes without an error
    /// (an MPEG-2 size change, whose dropped picture ffmpeg does not count as one), 3 for an RGB
    /// stream VAToolbox refuses.
    @Test("exits 0 on a size change ffmpeg decodes cleanly, 3 on an RGB stream")
    func exitStatuses() throws {
        let change = TestData.fixtures.appendingPathComponent("mpeg2-size-change.m2v")
        let decoded = try CommandRunner.vatoolbox(["decode", change.path, "--hwaccel", "none"])
        #expect(decoded.status == 0, "\(decoded.standardError)")
        let summary = decoded.text + decoded.standardError
        #expect(summary.contains("0 with errors, 1 dropped"), "\(summary)")
        #expect(try CommandRunner.vatoolbox(["framemd5", change.path]).status == 0)
        for name in ["h264-rgb.264", "hevc-gbrp.265"] {
            let refused = try CommandRunner.vatoolbox(["framemd5", TestData.fixtures.appendingPathComponent(name).path])
            #expect(refused.status == 3, "\(name)")
            #expect(refused.standardError.contains("kVTCouldNotFindVideoDecoderErr (-12906)"), "\(name)")
            #expect(refused.standardError.contains("RGB"), "\(name): \(refused.standardError)")
        }
    }

    @Test("reads standard input")
    func standardInput() throws {
        let url = TestData.fixtures.appendingPathComponent("hevc-main.265")
        let result = try CommandRunner.vatoolbox(["framemd5", "-"], input: url)
        #expect(result.status == 0)
        let oracle = try String(contentsOf: url.appendingPathExtension("framemd5"), encoding: .utf8)
        #expect(
            withoutTimestamps(result.text).filter { !$0.hasPrefix("#") }
                == withoutTimestamps(oracle).filter { !$0.hasPrefix("#") })
    }
}

@Suite("vatoolbox decode", .enabled(if: CommandRunner.hasTool && CommandRunner.hasFFmpeg))
struct DecodeCommandTests {
    /// Every fixture whose pictures keep one size (Y4M has one size per file), of every codec.
    static let y4mFixtures = [
        "h264-main-cabac.ts", "h264-mbaff.264", "h264-cropped-642x362.264", "hevc-main10.265", "h264-high422.264",
        "hevc-main.mkv", "h264-high-bpyramid.mp4", "vp8.ivf", "vp8.webm", "vp9-profile0.ivf",
        "vp9-profile2-10bit.webm", "vp9-profile1-444.ivf", "av1.ivf", "av1.mp4", "av1-10bit.mkv", "av1.obu",
        "av1-annexb.obu", "av1-film-grain.ivf", "mpeg2-progressive.m2v", "mpeg2-interlaced.ts",
    ]

    @Test(
        "Y4M header equals ffmpeg's yuv4mpegpipe header; ffmpeg reads back the fixture's frames", arguments: y4mFixtures
    )
    func y4m(_ file: String) throws {
        let input = TestData.fixtures.appendingPathComponent(file)
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.y4m")
        let result = try CommandRunner.vatoolbox(["decode", input.path, "-o", output.path])
        #expect(result.status == 0, "\(result.standardError)")
        let bytes = try Data(contentsOf: output)
        let ours = String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
        let reference = try CommandRunner.ffmpeg(
            ["-i", input.path, "-frames:v", "1", "-strict", "-1", "-f", "yuv4mpegpipe", "-"])
        let theirs = String(decoding: reference.standardOutput.prefix { $0 != 0x0A }, as: UTF8.self)
        #expect(ours == theirs)
        let readBack = try CommandRunner.ffmpeg(["-i", output.path, "-f", "framemd5", "-"])
        let oracle = try String(contentsOf: input.appendingPathExtension("framemd5"), encoding: .utf8)
        func hashes(_ text: String) -> [String] {
            text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
                $0.split(separator: ",").last.map(String.init) ?? ""
            }
        }
        #expect(hashes(readBack.text) == hashes(oracle))
    }

    @Test(
        "Y4M header equals ffmpeg's on the conformance streams", .needsConformance,
        arguments: StreamFile.conformance)
    func y4mConformance(_ stream: StreamFile) throws {
        let name = stream.name.contains("/") ? stream.name : stream.url.deletingPathExtension().lastPathComponent
        // Default threads: field-coded streams must decode without a spurious error (exit 0).
        let ours = try CommandRunner.vatoolbox(["decode", stream.url.path, "--frames", "1", "-o", "-"])
        #expect(ours.status == 0, "\(ours.standardError)")
        let options = ffmpegOptions[name] ?? ([], [])
        let theirs = try CommandRunner.ffmpeg(
            options.input + ["-i", stream.url.path, "-frames:v", "1", "-strict", "-1", "-f", "yuv4mpegpipe", "-"])
        #expect(
            String(decoding: ours.standardOutput.prefix { $0 != 0x0A }, as: UTF8.self)
                == String(decoding: theirs.standardOutput.prefix { $0 != 0x0A }, as: UTF8.self))
    }

    @Test("raw output is the planes of N pictures; Y4M to standard output")
    func rawAndStandardOutput() throws {
        let input = TestData.fixtures.appendingPathComponent("h264-high-bpyramid.264")
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.yuv")
        let result = try CommandRunner.vatoolbox(["decode", input.path, "--frames", "5", "-o", output.path])
        #expect(result.status == 0)
        let size = try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int
        #expect(size == 5 * 352 * 288 * 3 / 2)
        let nv12 = try CommandRunner.vatoolbox(
            ["decode", input.path, "--frames=3", "--pixel-format", "420v", "--format", "yuv", "-o", output.path])
        #expect(nv12.status == 0)
        #expect((try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int) == 3 * 152_064)
        let piped = try CommandRunner.vatoolbox(["decode", "-", "-o", "-", "--frames", "2"], input: input)
        #expect(piped.status == 0)
        #expect(piped.standardOutput.starts(with: Array("YUV4MPEG2 W352 H288 F25:1 Ip A1:1".utf8)))
        let headerLength = (piped.standardOutput.firstIndex(of: 0x0A) ?? 0) + 1
        #expect(piped.standardOutput.count == headerLength + 2 * (6 + 152_064))
        #expect(piped.standardError.contains("frames: 2 decoded"))
    }

    @Test("the summary names the decoder and the reason")
    func summary() throws {
        let input = TestData.fixtures.appendingPathComponent("hevc-main.mkv")
        let result = try CommandRunner.vatoolbox(["decode", input.path, "--hwaccel", "none", "--threads", "2"])
        #expect(result.status == 0)
        #expect(result.text.contains("decoder: libavcodec on the CPU, 2 threads — hardware decoding disabled"))
        #expect(result.text.contains("frames: 48 decoded from 48 samples"))
        // Standard error is not a terminal here: no progress bar.
        #expect(!result.standardError.contains("\r"))
    }
}

@Suite("vatoolbox probe", .enabled(if: CommandRunner.hasTool && CommandRunner.hasFFmpeg))
struct ProbeCommandTests {
    /// ffprobe describes h264-resolution-change.264 by the parameter sets in force when probing
    /// ended (the second part); the tool's first format description is the first part's.
    @Test(
        "--json fields agree with ffprobe -show_streams",
        arguments: fixtureFiles.filter {
            !$0.contains("bitflip") && !$0.contains("resolution-change") && !$0.contains("size-up")
        })
    func againstFFprobe(_ file: String) throws {
        let url = TestData.fixtures.appendingPathComponent(file)
        let result = try CommandRunner.vatoolbox(["probe", "--json", url.path])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        let format = try #require((json["formats"] as? [[String: Any]])?.first)
        let probe = try CommandRunner.ffprobe(["-show_streams", "-select_streams", "v:0", "-of", "json", url.path])
        let streams = try JSONSerialization.jsonObject(with: probe.standardOutput) as? [String: Any]
        let stream = try #require((streams?["streams"] as? [[String: Any]])?.first)
        #expect(format["width"] as? Int == stream["width"] as? Int)
        #expect(format["height"] as? Int == stream["height"] as? Int)
        // ffprobe leaves out a profile libavcodec does not know (VCR2); the tool says "unknown".
        #expect(format["profile"] as? String == (stream["profile"] as? String ?? "unknown"))
        // VP8 and VP9 streams state no level: ffprobe prints FF_LEVEL_UNKNOWN (-99), the tool null.
        if stream["level"] as? Int == -99 {
            #expect(format["level_idc"] is NSNull && format["level"] is NSNull)
        } else {
            #expect(format["level_idc"] as? Int == stream["level"] as? Int)
        }
        #expect(format["max_num_reorder_frames"] as? Int == stream["has_b_frames"] as? Int)
        let pixelFormat = stream["pix_fmt"] as? String ?? ""
        let bits = pixelFormat.contains("12") ? 12 : pixelFormat.contains("10") ? 10 : 8
        #expect(format["bit_depth_luma"] as? Int == bits)
        #expect((format["full_range"] as? Bool) == (stream["color_range"] as? String == "pc"))
        // ffprobe's is the container's when it states one (WebM display size), else the codec's.
        if let sar = stream["sample_aspect_ratio"] as? String, sar != "0:1" {
            #expect(format["pixel_aspect_ratio"] as? String == sar)
        } else {
            #expect(format["pixel_aspect_ratio"] is NSNull)
        }
        #expect(json["codec"] as? String == stream["codec_name"] as? String)
    }

    @Test(
        "--nal lists every access unit and NAL unit the parser finds",
        arguments: ["h264-slices.264", "hevc-slices.265"])
    func nalListing(_ file: String) throws {
        let url = TestData.fixtures.appendingPathComponent(file)
        let result = try CommandRunner.vatoolbox(["probe", "--nal", "--json", url.path])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        let units = try #require(json["access_unit_list"] as? [[String: Any]])
        let samples = ElementaryStreamParser.samples(
            in: try TestData.bytes(url), codec: file.hasSuffix(".265") ? .hevc : .h264)
        #expect(units.count == samples.count)
        #expect(json["access_units"] as? Int == samples.count)
        for (listed, sample) in zip(units, samples) {
            let nals = listed["nal_units"] as? [[String: Any]] ?? []
            #expect(nals.map { $0["type"] as? Int } == sample.nalUnits.map { Int($0.typeCode) })
            #expect(nals.map { $0["size"] as? Int } == sample.nalUnits.map { $0.bytes.count })
        }
        let text = try CommandRunner.vatoolbox(["probe", "--nal", url.path])
        #expect(text.text.split(separator: "\n").filter { $0.hasPrefix("  access unit ") }.count == samples.count)
    }
}
