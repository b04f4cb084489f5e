import Foundation
import Testing

@testable import VAToolbox

/// `vatoolbox bench --sessions N` (issue 25, item 4) and the test driver's one GPU per process
/// (`VATB_ENGINES`): the rows count every session's pictures, and sessions in one process share
/// the simulated decode engines — the only time asserted is a lower bound the simulation sets
/// (N pictures on one engine of L ms take at least N × L ms), which a slow machine cannot break.
@Suite(.enabled(if: CommandRunner.hasTool)) struct CommandLineBenchSessionsTests {
    /// (seconds, total fps, GPU surfaces, VA displays) of a row of the report.
    static func row(
        _ text: String, _ name: String
    ) -> (seconds: Double, fps: Double, surfaces: String, displays: String)? {
        for line in text.split(separator: "\n") where line.hasPrefix("  \(name)") {
            let fields = line.dropFirst(2 + name.count).split(separator: " ")
            guard fields.count >= 8, let seconds = Double(fields[0]), let fps = Double(fields[1]) else { continue }
            return (seconds, fps, String(fields[fields.count - 2]), String(fields[fields.count - 1]))
        }
        return nil
    }

    @Test func theCPURowCountsEverySessionsPictures() throws {
        let path = TestData.fixtures.appendingPathComponent("h264-high-bpyramid.264").path
        let run = try CommandRunner.vatoolbox(["bench", path, "--sessions", "3", "--hwaccel", "none", "--runs", "1"])
        #expect(run.status == 0, "\(run.standardError)")
        let row = try #require(Self.row(run.text, "libavcodec (CPU), sessions"), "\(run.text)")
        // 3 sessions × 48 pictures, over the run's seconds.
        #expect(abs(row.fps * row.seconds - 144) < 1, "\(run.text)")
        #expect(row.surfaces == "-" && row.displays == "-")
        #expect(run.text.contains("3 decodes at once"))
    }

    /// Two sessions of 20 pictures on one engine of 20 ms: at least 0.8 s in all, where engines
    /// of their own (the driver before VATB_ENGINES) would let them finish in 0.4 s.
    @Test(.enabled(if: TestVADriver.isBuilt)) func sessionsInOneProcessShareTheDriversEngine() throws {
        let path = TestData.fixtures.appendingPathComponent("h264-high-bpyramid.264").path
        let environment = TestVADriver.subprocessEnvironment(["VATB_LATENCY_US": "20000", "VATB_ENGINES": "1"])
        let run = try CommandRunner.vatoolbox(
            [
                "bench", path, "--sessions", "2", "--hwaccel", "vaapi", "--device", "/dev/null", "--runs", "1",
                "--frames", "20",
            ], environment: environment)
        #expect(run.status == 0, "\(run.standardError)")
        let row = try #require(Self.row(run.text, "VA-API (GPU), sessions"), "\(run.text)")
        #expect(abs(row.fps * row.seconds - 40) < 1, "\(run.text)")
        #expect(row.seconds >= 0.8, "one engine decodes one picture at a time: \(run.text)")
        #expect((Int(row.surfaces) ?? 0) > 0, "\(run.text)")
    }

    /// Each GPU session decodes on a VA display of its own (more than one open at once, at most
    /// one per session plus the node's); `VATOOLBOX_SHARED_VA_DISPLAY=1` puts them all on the
    /// node's one display — and every session's pictures still come out.
    @Test(.enabled(if: TestVADriver.isBuilt), arguments: [false, true])
    func theGPURowCountsTheDisplaysTheDesignOpens(_ shared: Bool) throws {
        let path = TestData.fixtures.appendingPathComponent("h264-high-bpyramid.264").path
        var environment = ["VATB_LATENCY_US": "5000"]
        if shared { environment["VATOOLBOX_SHARED_VA_DISPLAY"] = "1" }
        let run = try CommandRunner.vatoolbox(
            [
                "bench", path, "--sessions", "3", "--hwaccel", "vaapi", "--device", "/dev/null", "--runs", "1",
                "--frames", "20",
            ], environment: TestVADriver.subprocessEnvironment(environment))
        #expect(run.status == 0, "\(run.standardError)")
        let row = try #require(Self.row(run.text, "VA-API (GPU), sessions"), "\(run.text)")
        #expect(abs(row.fps * row.seconds - 60) < 1, "\(run.text)")
        let displays = try #require(Int(row.displays), "\(run.text)")
        if shared {
            #expect(displays == 1, "\(run.text)")
        } else {
            #expect(displays > 1 && displays <= 4, "\(run.text)")
        }
    }
}
