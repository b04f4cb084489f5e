import Dispatch
import Synchronization
import VAToolbox

/// `vatoolbox bench --sessions N`: many sessions in one process (issue 25, item 4). Each run is a
/// child process (`bench-worker --sessions N`) decoding the file N times at once, a session and a
/// thread each, so that its wall time and peak resident memory are the whole process's; per path
/// (the GPU, the CPU with one decoding thread per session), and with `--with-ffmpeg` beside N
/// ffmpeg processes started at once (`-threads 1`, or `-hwaccel vaapi` for the GPU row). Each
/// session opens its own VA display (Docs/Hardware.md, "Sessions and displays"), unless
/// `VATOOLBOX_SHARED_VA_DISPLAY` is on; the report counts the most displays open at once.
enum SessionsBench {
    /// One row: a path, or the ffmpeg processes.
    struct Row {
        var name: String
        var available = true
        var reason: String?
        /// Wall seconds of each run (the whole process, or the last ffmpeg process to end).
        var seconds: [Double] = []
        /// Pictures decoded per run, in all.
        var frames = 0
        /// Each session's frames per second, in the median run.
        var perSession: [Double] = []
        /// The largest peak resident memory of a run (for ffmpeg, the sum over its processes).
        var peakKiB = 0
        /// GPU surfaces held at the end, over all sessions.
        var surfaces = 0
        /// The most VA displays open at once (the process's, or one per ffmpeg process); nil on
        /// the CPU.
        var displays: Int?

        var medianSeconds: Double? {
            guard !seconds.isEmpty else { return nil }
            return seconds.sorted()[seconds.count / 2]
        }
    }

    /// Measures each path and returns the report's lines.
    static func measure(
        path: String, sessions: Int, specification: DecoderSpecification, runs: Int, frameLimit: Int?,
        withFFmpeg: Bool
    ) throws(CommandFailure) -> [String] {
        let tool = BenchCommand.executablePath()
        var rows: [Row] = []
        let device = specification.renderNodePath
        for gpu in [true, false] {
            if gpu && specification.hardwareAcceleration == .disabled { continue }
            if !gpu && specification.hardwareAcceleration == .required { continue }
            var command = [tool, "bench-worker", path, "--sessions", "\(sessions)", "--threads", "1"]
            command += ["--hwaccel", gpu ? "vaapi" : "none"]
            if let device { command += ["--device", device] }
            if let frameLimit { command += ["--frames", "\(frameLimit)"] }
            var row = Row(name: gpu ? "VA-API (GPU), sessions" : "libavcodec (CPU), sessions")
            var perSessionRuns: [[Double]] = []
            for _ in 0..<runs {
                let result = ChildProcess.run(command)
                guard result.status == 0 else {
                    row.available = false
                    row.reason = BenchCommand.failureReason(result.output, status: result.status)
                    break
                }
                let lines = result.output.split(separator: "\n").filter { $0.hasPrefix("session=") }
                let fields = lines.map(Self.fields)
                row.frames = fields.reduce(0) { $0 + (Int($1["frames"] ?? "") ?? 0) }
                row.surfaces = fields.reduce(0) { $0 + (Int($1["surfaces"] ?? "") ?? 0) }
                if gpu {
                    let line = result.output.split(separator: "\n").last { $0.hasPrefix("displays=") }
                    row.displays = line.flatMap { Int($0.dropFirst("displays=".count)) }
                }
                perSessionRuns.append(
                    fields.map { field in
                        let seconds = Double(field["seconds"] ?? "") ?? 0
                        return seconds > 0 ? Double(field["frames"] ?? "").map { $0 / seconds } ?? 0 : 0
                    })
                row.seconds.append(result.seconds)
                row.peakKiB = max(row.peakKiB, result.peakKiB)
            }
            if let median = row.medianSeconds, let run = row.seconds.firstIndex(of: median) {
                row.perSession = perSessionRuns[run]
            }
            rows.append(row)
            if withFFmpeg && row.available {
                rows.append(
                    ffmpegProcesses(
                        path: path, count: sessions, gpu: gpu, device: device, runs: runs, frames: row.frames))
            }
        }
        return lines(rows, path: path, sessions: sessions, runs: runs)
    }

    /// `key=value` fields of a worker's line.
    private static func fields(_ line: Substring) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in line.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }

    /// N ffmpeg processes started at once, each decoding the file; the run lasts until the last ends.
    private static func ffmpegProcesses(
        path: String, count: Int, gpu: Bool, device: String?, runs: Int, frames: Int
    ) -> Row {
        var command = ["ffmpeg", "-v", "error", "-nostdin"]
        if gpu {
            command += [
                "-init_hw_device", "vaapi=va:\(device ?? "/dev/dri/renderD128")", "-hwaccel", "vaapi",
                "-hwaccel_device",
                "va", "-hwaccel_output_format", "vaapi",
            ]
        } else {
            command += ["-threads", "1"]
        }
        command += ["-i", path, "-f", "null", "-"]
        let arguments = command
        var row = Row(name: gpu ? "ffmpeg -hwaccel vaapi, processes" : "ffmpeg -threads 1, processes")
        row.frames = frames
        if gpu { row.displays = count }
        for _ in 0..<runs {
            let results = Mutex<[ChildProcess.Result]>([])
            let start = DispatchTime.now().uptimeNanoseconds
            let group = DispatchGroup()
            for index in 0..<count {
                DispatchQueue(label: "vatoolbox.bench.ffmpeg.\(index)").async(group: group) {
                    let result = ChildProcess.run(arguments)
                    results.withLock { $0.append(result) }
                }
            }
            group.wait()
            let all = results.withLock { $0 }
            if let failed = all.first(where: { $0.status != 0 }) {
                row.available = false
                row.reason = BenchCommand.failureReason(failed.output, status: failed.status)
                return row
            }
            row.seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            row.peakKiB = max(row.peakKiB, all.reduce(0) { $0 + $1.peakKiB })
            let sorted = all.map(\.seconds).sorted()
            row.perSession = sorted.map { $0 > 0 ? Double(frames / count) / $0 : 0 }
        }
        return row
    }

    /// The report.
    static func lines(_ rows: [Row], path: String, sessions: Int, runs: Int) -> [String] {
        var lines = [
            "sessions: \(path): \(sessions) decodes at once, median of \(runs) runs",
            "  path                                seconds  total fps   per session fps (min/median/max)  peak RSS MiB  GPU surfaces  VA displays",
        ]
        for row in rows {
            let name = row.name + String(repeating: " ", count: max(0, 34 - row.name.count))
            guard row.available, let seconds = row.medianSeconds else {
                lines.append("  \(name) unavailable: \(row.reason ?? "")")
                continue
            }
            let per = row.perSession.sorted()
            let perText =
                per.isEmpty
                ? "-" : "\(fixed(per[0], 1)) / \(fixed(per[per.count / 2], 1)) / \(fixed(per[per.count - 1], 1))"
            func cell(_ text: String, _ width: Int) -> String {
                String(repeating: " ", count: max(0, width - text.count)) + text
            }
            lines.append(
                "  \(name) \(cell(fixed(seconds, 3), 8)) \(cell(fixed(Double(row.frames) / seconds, 1), 10))   "
                    + "\(cell(perText, 32))  \(cell(fixed(Double(row.peakKiB) / 1024, 1), 12))  "
                    + cell(row.name.hasPrefix("VA-API") ? String(row.surfaces) : "-", 12) + "  "
                    + cell(row.displays.map(String.init) ?? "-", 11))
        }
        if let ours = rows.first(where: { $0.name.hasPrefix("libavcodec") }),
            let theirs = rows.first(where: {
                $0.name.hasPrefix("ffmpeg -threads")
            }), let a = ours.medianSeconds, let b = theirs.medianSeconds, a > 0
        {
            lines.append("  CPU: sessions / ffmpeg processes, total throughput = \(fixed(b / a, 3))")
        }
        if let ours = rows.first(where: { $0.name.hasPrefix("VA-API") }),
            let theirs = rows.first(where: {
                $0.name.hasPrefix("ffmpeg -hwaccel")
            }), let a = ours.medianSeconds, let b = theirs.medianSeconds, a > 0
        {
            lines.append("  GPU: sessions / ffmpeg processes, total throughput = \(fixed(b / a, 3))")
        }
        return lines
    }
}
