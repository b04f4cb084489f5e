import Foundation
import Testing

@testable import VAToolbox

/// The tool's GPU side — `devices`, `--hwaccel`, the environment overrides, `device-check`,
/// `bench`'s VA-API row — run as a subprocess on the test VA driver (`LD_PRELOAD` of the DRM shim,
/// /dev/null as the render node).
@Suite(.enabled(if: CommandRunner.hasTool && TestVADriver.isBuilt))
struct CommandLineHardwareTests {
    static let fixture = TestData.fixtures.appendingPathComponent("h264-main-cabac.264").path
    static let high10 = TestData.fixtures.appendingPathComponent("h264-high10.264").path

    static func onTestDriver(_ arguments: [String], _ extra: [String: String] = [:]) throws -> CommandRunner.Result {
        try CommandRunner.vatoolbox(arguments, environment: TestVADriver.subprocessEnvironment(extra))
    }

    /// The test driver's decode profiles, in the order it advertises them (Tests/VATestDriver).
    static let driverProfiles: [(name: String, codec: String, bitDepths: [Int])] = [
        ("H264ConstrainedBaseline", "avc1", [8]), ("H264Main", "avc1", [8]), ("H264High", "avc1", [8]),
        ("HEVCMain", "hvc1", [8]), ("HEVCMain10", "hvc1", [10]), ("AV1Profile0", "av01", [8, 10]),
        ("VP9Profile0", "vp09", [8]), ("VP9Profile2", "vp09", [10]), ("VP8Version0_3", "vp08", [8]),
        ("MPEG2Simple", "mp2v", [8]), ("MPEG2Main", "mp2v", [8]),
    ]

    @Test func devicesListsTheDriverAndItsProfiles() throws {
        let result = try Self.onTestDriver(["devices", "--device", "/dev/null"])
        #expect(result.status == 0)
        #expect(result.text.contains("driver: VAToolbox test driver 1.0"))
        #expect(result.text.contains("HEVCMain10 up to 4096x4096, 4:2:0 10-bit"))
        #expect(result.text.contains("H264ConstrainedBaseline up to 4096x4096, 4:2:0 8-bit"))
        #expect(result.text.contains("AV1Profile0 up to 4096x4096, 4:2:0 8/10-bit"))
        #expect(result.text.contains("VP9Profile2 up to 4096x4096, 4:2:0 10-bit"))
        #expect(result.text.contains("VP8Version0_3 up to 4096x4096, 4:2:0 8-bit"))
        #expect(result.text.contains("MPEG2Main up to 4096x4096, 4:2:0 8-bit"))
        let listed = result.text.split(separator: "\n").filter { $0.hasPrefix("    ") && $0.contains(" up to ") }
        #expect(listed.map { String($0.split(separator: " ")[0]) } == Self.driverProfiles.map(\.name))

        let json = try Self.onTestDriver(["devices", "--device", "/dev/null", "--json"])
        #expect(json.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])
        #expect(report["schema"] as? String == "devices")
        #expect(report["usable"] as? Bool == true)
        #expect(report["reason"] is NSNull)
        let nodes = try #require(report["nodes"] as? [[String: Any]])
        #expect(nodes.count == 1)
        #expect(nodes.first?["vendor"] as? String == "VAToolbox test driver 1.0")
        #expect(nodes.first?["usable"] as? Bool == true)
        let profiles = try #require(nodes.first?["profiles"] as? [[String: Any]])
        #expect(profiles.compactMap { $0["name"] as? String } == Self.driverProfiles.map(\.name))
        #expect(profiles.compactMap { $0["codec_fourcc"] as? String } == Self.driverProfiles.map(\.codec))
        // ffprobe's codec names beside the FourCCs.
        let ffprobeNames = [
            "avc1": "h264", "hvc1": "hevc", "av01": "av1", "vp09": "vp9", "vp08": "vp8", "mp2v": "mpeg2video",
        ]
        #expect(
            profiles.compactMap { $0["codec"] as? String } == Self.driverProfiles.map { ffprobeNames[$0.codec] ?? "" })
        #expect(profiles.compactMap { $0["bit_depths"] as? [Int] } == Self.driverProfiles.map(\.bitDepths))
    }

    /// `devices` lists each device's video processing as the driver answers (the test driver's
    /// personalities: Docs/TestVADriver.md, "Video processing"), and what VAToolbox converts there.
    @Test(arguments: TestVADriver.personalities)
    func devicesListsTheVideoProcessing(_ personality: String?) throws {
        let extra = personality.map { ["VATB_PERSONALITY": $0] } ?? [:]
        let result = try Self.onTestDriver(["devices", "--device", "/dev/null"], extra)
        #expect(result.status == 0, "\(result.standardError)")
        let json = try Self.onTestDriver(["devices", "--device", "/dev/null", "--json"], extra)
        let report = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])
        let node = try #require((report["nodes"] as? [[String: Any]])?.first)
        let processing = try #require(node["video_processing"] as? [String: Any])
        let convertsTo = processing["converts_to"] as? [String]
        let fourCCs = processing["output_fourccs"] as? [String]
        let filters = processing["filters"] as? [String]
        let references = processing["motion_adaptive_references"] as? [String: Int]
        switch personality {
        case "nvidia":
            #expect(
                result.text.contains(
                    "video processing: conversions on the CPU — the nvidia driver has no video processing"))
            #expect(convertsTo == [] && fourCCs == [] && filters == [])
        case "i965":
            #expect(result.text.contains("video processing: conversions on the CPU — the i965 driver converts"))
            #expect(convertsTo == [] && fourCCs == ["NV12", "RGBA", "RGBX", "BGRA", "BGRX", "P010"])
            #expect(processing["input_color_standards"] as? [String] == ["BT601"])
            #expect(processing["max_size"] is NSNull, "i965 leaves the sizes unset")
        case "ihd":
            #expect(
                result.text.contains(
                    "video processing: converts to 'BGRA', '420v', 'x420', tone maps HDR10 to SDR on the GPU"))
            #expect(fourCCs == ["NV12", "RGBA", "BGRA", "RGBX", "P010"])
            #expect(processing["tone_maps_hdr10_to_sdr"] as? Bool == true)
            #expect(filters?.contains("HighDynamicRangeToneMapping") == true && filters?.count == 8)
            #expect(processing["max_size"] as? Int == 16384)
            #expect(processing["deinterlacing"] as? [String] == ["Bob", "MotionAdaptive", "MotionCompensated"])
            #expect(references == ["before": 0, "after": 0] && processing["deinterlaces_with_bwdif"] as? Bool == false)
            #expect(
                result.text.contains(
                    "deinterlacing: Bob, MotionAdaptive, MotionCompensated (motion adaptive: 0 before, 0 after; "
                        + "bwdif on the CPU)"))
        case "mesa":
            #expect(filters == ["Deinterlacing"] && processing["max_size"] as? Int == 10240)
            #expect(convertsTo == ["BGRA", "420v", "x420"])
            #expect(processing["tone_maps_hdr10_to_sdr"] as? Bool == false)
            #expect(processing["deinterlacing"] as? [String] == ["Bob", "Weave", "MotionAdaptive"])
            #expect(references == ["before": 2, "after": 1] && processing["deinterlaces_with_bwdif"] as? Bool == true)
        default:
            #expect(
                convertsTo == ["BGRA", "420v", "x420"] && filters == ["Deinterlacing", "HighDynamicRangeToneMapping"])
            #expect(processing["unavailable_reason"] is NSNull)
            #expect(processing["tone_maps_hdr10_to_sdr"] as? Bool == true)
            #expect(references == ["before": 2, "after": 1] && processing["deinterlaces_with_bwdif"] as? Bool == true)
            #expect(
                result.text.contains(
                    "deinterlacing: Bob, MotionAdaptive (motion adaptive: 2 before, 1 after; bwdif on the GPU)"))
        }
    }

    /// Every new codec decodes on the GPU path of the test driver: the summary says VA-API and
    /// counts the frames of the fixture's framemd5 oracle; VP9 profile 1 (4:4:4), which has no
    /// VA-API profile, is one line and exit status 3 with --hwaccel vaapi.
    @Test(
        arguments: [
            "vp8.ivf", "vp9-profile0.ivf", "vp9-profile2-10bit.webm", "av1.ivf", "av1-10bit.mkv",
            "mpeg2-progressive.m2v", "mpeg2-interlaced.ts",
        ])
    func decodeNewCodecsOnTheGPU(_ file: String) throws {
        let url = TestData.fixtures.appendingPathComponent(file)
        let frames = try String(contentsOf: url.appendingPathExtension("framemd5"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        let result = try Self.onTestDriver(["decode", "--hwaccel", "vaapi", "--device", "/dev/null", url.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.text.contains("decoder: VA-API on the GPU (/dev/null)\n"))
        #expect(result.text.contains("frames: \(frames) decoded"))
    }

    @Test func requiredGPUOnVP9Profile1IsOneLineAndExit3() throws {
        let file = TestData.fixtures.appendingPathComponent("vp9-profile1-444.ivf").path
        let result = try Self.onTestDriver(["decode", "--hwaccel", "vaapi", "--device", "/dev/null", file])
        #expect(result.status == 3)
        #expect(result.errorLines.count == 1)
        #expect(result.errorLines.first?.contains("VP9 Profile 1 8-bit 4:4:4 has no VA-API decode profile") == true)
    }

    @Test func devicesSaysWhyThereIsNone() throws {
        let missing = try CommandRunner.vatoolbox(["devices", "--device", "/dev/dri/renderD999"])
        #expect(missing.status == 1)
        #expect(missing.text.contains("there is no device at /dev/dri/renderD999"))
        let all = try CommandRunner.vatoolbox(["devices"])
        if RenderNode.all().isEmpty {
            #expect(all.status == 1)
            #expect(all.text.contains("no render node: \(RenderNode.absenceReason())"))
        }
        let driverless = try CommandRunner.vatoolbox(
            ["devices", "--device", "/dev/null"],
            environment: TestVADriver.subprocessEnvironment(["LIBVA_DRIVER_NAME": "nonexistent"]))
        #expect(driverless.status == 1)
        #expect(driverless.text.contains("no VA-API driver 'nonexistent' could be loaded"))
        #expect(driverless.text.contains("hint: install the driver"))
    }

    @Test func decodeOnTheGPUAndTheEnvironmentOverrides() throws {
        let gpu = try Self.onTestDriver(["decode", "--hwaccel", "vaapi", "--device", "/dev/null", Self.fixture])
        #expect(gpu.status == 0)
        #expect(gpu.text.contains("decoder: VA-API"))
        #expect(gpu.text.contains("frames: 30 decoded"))

        let byEnvironment = try Self.onTestDriver(["decode", Self.fixture], ["VATOOLBOX_RENDER_NODE": "/dev/null"])
        #expect(byEnvironment.status == 0)
        #expect(byEnvironment.text.contains("decoder: VA-API"))

        let disabled = try Self.onTestDriver(
            ["decode", Self.fixture], ["VATOOLBOX_RENDER_NODE": "/dev/null", "VATOOLBOX_HWACCEL": "none"])
        #expect(disabled.status == 0)
        #expect(disabled.text.contains("VATOOLBOX_HWACCEL"))
        #expect(!disabled.text.contains("decoder: VA-API"))

        // An explicit --hwaccel none beats VATOOLBOX_HWACCEL=vaapi.
        let explicit = try Self.onTestDriver(
            ["decode", "--hwaccel", "none", Self.fixture],
            ["VATOOLBOX_RENDER_NODE": "/dev/null", "VATOOLBOX_HWACCEL": "vaapi"])
        #expect(explicit.status == 0)
        #expect(!explicit.text.contains("decoder: VA-API"))
    }

    /// GPU faults: the summary says the session moved to the CPU and why, the faulted frames
    /// count as errors, and the exit status is 1.
    @Test(arguments: TestVADriver.personalities)
    func decodeReportsAMoveToTheCPU(personality: String?) throws {
        let bpyramid = TestData.fixtures.appendingPathComponent("h264-high-bpyramid.264").path
        var extra = ["VATB_FAIL_END_PICTURE": "3:0"]
        extra["VATB_PERSONALITY"] = personality
        let result = try Self.onTestDriver(["decode", "--device", "/dev/null", bpyramid], extra)
        #expect(result.status == 1)
        #expect(result.text.contains("decoder: VA-API on the GPU (/dev/null), then libavcodec on the CPU"))
        #expect(result.text.contains("failed to decode 3 pictures in a row"))
        #expect(result.errorLines.count == 1)
        #expect(
            result.errorLines.first?.contains(
                "with errors; the first: kVTVideoDecoderMalfunctionErr (-12911): the GPU failed to decode the picture")
                == true,
            "\(result.standardError)")
    }

    @Test func requiredGPUOnAStreamItCannotDecodeIsOneLineAndExit3() throws {
        let result = try Self.onTestDriver(["decode", "--hwaccel", "vaapi", "--device", "/dev/null", Self.high10])
        #expect(result.status == 3)
        #expect(result.errorLines.count == 1)
        #expect(result.errorLines.first?.contains("High 10 has no VA-API decode profile") == true)
    }

    /// On the test driver the GPU's pictures are stamps, not pixels: device-check must see every
    /// frame differ (and so can fail), list what VA-API cannot decode as CPU-only, and exit 1.
    @Test func deviceCheckComparesFrameByFrame() throws {
        let result = try Self.onTestDriver(["device-check", "--device", "/dev/null", Self.fixture, Self.high10])
        #expect(result.status == 1)
        #expect(result.text.contains("FAIL: 30 frames differ (first: frame 0 in output order)"))
        #expect(result.text.contains("CPU only: /dev/null: H.264 High 10 has no VA-API decode profile"))
        #expect(result.text.contains("0 matched, 1 CPU only, 1 failed, of 2"))
        #expect(result.errorLines.count == 1)

        if RenderNode.all().isEmpty {
            let none = try CommandRunner.vatoolbox(["device-check", Self.fixture])
            #expect(none.status == 3)
            #expect(none.errorLines.count == 1)
        }
    }

    /// Under each stream it decoded on the GPU, device-check prints what the GPU path did on this
    /// driver, and each figure is the driver's own: the pool size is the number of render targets
    /// the driver received at `vaCreateContext` (`VATB_CONTEXT_REPORT`), the read-backs are the
    /// `vaDeriveImage`/`vaGetImage` calls it served (its live report), and the export says what
    /// it accepted.
    @Test(arguments: TestVADriver.personalities)
    func deviceCheckPrintsTheDecisionsItTook(personality: String?) throws {
        var extra = ["VATB_CONTEXT_REPORT": "1", "VATB_LIVE_REPORT": "1"]
        if let personality { extra["VATB_PERSONALITY"] = personality }
        let result = try Self.onTestDriver(["device-check", "--device", "/dev/null", Self.fixture], extra)
        // The driver stamps: the frames differ from the CPU's.
        #expect(result.status == 1, "\(result.standardError)")
        let line = try #require(result.text.split(separator: "\n").first { $0.hasPrefix("    GPU: ") })
        let renderTargets = result.errorLines.filter { $0.hasPrefix("vatb: context ") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("render_targets=") }.flatMap {
                Int($0.dropFirst("render_targets=".count))
            }
        }
        // The GPU session's context is the last one made (a support probe may come first).
        let pool = try #require(renderTargets.last)
        #expect(line.contains("GPU: pool \(pool) surfaces ("), "\(line)")
        #expect(line.contains("driver limit 32") == (personality == "nvidia"), "\(line)")
        if personality == "nvidia" { #expect(pool <= 32) }
        let live = try #require(
            result.errorLines.last { $0.hasPrefix("vatb: live ") }, "no live report: \(result.standardError)")
        var counts: [String: Int] = [:]
        for field in live.dropFirst("vatb: live ".count).split(separator: " ") {
            let parts = field.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { counts[String(parts[0])] = value }
        }
        // One read-back per picture (its MD5), through the path the personality's quirks choose.
        // libavutil derives one image of each frames context it makes, to learn whether deriving
        // works (`hwcontext_vaapi.c` `vaapi_frames_init`): one per context of the pool's size
        // (the support probe's contexts have one surface), where deriving works (not on nvidia).
        let derived = try #require(counts["derived_images"])
        let got = try #require(counts["got_images"])
        let framesContexts = renderTargets.filter { $0 == pool }.count
        #expect(framesContexts >= 1)
        let derivedByLibavutil = personality == "nvidia" ? 0 : framesContexts
        if personality == "ihd" {
            #expect(derived == 30 + derivedByLibavutil && got == 0, "\(counts)")
            #expect(line.contains("read-back vaDeriveImage ×\(derived - derivedByLibavutil);"), "\(line)")
        } else {
            #expect(derived == derivedByLibavutil && got == 30, "\(counts)")
            #expect(!line.contains("vaDeriveImage"), "\(line)")
            #expect(line.contains("read-back vaGetImage ×\(got);"), "\(line)")
        }
        #expect(line.contains("export separate layers: DMA-BUF NV12 "), "\(line)")
        #expect(line.contains("layers R8 \(personality == "nvidia" ? "RG88" : "GR88")"), "\(line)")
        if personality == "nvidia" {
            #expect(line.contains("composed: refused (the nvidia driver exports separate layers only"), "\(line)")
        } else {
            #expect(line.hasSuffix("composed: accepted"), "\(line)")
        }
    }

    /// `bench --convert BGRA --with-ffmpeg`: the GPU row converts on the GPU (the report says
    /// so), beside `ffmpeg -hwaccel vaapi … -vf scale_vaapi=format=bgra` on the same driver, and
    /// the CPU rows beside `ffmpeg -pix_fmt bgra`; the ratio lines compare them.
    @Test func benchConvertsBesideTheFFmpegCLI() throws {
        let arguments = [
            "bench", Self.fixture, "--device", "/dev/null", "--runs", "1", "--frames", "10", "--threads", "2",
            "--convert", "BGRA", "--with-ffmpeg",
        ]
        let result = try Self.onTestDriver(arguments + ["--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        #expect(report["convert"] as? String == "BGRA")
        #expect(report["gpu_conversion"] as? String == "on the GPU (VA-API video processing)")
        try Self.expectEveryRowDecodedTenPictures(report)
        let text = try Self.onTestDriver(arguments)
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.text.contains("conversion to 'BGRA': GPU row on the GPU (VA-API video processing)"))
        #expect(text.text.contains("GPU over ffmpeg CLI (ffmpeg CLI, VA-API): median fps "))
        #expect(text.text.contains("CPU over ffmpeg CLI (ffmpeg CLI, 2 threads): median fps "))
    }

    /// A `bench --with-ffmpeg --json` report's five rows (GPU, ffmpeg's VA-API, two CPU, ffmpeg's
    /// CPU) all ran and decoded 10 pictures.
    static func expectEveryRowDecodedTenPictures(_ report: [String: Any]) throws {
        let rows = try #require(report["rows"] as? [[String: Any]])
        #expect(rows.map { $0["decoder"] as? String } == ["vaapi", "ffmpeg-vaapi", "cpu", "cpu", "ffmpeg"])
        for row in rows {
            #expect(row["available"] as? Bool == true, "\(row)")
            #expect(row["frames"] as? Int == 10, "\(row)")
        }
    }

    /// `bench --tonemap --with-ffmpeg` on an HDR10 stream: the GPU row tone maps on the GPU (the
    /// report says so) beside `ffmpeg … -vf tonemap_vaapi=…` on the same driver, the CPU rows beside
    /// `ffmpeg -vf CHAIN`; every row decodes every picture.
    @Test func benchToneMapsBesideTheFFmpegCLI() throws {
        let stream = TestData.fixtures.appendingPathComponent("hevc-hdr10.265").path
        let result = try Self.onTestDriver(
            [
                "bench", stream, "--device", "/dev/null", "--runs", "1", "--threads", "2", "--tonemap", "--with-ffmpeg",
                "--json",
            ], ["VATB_REFERENCE_STREAM": stream])
        #expect(result.status == 0, "\(result.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        #expect(report["tonemap"] as? Bool == true)
        #expect(report["gpu_conversion"] as? String == "on the GPU (VA-API video processing)")
        try Self.expectEveryRowDecodedTenPictures(report)
    }

    @Test func benchMeasuresTheGPURow() throws {
        let result = try Self.onTestDriver([
            "bench", Self.fixture, "--device", "/dev/null", "--runs", "1", "--frames", "10", "--json",
        ])
        #expect(result.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        let rows = try #require(report["rows"] as? [[String: Any]])
        let gpu = try #require(rows.first { $0["decoder"] as? String == "vaapi" })
        #expect(gpu["available"] as? Bool == true)
        #expect(gpu["frames"] as? Int == 10)
        #expect((gpu["fps_best"] as? Double ?? 0) > 0)
    }
}
