import Dispatch
import Synchronization
import VAToolbox

/// `vatoolbox bench --latency`: how long each picture takes from the submission of its sample to
/// its output, in a real-time session (``DecompressionSession/realTime``) decoding synchronously,
/// samples submitted as fast as the session takes them — what a streaming or remote-desktop
/// client waits. Also how many samples went in after a picture's own before it came out (the
/// pictures the decoder held back: 0 on a stream that cannot reorder). In process, one path at a
/// time: the GPU (when a VA-API device decodes the stream) and the CPU.
enum LatencyBench {
    /// One path's figures.
    struct Row {
        var name: String
        var available = true
        var reason: String?
        /// Submit-to-output time of each picture, in milliseconds, in output order.
        var milliseconds: [Double] = []
        /// The most samples submitted after a picture's own before it came out.
        var mostHeld = 0

        /// The `fraction` quantile of the times (nearest rank); nil without pictures.
        func quantile(_ fraction: Double) -> Double? {
            guard !milliseconds.isEmpty else { return nil }
            let sorted = milliseconds.sorted()
            let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return sorted[min(max(rank, 0), sorted.count - 1)]
        }
    }

    /// What the output handler records, by sample number.
    private struct Record {
        var submitted: [UInt64] = []
        var milliseconds: [Double] = []
        var mostHeld = 0
    }

    /// Measures one path over the input's first `frameLimit` samples (all when nil).
    static func measure(
        name: String, path: String, specification: DecoderSpecification, frameLimit: Int?
    ) throws(CommandFailure) -> Row {
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
                return Row(name: name, available: false, reason: error.reason.isEmpty ? error.summary : error.reason)
            }
            throw CommandFailure(error)
        }
        defer { session.invalidate() }
        if specification.hardwareAcceleration == .required && !session.usingHardwareAcceleratedVideoDecoder {
            return Row(name: name, available: false, reason: session.hardwareUnavailableReason ?? "no usable device")
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
        return Row(name: name, milliseconds: final.milliseconds, mostHeld: final.mostHeld)
    }

    /// The report's lines.
    static func lines(_ rows: [Row], input: String) -> [String] {
        var lines = [
            "latency: \(input): submit to output per picture, a real-time session decoding synchronously",
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
            let count = String(row.milliseconds.count)
            lines.append(
                "  \(name) \(String(repeating: " ", count: max(0, 9 - count.count)))\(count) \(cell(row.quantile(0.5))) "
                    + "\(cell(row.quantile(0.99))) \(cell(row.milliseconds.max()))   \(row.mostHeld)")
        }
        return lines
    }
}
