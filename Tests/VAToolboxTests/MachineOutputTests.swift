import Foundation
import Testing

@testable import VAToolbox

/// The tool's JSON (Docs/CLI.md, "Machine output"): one convention across probe, devices and
/// bench, and probe's container timing against ffprobe's.
@Suite("vatoolbox JSON", .enabled(if: CommandRunner.hasTool && CommandRunner.hasFFmpeg))
struct MachineOutputTests {
    /// Runs the tool and parses its standard output as one JSON object.
    static func object(_ arguments: [String], environment: [String: String]? = nil) throws -> [String: Any] {
        let result = try CommandRunner.vatoolbox(arguments, environment: environment)
        return try #require(
            try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any],
            "vatoolbox \(arguments) printed no JSON object (status \(result.status)): \(result.standardError)")
    }

    /// Every key of a JSON value, at every depth.
    static func keys(_ value: Any) -> [String] {
        if let object = value as? [String: Any] { return object.keys + object.values.flatMap(keys) }
        if let array = value as? [Any] { return array.flatMap(keys) }
        return []
    }

    static func isSnakeCase(_ key: String) -> Bool {
        !key.isEmpty
            && key.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }

    static let fixture = TestData.fixtures.appendingPathComponent("h264-high-bpyramid.mp4").path

    @Test("probe, devices and bench: schema and version first, snake_case keys, codec name and FourCC")
    func convention() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["VATOOLBOX_HWACCEL"] = nil
        let reports: [(String, [String])] = [
            ("probe", ["probe", "--units", "--json", Self.fixture]),
            ("devices", ["devices", "--json", "--device", "/dev/dri/no-such-node"]),
            (
                "bench",
                [
                    "bench", Self.fixture, "--hwaccel", "none", "--runs", "1", "--frames", "3", "--threads", "1",
                    "--json",
                ]
            ),
        ]
        for (schema, arguments) in reports {
            let result = try CommandRunner.vatoolbox(arguments, environment: environment)
            let text = result.text
            #expect(text.hasPrefix("{\n  \"schema\": \"\(schema)\",\n  \"schema_version\": 1,\n"), "\(schema)")
            let object = try Self.object(arguments, environment: environment)
            let badKeys = Self.keys(object).filter { !Self.isSnakeCase($0) }
            #expect(badKeys.isEmpty, "\(schema): \(badKeys)")
            if schema != "devices" {
                #expect(object["codec"] as? String == "h264")
                #expect(object["codec_fourcc"] as? String == "avc1")
            }
        }
    }

    @Test("devices --json without a usable node is an object with the reason; exit status 1")
    func devicesWithoutNode() throws {
        let result = try CommandRunner.vatoolbox(["devices", "--json", "--device", "/dev/dri/no-such-node"])
        #expect(result.status == 1)
        let object = try Self.object(["devices", "--json", "--device", "/dev/dri/no-such-node"])
        #expect(object["usable"] as? Bool == false)
        let reason = try #require(object["reason"] as? String)
        #expect(reason.contains("/dev/dri/no-such-node"))
        let nodes = try #require(object["nodes"] as? [[String: Any]])
        #expect(nodes.count == 1)
        #expect(nodes.first?["error"] is String)
        // A machine without /dev/dri at all: no nodes, and the reason says so.
        if !FileManager.default.fileExists(atPath: "/dev/dri") {
            var environment = ProcessInfo.processInfo.environment
            environment["VATOOLBOX_RENDER_NODE"] = nil
            let none = try Self.object(["devices", "--json"], environment: environment)
            #expect((none["nodes"] as? [Any])?.isEmpty == true)
            #expect((none["reason"] as? String)?.contains("/dev/dri") == true)
        }
    }

    @Test("bench --json: a row that could not run has null frames and rates, and says why")
    func benchRowThatCannotRun() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["VATOOLBOX_HWACCEL"] = nil
        environment["VATOOLBOX_RENDER_NODE"] = nil
        let missing = "/dev/dri/no-such-node"
        // The GPU row cannot run on a node that does not exist; the CPU row runs.
        let arguments = [
            "bench", Self.fixture, "--device", missing, "--runs", "1", "--frames", "3", "--threads", "1", "--json",
        ]
        let result = try CommandRunner.vatoolbox(arguments, environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        let object = try Self.object(arguments, environment: environment)
        let rows = try #require(object["rows"] as? [[String: Any]])
        #expect(rows.map { $0["decoder"] as? String } == ["vaapi", "cpu"])
        let gpu = rows[0]
        #expect(gpu["available"] as? Bool == false)
        #expect(gpu["frames"] is NSNull)
        for key in ["fps_best", "fps_median", "cpu_seconds_per_frame", "peak_rss_mib"] {
            #expect(gpu[key] is NSNull, "\(key)")
        }
        #expect((gpu["reason"] as? String)?.contains(missing) == true, "\(gpu["reason"] ?? "no reason")")
        #expect(rows[1]["available"] as? Bool == true)
        #expect(rows[1]["frames"] as? Int == 3)
        #expect(rows[1]["reason"] is NSNull)
        #expect(object["speedup_gpu_over_cpu"] is NSNull)

        // Only the GPU and the ffmpeg CLI: the ffmpeg row runs but has no VAToolbox count to take,
        // so its frames and rates are null too; nothing of VAToolbox ran (exit status 3).
        let onlyGPU = [
            "bench", Self.fixture, "--hwaccel", "vaapi", "--device", missing, "--runs", "1", "--frames", "3",
            "--threads", "1", "--json", "--with-ffmpeg",
        ]
        let failed = try CommandRunner.vatoolbox(onlyGPU, environment: environment)
        #expect(failed.status == 3)
        let report = try Self.object(onlyGPU, environment: environment)
        let both = try #require(report["rows"] as? [[String: Any]])
        // The ffmpeg CLI's VA-API row fails on the missing node too, and says so.
        #expect(both.map { $0["decoder"] as? String } == ["vaapi", "ffmpeg-vaapi", "ffmpeg"])
        #expect(both.map { $0["available"] as? Bool } == [false, false, true])
        #expect(both.allSatisfy { $0["frames"] is NSNull && $0["fps_best"] is NSNull })
        #expect((both[1]["reason"] as? String)?.isEmpty == false)
        #expect(both[2]["reason"] is NSNull)
        #expect((both[2]["run_seconds"] as? [Double])?.count == 1)
    }

    /// ffprobe's value of a key, as the tool writes it: "N/A" and "0/0" are null.
    static func ffprobeValue(_ value: Any?) -> String? {
        guard let text = value as? String, text != "N/A", text != "0/0" else { return nil }
        return text
    }

    @Test(
        "probe --json: time base, frame rates, duration and frame counts as ffprobe reports them",
        arguments: fixtureFiles.filter { !$0.contains("bitflip") && !$0.contains("truncated") })
    func timingAgainstFFprobe(_ file: String) throws {
        let url = TestData.fixtures.appendingPathComponent(file)
        let json = try Self.object(["probe", "--json", url.path])
        let probe = try CommandRunner.ffprobe([
            "-count_frames", "-select_streams", "v:0", "-show_entries",
            "stream=time_base,r_frame_rate,avg_frame_rate,duration,nb_frames,nb_read_frames:format=duration",
            "-of", "json", url.path,
        ])
        let root = try #require(try JSONSerialization.jsonObject(with: probe.standardOutput) as? [String: Any])
        let stream = try #require((root["streams"] as? [[String: Any]])?.first)
        let format = root["format"] as? [String: Any]
        for key in ["time_base", "r_frame_rate", "avg_frame_rate"] {
            #expect(json[key] as? String == Self.ffprobeValue(stream[key]), "\(key)")
        }
        #expect((json["nb_frames"] as? Int).map(String.init) == Self.ffprobeValue(stream["nb_frames"]))
        let expectedDuration = (Self.ffprobeValue(stream["duration"]) ?? Self.ffprobeValue(format?["duration"]))
            .flatMap(Double.init)
        if let expectedDuration {
            let duration = try #require(
                json["duration"] as? Double, "duration is null, ffprobe says \(expectedDuration)")
            #expect(abs(duration - expectedDuration) < 0.000_001)
        } else {
            #expect(json["duration"] is NSNull)
        }
        let frames = try #require(Self.ffprobeValue(stream["nb_read_frames"]).flatMap { Int($0) })
        // `frame_count` counts samples, ffprobe the pictures libavcodec outputs. They differ by
        // the samples that show none: hevc-end-of-sequence.265's 3 RASL pictures skipped after
        // the end of sequence and 2 dropped at it; the remuxed MP4s' (hevc-dolby-vision.mp4 is one) 2 samples before their edit
        // list's start; the anchor mpeg2-size-change.m2v's decoder drops at the new sequence.
        let unshown = [
            "hevc-end-of-sequence.265": 5, "h264-remuxed-from-annexb.mp4": 2, "hevc-remuxed-from-annexb.mp4": 2,
            "hevc-dolby-vision.mp4": 2, "mpeg2-size-change.m2v": 1,
        ]
        #expect(json["frame_count"] as? Int == frames + (unshown[file] ?? 0))
    }
}
