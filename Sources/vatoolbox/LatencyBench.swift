import Dispatch
import Synchronization
import VAToolbox

/// `vatoolbox bench --latency`: how long each picture takes from the submission of its sample to
/// its output, in a real-time session (``DecompressionSession/realTime``) decoding synchronously,
/// samples submitted as fast as the session takes them — what a streaming or remote-desktop
/// client waits. Also how many samples went in after a picture's own before it came out (the
/// pictures the decoder held back: 0 on a stream that cannot reorder). In process, one path at a
/// time: the GPU (when a VA-API device decodes the stream) and the CPU; with `--with-ffmpeg`, the
/// ffmpeg CLI's own time per picture in its decoder beside them (``measureFFmpeg(path:threads:frameLimit:)``),
/// the yardstick of "one picture's decode time". Rounds alternate the paths; each row shows the
/// median over the rounds of each round's figure.
enum LatencyBench {
    /// One path's figures.
    struct Row {
        var name: String
        var available = true
        var reason: String?
        /// Per round, the time of each picture in milliseconds, in output order.
        var rounds: [[Double]] = []
        /// The most samples submitted after a picture's own before it came out; nil where not
        /// measured (the ffmpeg row).
        var mostHeld: Int? = 0

        /// The pictures of one round (the first).
        var pictures: Int { rounds.first?.count ?? 0 }

        /// The median over the rounds of each round's `fraction` quantile (nearest rank); nil
        /// without pictures.
        func quantile(_ fraction: Double) -> Double? {
            median(rounds.compactMap { Self.quantile(fraction, of: $0) })
        }

        /// The median over the rounds of each round's slowest picture.
        var maximum: Double? { median(rounds.compactMap { $0.max() }) }

        /// The `fraction` quantile of `values` by nearest rank.
        static func quantile(_ fraction: Double, of values: [Double]) -> Double? {
            guard !values.isEmpty else { return nil }
            let sorted = values.sorted()
            let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return sorted[min(max(rank, 0), sorted.count - 1)]
        }

        private func median(_ values: [Double]) -> Double? {
            guard !values.isEmpty else { return nil }
            let sorted = values.sorted()
            let middle = sorted.count / 2
            return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        }

        /// Adds one round's figures, or marks the row unavailable.
        mutating func add(_ round: Round) {
            switch round {
            case .measured(let milliseconds, let held):
                rounds.append(milliseconds)
                if let held { mostHeld = max(mostHeld ?? 0, held) }
            case .unavailable(let why):
                available = false
                reason = why
            }
        }
    }

    /// What one round of one path gave.
    enum Round {
        /// Each picture's time in milliseconds and the most samples a picture waited for.
        case measured([Double], mostHeld: Int?)
        /// The path cannot run, and why.
        case unavailable(String)
    }

    /// What the output handler records, by sample number.
    private struct Record {
        var submitted: [UInt64] = []
        var milliseconds: [Double] = []
        var mostHeld = 0
    }

    /// Measures the session over the input's first `frameLimit` samples (all when nil).
    static func measure(
        path: String, specification: DecoderSpecification, frameLimit: Int?
    ) throws(CommandFailure) -> Round {
        let source = try openInput(path)
        let record = Mutex(Record())
        let session: DecompressionSession
        do throws(VTError) {
            var specification = specification
            specification.realTime = true
            session = try DecompressionSession(
                formatDescription: source.formatDescription, decoderSpecification: specification
            ) { output in
                let now = DispatchTime.now().uptimeNanoseconds
                guard output.imageBuffer != nil, let number = output.frameRefcon as? Int else { return }
                record.withLock { record in
                    guard number < record.submitted.count else { return }
                    record.milliseconds.append(Double(now - record.submitted[number]) / 1e6)
                    record.mostHeld = max(record.mostHeld, record.submitted.count - 1 - number)
                }
            }
        } catch {
            if specification.hardwareAcceleration == .required {
                return .unavailable(error.reason.isEmpty ? error.summary : error.reason)
            }
            throw CommandFailure(error)
        }
        defer { session.invalidate() }
        if specification.hardwareAcceleration == .required && !session.usingHardwareAcceleratedVideoDecoder {
            return .unavailable(session.hardwareUnavailableReason ?? "no usable device")
        }
        do {
            var number = 0
            while number < frameLimit ?? Int.max, let sample = try source.next() {
                if sample.formatDescription != source.formatDescription { break }
                record.withLock { $0.submitted.append(DispatchTime.now().uptimeNanoseconds) }
                try session.decodeFrame(sample, flags: [], frameRefcon: number)
                number += 1
            }
            try session.finishDelayedFrames()
        } catch let error as VTError {
            throw CommandFailure(error)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw .input("\(error)")
        }
        let final = record.withLock { $0 }
        return .measured(final.milliseconds, mostHeld: final.mostHeld)
    }

    /// The ffmpeg CLI's time in its decoder per picture: `ffmpeg -benchmark_all -threads N
    /// -thread_type slice -i INPUT -f null -`, the same threads as a real-time CPU session (slice
    /// threads; `threads` 0 is libavcodec's automatic count on both sides). `-benchmark_all`
    /// prints the wall time of each call of the decoder (`decode_video`: the packet's
    /// `avcodec_send_packet` and `avcodec_receive_frame` calls, then one more receive after a
    /// picture) between the encoder's calls (`encode_video`) for each picture that came out; the
    /// decoder calls between two encoder calls are one picture's decode time (fftools/ffmpeg.c,
    /// `decode_video` and `update_benchmark`, FFmpeg 5.1). A packet that gives no picture counts
    /// toward the next picture's time, as it does toward its latency.
    static func measureFFmpeg(path: String, threads: Int, frameLimit: Int?) -> Round {
        var command = [
            "ffmpeg", "-hide_banner", "-nostdin", "-benchmark_all", "-threads", "\(threads)", "-thread_type", "slice",
            "-i", path,
        ]
        if let frameLimit { command += ["-frames:v", "\(frameLimit)"] }
        command += ["-an", "-f", "null", "-"]
        let result = ChildProcess.run(command)
        guard result.status == 0 else {
            return .unavailable(BenchCommand.failureReason(result.output, status: result.status))
        }
        let times = decoderTimes(inBenchmarkOutput: result.output)
        return times.isEmpty ? .unavailable("ffmpeg printed no decoder times") : .measured(times, mostHeld: nil)
    }

    /// Each picture's decoder time in milliseconds from ffmpeg's `-benchmark_all` lines (`bench:
    /// U user S sys R real LABEL`, microseconds): the `decode_video` calls summed up to the
    /// `encode_video` calls that follow them.
    static func decoderTimes(inBenchmarkOutput output: String) -> [Double] {
        var times: [Double] = []
        var pending: Double?
        // The progress line shares its line with a report; a report starts at each "bench:".
        for report in output.split(separator: "bench:").dropFirst() {
            let fields = report.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" })
            guard fields.count >= 7, fields[5] == "real", let real = Double(fields[4]) else { continue }
            if fields[6] == "decode_video" {
                pending = (pending ?? 0) + real
            } else if fields[6] == "encode_video", let decoded = pending {
                // The encoder is called twice per picture (the frame, then a packet receive).
                times.append(decoded / 1000)
                pending = nil
            }
        }
        return times
    }

    /// The report's lines.
    static func lines(_ rows: [Row], input: String, rounds: Int) -> [String] {
        var lines = [
            "latency: \(input): submit to output per picture, a real-time session decoding synchronously"
                + (rounds > 1 ? " (medians of \(rounds) alternating rounds)" : ""),
            "  path                         pictures   p50 ms   p99 ms   max ms   held back (most)",
        ]
        for row in rows {
            let name = row.name + String(repeating: " ", count: max(0, 28 - row.name.count))
            guard row.available else {
                lines.append("  \(name) unavailable: \(row.reason ?? "")")
                continue
            }
            func cell(_ value: Double?) -> String {
                let text = value.map { fixed($0, 2) } ?? "-"
                return String(repeating: " ", count: max(0, 8 - text.count)) + text
            }
            let count = String(row.pictures)
            lines.append(
                "  \(name) \(String(repeating: " ", count: max(0, 9 - count.count)))\(count) \(cell(row.quantile(0.5))) "
                    + "\(cell(row.quantile(0.99))) \(cell(row.maximum))   \(row.mostHeld.map(String.init) ?? "-")")
        }
        if let cpu = rows.first(where: { $0.name == cpuRowName && $0.available })?.quantile(0.99),
            let decoder = rows.first(where: { $0.name == ffmpegRowName && $0.available })?.quantile(0.99)
        {
            lines.append(
                "  CPU p99 over ffmpeg's p99 time per picture in its decoder: \(signed(cpu - decoder)) ms")
        }
        return lines
    }

    /// The rows' names.
    static let gpuRowName = "VA-API (GPU)"
    static let cpuRowName = "libavcodec (CPU)"
    static let ffmpegRowName = "ffmpeg CLI, in its decoder"

    private static func signed(_ value: Double) -> String {
        (value >= 0 ? "+" : "") + fixed(value, 2)
    }
}
