import Foundation
import Testing

@testable import VAToolbox

/// `vatoolbox decode --deinterlace MODE` (issue 23): the bytes of the ffmpeg CLI's `-vf MODE`, on
/// the CPU and, the pictures read back from the GPU, on the test driver under every personality.
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

    @Test(.enabled(if: TestVADriver.isBuilt), arguments: cases.prefix(2), TestVADriver.personalities)
    func theGPUsPicturesAreTheCPUs(_ testCase: (fixture: String, mode: String), _ personality: String?) throws {
        var extra = ["VATB_REFERENCE_STREAM": TestData.fixtures.appendingPathComponent(testCase.fixture).path]
        extra["VATB_PERSONALITY"] = personality
        let gpu = try Self.vatoolbox(
            testCase.fixture, mode: testCase.mode, hwaccel: "vaapi",
            environment: TestVADriver.subprocessEnvironment(extra))
        #expect(gpu.status == 0, "\(gpu.standardError)")
        #expect(gpu.standardError.contains("VA-API"), "decoded on the GPU: \(gpu.standardError)")
        let cpu = try Self.vatoolbox(testCase.fixture, mode: testCase.mode, hwaccel: "none")
        #expect(!gpu.standardOutput.isEmpty && gpu.standardOutput == cpu.standardOutput)
    }

    /// `framemd5 --field-mode` and `--pixel-format BGRA --scale` (issue 23): the whole text of
    /// ffmpeg's `-f framemd5` with the mode's filter, or with `-s` and `-pix_fmt bgra`, on the CPU
    /// and, from the pictures read back, on the test driver.
    static let frameMD5Cases: [(options: [String], ffmpeg: [String])] = [
        (["--field-mode", "deinterlace"], ["-vf", "pp=lb"]), (["--field-mode", "top"], ["-vf", "field=type=top"]),
        (["--pixel-format", "BGRA", "--scale", "160x128"], ["-s", "160x128", "-pix_fmt", "bgra"]),
        (
            ["--field-mode", "deinterlace", "--pixel-format", "BGRA", "--scale", "160x128"],
            ["-vf", "pp=lb", "-s", "160x128", "-pix_fmt", "bgra"]
        ),
    ]

    static func frameMD5(_ fixture: String, _ options: [String], hwaccel: String, personality: String? = nil) throws
        -> CommandRunner.Result
    {
        var extra = ["VATB_REFERENCE_STREAM": TestData.fixtures.appendingPathComponent(fixture).path]
        extra["VATB_PERSONALITY"] = personality
        return try CommandRunner.vatoolbox(
            [
                "framemd5", TestData.fixtures.appendingPathComponent(fixture).path, "--hwaccel", hwaccel, "--device",
                "/dev/null",
            ]
                + options, environment: hwaccel == "none" ? nil : TestVADriver.subprocessEnvironment(extra))
    }

    @Test(arguments: ["mpeg2-interlaced.ts", "h264-mbaff.264"], 0..<4)
    func frameMD5EqualsFFmpegsWithTheFilter(_ fixture: String, _ index: Int) throws {
        let testCase = Self.frameMD5Cases[index]
        let ours = try Self.frameMD5(fixture, testCase.options, hwaccel: "none")
        #expect(ours.status == 0, "\(ours.standardError)")
        let theirs = try CommandRunner.ffmpeg(
            ["-threads", "1", "-i", TestData.fixtures.appendingPathComponent(fixture).path] + testCase.ffmpeg + [
                "-f", "framemd5", "-",
            ])
        #expect(theirs.status == 0)
        let lines = { (text: String) in text.split(separator: "\n").filter { !$0.hasPrefix("#software") } }
        #expect(lines(ours.text) == lines(theirs.text), "\(fixture) \(testCase.options)")
        #expect(lines(ours.text).count > 20)
    }

    @Test(.enabled(if: TestVADriver.isBuilt), arguments: 0..<4, TestVADriver.personalities)
    func frameMD5OnTheDriverEqualsTheCPUs(_ index: Int, _ personality: String?) throws {
        // The GPU's pictures are NV12 and the CPU's planar: both hashed as I420.
        var options = Self.frameMD5Cases[index].options
        if !options.contains("--pixel-format") { options += ["--pixel-format", "y420"] }
        let gpu = try Self.frameMD5("mpeg2-interlaced.ts", options, hwaccel: "vaapi", personality: personality)
        #expect(gpu.status == 0, "\(gpu.standardError)")
        let cpu = try Self.frameMD5("mpeg2-interlaced.ts", options, hwaccel: "none")
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

    /// A deinterlacing call that fails mid-stream (the driver's 5th processed picture) moves the
    /// vertical filter to the CPU for that picture and the rest: the same bytes, and the reason.
    @Test(.enabled(if: TestVADriver.isBuilt)) func aFailedGPUDeinterlacingMovesItToTheCPU() throws {
        let fixture = "mpeg2-interlaced.ts"
        let options = ["--field-mode", "deinterlace", "--pixel-format", "y420"]
        let cpu = try Self.frameMD5(fixture, options, hwaccel: "none")
        var extra = ["VATB_REFERENCE_STREAM": TestData.fixtures.appendingPathComponent(fixture).path]
        extra["VATB_FAIL_PROCESSING"] = "5"
        let gpu = try CommandRunner.vatoolbox(
            [
                "framemd5", TestData.fixtures.appendingPathComponent(fixture).path, "--hwaccel", "vaapi", "--device",
                "/dev/null",
            ]
                + options, environment: TestVADriver.subprocessEnvironment(extra))
        #expect(gpu.status == 0, "\(gpu.standardError)")
        #expect(!gpu.text.isEmpty && gpu.text == cpu.text)
        #expect(
            gpu.standardError.contains(
                "deinterlacing: libavfilter on the CPU — the driver failed to process the picture (vaEndPicture:"),
            "\(gpu.standardError)")
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
