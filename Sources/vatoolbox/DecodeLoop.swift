import Dispatch
import Synchronization
import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// One decoded picture handed to a command, in presentation order.
struct DecodedFrame {
    /// Its position in presentation order, from 0.
    let index: Int
    /// Its position among the frames answered with a picture or an error, in output order, from
    /// 0: the picture's place in the stream when frames before it failed.
    let position: Int
    /// The picture.
    let image: PixelBuffer
    /// Its presentation time stamp (invalid for raw streams, which carry none).
    let presentationTimeStamp: MediaTime
    /// The decode time stamp of the sample whose decoding released it from the decoder
    /// (``DecompressionOutput/releasingDecodeTimeStamp``); invalid when the end of the stream did.
    let releasedAt: MediaTime
    /// Whether the decoder reported damage for it.
    let damaged: Bool
    /// Its HDR10+ T.35 message (``DecompressionOutput/hdr10PlusPerFrameData``), when the loop was
    /// asked for per-frame HDR metadata.
    var hdr10Plus: [UInt8]? = nil
    /// Its Dolby Vision RPU (``DecompressionOutput/dolbyVisionRPU``), as ``hdr10Plus``.
    var dolbyVisionRPU: [UInt8]? = nil
}

/// What a decoding run did.
struct DecodeReport {
    var samples = 0
    var frames = 0
    var errors = 0
    var dropped = 0
    var seconds = 0.0
    /// Whether the session started on the GPU.
    var startedOnHardware = false
    /// Whether it still decoded on the GPU at the end (it moves to the CPU after GPU faults).
    var usedHardware = false
    /// The GPU surfaces the session's pool held at the end (nil on the CPU).
    var gpuSurfaces: Int?
    var hardwareReason: String?
    /// The render node the GPU decoded on.
    var renderNode: String?
    /// Where the session converted the last picture for the attributes (nil: no conversion).
    var pixelTransferPath: PixelTransferPath?
    /// Where the field mode deinterlaced the last GPU picture (nil: none).
    var deinterlacingPath: PixelTransferPath?
    var specification = DecoderSpecification()
    var firstError: String?
    /// The first frames with an error status: `"sample 5 at 0.200 s: reason"`.
    var errorDetails: [String] = []
    /// The damaged samples the reader went on past (the first thousand).
    var damagedSamples: [DamagedSample] = []
    /// How many damaged samples the reader met.
    var damagedSampleCount = 0
    /// When the run read to the end of a file that ends before its container says it should:
    /// `"cut.mp4 is truncated: the file ends at byte … (partial file)"`.
    var truncation: String?

    /// The summary's lines about truncation, damage and errors, empty for a clean run: whether
    /// the file is cut short, how many samples were damaged and frames had errors, and the first
    /// few of each with the sample number (decode order, from 0) and time.
    var problemLines: [String] {
        var lines: [String] = []
        if let truncation { lines.append(truncation) }
        if damagedSampleCount > 0 {
            let skipped = damagedSamples.filter(\.isSkipped).count
            lines.append(
                "damaged samples: \(damagedSampleCount)" + (skipped > 0 ? " (\(skipped) unreadable, skipped)" : ""))
            for damage in damagedSamples.prefix(3) {
                lines.append("  sample \(damage.number)\(Self.at(damage.seconds)): \(damage.reason)")
            }
        }
        if errors > 0 {
            lines.append("frames with errors: \(errors)")
            for detail in errorDetails { lines.append("  " + detail) }
        }
        return lines
    }

    /// The failure a run of a truncated file, or with damage or errors, ends with (exit status
    /// 1), after its summary.
    var failure: CommandFailure? {
        guard truncation != nil || errors > 0 || damagedSampleCount > 0 else { return nil }
        var parts: [String] = []
        if damagedSampleCount > 0 { parts.append("\(damagedSampleCount) damaged samples") }
        if errors > 0 { parts.append("\(errors) frames decoded with errors; the first: \(firstError ?? "unknown")") }
        let damage = parts.joined(separator: ", ")
        guard let truncation else { return .input(damage) }
        return .input(damage.isEmpty ? truncation : "\(truncation); \(damage)")
    }

    /// `" at 1.240 s"`, or nothing for an unknown time.
    static func at(_ seconds: Double?) -> String {
        guard let seconds else { return "" }
        return " at \(fixed(seconds, 3)) s"
    }

    /// Frames per second over the whole run.
    var framesPerSecond: Double { seconds > 0 ? Double(frames) / seconds : 0 }

    /// Counts pictures the command could not read (GPU pictures whose read-back failed) as
    /// frames with errors, with their reasons.
    mutating func addUnreadablePictures(_ reasons: [String]) {
        guard let first = reasons.first else { return }
        errors += reasons.count
        if firstError == nil { firstError = first }
        for reason in reasons where errorDetails.count < 3 { errorDetails.append(reason) }
    }

    /// `"conversion: on the GPU (VA-API video processing)"`, or on the CPU and why not on the
    /// GPU, for a run whose pictures were converted; nil otherwise.
    var conversionLine: String? { pixelTransferPath.map { "conversion: \($0)" } }

    /// `"deinterlacing: on the GPU (VA-API video processing)"`, or `"deinterlacing: libavfilter
    /// on the CPU — why"`, for a GPU run whose field mode deinterlaced; nil otherwise.
    var deinterlacingLine: String? {
        switch deinterlacingPath {
        case .gpu?: "deinterlacing: \(PixelTransferPath.gpu)"
        case .cpu(let reason)?: "deinterlacing: libavfilter on the CPU" + (reason.map { " — \($0)" } ?? "")
        case nil: nil
        }
    }

    /// "libavcodec on the CPU, 2 threads (why)" or "VA-API on the GPU".
    var decoderLine: String {
        let gpu = "VA-API on the GPU" + (renderNode.map { " (\($0))" } ?? "")
        if usedHardware { return gpu }
        let count = specification.threadCount
        let threads = count == 0 ? "one thread per core" : count == 1 ? "1 thread" : "\(count) threads"
        let why: String
        switch specification.hardwareAcceleration {
        case .disabled: why = "hardware decoding disabled by --hwaccel none"
        default: why = hardwareReason ?? "no usable VA-API device"
        }
        let cpu = "libavcodec on the CPU, \(threads) — \(why)"
        return startedOnHardware ? "\(gpu), then \(cpu)" : cpu
    }
}

/// Serialises the output handler's state with the main thread.
private struct LoopState {
    var frames = 0
    var errors = 0
    var dropped = 0
    /// Frames answered with a picture or an error.
    var answered = 0
    var firstError: String?
    var errorDetails: [String] = []
    var stop: CommandFailure?
}

/// Runs a ``DecompressionSession`` over a ``SampleSource``: samples go in asynchronously, pictures
/// come out in presentation order to `onFrame`, which runs on the session's serial queue.
enum DecodeLoop {
    /// Decodes the whole source, or until `frameLimit` pictures came out.
    ///
    /// - Parameters:
    ///   - onFrame: Called once per picture, serially; a thrown failure stops decoding and is
    ///     rethrown here.
    ///   - onSample: Called on this thread with each sample just before it is decoded.
    ///   - progress: Called on this thread now and then with the frames so far.
    ///   - perFrameHDRMetadata: Whether the sessions propagate per-frame HDR display metadata
    ///     (``DecompressionSession/propagatesPerFrameHDRDisplayMetadata``), for ``DecodedFrame/hdr10Plus``.
    ///   - fieldMode: The sessions' ``DecompressionPropertyKey/fieldMode``; nil for both fields.
    /// - Throws: A failure to create the session (exit status 3 when no decoder fits), to read
    ///   the input, or from `onFrame`.
    static func run(
        source: SampleSource, specification: DecoderSpecification, attributes: ImageBufferAttributes?,
        frameLimit: Int? = nil, onFrame: @escaping @Sendable (DecodedFrame) throws(CommandFailure) -> Void,
        onSample: ((SampleBuffer) -> Void)? = nil, progress: ((Int) -> Void)? = nil,
        perFrameHDRMetadata: Bool = false, fieldMode: String? = nil
    ) throws(CommandFailure) -> DecodeReport {
        let state = Mutex(LoopState())
        let limit = frameLimit ?? Int.max
        let start = DispatchTime.now().uptimeNanoseconds
        var report = DecodeReport(specification: specification)
        // A sample whose description the session cannot accept (another codec) is decoded by a
        // new session, after the old one has handed out its frames; all share one handler.
        func makeSession(_ format: VideoFormatDescription) throws(CommandFailure) -> DecompressionSession {
            do throws(VTError) {
                return try makeDecompressionSession(format)
            } catch {
                var error = error
                if specification.hardwareAcceleration == .required && error == VTError.couldNotFindVideoDecoder {
                    error.hint = "use --hwaccel auto or none to decode on the CPU"
                }
                throw CommandFailure(error)
            }
        }
        func makeDecompressionSession(_ format: VideoFormatDescription) throws(VTError) -> DecompressionSession {
            let session = try makeBareSession(format)
            // The ffmpeg CLI's pictures: on the CPU the decoder's planar ones (yuv420p …), which
            // the session hands out without a copy when asked for them (its native NV12/P010
            // would cost a repacking per picture and hash differently); on the GPU the
            // surfaces' NV12/P010, as `ffmpeg -hwaccel vaapi` has them.
            // With only --tonemap, an HDR stream's are the 8-bit planar ones the ffmpeg CLI's
            // tone mapping chain ends in (yuv420p).
            let onlyToneMaps =
                attributes.map { $0.toneMapsHDRToSDR && $0.pixelFormat == nil && $0.width == nil && $0.height == nil }
                ?? false
            if (attributes == nil || onlyToneMaps) && !session.usingHardwareAcceleratedVideoDecoder {
                var planar = DecompressionSession.planarPixelFormat(for: format)
                if onlyToneMaps, let transfer = format.extensions.transferFunction,
                    [TransferFunction.pq, .hlg].contains(transfer),
                    planar == .yuv420Planar10
                {
                    planar = .yuv420Planar
                }
                try session.setImageBufferAttributes(
                    ImageBufferAttributes(pixelFormat: planar, toneMapsHDRToSDR: onlyToneMaps))
            }
            if perFrameHDRMetadata { session.propagatesPerFrameHDRDisplayMetadata = true }
            if let fieldMode { try session.setProperty(.fieldMode, to: fieldMode) }
            return session
        }
        func makeBareSession(_ format: VideoFormatDescription) throws(VTError) -> DecompressionSession {
            try DecompressionSession(
                formatDescription: format, decoderSpecification: specification,
                imageBufferAttributes: attributes
            ) { output in
                let (index, position, skip) = state.withLock { state -> (Int, Int, Bool) in
                    let position = state.answered
                    if output.imageBuffer != nil || output.status != nil { state.answered += 1 }
                    // A frame with an error status counts as an error, dropped or not; one
                    // dropped without an error (the second field of a field pair, which completes
                    // the picture of the first) counts as dropped.
                    if let status = output.status {
                        state.errors += 1
                        let reason = status.reason.isEmpty ? status.summary : status.reason
                        // Docs/CLI.md: the status name and value, the reason and libavcodec's cause.
                        if state.firstError == nil { state.firstError = status.description }
                        if state.errorDetails.count < 3 {
                            let number = (output.frameRefcon as? Int).map { "sample \($0)" } ?? "a sample"
                            let time = output.presentationTimeStamp
                            state.errorDetails.append(
                                "\(number)\(DecodeReport.at(time.isNumeric ? time.seconds : nil)): \(reason)")
                        }
                    } else if output.infoFlags.contains(.frameDropped) {
                        state.dropped += 1
                    }
                    guard output.imageBuffer != nil else { return (0, position, true) }
                    defer { state.frames += 1 }
                    return (state.frames, position, state.frames >= limit || state.stop != nil)
                }
                guard !skip, let image = output.imageBuffer else { return }
                do throws(CommandFailure) {
                    try onFrame(
                        DecodedFrame(
                            index: index, position: position, image: image,
                            presentationTimeStamp: output.presentationTimeStamp,
                            releasedAt: output.releasingDecodeTimeStamp, damaged: output.status != nil,
                            hdr10Plus: output.hdr10PlusPerFrameData, dolbyVisionRPU: output.dolbyVisionRPU))
                } catch {
                    state.withLock { if $0.stop == nil { $0.stop = error } }
                }
            }
        }
        var session = try makeSession(source.formatDescription)
        var format = source.formatDescription
        defer { session.invalidate() }
        report.startedOnHardware = session.usingHardwareAcceleratedVideoDecoder
        report.renderNode = session.renderNode?.path
        var lastProgress = start
        var readToTheEnd = false
        do {
            while true {
                let (done, stop) = state.withLock { ($0.frames >= limit, $0.stop) }
                if let stop { throw stop }
                if done { break }
                guard let sample = try source.next() else {
                    readToTheEnd = true
                    break
                }
                onSample?(sample)
                if sample.formatDescription != format {
                    format = sample.formatDescription
                    if !session.canAcceptFormatDescription(format) {
                        try session.finishDelayedFrames()
                        try session.waitForAsynchronousFrames()
                        session.invalidate()
                        session = try makeSession(format)
                    }
                }
                // The refcon is the sample's number, for the summary's error lines.
                try session.decodeFrame(
                    sample, flags: [.enableAsynchronousDecompression], frameRefcon: report.samples)
                report.samples += 1
                if let progress {
                    let now = DispatchTime.now().uptimeNanoseconds
                    if now - lastProgress > 100_000_000 {
                        lastProgress = now
                        progress(state.withLock { $0.frames })
                    }
                }
            }
            try session.finishDelayedFrames()
            try session.waitForAsynchronousFrames()
        } catch let error as VTError {
            throw CommandFailure(error)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw .input("\(error)")
        }
        report.usedHardware = session.usingHardwareAcceleratedVideoDecoder
        report.gpuSurfaces = session.hardwareDecisions?.surfaceCount
        report.hardwareReason = session.hardwareUnavailableReason
        report.pixelTransferPath = session.pixelTransferPath
        report.deinterlacingPath = session.deinterlacingPath
        let final = state.withLock { $0 }
        if let stop = final.stop { throw stop }
        report.frames = min(final.frames, limit)
        report.errors = final.errors
        report.dropped = final.dropped
        report.firstError = final.firstError
        report.errorDetails = final.errorDetails
        report.damagedSamples = source.damagedSamples
        report.damagedSampleCount = source.damagedSampleCount
        // A run that stopped before the end (a frame limit) did not meet the cut.
        if readToTheEnd, let truncation = source.truncation {
            report.truncation = "\(source.name) is truncated: \(truncation)"
        }
        report.seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return report
    }
}
