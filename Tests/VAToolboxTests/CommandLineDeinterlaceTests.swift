import Foundation
import Testing

@testable import VAToolbox

/// `vatoolbox decode|framemd5 --deinterlace MODE` and `--field-mode` (issue 23): the bytes of the
/// ffmpeg CLI's `-vf MODE`, on the CPU and on the test driver under every personality (on its GPU
/// where the driver can, else read back).
@Suite(.enabled(if: CommandRunner.hasFFmpeg && CommandRunner.hasTool))
struct CommandLineDeinterlaceTests {
    static let cases: [(fixture: String, mode: String)] = [
        ("h264-mbaff.264", "bwdif"), ("h264-mbaff.264", "yadif-field"), ("mpeg2-interlaced.ts", "yadif"),
        ("mpeg2-interlaced.ts", "bwdif-field"),
    ]

    /// ffmpeg's deinterlaced pictures as raw 4:2:0 planes.
    static func ffmpegBytes(_ fixture: String, mode: String) throws -> Data {
        let filter = mode.hasSuffix("-field") ? "\(mode.dropLast(6))=mode=send_field" : "\(mode)=mode=send_frame"
        let run = try CommandRunner.ffmpeg([
            "-threads", "1", "-i", TestData.fixtures.appendingPathComponent(fixture).path, "-map", "0:v:0", "-vf",
            filter, "-fps_mode", "passthrough", "-pix_fmt", "yuv420p", "-f", "rawvideo", "-",
        ])
        try #require(run.status == 0, "ffmpeg -vf \(filter): \(run.standardError)")
        return run.standardOutput
    }

    static func vatoolbox(
        _ fixture: String, mode: String, hwaccel: String, environment: [String: String]? = nil
    ) throws -> CommandRunner.Result {
        try CommandRunner.vatoolbox(
            [
                "decode", TestData.fixtures.appendingPathComponent(fixture).path, "--deinterlace", mode, "--hwaccel",
                hwaccel, "--device", "/dev/null", "--pixel-format", "y420", "-o", "-", "--format", "yuv",
            ], environment: environment)
    }

    @Test(arguments: cases)
    func theCPUsPicturesAreFFmpegsBytes(_ fixture: String, _ mode: String) throws {
        let run = try Self.vatoolbox(fixture, mode: mode, hwaccel: "none")
        #expect(run.status == 0, "\(run.standardError)")
        #expect(!run.standardOutput.isEmpty)
        #expect(run.standardOutput == (try Self.ffmpegBytes(fixture, mode: mode)), "\(fixture) \(mode)")
        #expect(run.standardError.contains("deinterlaced: \(mode.hasPrefix("bwdif") ? "bwdif" : "yadif")"))
    }

    /// `framemd5 --deinterlace MODE`: the whole text of ffmpeg's `-f framemd5` with `-vf MODE`
    /// (times, sizes and hashes of every picture, both fields' at the field rate).
    @Test(arguments: cases)
    func frameMD5WithATemporalModeEqualsFFmpegs(_ fixture: String, _ mode: String) throws {
        let ours = try Self.frameMD5(fixture, ["--deinterlace", mode], hwaccel: "none")
        #expect(ours.status == 0, "\(ours.standardError)")
        let filter = mode.hasSuffix("-field") ? "\(mode.dropLast(6))=mode=send_field" : "\(mode)=mode=send_frame"
        let theirs = try CommandRunner.ffmpeg(
            ["-threads", "1", "-i", TestData.fixtures.appendingPathComponent(fixture).path, "-vf", filter] + [
                "-f", "framemd5", "-",
            ])
        #expect(theirs.status == 0)
        #expect(Self.lines(ours.text) == Self.lines(theirs.text), "\(fixture) \(mode)")
        #expect(Self.lines(ours.text).count > 20)
    }

    static func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#software") }
    }

    /// The temporal modes on the test driver under every personality (issue 23, item 3): the
    /// CPU's text, byte for byte. bwdif runs on the GPU where the driver's motion-adaptive
    /// deinterlacing takes the next picture (the test driver's own, Mesa's), each field one
    /// processed picture (the driver counts them); elsewhere, and for yadif, on the CPU, and the
    /// tool says why.
    @Test(.enabled(if: TestVADriver.isBuilt), arguments: cases, TestVADriver.personalities)
    func temporalModesOnTheDriverEqualTheCPUs(_ testCase: (fixture: String, mode: String), _ personality: String?)
        throws
    {
        // The GPU's pictures are NV12 and the CPU's planar: both hashed as I420.
        let options = ["--deinterlace", testCase.mode, "--pixel-format", "y420"]
        let gpu = try Self.frameMD5(
            testCase.fixture, options, hwaccel: "vaapi", personality: personality, extra: ["VATB_LIVE_REPORT": "1"])
        #expect(gpu.status == 0, "\(gpu.standardError)")
        VATestDriverTests.RealPixels.expectDecodedOnTheDriver(gpu.standardError, testCase.fixture)
        let cpu = try Self.frameMD5(testCase.fixture, options, hwaccel: "none")
        #expect(!gpu.text.isEmpty && gpu.text == cpu.text, "\(testCase) \(personality ?? "driver")")
        let line = gpu.standardError.split(separator: "\n").first { $0.hasPrefix("deinterlacing: ") } ?? ""
        let pictures = Self.lines(gpu.text).filter { !$0.hasPrefix("#") }.count
        let processed = VATestDriverTests.RealPixels.liveReport(gpu.standardError)?["processed_pictures"]
        let onTheCPU = "deinterlacing: libavfilter on the CPU — "
        switch (personality, testCase.mode.hasPrefix("bwdif")) {
        case (nil, true), ("mesa", true):
            #expect(line == "deinterlacing: on the GPU (VA-API video processing)", "\(gpu.standardError)")
            #expect(processed == pictures, "one processed picture per field put out: \(gpu.standardError)")
        case (_, false):
            #expect(
                line == onTheCPU + "yadif runs on the CPU (the GPU's motion-adaptive deinterlacing stands in for bwdif)"
            )
            #expect(processed == 0)
        case ("ihd", true):
            #expect(
                line == onTheCPU
                    + "the iHD driver's motion-adaptive deinterlacing takes no next picture, which bwdif needs")
            #expect(processed == 0)
        default:
            #expect(line.hasPrefix(onTheCPU + "the \(personality ?? "")"), "\(line)")
            #expect(processed == 0)
        }
    }

    /// After deinterlacing on the GPU, the conversion and scale run there too, and the pictures are
    /// those of ffmpeg's `-vf bwdif=mode=send_field -s 160x128 -pix_fmt bgra`.
    @Test(.enabled(if: TestVADriver.isBuilt), arguments: [nil, "mesa"] as [String?])
    func aGPUDeinterlacedPictureIsConvertedOnTheGPU(_ personality: String?) throws {
        let fixture = "mpeg2-interlaced.ts"
        let options = ["--deinterlace", "bwdif-field", "--pixel-format", "BGRA", "--scale", "160x128"]
        let gpu = try Self.frameMD5(fixture, options, hwaccel: "vaapi", personality: personality)
        #expect(gpu.status == 0, "\(gpu.standardError)")
        #expect(gpu.standardError.contains("deinterlacing: on the GPU (VA-API video processing)"))
        #expect(gpu.standardError.contains("conversion: on the GPU (VA-API video processing)"))
        let theirs = try CommandRunner.ffmpeg([
            "-threads", "1", "-i", TestData.fixtures.appendingPathComponent(fixture).path, "-vf",
            "bwdif=mode=send_field", "-s", "160x128", "-pix_fmt", "bgra", "-f", "framemd5", "-",
        ])
        #expect(Self.lines(gpu.text) == Self.lines(theirs.text))
        #expect(Self.lines(gpu.text).filter { !$0.hasPrefix("#") }.count == 48)
    }

    /// A GPU deinterlacing call that fails moves deinterlacing to the CPU from that picture on:
    /// the same text (pictures and times), and the reason. The vertical filter (VA's Bob) at the
    /// 5th processed picture; bwdif (VA's motion-adaptive deinterlacing) at the first call,
    /// mid-stream and at the last.
    @Test(
        .enabled(if: TestVADriver.isBuilt),
        arguments: [
            (["--field-mode", "deinterlace"], "5"), (["--deinterlace", "bwdif-field"], "1"),
            (["--deinterlace", "bwdif-field"], "5"), (["--deinterlace", "bwdif-field"], "48"),
        ])
    func aFailedGPUDeinterlacingCallMovesItToTheCPU(_ mode: [String], _ failingCall: String) throws {
        let fixture = "mpeg2-interlaced.ts"
        let options = mode + ["--pixel-format", "y420"]
        let cpu = try Self.frameMD5(fixture, options, hwaccel: "none")
        let gpu = try Self.frameMD5(fixture, options, hwaccel: "vaapi", extra: ["VATB_FAIL_PROCESSING": failingCall])
        #expect(gpu.status == 0, "\(gpu.standardError)")
        #expect(!gpu.text.isEmpty && gpu.text == cpu.text)
        #expect(
            gpu.standardError.contains(
                "deinterlacing: libavfilter on the CPU — the driver failed to process the picture (vaEndPicture:"),
            "\(gpu.standardError)")
    }

    /// A GPU-deinterlaced picture that cannot be read back for its conversion (the driver's 40th
    /// `vaGetImage` fails) is left out and counted as a frame with an error; the others are the
    /// CPU's, and the run goes on to the end.
    @Test(.enabled(if: TestVADriver.isBuilt)) func aDeinterlacedPictureThatCannotBeReadBackIsCounted() throws {
        let fixture = "mpeg2-interlaced.ts"
        let options = ["--deinterlace", "bwdif-field", "--pixel-format", "y420"]
        let cpu = try Self.frameMD5(fixture, options, hwaccel: "none")
        let gpu = try Self.frameMD5(fixture, options, hwaccel: "vaapi", extra: ["VATB_FAIL_CALL": "GetImage:40"])
        #expect(gpu.status == 1, "\(gpu.standardError)")
        #expect(gpu.standardError.contains("frames with errors: 1"))
        #expect(gpu.standardError.contains("deinterlaced picture 39: it could not be converted"))
        let frames = { (text: String) in Self.lines(text).filter { !$0.hasPrefix("#") } }
        var expected = frames(cpu.text)
        try #require(expected.count == 48)
        expected.remove(at: 39)
        #expect(frames(gpu.text) == expected)
    }

    /// `framemd5 --field-mode` and `--pixel-format BGRA --scale` (issue 23): the whole text of
    /// ffmpeg's `-f framemd5` with the mode's filter, or with `-s` and `-pix_fmt bgra`, on the CPU
    /// and, from the pictures read back, on the test driver.
    static let frameMD5Cases: [(options: [String], ffmpeg: [String])] = [
        (["--field-mode", "deinterlace"], ["-vf", "pp=lb"]), (["--field-mode", "top"], ["-vf", "field=type=top"]),
        (["--field-mode", "bottom"], ["-vf", "field=type=bottom"]),
        (["--pixel-format", "BGRA", "--scale", "160x128"], ["-s", "160x128", "-pix_fmt", "bgra"]),
        (
            ["--field-mode", "deinterlace", "--pixel-format", "BGRA", "--scale", "160x128"],
            ["-vf", "pp=lb", "-s", "160x128", "-pix_fmt", "bgra"]
        ),
    ]

    static func frameMD5(
        _ fixture: String, _ options: [String], hwaccel: String, personality: String? = nil,
        extra variables: [String: String] = [:]
    ) throws -> CommandRunner.Result {
        var extra = ["VATB_REFERENCE_STREAM": TestData.fixtures.appendingPathComponent(fixture).path]
        extra["VATB_PERSONALITY"] = personality
        extra.merge(variables) { $1 }
        return try CommandRunner.vatoolbox(
            [
                "framemd5", TestData.fixtures.appendingPathComponent(fixture).path, "--hwaccel", hwaccel, "--device",
                "/dev/null",
            ]
                + options, environment: hwaccel == "none" ? nil : TestVADriver.subprocessEnvironment(extra))
    }

    @Test(arguments: ["mpeg2-interlaced.ts", "h264-mbaff.264"], frameMD5Cases.indices)
    func frameMD5EqualsFFmpegsWithTheFilter(_ fixture: String, _ index: Int) throws {
        let testCase = Self.frameMD5Cases[index]
        let ours = try Self.frameMD5(fixture, testCase.options, hwaccel: "none")
        #expect(ours.status == 0, "\(ours.standardError)")
        let theirs = try CommandRunner.ffmpeg(
            ["-threads", "1", "-i", TestData.fixtures.appendingPathComponent(fixture).path] + testCase.ffmpeg + [
                "-f", "framemd5", "-",
            ])
        #expect(theirs.status == 0)
        #expect(Self.lines(ours.text) == Self.lines(theirs.text), "\(fixture) \(testCase.options)")
        #expect(Self.lines(ours.text).count > 20)
    }

    @Test(
        .enabled(if: TestVADriver.isBuilt), arguments: ["mpeg2-interlaced.ts", "h264-mbaff.264"],
        TestVADriver.personalities)
    func frameMD5OnTheDriverEqualsTheCPUs(_ fixture: String, _ personality: String?) throws {
        for index in Self.frameMD5Cases.indices {
            try frameMD5OnTheDriverEqualsTheCPUs(fixture, index, personality)
        }
    }

    func frameMD5OnTheDriverEqualsTheCPUs(_ fixture: String, _ index: Int, _ personality: String?) throws {
        // The GPU's pictures are NV12 and the CPU's planar: both hashed as I420.
        var options = Self.frameMD5Cases[index].options
        if !options.contains("--pixel-format") { options += ["--pixel-format", "y420"] }
        let gpu = try Self.frameMD5(fixture, options, hwaccel: "vaapi", personality: personality)
        #expect(gpu.status == 0, "\(gpu.standardError)")
        let cpu = try Self.frameMD5(fixture, options, hwaccel: "none")
        #expect(!gpu.text.isEmpty && gpu.text == cpu.text, "\(options) \(personality ?? "driver")")
        // The vertical filter runs on the GPU (VA's Bob) where the driver lists Bob.
        guard options.contains("deinterlace") else { return }
        let line = gpu.standardError.split(separator: "\n").first { $0.hasPrefix("deinterlacing: ") } ?? ""
        switch personality {
        case "i965", "nvidia":
            #expect(line.hasPrefix("deinterlacing: libavfilter on the CPU — the \(personality ?? "")"), "\(line)")
        default: #expect(line == "deinterlacing: on the GPU (VA-API video processing)", "\(gpu.standardError)")
        }
    }

    @Test func badPictureOptionsAreUsageErrors() throws {
        for options in [["--field-mode", "weave"], ["--scale", "0x10"], ["--scale", "640"]] {
            let run = try Self.frameMD5("h264-mbaff.264", options, hwaccel: "none")
            #expect(run.status == 2, "\(options): \(run.standardError)")
        }
    }

    @Test func anUnknownModeIsAUsageError() throws {
        let run = try Self.vatoolbox("h264-mbaff.264", mode: "bob", hwaccel: "none")
        #expect(run.status == 2)
        #expect(run.standardError.contains("bwdif, yadif, bwdif-field or yadif-field"))
    }
}
