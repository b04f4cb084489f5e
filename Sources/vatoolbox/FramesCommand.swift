import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// `vatoolbox frames`: some pictures of a file, by number or time, through a ``FrameSampler``.
enum FramesCommand {
    static let usage = """
        usage: vatoolbox frames INPUT (--at N,N,… | --times SECONDS,… | --every N) (-o DIR | --md5)
                                [--format png|raw] [--width W] [--accuracy exact|nearest-sync]
                                [--hwaccel auto|vaapi|none] [--device PATH] [--threads N] [--track N]
                                [--frame-rate RATE]

        Writes the pictures asked for, each decoded once from the sync sample it needs, the groups of
        pictures in between never decoded, and the pictures nothing refers to skipped. Frame numbers
        count the pictures shown, from 0, as ffmpeg's select=eq(n\\,N) and the lines of
        `ffmpeg -fps_mode passthrough -f framemd5` count them.

              --at N,N,…        the frame numbers
              --times S,S,…     the pictures shown at these times (seconds from the start of the file)
              --every N         every Nth picture, from 0
          -o, --output DIR      the folder to write to (made if missing): frame-NNNNNN.png, or .yuv
              --format png|raw  PNG (RGB), or the decoder's planar samples as ffmpeg -f rawvideo
                                writes them (default png)
              --width W         scale to W pixels wide; the height follows the display aspect
              --accuracy exact|nearest-sync
                                the very pictures (default), or the nearest sync sample's ones
              --md5             print "N PTS MD5" per picture (the MD5 of the planar samples, as
                                ffmpeg -f framemd5 hashes them) instead of writing files
              --track N         the video track, by stream index (default: the one ffmpeg picks)
              --frame-rate RATE the frame rate of a raw stream that states none (default 25)

        The summary on standard error says how many samples were read and decoded, and how many
        disposable ones were skipped. A picture that cannot be decoded, damaged samples and a file cut
        short ("INPUT is truncated: … (partial file)") are listed on standard error after the pictures
        are written, and the exit status is then 1.
        """

    static func run(_ arguments: [String]) throws(CommandFailure) {
        let parsed = try ParsedArguments.parse(
            arguments,
            options: decoderOptions + inputOptions + [
                OptionSpec(name: "at"), OptionSpec(name: "times"), OptionSpec(name: "every"),
                OptionSpec(name: "output", short: "o"), OptionSpec(name: "format"), OptionSpec(name: "width"),
                OptionSpec(name: "accuracy"), OptionSpec(name: "md5", takesValue: false),
            ])
        if parsed.wantsHelp {
            print(usage)
            return
        }
        let path = try parsed.singleInput()
        guard path != "-" else { throw .usage("frames indexes its input first; give a file, not standard input") }
        let printsMD5 = parsed.flags.contains("md5")
        let folder = parsed.values["output"]
        guard printsMD5 || folder != nil else { throw .usage("give -o DIR or --md5") }
        let raw: Bool
        switch parsed.values["format"] ?? "png" {
        case "png": raw = false
        case "raw": raw = true
        case let other: throw .usage("option '--format' takes png or raw, not '\(other)'")
        }
        let accuracy: SamplingAccuracy
        switch parsed.values["accuracy"] ?? "exact" {
        case "exact": accuracy = .exact
        case "nearest-sync": accuracy = .nearestSyncSample
        case let other: throw .usage("option '--accuracy' takes exact or nearest-sync, not '\(other)'")
        }
        let selections = ["at", "times", "every"].filter { parsed.values[$0] != nil }
        guard selections.count == 1 else { throw .usage("give one of --at, --times and --every") }
        let width = try parsed.integer("width", in: 16...16384)

        let probe = try openInput(path, track: try parsed.track(), frameRate: try parsed.frameRate())
        let format = probe.formatDescription
        var attributes: ImageBufferAttributes?
        if raw || printsMD5 {
            attributes = ImageBufferAttributes(pixelFormat: DecompressionSession.planarPixelFormat(for: format))
        }
        if let width {
            var scaled = attributes ?? ImageBufferAttributes(pixelFormat: .bgra)
            scaled.width = width
            scaled.height = ThumbnailsCommand.height(forWidth: width, of: format)
            attributes = scaled
        }
        let (track, frameRate, specification) = (
            try parsed.track(), try parsed.frameRate(), try parsed.decoderSpecification()
        )
        let sampler: FrameSampler
        do throws(VTError) {
            sampler = try FrameSampler(
                path: path, track: track, frameRate: frameRate,
                decoderSpecification: specification, imageBufferAttributes: attributes)
        } catch {
            throw CommandFailure(error)
        }
        let numbers = try requestedNumbers(parsed, sampler: sampler, startTime: probe.reader?.startTime ?? .zero)
        if let folder, !printsMD5 { try makeFolder(folder) }

        let frames: [SampledFrame]
        do throws(VTError) {
            frames = try sampler.frames(at: numbers, accuracy: accuracy)
        } catch {
            throw CommandFailure(error)
        }
        var failures = 0
        for frame in frames {
            guard let image = frame.image else {
                failures += 1
                printError("picture \(frame.number): \(frame.status?.description ?? "no picture")")
                continue
            }
            if printsMD5 {
                let time = frame.presentationTimeStamp
                print("\(frame.number) \(time.isNumeric ? String(time.value) : "-") \(image.md5)")
                continue
            }
            guard let folder else { continue }
            let name =
                "\(folder)/frame-\(String(repeating: "0", count: max(0, 6 - String(frame.number).count)))\(frame.number)"
            if raw {
                let output = try OutputFile(path: name + ".yuv")
                try appendPlanes(of: image, to: output)
                try output.flush()
            } else {
                let png: [UInt8]
                do throws(VTError) {
                    png = try image.pngData()
                } catch {
                    throw CommandFailure(error)
                }
                let output = try OutputFile(path: name + ".png")
                try output.append(bytes: png)
                try output.flush()
            }
        }
        let statistics = sampler.statistics
        let index = sampler.index
        printError(
            "\(frames.count) pictures of \(index.frameCount) (\(index.samples.count) samples): read \(statistics.samplesRead), "
                + "decoded \(statistics.samplesDecoded), skipped \(statistics.disposableSamplesSkipped) disposable, "
                + "\(statistics.runs) runs, \(statistics.seeks) seeks"
                + (sampler.usingHardwareAcceleratedVideoDecoder == true ? ", on the GPU" : ", on the CPU"))
        // A file cut short or with damaged samples says so, and exits with 1, as decode does.
        var problems: [String] = []
        if let truncation = index.truncation { problems.append("\(path) is truncated: \(truncation)") }
        if index.damagedSampleCount > 0 { problems.append("damaged samples: \(index.damagedSampleCount)") }
        if failures > 0 { problems.append("\(failures) pictures could not be decoded") }
        for line in problems.dropLast() { printError(line) }
        if let last = problems.last { throw .input(last) }
    }

    /// The frame numbers `--at`, `--times` or `--every` asks for.
    private static func requestedNumbers(_ parsed: ParsedArguments, sampler: FrameSampler, startTime: MediaTime)
        throws(CommandFailure) -> [Int]
    {
        let frameCount = sampler.index.frameCount
        if let every = parsed.values["every"] {
            guard let step = Int(every), step >= 1 else {
                throw .usage("option '--every' needs a whole number, at least 1, not '\(every)'")
            }
            return Array(stride(from: 0, to: frameCount, by: step))
        }
        if let list = parsed.values["at"] {
            return try list.split(separator: ",").map { (text) throws(CommandFailure) -> Int in
                guard let number = Int(text), number >= 0 else {
                    throw .usage("option '--at' takes frame numbers from 0, not '\(text)'")
                }
                guard number < frameCount else {
                    throw .input(
                        "\(sampler.path) has \(frameCount) pictures, numbered from 0: there is no picture \(number)")
                }
                return number
            }
        }
        let times = try (parsed.values["times"] ?? "").split(separator: ",").map {
            (text) throws(CommandFailure) -> MediaTime in
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
                throw .usage("option '--times' takes times in seconds, at least 0, not '\(text)'")
            }
            return startTime + MediaTime(seconds: seconds, preferredTimescale: 90_000)
        }
        do throws(VTError) {
            return try sampler.numbers(atTimes: times)
        } catch {
            throw .input(error.reason)
        }
    }

    /// Makes `path` a folder, unless it is one.
    private static func makeFolder(_ path: String) throws(CommandFailure) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw .input("\(path) exists and is not a folder") }
            return
        }
        guard mkdir(path, 0o755) == 0 else { throw .input("cannot make the folder \(path): \(systemError())") }
    }
}
