import Foundation
import Testing

@testable import VAToolbox

/// `vatoolbox bench --latency` (issue 25, item 5): a row per path with the pictures, the
/// submit-to-output quantiles and the most samples a picture waited for — none on a stream that
/// cannot reorder (each picture out before its synchronous decode returns), some with B-frames.
/// Only counts and the order of the quantiles are asserted: times are the benchmark's business.
@Suite(.enabled(if: CommandRunner.hasTool)) struct CommandLineBenchLatencyTests {
    struct Row {
        var pictures: Int
        var p50: Double
        var p99: Double
        var max: Double
        /// Nil where the row does not measure it ("-": the ffmpeg row).
        var heldBack: Int?
    }

    /// The rows of the report, by path name.
    static func rows(_ text: String) -> [String: Row] {
        var rows: [String: Row] = [:]
        for line in text.split(separator: "\n") {
            for name in ["VA-API (GPU)", "libavcodec (CPU)", "ffmpeg CLI, in its decoder"]
            where line.hasPrefix("  \(name)") {
                let fields = line.dropFirst(2 + name.count).split(separator: " ")
                guard fields.count == 5, let pictures = Int(fields[0]), let p50 = Double(fields[1]),
                    let p99 = Double(fields[2]), let max = Double(fields[3]), fields[4] == "-" || Int(fields[4]) != nil
                else { continue }
                rows[name] = Row(pictures: pictures, p50: p50, p99: p99, max: max, heldBack: Int(fields[4]))
            }
        }
        return rows
    }

    @Test(arguments: [
        ("h264-baseline-cavlc.264", 30, false), ("h264-high-bpyramid.264", 48, true), ("vp8.ivf", 30, false),
        ("vp9-temporal-layers.ivf", 24, false), ("av1.ivf", 20, false), ("hevc-main.265", 48, true),
    ])
    func theCPURowCountsEveryPictureAndWhatWasHeldBack(_ fixture: String, _ pictures: Int, _ reorders: Bool) throws {
        let run = try CommandRunner.vatoolbox([
            "bench", TestData.fixtures.appendingPathComponent(fixture).path, "--latency", "--hwaccel", "none",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        let row = try #require(Self.rows(run.text)["libavcodec (CPU)"], "\(run.text)")
        #expect(row.pictures == pictures)
        #expect(row.p50 <= row.p99 && row.p99 <= row.max && row.p50 > 0)
        #expect(
            reorders ? (row.heldBack ?? 0) > 0 : row.heldBack == 0, "\(fixture): \(String(describing: row.heldBack))")
        #expect(Self.rows(run.text)["VA-API (GPU)"] == nil, "--hwaccel none measures the CPU alone")
    }

    @Test(
        .enabled(if: TestVADriver.isBuilt),
        arguments: [("h264-baseline-cavlc.264", 30), ("vp8.ivf", 30), ("vp9-temporal-layers.ivf", 24), ("av1.ivf", 20)])
    func theGPURowOnTheTestDriverHoldsNothingBackOnALowDelayStream(_ fixture: String, _ pictures: Int) throws {
        let run = try CommandRunner.vatoolbox(
            [
                "bench", TestData.fixtures.appendingPathComponent(fixture).path, "--latency", "--device", "/dev/null",
                "--runs", "1",
            ], environment: TestVADriver.subprocessEnvironment(["VATB_LATENCY_US": "1000"]))
        #expect(run.status == 0, "\(run.standardError)")
        let rows = Self.rows(run.text)
        let gpu = try #require(rows["VA-API (GPU)"], "\(run.text)")
        #expect(gpu.pictures == pictures && gpu.heldBack == 0, "\(fixture): \(run.text)")
        #expect(gpu.p50 <= gpu.p99 && gpu.p99 <= gpu.max)
        #expect(rows["libavcodec (CPU)"]?.pictures == pictures)
    }

    /// HEVC without reordering (x265 `bframes=0`, made here): no picture waits for a later
    /// sample on the CPU.
    @Test(.enabled(if: CommandRunner.hasFFmpeg)) func anHEVCStreamWithoutReorderingHoldsNothingBack() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("lowdelay.265").path
        let encode = try CommandRunner.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=160x96:r=25", "-frames:v", "20", "-pix_fmt", "yuv420p", "-c:v", "libx265",
            "-x265-params", "bframes=0:pools=1:frame-threads=1:log-level=error", path,
        ])
        try #require(encode.status == 0, "\(encode.standardError)")
        let run = try CommandRunner.vatoolbox(["bench", path, "--latency", "--hwaccel", "none", "--runs", "1"])
        #expect(run.status == 0, "\(run.standardError)")
        let row = try #require(Self.rows(run.text)["libavcodec (CPU)"], "\(run.text)")
        #expect(row.pictures == 20 && row.heldBack == 0, "\(run.text)")
    }

    @Test func withoutADeviceTheGPURowSaysWhy() throws {
        let run = try CommandRunner.vatoolbox([
            "bench", TestData.fixtures.appendingPathComponent("h264-baseline-cavlc.264").path, "--latency", "--device",
            "/nonexistent/renderD128",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.text.contains("VA-API (GPU)") && run.text.contains("unavailable:"))
        #expect(Self.rows(run.text)["libavcodec (CPU)"]?.pictures == 30)
    }

    /// With `--with-ffmpeg`, ffmpeg's time in its decoder for each picture stands beside the CPU
    /// row (the yardstick of the latency target): one time per picture ffmpeg output — its
    /// `-benchmark_all` reports grouped by picture, not one per decoder call (two per picture) —
    /// and the difference of the p99s on its own line. Rounds alternate; `--runs 2` gives each
    /// row two rounds of the same count.
    @Test(
        .enabled(if: CommandRunner.hasFFmpeg),
        arguments: [("h264-baseline-cavlc.264", 30), ("h264-high-bpyramid.264", 48)])
    func withFFmpegItsDecoderTimePerPictureStandsBeside(_ fixture: String, _ pictures: Int) throws {
        let run = try CommandRunner.vatoolbox([
            "bench", TestData.fixtures.appendingPathComponent(fixture).path, "--latency", "--hwaccel", "none",
            "--with-ffmpeg", "--runs", "2",
        ])
        #expect(run.status == 0, "\(run.standardError)")
        let rows = Self.rows(run.text)
        let ffmpeg = try #require(rows["ffmpeg CLI, in its decoder"], "\(run.text)")
        #expect(ffmpeg.pictures == pictures, "\(run.text)")
        #expect(ffmpeg.heldBack == nil)
        #expect(ffmpeg.p50 > 0 && ffmpeg.p50 <= ffmpeg.p99 && ffmpeg.p99 <= ffmpeg.max)
        #expect(rows["libavcodec (CPU)"]?.pictures == pictures)
        #expect(run.text.contains("medians of 2 alternating rounds"))
        #expect(run.text.contains("CPU p99 over ffmpeg's p99 time per picture in its decoder: "))
    }
}
