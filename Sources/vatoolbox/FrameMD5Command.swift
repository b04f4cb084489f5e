import Synchronization
import VAToolbox

/// `vatoolbox framemd5`: one MD5 per decoded picture, in the exact format of
/// `ffmpeg -i INPUT -f framemd5 -`, so the two outputs diff cleanly.
enum FrameMD5Command {
    static let usage = """
        usage: vatoolbox framemd5 INPUT [--pixel-format FOURCC] [--scale WxH] [--field-mode MODE] [--tonemap]
                                        [--deinterlace bwdif|yadif[-field]] [--hwaccel auto|vaapi|none]
                                        [--device PATH] [--threads N] [--track N] [--frame-rate RATE] [-o OUT]

        Decodes INPUT (raw .264/.265 Annex B, IVF, .obu, .m2v, MP4, MKV/WebM, TS …; - for standard input;
        H.264, HEVC, AV1, VP9, VP8 or MPEG-2) and prints one line
        per picture in presentation order — stream, dts, pts, duration, size, MD5 of the samples — with
        the header of `ffmpeg -i INPUT -f framemd5 -`: the time base is one frame at the frame rate the
        ffmpeg CLI picks, sizes and hashes are of the pictures in the native (or --pixel-format) format.

          -o, --output OUT         write to OUT instead of standard output
              --pixel-format FOURCC  hash pictures converted to FOURCC (420v, x420, y420, BGRA …),
                                   like ffmpeg's -pix_fmt
              --scale WxH          hash pictures scaled to W x H (bicubic, as ffmpeg's -s)
              --field-mode MODE    the session's field mode: both (as decoded), top or bottom (one field,
                                   ffmpeg's -vf field=type=…), single (the top one), deinterlace (the
                                   vertical filter, ffmpeg's -vf pp=lb)
              --deinterlace MODE   deinterlace as ffmpeg's -vf MODE=mode=send_frame (or send_field for
                                   MODE-field) does, then convert and scale: bwdif on the GPU where the
                                   driver's motion-adaptive deinterlacing takes the next picture, else
                                   libavfilter's bwdif or yadif on the CPU
              --tonemap            tone map HDR pictures (PQ, HLG) to SDR BT.709 in 8 bits: on the GPU where
                                   the driver can, else ffmpeg's -vf zscale=t=linear:npl=100,format=gbrpf32le,
                                   zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,
                                   format=yuv420p (yuv420p on the CPU, NV12 on the GPU unless --pixel-format)
              --hwaccel MODE       auto (GPU when usable), vaapi (GPU or fail), none (CPU)
              --device PATH        the DRM render node to use, e.g. /dev/dri/renderD128
              --threads N          software decoding threads (0: one per core)
              --gpu-timeout MS     the longest wait for one GPU call before the GPU counts as hung
              --track N            the video track, by stream index (like ffmpeg's -map 0:N)
              --frame-rate RATE    the frame rate of a raw stream that states none (24, 30000/1001),
                                   like ffmpeg's -framerate; 25 by default

        Damaged samples do not stop it: their pictures are hashed as ffmpeg decodes them, and standard
        error then lists the damaged samples and frames with errors; the exit status is 1. So is it when
        the file is truncated (cut short: "INPUT is truncated: … (partial file)" on standard error).
        """

    static func run(_ arguments: [String]) throws(CommandFailure) {
        let parsed = try ParsedArguments.parse(
            arguments,
            options: decoderOptions + inputOptions + pictureOptions + [
                OptionSpec(name: "output", short: "o"), OptionSpec(name: "deinterlace"),
            ])
        if parsed.wantsHelp {
            print(usage)
            return
        }
        let path = try parsed.singleInput()
        let specification = try parsed.decoderSpecification()
        var attributes = try parsed.imageBufferAttributes()
        let fieldMode = try parsed.fieldMode()
        let deinterlacer = try parsed.values["deinterlace"].map(DecodeCommand.deinterlacer(named:))
        let source = try openInput(path, track: try parsed.track(), frameRate: try parsed.frameRate())
        let output = try OutputFile(path: parsed.values["output"] ?? "-")
        var timing = source.streamTiming
        // A scaled picture's aspect ratio is its own (the scale keeps the displayed shape), as
        // the header of ffmpeg's -s output says; the container's is for the decoded size.
        if attributes?.width != nil || attributes?.height != nil { timing.containerAspectRatio = nil }
        if deinterlacer?.rate == .field { timing.frameRate.num *= 2 }
        let hasher = FrameHasher(
            output: output, timing: timing,
            reorderDelay: deinterlacer == nil ? source.formatDescription.stream.maxNumReorderFrames : 0)
        var stage: DeinterlacingStage?
        if let deinterlacer {
            let planar = DecompressionSession.planarPixelFormat(for: source.formatDescription)
            stage = DeinterlacingStage(
                deinterlacer, conversion: DeinterlacingStage.conversion(of: attributes, planar: planar),
                next: hasher.add)
            attributes = attributes?.toneMapsHDRToSDR == true ? ImageBufferAttributes(toneMapsHDRToSDR: true) : nil
        }
        var report = try DecodeLoop.run(
            source: source, specification: specification, attributes: attributes,
            onFrame: { [stage] frame throws(CommandFailure) in
                if let stage { try stage.add(frame) } else { try hasher.add(frame) }
            },
            onSample: { hasher.record($0) }, fieldMode: fieldMode)
        if let stage {
            try stage.finish()
            report.deinterlacingPath = deinterlacer?.path
            report.pixelTransferPath = stage.transferPath
            report.addUnreadablePictures(stage.unreadable)
        }
        report.addUnreadablePictures(hasher.unreadable)
        try output.flush()
        guard report.frames > 0 else { throw .input("\(path): no picture could be decoded") }
        // Where GPU pictures were converted, and why not on the GPU (the CPU's own need no line).
        if report.usedHardware, let deinterlacing = report.deinterlacingLine { printError(deinterlacing) }
        if report.usedHardware, let conversion = report.conversionLine { printError(conversion) }
        for line in report.problemLines { printError(line) }
        if let failure = report.failure { throw failure }
    }
}

/// Formats framemd5 lines. `add` runs on the session's serial output handler, `record` on the
/// main thread; the decode time stamps they share are behind a lock, the rest is touched by `add`
/// alone (and by the main thread after the session has finished).
final class FrameHasher: @unchecked Sendable {
    private let output: OutputFile
    private let timing: StreamTiming
    private let reorderDelay: Int
    private var startTime: MediaTime?
    private var nextPTS: Int64 = 0
    /// libavcodec's `guess_correct_pts` state: how many presentation and decode time stamps did
    /// not increase, and the last of each.
    private var faultyPresentationTimes = 0
    private var faultyDecodeTimes = 0
    private var lastPresentationTime: MediaTime?
    private var lastDecodeTime: MediaTime?
    /// Each sample's decode time stamp, in decode order.
    private let decodeTimes = Mutex<[MediaTime]>([])

    init(output: OutputFile, timing: StreamTiming, reorderDelay: Int) {
        self.output = output
        self.timing = timing
        self.reorderDelay = max(0, reorderDelay)
        startTime = timing.startTime
    }

    /// Notes a sample's decode time stamp, before it is decoded.
    func record(_ sample: SampleBuffer) {
        decodeTimes.withLock { $0.append(sample.decodeTimeStamp) }
    }

    /// The header of `ffmpeg -f framemd5` (version 2), for the first picture.
    static func header(first image: PixelBuffer, timing: StreamTiming) -> String {
        let version = LinkedLibraries.all.first { $0.name == "libavformat" }?.version ?? "0.0.0"
        let sar = timing.aspectRatio(of: image).map { "\($0.horizontalSpacing)/\($0.verticalSpacing)" } ?? "0/1"
        let timeBase = reduced(timing.timeBase.num, timing.timeBase.den)
        return """
            #format: frame checksums
            #version: 2
            #hash: MD5
            #software: Lavf\(version)
            #tb 0: \(timeBase.num)/\(timeBase.den)
            #media_type 0: video
            #codec_id 0: rawvideo
            #dimensions 0: \(image.width)x\(image.height)
            #sar 0: \(sar)
            #stream#, dts,        pts, duration,     size, hash

            """
    }

    /// Pictures that could not be hashed: GPU pictures that could not be read back, with why.
    private(set) var unreadable: [String] = []
    /// The header goes before the first picture hashed (or left out).
    private var wroteHeader = false

    func add(_ frame: DecodedFrame) throws(CommandFailure) {
        if !wroteHeader {
            try output.append(Self.header(first: frame.image, timing: timing))
            wroteHeader = true
        }
        guard let pts = timestamp(of: frame) else { return }
        let size = frame.image.rawVideoByteCount
        let md5: String
        do throws(VTError) {
            md5 = try frame.image.samplesMD5()
        } catch {
            // Left out and counted as a frame with an error, never hashed as nothing.
            unreadable.append("picture \(frame.index): it could not be read back from the GPU: \(error.description)")
            return
        }
        try output.append("0, \(pad(pts, 10)), \(pad(pts, 10)), \(pad(1, 8)), \(pad(Int64(size), 8)), \(md5)\n")
    }

    /// libavcodec's `best_effort_timestamp` (`guess_correct_pts` in `decode.c`): the picture's
    /// presentation time stamp, unless more of those than of the releasing samples' decode time
    /// stamps failed to increase so far (an MP4 remuxed from a raw stream, whose presentation
    /// time stamps are its decode time stamps), or it has none (an MPEG-2 elementary stream's I
    /// and P pictures); then the decode time stamp of the sample that released it. Nil when the
    /// picture has neither.
    private func bestEffortTime(of frame: DecodedFrame) -> MediaTime? {
        let presentation = frame.presentationTimeStamp.isNumeric ? frame.presentationTimeStamp : nil
        let decode = frame.releasedAt.isNumeric ? frame.releasedAt : nil
        if let decode {
            if let last = lastDecodeTime, decode <= last { faultyDecodeTimes += 1 }
            lastDecodeTime = decode
        } else if let presentation {
            lastDecodeTime = presentation
        }
        if let presentation {
            if let last = lastPresentationTime, presentation <= last { faultyPresentationTimes += 1 }
            lastPresentationTime = presentation
        } else if let decode {
            lastPresentationTime = decode
        }
        if let presentation, faultyPresentationTimes <= faultyDecodeTimes || decode == nil { return presentation }
        return decode
    }

    /// The time the ffmpeg CLI gives a picture libavcodec gives none (an MPEG-2 elementary
    /// stream's last anchor picture, released by the end of the stream): the decode time stamp
    /// of the sample `reorderDelay` after it in decode order or, past the last sample, the CLI's
    /// prediction (the last decode time stamp plus a frame per sample). Nil when the samples
    /// carry no time stamps at all.
    private func guessedTime(of frame: DecodedFrame) -> MediaTime? {
        let position = frame.position + reorderDelay
        return decodeTimes.withLock { times -> MediaTime? in
            if position < times.count, times[position].isNumeric { return times[position] }
            guard position >= times.count, let last = times.lastIndex(where: \.isNumeric) else { return nil }
            let frames = Double(position - last) * Double(timing.frameRate.den) / Double(timing.frameRate.num)
            return times[last] + MediaTime(seconds: frames, preferredTimescale: times[last].timescale)
        }
    }

    /// The ffmpeg CLI's output time stamp for a picture (its `-vsync vfr` rule, which framemd5
    /// selects): the picture's time (less the file's start time) in frames, rounded, unless that
    /// is not after the previous one, in which case the next number; nil for a picture ffmpeg drops.
    private func timestamp(of frame: DecodedFrame) -> Int64? {
        defer { nextPTS += 1 }
        var time = bestEffortTime(of: frame) ?? .invalid
        if !time.isNumeric, let guess = guessedTime(of: frame) { time = guess }
        guard time.isNumeric else { return nextPTS }
        if startTime == nil { startTime = time }
        guard let startTime else { return nextPTS }
        let frames = (time - startTime).seconds * Double(timing.frameRate.num) / Double(timing.frameRate.den)
        let delta = frames - Double(nextPTS) + 1
        if delta <= -0.6 {
            nextPTS -= 1
            return nil
        }
        if delta > 0.6, let jumped = Int64(exactly: frames.rounded(.toNearestOrAwayFromZero)) { nextPTS = jumped }
        return nextPTS
    }

    private func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
