import Synchronization
import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// `vatoolbox device-check`: decodes streams on VA-API and on the CPU and compares every frame's
/// MD5 — H.264, HEVC, VP8, VP9, AV1 and MPEG-2 decoding is exact (bit-exact by each standard;
/// AV1 film grain is synthesised by a specified process too), so a conformant driver gives the
/// CPU's bytes.
enum DeviceCheckCommand {
    static let usage = """
        usage: vatoolbox device-check [--device PATH] FILE...

        Decodes each FILE on the GPU (VA-API, required) and on the CPU, both to the GPU's format
        (NV12 or P010), and compares the MD5 of every frame. Streams the device has no profile
        for (H.264 High 10 or 4:2:2, HEVC range extensions, VP9 profiles 1 and 3, …) are listed as
        CPU-only, not failed. Takes every codec VAToolbox decodes: H.264, HEVC, AV1, VP9, VP8, MPEG-2.
        Prints one row per file and a summary; under each file decoded on the GPU, the decisions
        taken on this driver: the surface pool allocated (and how many surfaces the application
        may hold), how surfaces were read back (vaDeriveImage or vaGetImage, with counts), and
        the DMA-BUF export of its first picture (layers, modifier; composed layers accepted or
        refused).

          --device PATH   the render node (default: VATOOLBOX_RENDER_NODE, else the first usable)

        exit status: 0 every decodable stream matched, 1 a mismatch, a frame error on the GPU
        only, a fallback to the CPU mid-stream or an unreadable file, 2 bad usage, 3 no usable
        render node
        """

    /// What became of one file.
    enum Verdict: Equatable {
        case match
        case cpuOnly(String)
        case failure(String)
    }

    static func run(_ arguments: [String]) throws(CommandFailure) {
        let parsed = try ParsedArguments.parse(arguments, options: [OptionSpec(name: "device")])
        if parsed.wantsHelp {
            print(usage)
            return
        }
        let files = parsed.positionals
        guard !files.isEmpty else { throw .usage("no input files") }
        let device = parsed.values["device"]
        let node = device ?? getenv("VATOOLBOX_RENDER_NODE").map { String(cString: $0) }
        let nodes = node.map { [$0] } ?? RenderNode.all().map(\.path)
        guard let usable = nodes.first(where: { (try? VADevice.open(path: $0)) != nil }) else {
            let reason = nodes.isEmpty ? RenderNode.absenceReason() : "no render node could be opened with a VA driver"
            throw CommandFailure(message: "\(reason) (see `vatoolbox devices`)", status: ExitStatus.noDecoder)
        }
        let opened = try? VADevice.open(path: usable)
        print("device: \(opened.map { "\($0)" } ?? usable)")
        if let quirks = opened?.quirks {
            // The decisions that depend on the driver, so that a first run on a real GPU shows
            // which assumption held.
            print("driver decisions: \(quirks)")
            print("surface pool rule: \(quirks.surfacePoolRule)")
        }
        print(pad("stream", 44) + pad("frames", 8) + pad("GPU fps", 9) + pad("CPU fps", 9) + "result")
        var failures = 0
        var matches = 0
        var cpuOnly = 0
        for file in files {
            let row = check(file, node: usable)
            let name = file.split(separator: "/").suffix(2).joined(separator: "/")
            let result: String
            switch row.verdict {
            case .match:
                matches += 1
                result = "match"
            case .cpuOnly(let reason):
                cpuOnly += 1
                result = "CPU only: \(reason)"
            case .failure(let reason):
                failures += 1
                result = "FAIL: \(reason)"
            }
            print(
                pad(name, 44) + pad(row.frames.map(String.init) ?? "-", 8) + pad(rate(row.gpuFPS), 9)
                    + pad(rate(row.cpuFPS), 9) + result)
            if let decisions = row.decisions { print("    GPU: \(decisions)") }
        }
        print("\(matches) matched, \(cpuOnly) CPU only, \(failures) failed, of \(files.count)")
        if failures > 0 {
            throw .input("\(failures) of \(files.count) streams failed the comparison")
        }
    }

    /// One row of the table.
    struct Row {
        var frames: Int?
        var gpuFPS: Double?
        var cpuFPS: Double?
        var verdict: Verdict
        /// What the GPU path decided for this stream (pool, read-back, export), when it ran.
        var decisions: String?
    }

    /// Decodes one file both ways and compares.
    static func check(_ path: String, node: String) -> Row {
        let samples: [SampleBuffer]
        do throws(VTError) {
            samples = try MediaFileReader(path: path).readAllSamples()
        } catch {
            return Row(verdict: .failure("cannot read: \(error.reason)"))
        }
        guard let format = samples.first?.formatDescription else {
            return Row(verdict: .failure("no samples"))
        }
        if case .failure(let error) = hardwareDecodeSupport(for: format, renderNodePath: node) {
            return Row(verdict: .cpuOnly(error.reason.replacingPrefix("no render node can decode this stream — ")))
        }
        let gpu = decode(samples, acceleration: .required, node: node, pixelFormat: nil)
        guard let gpuFormat = gpu.pixelFormat else {
            return Row(verdict: .failure(gpu.error ?? "the GPU produced no picture"))
        }
        let cpu = decode(samples, acceleration: .disabled, node: nil, pixelFormat: gpuFormat)
        var row = Row(frames: gpu.md5s.count, gpuFPS: gpu.fps, cpuFPS: cpu.fps, verdict: .match)
        row.decisions = gpu.decisions.map { "\($0); export \(gpu.export ?? "not tried (no GPU picture)")" }
        if let error = gpu.error ?? cpu.error {
            row.verdict = .failure(error)
        } else if gpu.fellBack {
            row.verdict = .failure("the session left the GPU mid-stream")
        } else if gpu.md5s.count != cpu.md5s.count {
            row.verdict = .failure("\(gpu.md5s.count) frames on the GPU, \(cpu.md5s.count) on the CPU")
        } else {
            let differing = zip(gpu.md5s, cpu.md5s).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
            let gpuOnlyErrors = zip(gpu.statuses, cpu.statuses).filter { $0.0 != nil && $0.1 == nil }.count
            if !differing.isEmpty {
                row.verdict = .failure(
                    "\(differing.count) frames differ (first: frame \(differing[0]) in output order)")
            } else if gpuOnlyErrors > 0 {
                row.verdict = .failure("\(gpuOnlyErrors) frames failed on the GPU only")
            }
        }
        return row
    }

    /// What one decode produced.
    struct Decode {
        var md5s: [String?] = []
        var statuses: [Int32?] = []
        var pixelFormat: PixelFormat?
        var fps: Double?
        var fellBack = false
        var error: String?
        /// The GPU path's decisions, read before the session ends.
        var decisions: HardwareDecisions?
        /// How the first GPU picture exported as DMA-BUF.
        var export: String?
    }

    static func decode(
        _ samples: [SampleBuffer], acceleration: DecoderSpecification.HardwareAcceleration, node: String?,
        pixelFormat: PixelFormat?
    ) -> Decode {
        let collected = Mutex(Decode())
        let start = monotonicSeconds()
        do throws(VTError) {
            let session = try DecompressionSession(
                formatDescription: samples[0].formatDescription,
                decoderSpecification: DecoderSpecification(hardwareAcceleration: acceleration, renderNodePath: node),
                imageBufferAttributes: pixelFormat.map { ImageBufferAttributes(pixelFormat: $0) }
            ) { output in
                let md5 = output.imageBuffer?.md5
                let format = output.imageBuffer?.pixelFormat
                let export = output.imageBuffer.flatMap { image in
                    image.isGPUSurface && collected.withLock { $0.export == nil } ? describeExport(of: image) : nil
                }
                collected.withLock {
                    if $0.export == nil { $0.export = export }
                    $0.md5s.append(md5)
                    $0.statuses.append(output.status?.status)
                    $0.pixelFormat = $0.pixelFormat ?? format
                }
            }
            for sample in samples { try session.decodeFrame(sample) }
            try session.finishDelayedFrames()
            let leftGPU = acceleration == .required && !session.usingHardwareAcceleratedVideoDecoder
            let decisions = session.hardwareDecisions
            session.invalidate()
            collected.withLock {
                $0.fellBack = leftGPU
                $0.decisions = decisions
            }
        } catch {
            collected.withLock { $0.error = error.reason }
        }
        let seconds = monotonicSeconds() - start
        return collected.withLock { result in
            if seconds > 0 { result.fps = Double(result.md5s.count) / seconds }
            return result
        }
    }

    /// `"separate layers: DMA-BUF NV12 … layers R8 GR88, modifier 0x0; composed: accepted"`:
    /// how the driver exports the picture's surface, both ways.
    static func describeExport(of image: PixelBuffer) -> String {
        let separate: String
        do throws(VTError) {
            separate = "\(try image.exportDMABuf(separateLayers: true))"
        } catch {
            separate = "refused (\(error.reason))"
        }
        let composed: String
        do throws(VTError) {
            _ = try image.exportDMABuf(separateLayers: false)
            composed = "accepted"
        } catch {
            composed = "refused (\(error.reason))"
        }
        return "separate layers: \(separate); composed: \(composed)"
    }

    private static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private static func rate(_ fps: Double?) -> String {
        guard let fps else { return "-" }
        return Int(exactly: fps.rounded()).map { String($0) } ?? "-"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}

extension String {
    /// The string without `prefix` when it starts with it.
    func replacingPrefix(_ prefix: String) -> String {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
    }
}
