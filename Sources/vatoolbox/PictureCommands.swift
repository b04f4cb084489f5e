import Synchronization
import VAToolbox

/// `vatoolbox snapshot`: one picture as PNG.
enum SnapshotCommand {
    static let usage = """
        usage: vatoolbox snapshot INPUT (--frame N | --time SECONDS) -o OUT.png [--hwaccel auto|vaapi|none]
                                  [--device PATH] [--threads N] [--track N] [--frame-rate RATE]

        Decodes INPUT up to picture N (counted from 0 in presentation order, like ffmpeg's
        select=eq(n\\,N)) and writes it as an RGB PNG (libavcodec's PNG encoder), at the stream's size.
        With --time, seeks to the sync sample at or before SECONDS and writes the first picture at or
        after SECONDS, decoding at most from that sync sample (like ffmpeg -ss SECONDS -i INPUT -frames:v 1).

              --frame N        the picture to write (default 0)
              --time SECONDS   the time of the picture, from the start of the file (a raw stream is
                               decoded from its start)
              --track N        the video track, by stream index (default: the one ffmpeg picks)
              --frame-rate RATE  the frame rate of a raw stream that states none (default 25)
          -o, --output OUT     the PNG file to write
        """

    static func run(_ arguments: [String]) throws(CommandFailure) {
        let parsed = try ParsedArguments.parse(
            arguments,
            options: decoderOptions + inputOptions + [
                OptionSpec(name: "frame"), OptionSpec(name: "time"), OptionSpec(name: "output", short: "o"),
            ])
        if parsed.wantsHelp {
            print(usage)
            return
        }
        let path = try parsed.singleInput()
        guard let outputPath = parsed.values["output"] else { throw .usage("missing -o OUT.png") }
        let seconds = try parsed.values["time"].map { (text) throws(CommandFailure) -> Double in
            guard let value = Double(text), value.isFinite, value >= 0 else {
                throw .usage("option '--time' needs a time in seconds, at least 0, not '\(text)'")
            }
            return value
        }
        guard seconds == nil || parsed.values["frame"] == nil else {
            throw .usage("give --frame or --time, not both")
        }
        let wanted = seconds == nil ? try parsed.integer("frame") ?? 0 : 0
        let specification = try parsed.decoderSpecification()
        let source = try openInput(path, track: try parsed.track(), frameRate: try parsed.frameRate())
        if let seconds { try source.seek(toSeconds: seconds) }
        let captured = Mutex<RGBImage?>(nil)
        let report = try DecodeLoop.run(
            source: source, specification: specification, attributes: ImageBufferAttributes(pixelFormat: .bgra),
            frameLimit: wanted + 1,
            onFrame: { frame in
                if frame.index == wanted {
                    let image = RGBImage(bgra: frame.image)
                    captured.withLock { $0 = image }
                }
            })
        guard let image = captured.withLock({ $0 }) else {
            if let seconds { throw .input("\(path) has no picture at or after \(seconds) s") }
            throw .input("\(path) has \(report.frames) pictures; there is no picture \(wanted)")
        }
        try image.writePNG(to: outputPath)
        let which = seconds.map { "the picture at \($0) s" } ?? "picture \(wanted)"
        print("wrote \(which) (\(image.width)x\(image.height)) to \(outputPath)")
    }
}

/// `vatoolbox thumbnails`: a contact sheet.
enum ThumbnailsCommand {
    static let usage = """
        usage: vatoolbox thumbnails INPUT -o OUT.png [--count N] [--width W] [--columns C]
                                    [--hwaccel auto|vaapi|none] [--device PATH] [--threads N] [--track N]
                                    [--frame-rate RATE]

        Decodes INPUT and writes a contact sheet: N pictures spread evenly over the stream, each scaled
        to W pixels wide (the height follows the picture's display aspect), in a grid, with the
        picture's number and time stamp under it. INPUT must be a file: it is indexed first, then
        each picture's group of pictures is decoded once, up to the picture (vatoolbox frames).

              --count N     pictures on the sheet (default 12)
              --width W     width of each picture in pixels (default 240)
              --columns C   pictures per row (default 4, or N when fewer)
          -o, --output OUT  the PNG file to write
              --track N     the video track, by stream index (default: the one ffmpeg picks)
              --frame-rate RATE  the frame rate of a raw stream that states none (default 25)

        Damaged samples do not stop it; they, frames with errors and a file cut short ("INPUT is
        truncated: … (partial file)") are listed on standard error after the sheet is written, and the
        exit status is then 1.
        """

    static func run(_ arguments: [String]) throws(CommandFailure) {
        let parsed = try ParsedArguments.parse(
            arguments,
            options: decoderOptions + inputOptions + [
                OptionSpec(name: "count"), OptionSpec(name: "width"), OptionSpec(name: "columns"),
                OptionSpec(name: "output", short: "o"),
            ])
        if parsed.wantsHelp {
            print(usage)
            return
        }
        let path = try parsed.singleInput()
        guard path != "-" else { throw .usage("thumbnails indexes its input first; give a file, not standard input") }
        guard let outputPath = parsed.values["output"] else { throw .usage("missing -o OUT.png") }
        let count = try parsed.integer("count", in: 1...1000) ?? 12
        let thumbnailWidth = try parsed.integer("width", in: 16...4096) ?? 240
        let columns = min(count, try parsed.integer("columns", in: 1...100) ?? 4)
        let specification = try parsed.decoderSpecification()

        // The sampler's index counts the pictures (two field samples make one, hidden VP8/VP9/AV1
        // frames none) without decoding; it then decodes each picked picture's group of pictures
        // once, up to the picture, skipping what nothing refers to.
        let track = try parsed.track()
        let frameRate = try parsed.frameRate()
        let probe = try openInput(path, track: track, frameRate: frameRate)
        let format = probe.formatDescription
        let sampler: FrameSampler
        do throws(VTError) {
            sampler = try FrameSampler(
                path: path, track: track, frameRate: frameRate, decoderSpecification: specification,
                imageBufferAttributes: ImageBufferAttributes(
                    pixelFormat: .bgra, width: thumbnailWidth, height: height(forWidth: thumbnailWidth, of: format)))
        } catch {
            throw CommandFailure(error)
        }
        let index = sampler.index
        let total = index.frameCount
        guard total > 0 else { throw .input("\(path): no picture could be decoded") }
        let picks = Array(Set((0..<count).map { ($0 * total + total / 2) / count })).sorted()
        let frames: [SampledFrame]
        do throws(VTError) {
            frames = try sampler.frames(at: picks)
        } catch {
            throw CommandFailure(error)
        }
        let start = index.frames.first?.presentationTimeStamp ?? .invalid
        let timeBase = probe.streamTiming.timeBase
        var thumbnails: [(RGBImage, String)] = []
        var problems: [String] = []
        for frame in frames {
            if let status = frame.status { problems.append("picture \(frame.number): \(status.description)") }
            guard let image = frame.image else { continue }
            let time = frame.presentationTimeStamp
            let seconds =
                start.isNumeric && time.isNumeric
                ? (time - start).seconds : Double(frame.number) * Double(timeBase.num) / Double(timeBase.den)
            thumbnails.append((RGBImage(bgra: image), "#\(frame.number) \(clockTime(seconds))"))
        }
        guard !thumbnails.isEmpty else { throw .input("\(path): no picture could be decoded") }
        let sheet = layout(thumbnails, columns: columns)
        try sheet.writePNG(to: outputPath)
        print("wrote a contact sheet of \(thumbnails.count) pictures (\(sheet.width)x\(sheet.height)) to \(outputPath)")
        if let truncation = index.truncation { problems.insert("\(path) is truncated: \(truncation)", at: 0) }
        if index.damagedSampleCount > 0 { problems.append("damaged samples: \(index.damagedSampleCount)") }
        for line in problems { printError(line) }
        if !problems.isEmpty { throw .input(problems.joined(separator: "; ")) }
    }

    /// The height of a thumbnail `width` pixels wide of a picture of `format`, by its display
    /// aspect: even, at least 2, and at most 8 times the width (a stream may state any aspect
    /// ratio; a picture drawn more than 8 times as tall as wide is one no sheet can show).
    static func height(forWidth width: Int, of format: VideoFormatDescription) -> Int {
        let aspect =
            format.extensions.pixelAspectRatio.map { Double($0.horizontalSpacing) / Double($0.verticalSpacing) } ?? 1
        let displayWidth = Double(format.dimensions.width) * (aspect > 0 ? aspect : 1)
        let tallest = 8 * width
        let height = min(
            tallest,
            Int(exactly: (Double(width) * Double(format.dimensions.height) / displayWidth).rounded()) ?? tallest)
        return max(2, height + height % 2)
    }

    /// The grid: pictures left to right, top to bottom, each with its label under it.
    static func layout(_ items: [(RGBImage, String)], columns: Int) -> RGBImage {
        let margin = 8
        let cellWidth = items.map(\.0.width).max() ?? 0
        let cellHeight = items.map(\.0.height).max() ?? 0
        let scale = cellWidth >= 160 ? 2 : 1
        let labelHeight = BitmapFont.glyphHeight * scale + 6
        let rows = (items.count + columns - 1) / columns
        var sheet = RGBImage(
            width: margin + columns * (cellWidth + margin),
            height: margin + rows * (cellHeight + labelHeight + margin), fill: (24, 24, 24))
        for (position, item) in items.enumerated() {
            let x = margin + position % columns * (cellWidth + margin)
            let y = margin + position / columns * (cellHeight + labelHeight + margin)
            sheet.draw(item.0, x: x, y: y)
            BitmapFont.draw(item.1, into: &sheet, x: x, y: y + item.0.height + 4, scale: scale, colour: (235, 235, 235))
        }
        return sheet
    }
}
