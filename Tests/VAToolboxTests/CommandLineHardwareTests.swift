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

    @Test func devicesListsTheDriverAndItsProfiles() throws {
        let result = try Self.onTestDriver(["devices", "--device", "/dev/null"])
        #expect(result.status == 0)
        #expect(result.text.contains("driver: VAToolbox test driver 1.0"))
        #expect(result.text.contains("HEVCMain10 up to 4096x4096, 4:2:0 10-bit"))
        #expect(result.text.contains("H264ConstrainedBaseline up to 4096x4096, 4:2:0 8-bit"))

        let json = try Self.onTestDriver(["devices", "--device", "/dev/null", "--json"])
        #expect(json.status == 0)
        let nodes = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [[String: Any]])
        #expect(nodes.count == 1)
        #expect(nodes.first?["vendor"] as? String == "VAToolbox test driver 1.0")
        #expect(nodes.first?["usable"] as? Bool == true)
        let profiles = try #require(nodes.first?["profiles"] as? [[String: Any]])
        #expect(profiles.compactMap { $0["name"] as? String }.count == 5)
        #expect(profiles.last?["bitDepths"] as? [Int] == [10])
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
    @Test func decodeReportsAMoveToTheCPU() throws {
        let bpyramid = TestData.fixtures.appendingPathComponent("h264-high-bpyramid.264").path
        let result = try Self.onTestDriver(
            ["decode", "--device", "/dev/null", bpyramid], ["VATB_FAIL_END_PICTURE": "3:0"])
        #expect(result.status == 1)
        #expect(result.text.contains("decoder: VA-API on the GPU (/dev/null), then libavcodec on the CPU"))
        #expect(result.text.contains("failed to decode 3 pictures in a row"))
        #expect(result.errorLines.count == 1)
        #expect(
            result.errorLines.first?.contains("with errors; the first: the GPU failed to decode the picture") == true)
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
