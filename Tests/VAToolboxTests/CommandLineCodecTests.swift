import Foundation
import Testing

@testable import VAToolbox

/// The cros-codecs VP8, VP9 and AV1 streams the library checks against their MD5s (those with a
/// `.md5` beside them: `av1-annexb.ivf.av1`, which neither libavformat nor ffmpeg reads, has none),
/// as `cros-codecs-<codec>/<file>`.
let crosCodecsStreams: [String] = {
    guard let root = TestData.conformance, TestData.hasFFprobe else { return [] }
    var names: [String] = []
    for folder in ["cros-codecs-vp8", "cros-codecs-vp9", "cros-codecs-av1"] {
        let files =
            (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
        names += files.sorted().filter { files.contains($0 + ".md5") }.map { "\(folder)/\($0)" }
    }
    return names
}()

/// A fixture name or a `cros-codecs-…/` name as a file.
private func url(_ name: String) throws -> URL {
    guard name.hasPrefix("cros-codecs-") else { return TestData.fixtures.appendingPathComponent(name) }
    return try #require(TestData.conformance).appendingPathComponent(name)
}

/// ffprobe's frames (presentation order) or packets (decode order) of the first video stream.
private func ffprobeEntries(
    _ file: URL, _ kind: String, _ entries: String, _ options: [String] = []
) throws -> [[String: Any]] {
    let result = try CommandRunner.ffprobe(
        options + ["-select_streams", "v:0", "-show_entries", "\(kind)=\(entries)", "-of", "json", file.path])
    try #require(result.status == 0, "ffprobe failed: \(result.standardError)")
    let json = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
    return try #require(json[kind + "s"] as? [[String: Any]])
}

/// `vatoolbox probe --units --json`: the samples and their units.
private func probeUnits(_ file: URL) throws -> (json: [String: Any], samples: [[String: Any]]) {
    let result = try CommandRunner.vatoolbox(["probe", "--units", "--json", file.path])
    try #require(result.status == 0, "\(result.standardError)")
    let json = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
    let samples = try #require(json["access_unit_list"] as? [[String: Any]])
    for sample in samples { #expect(sample["error"] == nil, "sample \(sample["index"] ?? "?"): \(sample)") }
    return (json, samples)
}

@Suite("vatoolbox on VP8, VP9, AV1 and MPEG-2", .enabled(if: CommandRunner.hasTool && CommandRunner.hasFFmpeg))
struct CommandLineCodecTests {
    @Test(
        "framemd5 is byte-identical to ffmpeg -f framemd5 on the cros-codecs streams",
        .needsConformance,
        arguments: crosCodecsStreams)
    func frameMD5Conformance(_ name: String) throws {
        let problem = try compareFrameMD5(name: name, url: try url(name))
        #expect(problem == nil, "\(name): \(problem ?? "")")
    }

    /// `decode` on every new-codec fixture and cros-codecs stream: exit 0, and as many pictures as
    /// ffmpeg outputs for it (the framemd5 oracle, or ffmpeg at test time).
    @Test(
        "decode takes every new-codec fixture and cros-codecs stream",
        arguments: fixtureFiles.filter { !$0.hasPrefix("h264") && !$0.hasPrefix("hevc") } + crosCodecsStreams)
    func decode(_ name: String) throws {
        let file = try url(name)
        let frames: Int
        if name.hasPrefix("cros-codecs-") {
            let counted = try ffprobeEntries(file, "stream", "nb_read_frames", ["-count_frames"])
            frames = Int(counted.first?["nb_read_frames"] as? String ?? "") ?? 0
        } else {
            let oracle = try String(contentsOf: file.appendingPathExtension("framemd5"), encoding: .utf8)
            frames = oracle.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        }
        try #require(frames > 0)
        let result = try CommandRunner.vatoolbox(["decode", file.path, "--hwaccel", "none"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.text.contains("frames: \(frames) decoded"), "\(result.text)")
        #expect(result.text.contains("0 with errors"))
    }

    @Test(
        "Y4M header equals ffmpeg's on the cros-codecs streams", .needsConformance,
        arguments: crosCodecsStreams)
    func y4mConformance(_ name: String) throws {
        let file = try url(name)
        let ours = try CommandRunner.vatoolbox(["decode", file.path, "--frames", "1", "-o", "-"])
        #expect(ours.status == 0, "\(ours.standardError)")
        let theirs = try CommandRunner.ffmpeg(
            ["-i", file.path, "-frames:v", "1", "-strict", "-1", "-f", "yuv4mpegpipe", "-"])
        let header = String(decoding: ours.standardOutput.prefix { $0 != 0x0A }, as: UTF8.self)
        #expect(header == String(decoding: theirs.standardOutput.prefix { $0 != 0x0A }, as: UTF8.self))
        #expect(header.contains("XCOLORRANGE=LIMITED"))
    }

    /// 320x240 fixtures: 4 columns of 160 + margins, 2 rows of 120 + label + margins. The counts
    /// of shown pictures (hidden VP9/AV1 frames excluded) spread the picks; VP9 and AV1 fixtures
    /// have fewer samples that show a picture than frames coded.
    @Test(
        "thumbnails of each new codec",
        arguments: ["vp8.ivf", "vp9-profile0.ivf", "av1-film-grain.ivf", "mpeg2-progressive.m2v"])
    func thumbnails(_ file: String) throws {
        let input = TestData.fixtures.appendingPathComponent(file)
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = directory.appendingPathComponent("sheet.png")
        let result = try CommandRunner.vatoolbox(
            ["thumbnails", input.path, "-o", png.path, "--count", "6", "--width", "160"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.text.contains("a contact sheet of 6 pictures (680x304)"))
        let size = try CommandRunner.ffprobe(["-show_entries", "stream=width,height", "-of", "csv=p=0", png.path])
        #expect(size.text.trimmingCharacters(in: .whitespacesAndNewlines) == "680,304")
    }

    @Test("bench names the codec and measures it", arguments: ["av1.ivf", "vp9-profile0.ivf", "mpeg2-progressive.m2v"])
    func bench(_ file: String) throws {
        let input = TestData.fixtures.appendingPathComponent(file)
        let result = try CommandRunner.vatoolbox(
            ["bench", input.path, "--hwaccel", "none", "--runs", "1", "--frames", "5", "--threads", "2", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        let probe = try ffprobeEntries(input, "stream", "codec_name")
        #expect(json["codec"] as? String == probe.first?["codec_name"] as? String)
        let rows = try #require(json["rows"] as? [[String: Any]])
        #expect(rows.map { $0["threads"] as? Int } == [1, 2])
        for row in rows {
            #expect(row["available"] as? Bool == true)
            #expect(row["frames"] as? Int == 5)
        }
    }

    @Test("--units is --nal for H.264 and HEVC", arguments: ["h264-high-bpyramid.264", "hevc-main.mkv"])
    func unitsIsNAL(_ file: String) throws {
        let input = TestData.fixtures.appendingPathComponent(file).path
        for json in [[], ["--json"]] {
            let units = try CommandRunner.vatoolbox(["probe", "--units", input] + json)
            let nal = try CommandRunner.vatoolbox(["probe", "--nal", input] + json)
            #expect(units.status == 0)
            #expect(units.text == nal.text)
            #expect(units.text.contains(json.isEmpty ? "  access unit 0 sync," : "\"nal_units\""))
        }
    }

    /// VP9: every sample's frames after the superframe split. Oracles: ffprobe's packets (one per
    /// sample: size, key flag) and frames (one per shown frame, in order: key flag, size).
    @Test(
        "probe --units lists VP9 frames as ffprobe sees them",
        arguments: ["vp9-profile0.ivf", "vp9-profile2-10bit.webm", "vp9-profile1-444.ivf", "vp9-resolution-change.ivf"]
            + crosCodecsStreams.filter { $0.hasPrefix("cros-codecs-vp9/") })
    func vp9Units(_ name: String) throws {
        let file = try url(name)
        let (json, samples) = try probeUnits(file)
        let packets = try ffprobeEntries(file, "packet", "size,flags")
        let frames = try ffprobeEntries(file, "frame", "key_frame,width,height")
        #expect(samples.map { $0["size"] as? Int } == packets.map { Int($0["size"] as? String ?? "") })
        #expect(samples.map { $0["sync"] as? Bool } == packets.map { ($0["flags"] as? String)?.hasPrefix("K") })
        let units = samples.flatMap { $0["frames"] as? [[String: Any]] ?? [] }
        for sample in samples {
            // The frames fill the sample, less the superframe index (2 + sizes).
            let sizes = (sample["frames"] as? [[String: Any]] ?? []).compactMap { $0["size"] as? Int }
            let total = sample["size"] as? Int ?? 0
            #expect(sizes.count == 1 ? sizes == [total] : sizes.reduce(0, +) < total)
        }
        let shown = units.filter { $0["show_frame"] as? Bool == true || $0["show_existing_frame"] as? Bool == true }
        #expect(shown.count == frames.count)
        #expect(
            shown.map { $0["frame_type"] as? String == "key" ? 1 : 0 } == frames.map { $0["key_frame"] as? Int ?? -1 })
        // A shown frame that codes its size has ffprobe's size (show-existing frames code none).
        for (unit, frame) in zip(shown, frames) where unit["width"] as? Int != nil {
            #expect(unit["width"] as? Int == frame["width"] as? Int)
            #expect(unit["height"] as? Int == frame["height"] as? Int)
        }
        let profile = try #require(json["formats"] as? [[String: Any]]).first?["profile_idc"] as? Int
        #expect(units.allSatisfy { $0["profile"] as? Int == profile })
        if name.contains("10bit") { #expect(units.allSatisfy { $0["bit_depth"] as? Int == 10 }) }
        if name == "vp9-profile0.ivf" {
            // Two-pass with alt-ref: hidden frames, each in a superframe with a shown one.
            #expect(units.contains { $0["show_frame"] as? Bool == false })
        }
        if name.contains("show-existing") {
            #expect(units.contains { $0["frame_type"] as? String == "show-existing" })
        }
    }

    /// VP8: one frame per sample; ffprobe's packets (size, key flag) and frames (key flag, size).
    @Test(
        "probe --units lists VP8 frame headers as ffprobe sees them",
        arguments: ["vp8.ivf", "vp8.webm"] + crosCodecsStreams.filter { $0.hasPrefix("cros-codecs-vp8/") })
    func vp8Units(_ name: String) throws {
        let file = try url(name)
        let (_, samples) = try probeUnits(file)
        let packets = try ffprobeEntries(file, "packet", "size,flags")
        let frames = try ffprobeEntries(file, "frame", "key_frame,width,height")
        #expect(samples.map { $0["size"] as? Int } == packets.map { Int($0["size"] as? String ?? "") })
        let units = samples.compactMap { ($0["frames"] as? [[String: Any]])?.first }
        try #require(units.count == samples.count)
        #expect(
            units.map { $0["frame_type"] as? String == "key" }
                == packets.map { ($0["flags"] as? String)?.hasPrefix("K") == true })
        let shown = units.filter { $0["show_frame"] as? Bool == true }
        #expect(shown.count == frames.count)
        #expect(
            shown.map { $0["frame_type"] as? String == "key" ? 1 : 0 } == frames.map { $0["key_frame"] as? Int ?? -1 })
        for key in units where key["frame_type"] as? String == "key" {
            #expect(key["width"] as? Int == frames.first?["width"] as? Int)
            #expect(key["height"] as? Int == frames.first?["height"] as? Int)
        }
    }

    /// AV1: the OBUs of every temporal unit, the sequence header, frame types and shown/hidden.
    /// Oracles: ffprobe's packets (sizes, key flags) and frames (one per shown frame: key flag),
    /// and its stream (profile, level, size, bit depth) for the sequence header.
    @Test(
        "probe --units lists AV1 OBUs as ffprobe sees them",
        arguments: ["av1.ivf", "av1.mp4", "av1-10bit.mkv", "av1.obu", "av1-annexb.obu", "av1-film-grain.ivf"]
            + crosCodecsStreams.filter { $0.hasPrefix("cros-codecs-av1/") })
    func av1Units(_ name: String) throws {
        let file = try url(name)
        let (_, samples) = try probeUnits(file)
        let frames = try ffprobeEntries(file, "frame", "key_frame")
        if !name.hasSuffix(".obu") {
            // The .obu readers hand out temporal units that libavformat's demuxers cut differently.
            let packets = try ffprobeEntries(file, "packet", "size,flags")
            #expect(samples.map { $0["size"] as? Int } == packets.map { Int($0["size"] as? String ?? "") })
            #expect(samples.map { $0["sync"] as? Bool } == packets.map { ($0["flags"] as? String)?.hasPrefix("K") })
        }
        let obus = samples.map { $0["obus"] as? [[String: Any]] ?? [] }
        // Sizes: OBUs fill the low-overhead sample exactly.
        if !name.hasSuffix("annexb.obu") {
            for (sample, units) in zip(samples, obus) {
                #expect(units.compactMap { $0["size"] as? Int }.reduce(0, +) == sample["size"] as? Int)
            }
        }
        let headers = obus.flatMap { $0.compactMap { $0["frame_header"] as? [String: Any] } }
        let shown = headers.filter { $0["show_frame"] as? Bool == true || $0["show_existing_frame"] as? Bool == true }
        #expect(shown.count == frames.count)
        #expect(
            shown.map { $0["frame_type"] as? String == "key" && $0["show_frame"] as? Bool == true ? 1 : 0 }
                == frames.map { $0["key_frame"] as? Int ?? -1 })
        let sequence = try #require(
            obus.first?.first { $0["name"] as? String == "SEQ" }?["sequence_header"] as? [String: Any])
        let stream = try #require(try ffprobeEntries(file, "stream", "profile,level,width,height,pix_fmt").first)
        #expect(sequence["profile"] as? String == stream["profile"] as? String)
        #expect(sequence["seq_level_idx"] as? Int == stream["level"] as? Int)
        #expect((sequence["max_width"] as? Int ?? 0) >= stream["width"] as? Int ?? .max)
        #expect(sequence["bit_depth"] as? Int == ((stream["pix_fmt"] as? String)?.contains("10") == true ? 10 : 8))
        #expect((sequence["film_grain_params_present"] as? Bool) == name.contains("film-grain"))
        // IVF and OBU streams keep the temporal delimiters; MP4 and Matroska drop them (av1C, §2.5 of
        // the AV1-ISOBMFF binding; the Matroska codec mapping).
        let delimited = !name.hasSuffix(".mp4") && !name.hasSuffix(".mkv")
        #expect(obus.allSatisfy { ($0.first?["name"] as? String == "TD") == delimited })
    }

    /// MPEG-2: sequence header and extension, GOPs, each picture's type, structure and flags.
    /// Oracles: ffprobe's packets (count, sizes, key flags) and frames (picture types, interlacing,
    /// top field first), and its stream (size, profile, level, frame rate).
    @Test(
        "probe --units lists MPEG-2 headers and pictures as ffprobe sees them",
        arguments: ["mpeg2-progressive.m2v", "mpeg2-interlaced.ts"])
    func mpeg2Units(_ name: String) throws {
        let file = try url(name)
        let (_, samples) = try probeUnits(file)
        let packets = try ffprobeEntries(file, "packet", "size,flags")
        let frames = try ffprobeEntries(file, "frame", "pict_type,interlaced_frame,top_field_first")
        #expect(samples.count == packets.count)
        #expect(samples.map { $0["sync"] as? Bool } == packets.map { ($0["flags"] as? String)?.hasPrefix("K") })
        let pictures = samples.flatMap { $0["pictures"] as? [[String: Any]] ?? [] }
        #expect(pictures.count == frames.count)
        #expect(
            pictures.compactMap { $0["picture_type"] as? String }.sorted()
                == frames.compactMap { $0["pict_type"] as? String }.sorted())
        #expect(pictures.allSatisfy { $0["structure"] as? String == "frame" })
        #expect(
            pictures.filter { $0["progressive_frame"] as? Bool == false }.count
                == frames.filter { $0["interlaced_frame"] as? Int == 1 }.count)
        #expect(
            pictures.filter { $0["top_field_first"] as? Bool == true }.count
                == frames.filter { $0["top_field_first"] as? Int == 1 }.count)
        let sequence = try #require(samples.first?["sequence_header"] as? [String: Any])
        let stream = try #require(try ffprobeEntries(file, "stream", "width,height,profile,level,r_frame_rate").first)
        #expect(sequence["width"] as? Int == stream["width"] as? Int)
        #expect(sequence["height"] as? Int == stream["height"] as? Int)
        #expect(sequence["profile"] as? String == stream["profile"] as? String)
        #expect(sequence["level_code"] as? Int == stream["level"] as? Int)
        #expect(sequence["frame_rate"] as? String == stream["r_frame_rate"] as? String)
        #expect((sequence["progressive_sequence"] as? Bool) == name.contains("progressive"))
        let text = try CommandRunner.vatoolbox(["probe", "--units", file.path])
        #expect(text.text.contains("    picture 0: I frame, temporal reference 0"))
        #expect(text.text.split(separator: "\n").filter { $0.hasPrefix("  access unit ") }.count == samples.count)
    }

    @Test("probe names each codec as ffprobe does, in text and JSON", arguments: fixtureFiles)
    func codecNames(_ file: String) throws {
        let input = TestData.fixtures.appendingPathComponent(file)
        let codec = try ffprobeEntries(input, "stream", "codec_name").first?["codec_name"] as? String
        let json = try CommandRunner.vatoolbox(["probe", "--json", input.path])
        guard json.status == 0 else {
            // The damaged fixtures still probe; nothing else may fail.
            Issue.record("probe failed: \(json.standardError)")
            return
        }
        let object = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])
        #expect(object["codec"] as? String == codec)
        #expect((object["formats"] as? [[String: Any]])?.allSatisfy { $0["codec"] as? String == codec } == true)
        let text = try CommandRunner.vatoolbox(["probe", input.path])
        let names = ["h264": "H.264", "hevc": "HEVC", "av1": "AV1", "vp9": "VP9", "vp8": "VP8", "mpeg2video": "MPEG-2"]
        #expect(text.text.contains("  codec: \(names[codec ?? ""] ?? "?") "))
    }
}
