import Foundation
import Testing
import VAToolbox

@Suite("vatoolbox errors and help", .enabled(if: CommandRunner.hasTool && CommandRunner.hasFFmpeg))
struct CommandLineErrorTests {
    /// One line on standard error, starting with the tool's name, no crash report.
    private func expectOneLine(_ result: CommandRunner.Result, status: Int32, containing text: String) {
        #expect(result.status == status, "\(result.standardError)")
        #expect(result.errorLines.count == 1, "\(result.standardError)")
        #expect(result.errorLines.first?.hasPrefix("vatoolbox") == true)
        #expect(result.standardError.contains(text), "\(result.standardError)")
        #expect(!result.standardError.contains("Fatal error"))
    }

    @Test(
        "every command answers --help with its usage",
        arguments: [
            "decode", "probe", "framemd5", "snapshot", "thumbnails", "frames", "bench", "devices", "device-check",
        ])
    func help(_ command: String) throws {
        let result = try CommandRunner.vatoolbox([command, "--help"])
        #expect(result.status == 0)
        #expect(result.text.hasPrefix("usage: vatoolbox \(command)"))
    }

    @Test("help lists the commands and the exit statuses")
    func overview() throws {
        let result = try CommandRunner.vatoolbox(["help"])
        #expect(result.status == 0)
        for word in [
            "decode", "probe", "framemd5", "snapshot", "thumbnails", "frames", "bench", "devices", "device-check",
            "exit status",
        ] {
            #expect(result.text.contains(word))
        }
        let none = try CommandRunner.vatoolbox([])
        #expect(none.status == 2)
    }

    @Test("bad usage exits with 2")
    func usage() throws {
        let fixture = TestData.fixtures.appendingPathComponent("h264-baseline-cavlc.264").path
        expectOneLine(try CommandRunner.vatoolbox(["frobnicate"]), status: 2, containing: "unknown command")
        expectOneLine(try CommandRunner.vatoolbox(["decode", "--bogus", fixture]), status: 2, containing: "--bogus")
        expectOneLine(try CommandRunner.vatoolbox(["decode"]), status: 2, containing: "missing INPUT")
        expectOneLine(
            try CommandRunner.vatoolbox(["decode", fixture, "--frames", "many"]), status: 2, containing: "--frames")
        expectOneLine(
            try CommandRunner.vatoolbox(["decode", fixture, "--frames"]), status: 2, containing: "needs a value")
        expectOneLine(
            try CommandRunner.vatoolbox(["decode", fixture, "--hwaccel", "cuda"]), status: 2, containing: "--hwaccel")
        expectOneLine(try CommandRunner.vatoolbox(["snapshot", fixture]), status: 2, containing: "-o")
        expectOneLine(
            try CommandRunner.vatoolbox(["decode", fixture, "--pixel-format", "420v", "-o", "-"]), status: 2,
            containing: "Y4M cannot carry")
        expectOneLine(
            try CommandRunner.vatoolbox(["probe", fixture, fixture]), status: 2, containing: "unexpected argument")
    }

    @Test("unreadable input exits with 1")
    func input() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        expectOneLine(
            try CommandRunner.vatoolbox(["decode", directory.appendingPathComponent("missing.mp4").path]), status: 1,
            containing: "No such file")
        let text = directory.appendingPathComponent("notes.mp4")
        try Data("not a video\n".utf8).write(to: text)
        expectOneLine(try CommandRunner.vatoolbox(["probe", text.path]), status: 1, containing: "not a media file")
        let changing = TestData.fixtures.appendingPathComponent("h264-resolution-change.264").path
        let y4m = directory.appendingPathComponent("out.y4m").path
        expectOneLine(
            try CommandRunner.vatoolbox(["decode", changing, "-o", y4m]), status: 1, containing: "picture size changes")
        let empty = directory.appendingPathComponent("empty.264")
        try Data().write(to: empty)
        expectOneLine(try CommandRunner.vatoolbox(["framemd5", empty.path]), status: 1, containing: "no decodable")
    }

    @Test(
        "a codec VAToolbox does not decode exits with 3",
        arguments: [("mpeg4", "mp4"), ("mjpeg", "mkv"), ("mpeg1video", "mpg")])
    func unsupportedCodec(_ codec: String, _ container: String) throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("clip.\(container)")
        let made = try CommandRunner.ffmpeg(
            ["-f", "lavfi", "-i", "testsrc2=size=128x96:rate=25", "-frames:v", "5", "-c:v", codec, file.path])
        try #require(made.status == 0, "ffmpeg could not make the clip: \(made.standardError)")
        let names = VideoCodecType.decodable.map(\.name).joined(separator: ", ")
        for command in ["decode", "probe", "framemd5"] {
            let result = try CommandRunner.vatoolbox([command, file.path])
            expectOneLine(result, status: 3, containing: "is \(codec); VAToolbox decodes \(names)")
        }
    }

    @Test("--hwaccel vaapi without a usable device: one line, exit status 3")
    func hardwareRequired() throws {
        let fixture = TestData.fixtures.appendingPathComponent("h264-baseline-cavlc.264").path
        for arguments in [["--hwaccel", "vaapi"], ["--hwaccel=vaapi", "--device", "/dev/dri/no-such-node"]] {
            let result = try CommandRunner.vatoolbox(["decode", fixture] + arguments)
            // On a machine whose GPU decodes the stream, the first call succeeds.
            if result.status == 0 && arguments.count == 2 { continue }
            expectOneLine(result, status: 3, containing: "hardware")
        }
    }
}

@Suite("vatoolbox snapshot, thumbnails and bench", .enabled(if: CommandRunner.hasTool && CommandRunner.hasFFmpeg))
struct CommandLinePictureTests {
    /// Width and height of a picture file, from ffprobe.
    private func size(_ url: URL) throws -> [Int] {
        let result = try CommandRunner.ffprobe(
            ["-show_entries", "stream=width,height,codec_name", "-of", "csv=p=0", url.path])
        return result.text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
    }

    @Test(
        "snapshot writes the picture ffmpeg's select filter picks, as RGB",
        arguments: [
            ("h264-high-bpyramid.264", 7), ("hevc-main.mkv", 30), ("h264-cropped-642x362.264", 0),
            ("vp8.webm", 12), ("vp9-profile0.ivf", 9), ("av1.mp4", 7), ("mpeg2-interlaced.ts", 5),
            ("mpeg2-progressive.m2v", 4),
        ])
    func snapshot(_ file: String, _ frame: Int) throws {
        let input = TestData.fixtures.appendingPathComponent(file)
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = directory.appendingPathComponent("frame.png")
        let result = try CommandRunner.vatoolbox(["snapshot", input.path, "--frame", "\(frame)", "-o", png.path])
        #expect(result.status == 0, "\(result.standardError)")
        let ours = try CommandRunner.ffmpeg(["-i", png.path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        let theirs = try CommandRunner.ffmpeg(
            [
                "-i", input.path, "-vf", "select=eq(n\\,\(frame))", "-frames:v", "1", "-pix_fmt", "rgb24", "-f",
                "rawvideo", "-",
            ])
        try #require(!theirs.standardOutput.isEmpty)
        #expect(ours.standardOutput.count == theirs.standardOutput.count)
        let worst = zip(ours.standardOutput, theirs.standardOutput).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
        #expect(worst <= 2, "largest sample difference \(worst)")
        let past = try CommandRunner.vatoolbox(["snapshot", input.path, "--frame", "100000", "-o", png.path])
        #expect(past.status == 1)
    }

    @Test("thumbnails draws a grid of the requested size")
    func thumbnails() throws {
        let input = TestData.fixtures.appendingPathComponent("h264-main-cabac.264")
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = directory.appendingPathComponent("sheet.png")
        let result = try CommandRunner.vatoolbox(
            ["thumbnails", input.path, "-o", png.path, "--count", "6", "--width", "160"])
        #expect(result.status == 0, "\(result.standardError)")
        // 4 columns of 160 + 8 px margins; 2 rows of 120 + a 20 px label + 8 px margins.
        #expect(try size(png) == [680, 304])
    }

    @Test("thumbnails of a field-coded stream count pictures, not field samples", .needsConformance)
    func thumbnailsOfFields() throws {
        // HCAFF1_HHI: 14 samples, 10 pictures (field pairs and frames).
        let input = try #require(TestData.conformance).appendingPathComponent("JVT-FR-EXT/HCAFF1_HHI.264")
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = directory.appendingPathComponent("sheet.png")
        let result = try CommandRunner.vatoolbox(["thumbnails", input.path, "-o", png.path, "--count", "10"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.text.contains("a contact sheet of 10 pictures"))
    }

    @Test("bench --json has a row per path; --svg is well-formed XML")
    func bench() throws {
        let input = TestData.fixtures.appendingPathComponent("h264-high-bpyramid.264")
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let svg = directory.appendingPathComponent("chart.svg")
        let result = try CommandRunner.vatoolbox(
            [
                "bench", input.path, "--runs", "1", "--frames", "10", "--threads", "2", "--json", "--svg", svg.path,
                "--with-ffmpeg",
            ])
        #expect(result.status == 0, "\(result.standardError)")
        let json = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        let rows = try #require(json["rows"] as? [[String: Any]])
        // With --with-ffmpeg the ffmpeg CLI's VA-API decode stands beside the GPU row.
        #expect(rows.map { $0["decoder"] as? String } == ["vaapi", "ffmpeg-vaapi", "cpu", "cpu", "ffmpeg"])
        #expect(rows.map { $0["threads"] as? Int } == [0, 0, 1, 2, 2])
        for row in rows {
            for key in [
                "name", "available", "reason", "frames", "fps_best", "fps_median", "cpu_seconds_per_frame",
                "peak_rss_mib", "run_seconds",
            ] {
                #expect(row.keys.contains(key), "row lacks \(key)")
            }
            if row["available"] as? Bool == true {
                #expect(row["frames"] as? Int == 10)
                #expect((row["fps_best"] as? Double ?? 0) > 0)
                #expect((row["peak_rss_mib"] as? Double ?? 0) > 0)
            } else {
                #expect((row["reason"] as? String)?.isEmpty == false)
                #expect(row["frames"] is NSNull, "a row that could not run has no frame count")
            }
        }
        #expect(rows[2]["available"] as? Bool == true)
        #expect(json.keys.contains("speedup_gpu_over_cpu"))
        let text = try String(contentsOf: svg, encoding: .utf8)
        #expect(text.hasPrefix("<?xml"))
        #expect(text.hasSuffix("</svg>\n"))
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint") {
            let lint = try CommandRunner.run(URL(fileURLWithPath: "/usr/bin/xmllint"), ["--noout", svg.path])
            #expect(lint.status == 0, "\(lint.standardError)")
        } else {
            // No xmllint: every element opened is closed, in order.
            var open: [String] = []
            var balanced = true
            var rest = Substring(text)
            while let start = rest.firstIndex(of: "<") {
                guard let end = rest[start...].firstIndex(of: ">") else {
                    balanced = false
                    break
                }
                let tag = rest[rest.index(after: start)..<end]
                rest = rest[rest.index(after: end)...]
                if tag.hasPrefix("?") { continue }
                let name = String(tag.split(separator: " ").first ?? "").trimmingCharacters(
                    in: CharacterSet(charactersIn: "/"))
                if tag.hasPrefix("/") {
                    if open.popLast() != name { balanced = false }
                } else if !tag.hasSuffix("/") {
                    open.append(name)
                }
            }
            #expect(balanced && open.isEmpty)
        }
    }
}
