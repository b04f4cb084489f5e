import Dispatch
import Synchronization
import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// `vatoolbox decode`: decodes a stream through a `DecompressionSession`, optionally writes the
/// pictures as Y4M or raw planes, and prints a summary.
enum DecodeCommand {
    static let usage = """
        usage: vatoolbox decode INPUT [-o OUT.y4m|OUT.yuv|-] [--pixel-format FOURCC] [--scale WxH]
                                      [--field-mode MODE] [--deinterlace bwdif|yadif[-field]] [--tonemap]
                                      [--hwaccel auto|vaapi|none] [--device PATH] [--frames N] [--threads N]
                                      [--format y4m|yuv] [--track N] [--frame-rate RATE]

        Decodes INPUT — H.264, HEVC, AV1, VP9, VP8 or MPEG-2 video: a raw H.264/HEVC Annex B stream
        (.264 .h264 .265 .h265 .hevc, or - for standard input), an IVF file (VP8, VP9, AV1), an AV1 OBU
        stream (.obu, low-overhead or Annex B), an MPEG-2 elementary stream (.m2v), or a container
        libavformat reads (MP4, MOV, MKV, WebM, TS …) — and prints a summary: the decoder used and why,
        frames, frames per second, errors. A progress bar runs on standard error when it is a terminal.
        Damaged samples do not stop it: they are decoded as ffmpeg decodes them, counted and listed in the
        summary with their sample number and time, and the exit status is then 1. So is it when the file
        is truncated (cut short: the summary says "INPUT is truncated: … (partial file)").

          -o, --output OUT         write the pictures: OUT.y4m as YUV4MPEG2 (what ffmpeg and players read),
                                   OUT.yuv (or any other name) as raw planes one picture after another,
                                   - as Y4M on standard output (the summary then goes to standard error)
              --format y4m|yuv     the output format, whatever the name says
              --pixel-format FOURCC  convert pictures to FOURCC: 420v 420f (NV12), x420 (P010), y420 f420
                                   (I420), y422 y444 y0l0 y2l0 y4l0 (planar), BGRA
              --scale WxH          scale pictures to W x H (bicubic, as ffmpeg's -s)
              --field-mode MODE    the session's field mode: both (as decoded), top or bottom (one field,
                                   ffmpeg's -vf field=type=…), single (the top one), deinterlace (the
                                   vertical filter, ffmpeg's -vf pp=lb)
              --tonemap            tone map HDR pictures (PQ, HLG) to SDR BT.709 in 8 bits: on the GPU where
                                   the driver can, else ffmpeg's -vf zscale=t=linear:npl=100,format=gbrpf32le,
                                   zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,
                                   format=yuv420p (yuv420p on the CPU, NV12 on the GPU unless --pixel-format)
              --hwaccel MODE       auto: the GPU when a VA-API device can decode the stream, else the CPU;
                                   vaapi: the GPU or fail (exit status 3); none: the CPU
              --device PATH        the DRM render node to use, e.g. /dev/dri/renderD128
              --frames N           stop after N pictures (in presentation order)
              --threads N          software decoding threads (0, the default: one per core)
              --track N            the video track to decode, by stream index (ffprobe's Stream #0:N); by
                                   default the one ffmpeg picks
              --frame-rate RATE    the frame rate of a raw stream that states none (24, 30000/1001), like
                                   ffmpeg's -framerate; 25 by default (a rate in the stream wins)
              --deinterlace MODE   deinterlace as ffmpeg's -vf MODE does, then convert and scale: bwdif or
                                   yadif, a picture per picture (mode=send_frame); bwdif-field or
                                   yadif-field, a picture per field (mode=send_field: twice the frame rate).
                                   bwdif runs on the GPU where the driver's motion-adaptive deinterlacing
                                   takes the next picture, else libavfilter on the CPU
        """

    static func run(_ arguments: [String]) throws(CommandFailure) {
        let parsed = try ParsedArguments.parse(
            arguments,
            options: decoderOptions + inputOptions + [
                OptionSpec(name: "output", short: "o"), OptionSpec(name: "frames"), OptionSpec(name: "format"),
                OptionSpec(name: "deinterlace"),
            ] + pictureOptions)
        if parsed.wantsHelp {
            print(usage)
            return
        }
        let path = try parsed.singleInput()
        let specification = try parsed.decoderSpecification()
        let requestedFormat = try parsed.pixelFormat()
        let frameLimit = try parsed.integer("frames", in: 1...Int.max)
        let outputPath = parsed.values["output"]
        let writesY4M: Bool
        switch parsed.values["format"] {
        case nil: writesY4M = outputPath == "-" || outputPath?.lowercased().hasSuffix(".y4m") == true
        case "y4m": writesY4M = true
        case "yuv", "raw": writesY4M = false
        case let other?: throw .usage("option '--format' takes y4m or yuv, not '\(other)'")
        }
        if writesY4M, let requestedFormat, Y4MHeader.colorspaceTag(for: requestedFormat, chromaLocation: .left) == nil {
            throw .usage(
                "Y4M cannot carry \(requestedFormat) pictures; write raw planes (-o OUT.yuv), or choose a planar "
                    + "--pixel-format (y420, y422, y444, y0l0, y2l0, y4l0)")
        }
        var deinterlacer: Deinterlacer? = nil
        if let mode = parsed.values["deinterlace"] { deinterlacer = try Self.deinterlacer(named: mode) }
        let source = try openInput(path, track: try parsed.track(), frameRate: try parsed.frameRate())
        // Y4M is planar: pictures from the GPU (NV12/P010) are converted to the planar format the
        // CPU decodes to. (A CPU session hands that format out without a copy, see DecodeLoop.)
        let planar = DecompressionSession.planarPixelFormat(for: source.formatDescription)
        let pixelFormat = requestedFormat ?? (writesY4M ? planar : nil)
        let output = try outputPath.map { (path) throws(CommandFailure) in try OutputFile(path: path) }
        let summaryToStandardError = outputPath == "-"
        var timing = source.streamTiming
        if deinterlacer?.rate == .field { timing.frameRate.num *= 2 }
        // A scaled picture's aspect ratio is its own (the scale keeps the displayed shape).
        if try parsed.scale() != nil { timing.containerAspectRatio = nil }
        let writer = PictureWriter(output: output, y4m: writesY4M, format: source.formatDescription, timing: timing)
        var attributes = try parsed.imageBufferAttributes(defaultFormat: pixelFormat)
        var stage: DeinterlacingStage?
        if let deinterlacer {
            // The fields are deinterlaced as decoded (a GPU surface on its GPU), then converted
            // and scaled: a picture scaled before would mix its fields.
            stage = DeinterlacingStage(
                deinterlacer, conversion: DeinterlacingStage.conversion(of: attributes, planar: planar),
                next: writer.add)
            attributes = attributes?.toneMapsHDRToSDR == true ? ImageBufferAttributes(toneMapsHDRToSDR: true) : nil
        }
        let total = [frameLimit, source.streamTiming.frameCount].compactMap { $0 }.min()
        let progress = ProgressBar(total: total)
        var report = try DecodeLoop.run(
            source: source, specification: specification, attributes: attributes, frameLimit: frameLimit,
            onFrame: { [stage] frame throws(CommandFailure) in
                if let stage { try stage.add(frame) } else { try writer.add(frame) }
            },
            progress: { progress.update(frames: $0) }, fieldMode: try parsed.fieldMode())
        if let stage {
            try stage.finish()
            report.deinterlacingPath = deinterlacer?.path
            report.pixelTransferPath = stage.transferPath
            report.addUnreadablePictures(stage.unreadable)
        }
        progress.finish(frames: report.frames)
        try output?.flush()
        let lines = summary(report, source: source, output: output, y4m: writesY4M, deinterlacer: deinterlacer)
        for line in lines {
            if summaryToStandardError { printError(line) } else { print(line) }
        }
        if report.frames == 0 { throw .input("\(path): no picture could be decoded") }
        if let failure = report.failure { throw failure }
    }

    /// The deinterlacer `--deinterlace MODE` names.
    static func deinterlacer(named mode: String) throws(CommandFailure) -> Deinterlacer {
        let parts = mode.split(separator: "-", maxSplits: 1).map(String.init)
        guard let method = Deinterlacer.Method(rawValue: parts[0]), parts.count == 1 || parts[1] == "field" else {
            throw .usage("option '--deinterlace' takes bwdif, yadif, bwdif-field or yadif-field, not '\(mode)'")
        }
        return Deinterlacer(method: method, rate: parts.count == 2 ? .field : .frame)
    }

    static func summary(
        _ report: DecodeReport, source: SampleSource, output: OutputFile?, y4m: Bool, deinterlacer: Deinterlacer? = nil
    ) -> [String] {
        var lines = [
            "input: \(source.name) (\(source.containerName)), "
                + "\(source.formatDescription)",
            "decoder: \(report.decoderLine)",
            "frames: \(report.frames) decoded from \(report.samples) samples in \(fixed(report.seconds, 2)) s "
                + "(\(fixed(report.framesPerSecond, 1)) fps), \(report.errors) with errors, \(report.dropped) dropped",
        ]
        if let track = source.trackLine { lines.insert("track: \(track)", at: 1) }
        if let deinterlacing = report.deinterlacingLine { lines.append(deinterlacing) }
        if let conversion = report.conversionLine { lines.append(conversion) }
        lines += report.problemLines
        if let output { lines.append("output: \(output.name) (\(y4m ? "YUV4MPEG2" : "raw planes"))") }
        if let deinterlacer {
            lines.append(
                "deinterlaced: \(deinterlacer.method.rawValue), a picture per \(deinterlacer.rate.rawValue) "
                    + (deinterlacer.path == .gpu
                        ? "(VA-API motion-adaptive deinterlacing, on the GPU)" : "(libavfilter, on the CPU)"))
        }
        for problem in source.diagnostics.prefix(3) { lines.append("warning: \(problem.reason)") }
        return lines
    }
}

/// Writes pictures to the output as Y4M or raw. Touched only from the session's serial output
/// handler, and by the main thread after the session has finished.
final class PictureWriter: @unchecked Sendable {
    private let output: OutputFile?
    private let y4m: Bool
    private let format: VideoFormatDescription
    private let timing: StreamTiming

    init(output: OutputFile?, y4m: Bool, format: VideoFormatDescription, timing: StreamTiming) {
        self.output = output
        self.y4m = y4m
        self.format = format
        self.timing = timing
    }

    private var size: (width: Int, height: Int)?

    func add(_ frame: DecodedFrame) throws(CommandFailure) {
        guard let output else { return }
        if y4m {
            if frame.index == 0 {
                try output.append(try Y4MHeader.line(first: frame.image, format: format, timing: timing))
                size = (frame.image.width, frame.image.height)
            } else if let size, size != (frame.image.width, frame.image.height) {
                throw .input(
                    "the picture size changes from \(size.width)x\(size.height) to "
                        + "\(frame.image.width)x\(frame.image.height) at picture \(frame.index); Y4M has one size "
                        + "per file: write raw planes (-o OUT.yuv) instead")
            }
            try output.append("FRAME\n")
        }
        try appendPlanes(of: frame.image, to: output)
    }
}

/// A one-line progress bar on standard error, drawn only when standard error is a terminal.
final class ProgressBar {
    private let total: Int?
    private let enabled = isatty(STDERR_FILENO) == 1
    private let start = DispatchTime.now().uptimeNanoseconds
    private var drawn = false

    init(total: Int?) { self.total = total }

    func update(frames: Int) {
        guard enabled else { return }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let fps = seconds > 0 ? Double(frames) / seconds : 0
        var line = "\r\(frames) frames, \(fixed(fps, 1)) fps"
        if let total, total > 0 {
            let done = min(1, Double(frames) / Double(total))
            let width = 30
            let filled = Int(done * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            let eta = fps > 0 ? Double(total - frames) / fps : 0
            line = "\r[\(bar)] \(frames)/\(total) frames, \(fixed(fps, 1)) fps, ETA \(fixed(max(0, eta), 1)) s"
        }
        printErrorRaw(line + "\u{1B}[K")
        drawn = true
    }

    func finish(frames: Int) {
        guard enabled, drawn else { return }
        printErrorRaw("\r\u{1B}[K")
    }

    private func printErrorRaw(_ text: String) { writeAll(STDERR_FILENO, Array(text.utf8)) }
}

/// Passes each decoded picture through a ``Deinterlacer`` and its progressive pictures on, numbered
/// anew, converted to the format and size asked for (a ``PixelTransferSession``: on the GPU for a
/// GPU surface where the driver can). Touched only from the session's serial output handler, and
/// by the main thread after the session has finished.
final class DeinterlacingStage: @unchecked Sendable {
    private let deinterlacer: Deinterlacer
    private let conversion: (format: PixelFormat, width: Int?, height: Int?)?
    private let transfer = PixelTransferSession()
    private let next: (DecodedFrame) throws(CommandFailure) -> Void
    private var count = 0
    private var damaged = false

    init(
        _ deinterlacer: Deinterlacer, conversion: (format: PixelFormat, width: Int?, height: Int?)?,
        next: @escaping (DecodedFrame) throws(CommandFailure) -> Void
    ) {
        self.deinterlacer = deinterlacer
        self.conversion = conversion
        self.next = next
    }

    /// Where the last picture was converted; nil when none was.
    var transferPath: PixelTransferPath? { conversion == nil ? nil : transfer.lastTransferPath }
    /// Deinterlaced pictures left out because their conversion failed (a GPU picture that could
    /// not be read back), with why: counted as frames with errors, never written as nothing.
    private(set) var unreadable: [String] = []

    /// The conversion after deinterlacing that `attributes` ask of the session's pictures: their
    /// format (`planar`, the stream's planar layout, when only a size is asked) and size.
    static func conversion(
        of attributes: ImageBufferAttributes?, planar: PixelFormat
    ) -> (format: PixelFormat, width: Int?, height: Int?)? {
        guard let attributes, attributes.pixelFormat != nil || attributes.width != nil || attributes.height != nil
        else { return nil }
        return (attributes.pixelFormat ?? planar, attributes.width, attributes.height)
    }

    func add(_ frame: DecodedFrame) throws(CommandFailure) {
        damaged = frame.damaged
        try pass(
            try deinterlaced { () throws(VTError) in
                try deinterlacer.deinterlace(frame.image, presentationTimeStamp: frame.presentationTimeStamp)
            })
    }

    /// Passes on the pictures the deinterlacer still holds.
    func finish() throws(CommandFailure) {
        try pass(try deinterlaced { () throws(VTError) in try deinterlacer.finish() })
    }

    private func deinterlaced(_ body: () throws(VTError) -> [Deinterlacer.Output]) throws(CommandFailure)
        -> [Deinterlacer.Output]
    {
        do throws(VTError) { return try body() } catch { throw CommandFailure(error) }
    }

    private func pass(_ outputs: [Deinterlacer.Output]) throws(CommandFailure) {
        for output in outputs {
            var image = output.image
            if let conversion {
                do throws(VTError) {
                    image = try transfer.transferImage(
                        image, pixelFormat: conversion.format, width: conversion.width, height: conversion.height)
                } catch {
                    unreadable.append("deinterlaced picture \(count): it could not be converted: \(error.description)")
                    count += 1
                    continue
                }
            }
            try next(
                DecodedFrame(
                    index: count, position: count, image: image,
                    presentationTimeStamp: output.presentationTimeStamp, releasedAt: .invalid, damaged: damaged))
            count += 1
        }
    }
}
