import Dispatch
import Synchronization
import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// `vatoolbox bench`: decoding speed on each available path, side by side. Every run is a
/// child process (this tool's hidden `bench-worker` command, or the ffmpeg CLI), so that its
/// CPU time and peak resident memory come from `wait4` alone, unpolluted by other rows.
enum BenchCommand {
    static let usage = """
        usage: vatoolbox bench INPUT [--hwaccel auto|vaapi|none] [--device PATH] [--runs N] [--frames N]
                                     [--threads N] [--json] [--svg OUT.svg] [--with-ffmpeg] [--latency]
                                     [--sessions N] [--convert FOURCC] [--tonemap]

        Decodes INPUT with each path — VA-API on the GPU, libavcodec on the CPU with 1 thread and with
        N threads — several times, each run in a child process, and reports frames per second (best
        and median run), CPU seconds per frame (user + system, from getrusage of the child), peak
        resident memory, and the GPU/CPU speed-up. A path that cannot run (no VA-API device) is
        listed as unavailable, with the reason. Nothing is written but the report. The rows run in
        alternating rounds (every row once, then again), so that a busy moment touches them all.

              --hwaccel MODE  auto: every path (default); vaapi: only the GPU; none: only the CPU
              --device PATH   the DRM render node for the GPU row
              --runs N        runs per row (default 3)
              --frames N      decode only the first N pictures
              --threads N     threads of the multi-threaded CPU row (default: the number of cores)
              --json          print the report as JSON (schema "bench", version 1, in Docs/CLI.md)
              --svg OUT.svg   also draw the frames per second as an SVG bar chart
              --convert FOURCC  also convert every picture to FOURCC (BGRA, 420v, x420 …) as a session's
                              image-buffer attributes ask: on the GPU row through the driver's video
                              processing where it can (the report says where), on the CPU rows with
                              libswscale
              --tonemap       also tone map HDR pictures to SDR (as decode --tonemap): on the GPU row
                              through VA's tone mapping filter where the driver can, on the CPU rows with
                              libavfilter's zscale+tonemap chain
              --with-ffmpeg   add `ffmpeg -threads N -i INPUT [-vf CHAIN] [-pix_fmt FMT] -f null -` as a
                              reference row, and beside the GPU row `ffmpeg -hwaccel vaapi
                              -hwaccel_output_format vaapi [-vf tonemap_vaapi=…,scale_vaapi=format=FMT]
                              -f null -` on the same device (CHAIN: the CPU's tone mapping chain)
              --latency       instead, time each picture from its sample's submission to its output in
                              a real-time session decoding synchronously (GPU and CPU, in process): p50,
                              p99 and max milliseconds (medians of the runs), and the most samples a
                              picture waited for; with --with-ffmpeg, beside the ffmpeg CLI's time per
                              picture in its decoder (-benchmark_all, slice threads as the session's)
              --sessions N    instead, decode INPUT in N sessions at once in one process (one thread
                              each on the CPU), per path: total and per-session frames per second,
                              peak resident memory and GPU surfaces in use; with --with-ffmpeg, beside N
                              ffmpeg processes at once (-threads 1; -hwaccel vaapi for the GPU row)
        """

    /// One row of the report.
    struct Row {
        var name: String
        var decoder: String
        var threads: Int
        var available = true
        var reason: String?
        /// The pictures each run decoded; nil when the row could not run, and for the ffmpeg row
        /// when no VAToolbox row ran (the ffmpeg CLI's count is not read).
        var frames: Int?
        var seconds: [Double] = []
        var cpuSeconds = 0.0
        var peakKiB = 0

        var fpsBest: Double? {
            guard let frames else { return nil }
            return seconds.min().map { $0 > 0 ? Double(frames) / $0 : 0 }
        }
        var fpsMedian: Double? {
            guard let frames, !seconds.isEmpty else { return nil }
            let sorted = seconds.sorted()
            let middle = sorted.count / 2
            let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
            return median > 0 ? Double(frames) / median : 0
        }
        var cpuSecondsPerFrame: Double? {
            guard let frames, frames > 0, !seconds.isEmpty else { return nil }
            return cpuSeconds / Double(frames * seconds.count)
        }
    }

    static func run(_ arguments: [String]) throws(CommandFailure) {
        let parsed = try ParsedArguments.parse(
            arguments,
            options: decoderOptions + [
                OptionSpec(name: "runs"), OptionSpec(name: "frames"), OptionSpec(name: "json", takesValue: false),
                OptionSpec(name: "svg"), OptionSpec(name: "with-ffmpeg", takesValue: false),
                OptionSpec(name: "latency", takesValue: false), OptionSpec(name: "sessions"),
                OptionSpec(name: "convert"), OptionSpec(name: "tonemap", takesValue: false),
            ])
        if parsed.wantsHelp {
            print(usage)
            return
        }
        let path = try parsed.singleInput()
        guard path != "-" else { throw .usage("bench decodes its input several times; give a file") }
        let specification = try parsed.decoderSpecification()
        let runs = try parsed.integer("runs", in: 1...1000) ?? 3
        let frameLimit = try parsed.integer("frames", in: 1...Int.max)
        let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let threads = try parsed.integer("threads", in: 1...256) ?? cores
        let convert = try parsed.convertFormat()
        let toneMaps = parsed.flags.contains("tonemap")
        // Fail early, with the right exit status, on an input no row could read.
        let source = try openInput(path)
        if let sessions = try parsed.integer("sessions", in: 1...64) {
            let report = try SessionsBench.measure(
                path: path, sessions: sessions, specification: specification, runs: runs, frameLimit: frameLimit,
                withFFmpeg: parsed.flags.contains("with-ffmpeg"))
            for line in report { print(line) }
            return
        }
        if parsed.flags.contains("latency") {
            try latency(
                path: path, name: source.name, specification: specification, runs: runs, frameLimit: frameLimit,
                withFFmpeg: parsed.flags.contains("with-ffmpeg"))
            return
        }

        var rows: [Row] = []
        if specification.hardwareAcceleration != .disabled {
            rows.append(Row(name: "VA-API (GPU)", decoder: "vaapi", threads: 0))
        }
        if specification.hardwareAcceleration != .required {
            rows.append(Row(name: "libavcodec (CPU), 1 thread", decoder: "cpu", threads: 1))
            if threads != 1 {
                rows.append(Row(name: "libavcodec (CPU), \(threads) threads", decoder: "cpu", threads: threads))
            }
        }
        if parsed.flags.contains("with-ffmpeg") {
            if specification.hardwareAcceleration != .disabled {
                rows.insert(Row(name: "ffmpeg CLI, VA-API", decoder: "ffmpeg-vaapi", threads: 0), at: 1)
            }
            rows.append(Row(name: "ffmpeg CLI, \(threads) threads", decoder: "ffmpeg", threads: threads))
        }
        // The ffmpeg CLI's VA-API row needs a node to open; without one it says why, as the GPU row does.
        if specification.renderNodePath == nil, RenderNode.all().isEmpty,
            let index = rows.firstIndex(where: { $0.decoder == "ffmpeg-vaapi" })
        {
            rows[index].available = false
            rows[index].reason = "no render node: \(RenderNode.absenceReason())"
        }
        let tool = executablePath()
        // The pictures the VAToolbox rows decoded, which the ffmpeg rows are taken to decode too.
        var referenceFrames: Int?
        // Where the GPU row converted (`conversion=` from its worker).
        var gpuConversion: String?
        for _ in 0..<runs {
            for index in rows.indices where rows[index].available {
                let command = benchCommand(
                    rows[index], tool: tool, path: path, specification: specification, frameLimit: frameLimit,
                    convert: convert, toneMaps: toneMaps)
                let result = ChildProcess.run(command)
                guard result.status == 0 else {
                    rows[index].available = false
                    rows[index].reason = failureReason(result.output, status: result.status)
                    rows[index].frames = nil
                    rows[index].seconds = []
                    continue
                }
                if rows[index].decoder.hasPrefix("ffmpeg") {
                    rows[index].frames = referenceFrames
                } else {
                    let lines = result.output.split(separator: "\n")
                    let frames = lines.last { $0.hasPrefix("frames=") }.flatMap { Int($0.dropFirst(7)) } ?? 0
                    rows[index].frames = frames
                    referenceFrames = max(referenceFrames ?? 0, frames)
                    if rows[index].decoder == "vaapi" {
                        gpuConversion = lines.last { $0.hasPrefix("conversion=") }.map { String($0.dropFirst(11)) }
                    }
                }
                rows[index].seconds.append(result.seconds)
                rows[index].cpuSeconds += result.cpuSeconds
                rows[index].peakKiB = max(rows[index].peakKiB, result.peakKiB)
            }
        }
        // A row that ran before the first VAToolbox row counted its pictures takes the count now.
        for index in rows.indices where rows[index].decoder.hasPrefix("ffmpeg") && rows[index].available {
            rows[index].frames = referenceFrames
        }
        // The ffmpeg row may come first only if no VAToolbox row ran; then it has no frame count.
        let gpu = rows.first { $0.decoder == "vaapi" && $0.available }?.fpsBest
        let cpu = rows.last { $0.decoder == "cpu" && $0.available }
        let speedUp = gpu.flatMap { gpu in cpu?.fpsBest.map { $0 > 0 ? gpu / $0 : 0 } }

        if parsed.flags.contains("json") {
            print(
                json(
                    rows, path: path, source: source, runs: runs, frameLimit: frameLimit, speedUp: speedUp,
                    convert: convert, gpuConversion: gpuConversion, toneMaps: toneMaps
                ).rendered())
        } else {
            printTable(rows, path: path, source: source, runs: runs, speedUp: speedUp, cpuRow: cpu)
            if let convert {
                print("conversion to \(convert): GPU row \(gpuConversion ?? "not run"); CPU rows libswscale")
            } else if toneMaps {
                print("tone mapping: GPU row \(gpuConversion ?? "not run"); CPU rows libavfilter")
            }
            for line in ratioLines(rows) { print(line) }
        }
        if let svgPath = parsed.values["svg"] {
            let output = try OutputFile(path: svgPath)
            try output.append(svg(rows, title: "\(basename(path)): frames per second (best of \(runs))"))
            try output.flush()
            if !parsed.flags.contains("json") { print("chart: \(svgPath)") }
        }
        if !rows.contains(where: { $0.available && $0.decoder != "ffmpeg" }) {
            let reason = rows.first?.reason ?? "no decoder could run"
            throw CommandFailure(message: "no decoding path could run: \(reason)", status: ExitStatus.noDecoder)
        }
    }

    /// `--latency`: rounds of each path in turn (the GPU, the CPU, and ffmpeg's decoder with
    /// `--with-ffmpeg`), then the report.
    private static func latency(
        path: String, name: String, specification: DecoderSpecification, runs: Int, frameLimit: Int?,
        withFFmpeg: Bool
    ) throws(CommandFailure) {
        var rows: [LatencyBench.Row] = []
        if specification.hardwareAcceleration != .disabled {
            rows.append(LatencyBench.Row(name: LatencyBench.gpuRowName))
        }
        if specification.hardwareAcceleration != .required {
            rows.append(LatencyBench.Row(name: LatencyBench.cpuRowName))
            if withFFmpeg { rows.append(LatencyBench.Row(name: LatencyBench.ffmpegRowName, mostHeld: nil)) }
        }
        for _ in 0..<runs {
            for index in rows.indices where rows[index].available {
                var pathSpecification = specification
                let round: LatencyBench.Round
                switch rows[index].name {
                case LatencyBench.gpuRowName:
                    pathSpecification.hardwareAcceleration = .required
                    round = try LatencyBench.measure(
                        path: path, specification: pathSpecification, frameLimit: frameLimit)
                case LatencyBench.cpuRowName:
                    pathSpecification.hardwareAcceleration = .disabled
                    round = try LatencyBench.measure(
                        path: path, specification: pathSpecification, frameLimit: frameLimit)
                default:
                    round = LatencyBench.measureFFmpeg(
                        path: path, threads: specification.threadCount, frameLimit: frameLimit)
                }
                rows[index].add(round)
            }
        }
        for line in LatencyBench.lines(rows, input: name, rounds: runs) { print(line) }
    }

    /// The command of one run of `row`: this tool's worker, or the ffmpeg CLI.
    private static func benchCommand(
        _ row: Row, tool: String, path: String, specification: DecoderSpecification, frameLimit: Int?,
        convert: PixelFormat?, toneMaps: Bool
    ) -> [String] {
        let ffmpegFormat = convert.flatMap(\.ffmpegName)
        var command: [String]
        switch row.decoder {
        case "ffmpeg":
            command = ["ffmpeg", "-v", "error", "-nostdin", "-threads", "\(row.threads)", "-i", path]
            if let frameLimit { command += ["-frames:v", "\(frameLimit)"] }
            if toneMaps { command += ["-vf", ToneMapping.filters] }
            if let ffmpegFormat { command += ["-pix_fmt", ffmpegFormat] }
            command += ["-f", "null", "-"]
        case "ffmpeg-vaapi":
            let device = specification.renderNodePath ?? RenderNode.all().first?.path ?? "/dev/dri/renderD128"
            command = [
                "ffmpeg", "-v", "error", "-nostdin", "-init_hw_device", "vaapi=va:\(device)", "-hwaccel", "vaapi",
                "-hwaccel_device", "va", "-hwaccel_output_format", "vaapi", "-i", path,
            ]
            if let frameLimit { command += ["-frames:v", "\(frameLimit)"] }
            let filters =
                (toneMaps ? ["tonemap_vaapi=format=nv12:p=bt709:t=bt709:m=bt709"] : [])
                + (ffmpegFormat.map { ["scale_vaapi=format=\($0)"] } ?? [])
            if !filters.isEmpty { command += ["-vf", filters.joined(separator: ",")] }
            command += ["-f", "null", "-"]
        default:
            command = [
                tool, "bench-worker", path, "--hwaccel", row.decoder == "vaapi" ? "vaapi" : "none", "--threads",
                "\(row.threads)",
            ]
            if let device = specification.renderNodePath { command += ["--device", device] }
            if let frameLimit { command += ["--frames", "\(frameLimit)"] }
            if let convert { command += ["--pixel-format", convert.fourCC] }
            if toneMaps { command.append("--tonemap") }
        }
        return command
    }

    /// The VAToolbox rows against the ffmpeg rows of the same kind, in the same run: frames per
    /// second (medians) and peak memory.
    static func ratioLines(_ rows: [Row]) -> [String] {
        var lines: [String] = []
        let pairs = [("vaapi", "ffmpeg-vaapi", "GPU"), ("cpu", "ffmpeg", "CPU")]
        for (ours, theirs, name) in pairs {
            guard let row = rows.last(where: { $0.decoder == ours && $0.available }),
                let peer = rows.first(where: { $0.decoder == theirs && $0.available }),
                let fps = row.fpsMedian, let peerFPS = peer.fpsMedian, peerFPS > 0, peer.peakKiB > 0
            else { continue }
            lines.append(
                "\(name) over ffmpeg CLI (\(peer.name)): median fps \(fixed(fps / peerFPS, 2))x, peak RSS "
                    + "\(fixed(Double(row.peakKiB) / Double(peer.peakKiB), 2))x")
        }
        return lines
    }

    /// The last line a failed child wrote, without the tool's prefix.
    static func failureReason(_ output: String, status: Int32) -> String {
        let line = output.split(separator: "\n").last.map(String.init) ?? "exit status \(status)"
        let prefix = "vatoolbox bench-worker: "
        var reason = line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : line
        // The worker's advice to use --hwaccel auto or none is for decode, not for a bench row.
        if let cut = reason.firstRange(of: ". Hint: use --hwaccel") { reason = String(reason[..<cut.lowerBound]) }
        return reason
    }

    static func printTable(_ rows: [Row], path: String, source: SampleSource, runs: Int, speedUp: Double?, cpuRow: Row?)
    {
        print("bench: \(path) (\(source.containerName)), \(source.formatDescription)")
        print("runs per row: \(runs); each run is a child process; fps = pictures / wall-clock seconds of the run")
        let header = [
            column("decoder", 30), column("frames", 7, right: true), column("best fps", 10, right: true),
            column("median fps", 11, right: true), column("CPU ms/frame", 13, right: true),
            column("peak RSS MiB", 13, right: true),
        ]
        print(header.joined(separator: " "))
        for row in rows {
            guard row.available else {
                print(column(row.name, 30) + " unavailable: " + (row.reason ?? "unknown"))
                continue
            }
            print(
                [
                    column(row.name, 30), column(row.frames.map(String.init) ?? "–", 7, right: true),
                    column(row.fpsBest.map { fixed($0, 1) } ?? "–", 10, right: true),
                    column(row.fpsMedian.map { fixed($0, 1) } ?? "–", 11, right: true),
                    column(row.cpuSecondsPerFrame.map { fixed($0 * 1000, 3) } ?? "–", 13, right: true),
                    column(fixed(Double(row.peakKiB) / 1024, 1), 13, right: true),
                ].joined(separator: " "))
        }
        if let speedUp, let cpuRow {
            print("speed-up GPU / CPU (\(cpuRow.threads) threads): \(fixed(speedUp, 2))x")
        } else {
            print("speed-up GPU / CPU: not measured (no GPU row ran)")
        }
    }

    static func json(
        _ rows: [Row], path: String, source: SampleSource, runs: Int, frameLimit: Int?, speedUp: Double?,
        convert: PixelFormat? = nil, gpuConversion: String? = nil, toneMaps: Bool = false
    ) -> JSON {
        func number(_ value: Double?) -> JSON { value.map { .double($0) } ?? .null }
        return .object(
            JSON.header(schema: "bench") + [("input", .string(path)), ("container", .string(source.containerName))]
                + JSON.codec(source.codecType) + [
                    ("width", .int(Int(source.formatDescription.dimensions.width))),
                    ("height", .int(Int(source.formatDescription.dimensions.height))),
                    ("runs", .int(runs)), ("frame_limit", frameLimit.map { .int($0) } ?? .null),
                    (
                        "rows",
                        .array(
                            rows.map { row in
                                .object([
                                    ("name", .string(row.name)), ("decoder", .string(row.decoder)),
                                    ("threads", .int(row.threads)), ("available", .bool(row.available)),
                                    ("reason", .string(row.reason)),
                                    ("frames", row.frames.map { .int($0) } ?? .null),
                                    ("fps_best", number(row.fpsBest)), ("fps_median", number(row.fpsMedian)),
                                    ("cpu_seconds_per_frame", number(row.cpuSecondsPerFrame)),
                                    ("peak_rss_mib", row.available ? .double(Double(row.peakKiB) / 1024) : .null),
                                    ("run_seconds", .array(row.seconds.map { .double($0) })),
                                ])
                            })
                    ),
                    ("speedup_gpu_over_cpu", number(speedUp)),
                    ("convert", .string(convert?.fourCC)), ("gpu_conversion", .string(gpuConversion)),
                    ("tonemap", .bool(toneMaps)),
                ])
    }

    /// A horizontal bar chart of the best frames per second of each row.
    static func svg(_ rows: [Row], title: String) -> String {
        let labelWidth = 250
        let barWidth = 400
        let rowHeight = 28
        let top = 40
        let width = labelWidth + barWidth + 110
        let height = top + rows.count * rowHeight + 20
        let best = rows.compactMap(\.fpsBest).max() ?? 1
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="13">
            <rect width="100%" height="100%" fill="white"/>
            <text x="10" y="24" font-size="15" font-weight="bold">\(escape(title))</text>

            """
        for (index, row) in rows.enumerated() {
            let y = top + index * rowHeight
            text += "<text x=\"10\" y=\"\(y + 18)\">\(escape(row.name))</text>\n"
            if let fps = row.fpsBest, row.available {
                let length = max(1, Int(Double(barWidth) * fps / max(best, 1e-9)))
                let colour = row.decoder == "vaapi" ? "#2a9d8f" : row.decoder == "ffmpeg" ? "#8d99ae" : "#e76f51"
                text +=
                    "<rect x=\"\(labelWidth)\" y=\"\(y + 4)\" width=\"\(length)\" height=\"\(rowHeight - 8)\" fill=\"\(colour)\"/>\n"
                text += "<text x=\"\(labelWidth + length + 6)\" y=\"\(y + 18)\">\(fixed(fps, 1)) fps</text>\n"
            } else {
                // A row that ran without a frame count (ffmpeg's, when no VAToolbox row ran) has no rate.
                let note = row.available ? "no frame count" : "unavailable"
                text += "<text x=\"\(labelWidth)\" y=\"\(y + 18)\" fill=\"#888\">\(note)</text>\n"
            }
        }
        return text + "</svg>\n"
    }

    private static func escape(_ text: String) -> String {
        text.replacingAll("&", "&amp;").replacingAll("<", "&lt;").replacingAll(">", "&gt;").replacingAll("\"", "&quot;")
    }

    private static func column(_ text: String, _ width: Int, right: Bool = false) -> String {
        let pad = String(repeating: " ", count: max(0, width - text.count))
        return right ? pad + text : text + pad
    }

    private static func basename(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// This executable's path, to run `bench-worker` from.
    static func executablePath() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return CommandLine.arguments[0] }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// `vatoolbox bench-worker` (hidden): decodes without output for one bench run and prints
/// `frames=N`; with `--sessions N`, decodes the file in N sessions at once, each on a thread of
/// its own, and prints one `session=` line per session before the total.
enum BenchWorkerCommand {
    static func run(_ arguments: [String]) throws(CommandFailure) {
        let parsed = try ParsedArguments.parse(
            arguments,
            options: decoderOptions + [
                OptionSpec(name: "frames"), OptionSpec(name: "sessions"), OptionSpec(name: "pixel-format"),
                OptionSpec(name: "tonemap", takesValue: false),
            ])
        let path = try parsed.singleInput()
        let specification = try parsed.decoderSpecification()
        let frameLimit = try parsed.integer("frames", in: 1...Int.max)
        guard let count = try parsed.integer("sessions", in: 1...64) else {
            let report = try DecodeLoop.run(
                source: try openInput(path), specification: specification,
                attributes: try parsed.imageBufferAttributes(), frameLimit: frameLimit, onFrame: { _ in })
            if let path = report.pixelTransferPath { print("conversion=\(path)") }
            print("frames=\(report.frames)")
            return
        }
        let sources = try (0..<count).map { (_) throws(CommandFailure) -> SampleSource in try openInput(path) }
        let reports = Mutex<[Result<DecodeReport, CommandFailure>?]>(Array(repeating: nil, count: count))
        let group = DispatchGroup()
        for (index, source) in sources.enumerated() {
            // A serial queue each: GCD gives each its own thread while the decoding blocks.
            DispatchQueue(label: "vatoolbox.bench.session.\(index)").async(group: group) {
                let result = Result { () throws(CommandFailure) -> DecodeReport in
                    try DecodeLoop.run(
                        source: source, specification: specification, attributes: nil, frameLimit: frameLimit,
                        onFrame: { _ in })
                }
                reports.withLock { $0[index] = result }
            }
        }
        group.wait()
        var total = 0
        for (index, result) in reports.withLock({ $0 }).enumerated() {
            guard let result else { continue }
            let report = try result.get()
            total += report.frames
            print(
                "session=\(index) frames=\(report.frames) seconds=\(report.seconds) gpu=\(report.usedHardware ? 1 : 0) "
                    + "surfaces=\(report.gpuSurfaces ?? 0)")
        }
        print("displays=\(VADevice.openDisplays.most)")
        print("frames=\(total)")
    }
}

extension String {
    /// Every occurrence of `target` replaced by `replacement`.
    func replacingAll(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

/// Runs a command as a child process and measures it.
enum ChildProcess {
    struct Result {
        var status: Int32
        var output: String
        var seconds: Double
        var cpuSeconds: Double
        var peakKiB: Int
    }

    /// Runs `command` (looked up in `PATH`) with standard output and error captured together,
    /// waits with `wait4` for its resource usage.
    static func run(_ command: [String]) -> Result {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            return Result(status: 1, output: "pipe failed: \(systemError())", seconds: 0, cpuSeconds: 0, peakKiB: 0)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDERR_FILENO)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let start = DispatchTime.now().uptimeNanoseconds
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, command[0], &actions, nil, &argv, environ)
        close(pipeEnds[1])
        guard spawned == 0 else {
            close(pipeEnds[0])
            return Result(
                status: 127, output: "cannot run \(command[0]): \(String(cString: strerror(spawned)))", seconds: 0,
                cpuSeconds: 0, peakKiB: 0)
        }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            output += chunk[0..<count]
        }
        close(pipeEnds[0])
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpu =
            Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
        // WIFEXITED / WEXITSTATUS, which Swift cannot import as macros.
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(
            status: exitStatus, output: String(decoding: output, as: UTF8.self), seconds: seconds, cpuSeconds: cpu,
            peakKiB: Int(usage.ru_maxrss))
    }
}
