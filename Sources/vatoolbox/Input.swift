import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a line to standard error.
func printError(_ text: String) {
    // write(2) on the descriptor, not the C `stderr` FILE global, which is shared mutable state.
    writeAll(STDERR_FILENO, Array((text + "\n").utf8))
}

/// Writes every byte to a descriptor; false when the write fails (for example a closed pipe).
@discardableResult
func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { buffer in writeAll(descriptor, buffer) }
}

/// Writes every byte of a buffer to a descriptor; false when the write fails.
@discardableResult
func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < buffer.count {
        let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            return false
        }
        offset += written
    }
    return true
}

/// The system's message for the current `errno`.
func systemError() -> String { String(cString: strerror(errno)) }

/// Tells raw Annex B streams from containers, and H.264 from HEVC.
enum StreamSniffer {
    static let hevcExtensions = [".265", ".h265", ".hevc", ".bit"]
    static let h264Extensions = [".264", ".h264", ".avc", ".jsv", ".26l", ".jvt"]

    /// Whether the name says raw Annex B (read by the elementary stream parser) rather than a
    /// container (read by libavformat). Standard input is always raw.
    static func isRawStream(path: String) -> Bool {
        let lower = path.lowercased()
        return path == "-" || (hevcExtensions + h264Extensions).contains(where: lower.hasSuffix)
    }

    /// By extension first; otherwise by the first parameter set's header under each codec's layout.
    static func codec(path: String, bytes: [UInt8]) -> VideoCodecType {
        let lower = path.lowercased()
        if hevcExtensions.contains(where: lower.hasSuffix) { return .hevc }
        if h264Extensions.contains(where: lower.hasSuffix) { return .h264 }
        for unit in AnnexB.split(bytes).prefix(8) where unit.count >= 2 {
            let first = unit[unit.startIndex]
            let hevcType = (first >> 1) & 0x3F
            if (32...35).contains(hevcType) && unit[unit.startIndex + 1] == 1 { return .hevc }
            if [7, 8, 9].contains(first & 0x1F) { return .h264 }
        }
        return .h264
    }
}

/// Where samples come from: a raw Annex B stream (a file or standard input) cut into access
/// units by an ``ElementaryStreamParser`` as it is read, or a container read by
/// ``MediaFileReader``. Samples come in decode order.
final class SampleSource {
    /// The input's name as given (`-` for standard input).
    let path: String
    /// H.264 or HEVC.
    let codec: VideoCodecType
    /// `"Annex B"` for raw streams, libavformat's name for containers.
    let containerName: String
    /// The format description of the first sample.
    let firstFormat: VideoFormatDescription

    /// The frame rate given for a raw stream that states none (`--frame-rate`).
    let frameRate: FrameRate?

    private var reader: MediaFileReader?
    private var parser: ElementaryStreamParser?
    /// For raw streams: the library's time stamper, which gives the samples ffmpeg's times.
    private var stamper: AnnexBTimeStamper?
    private var descriptor: Int32 = -1
    private var queued: [SampleBuffer] = []
    private var queuedIndex = 0
    /// For a raw stream after `seek(toSeconds:)`: samples shown before this time are decoded,
    /// not displayed (a raw stream has no index, so it is decoded from its start).
    private var hiddenBefore: MediaTime?
    private var finished = false

    /// Opens `path` (`-` for standard input).
    ///
    /// - Parameters:
    ///   - path: The file, or `-`.
    ///   - track: The stream index of the video track to read (`--track`); nil for the one the
    ///     ffmpeg CLI picks. Raw streams have one track, 0.
    ///   - frameRate: The frame rate of a raw stream that states none (`--frame-rate`).
    /// - Throws: A failure with exit status 1 when the file is missing, unreadable, not a media
    ///   file or has nothing decodable; 3 when its video is not H.264 or HEVC; 2 when `track` is
    ///   not one of its video tracks.
    init(path: String, track: Int? = nil, frameRate: FrameRate? = nil) throws(CommandFailure) {
        self.path = path
        self.frameRate = frameRate
        if path != "-" {
            var status = stat()
            guard stat(path, &status) == 0 else { throw .input("cannot open \(path): \(systemError())") }
            guard status.st_mode & S_IFMT != S_IFDIR else { throw .input("cannot read \(path): it is a directory") }
        }
        if !StreamSniffer.isRawStream(path: path) {
            do throws(VTError) {
                let reader = try MediaFileReader(path: path, track: track, frameRate: frameRate)
                self.reader = reader
                codec = reader.codecType
                containerName = reader.containerName
                firstFormat = reader.formatDescription
            } catch {
                if error == VTError.parameter { throw .usage(error.reason) }
                throw CommandFailure(error)
            }
            return
        }
        if let track, track != 0 { throw .usage("\(path) is a raw stream: its one track is 0, not \(track)") }
        containerName = "Annex B"
        descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY)
        guard descriptor >= 0 else { throw .input("cannot open \(path): \(systemError())") }
        let first = try Self.read(descriptor, path: path)
        codec = StreamSniffer.codec(path: path, bytes: first)
        var parser = ElementaryStreamParser(codec: codec)
        var stamper = AnnexBTimeStamper(codec: codec, assumedFrameDuration: frameRate?.frameDuration)
        queued = parser.parse(first).flatMap { stamper.stamp($0) }
        if first.isEmpty {
            queued += stamper.finish()
            finished = true
        }
        // Read on until the first access unit is complete (and stamped): it carries the first
        // description.
        while queued.isEmpty && !finished {
            let chunk = try Self.read(descriptor, path: path)
            if chunk.isEmpty {
                queued += parser.finish().flatMap { stamper.stamp($0) } + stamper.finish()
                finished = true
            } else {
                queued += parser.parse(chunk).flatMap { stamper.stamp($0) }
            }
        }
        self.parser = parser
        self.stamper = stamper
        guard let format = queued.first?.formatDescription else {
            let name = path == "-" ? "standard input" : path
            var message = "\(name): no decodable \(codec.name) \(codec.sampleNoun) found"
            if let problem = parser.diagnostics.first { message += " (\(problem.reason))" }
            if descriptor > STDIN_FILENO { close(descriptor) }
            throw .input(message)
        }
        firstFormat = format
    }

    deinit { closeDescriptor() }

    /// Whether the input is a raw Annex B stream (cut by the elementary stream parser and
    /// stamped by ``AnnexBTimeStamper``), rather than a file libavformat reads.
    var isRawStream: Bool { reader == nil }

    /// What the container says of the track read, as the library reads it: for a container, the
    /// reader's track; for a raw stream file, the track libavformat sees in it (with
    /// `--frame-rate` as its assumed rate); nil for standard input or a raw stream libavformat
    /// cannot open.
    var mediaTrack: MediaTrack? {
        if let reader { return reader.track }
        guard path != "-" else { return nil }
        return try? MediaFileReader(path: path, frameRate: frameRate).track
    }

    /// The timing the ffmpeg CLI sees: for a container, its track's frame rate (the one ffmpeg
    /// picks), start time and sample aspect ratio; for a raw stream, the frame rate its samples
    /// are stamped at, from a start time of zero.
    var streamTiming: StreamTiming {
        if let reader, let duration = reader.track.frameDuration, duration.value > 0, duration.timescale > 0 {
            return StreamTiming(
                frameRate: (Int(duration.timescale), Int(duration.value)),
                frameCount: reader.track.isFrameCountExact ? reader.track.frameCount : nil,
                startTime: reader.startTime, containerAspectRatio: reader.track.pixelAspectRatio)
        }
        let duration =
            stamper?.frameDuration(of: firstFormat)
            ?? firstFormat.stream.frameDuration.flatMap { $0.value > 0 ? $0 : nil }
            ?? AnnexBTimeStamper.defaultFrameDuration
        return StreamTiming(
            frameRate: reduced(Int(duration.timescale), Int(duration.value)),
            startTime: reader?.startTime ?? .zero, containerAspectRatio: reader?.track.pixelAspectRatio)
    }

    /// Parser diagnostics (raw streams), for warnings.
    var diagnostics: [VTError] { parser?.diagnostics ?? [] }

    /// The damaged samples the reader met and went on past (containers; a raw stream's damage
    /// shows in ``diagnostics`` and the decoder's statuses).
    var damagedSamples: [DamagedSample] { reader?.damagedSamples ?? [] }

    /// How many damaged samples the reader met.
    var damagedSampleCount: Int { reader?.damagedSampleCount ?? 0 }

    /// How the file ends before its container says it should (containers; nil for a raw stream,
    /// which states no length).
    var truncation: MediaFileTruncation? { reader?.truncation }

    /// The track read and the file's other video tracks, for the summary: `"track 1 of video
    /// tracks 0, 1 (the default)"`; nil for a raw stream.
    var trackLine: String? {
        guard let reader else { return nil }
        let all = reader.videoTracks.map { String($0.index) }.joined(separator: ", ")
        let track = reader.track
        return "\(track.index) (\(track.codecName) \(track.width)x\(track.height)) of video tracks \(all)"
            + (track.isDefault ? " (the default)" : " (chosen with --track)")
    }

    /// What the container says of the track read, for `probe`: `"track 0: duration 1.920 s, 48
    /// frames (exact), time base 1/12800, 25 fps (frame duration 1/25)"`; nil for a raw stream.
    var trackPropertiesLine: String? {
        guard let track = reader?.track else { return nil }
        let duration = track.duration.map { "\(fixed($0.seconds, 3)) s" } ?? "unknown"
        let frames =
            track.frameCount.map { "\($0) frames (\(track.isFrameCountExact ? "exact" : "estimated"))" }
            ?? "frame count unknown"
        let base = track.timeBase
        let rate =
            track.frameDuration.map {
                "\(fixed(track.nominalFrameRate, 3)) fps (frame duration \($0.value)/\($0.timescale))"
            }
            ?? "frame rate unknown"
        return
            "track \(track.index): duration \(duration), \(frames), time base \(base.value)/\(base.timescale), \(rate)"
    }

    /// The stream index of the track read; nil for a raw stream.
    var trackIndex: Int? { reader?.track.index }

    /// Seeks a container to the sync sample at or before `seconds` from the start of the file
    /// (as `ffmpeg -ss` counts), hiding the pictures before that time. A raw stream, which has no
    /// index, is decoded from its start with the pictures before that time hidden (by the time
    /// stamps the library gives it, ffmpeg's).
    ///
    /// - Throws: An input failure when the file cannot seek.
    func seek(toSeconds seconds: Double) throws(CommandFailure) {
        guard let reader else {
            hiddenBefore = MediaTime(seconds: seconds, preferredTimescale: 1_000_000)
            return
        }
        let time = reader.startTime + MediaTime(seconds: seconds, preferredTimescale: 1_000_000)
        do throws(VTError) {
            try reader.seek(to: time)
        } catch {
            throw CommandFailure(error)
        }
    }

    /// The next sample in decode order, or nil at the end.
    func next() throws(CommandFailure) -> SampleBuffer? {
        if let reader {
            do throws(VTError) {
                return try reader.nextSample()
            } catch {
                throw CommandFailure(error)
            }
        }
        while queuedIndex == queued.count {
            if finished { return nil }
            queued.removeAll(keepingCapacity: true)
            queuedIndex = 0
            try fill()
        }
        defer { queuedIndex += 1 }
        var sample = queued[queuedIndex]
        if let hiddenBefore, sample.timing.presentationTimeStamp.isNumeric,
            sample.timing.presentationTimeStamp < hiddenBefore
        {
            sample.attachments.insert(.doNotDisplay)
        }
        return sample
    }

    /// Reads and parses the next chunk of a raw stream.
    ///
    /// The parser and the stamper are changed where they are stored: a copy would share the
    /// parser's buffer and copy it for every chunk read, each copy a little larger than the last.
    private func fill() throws(CommandFailure) {
        guard parser != nil, stamper != nil else { return }
        let chunk = try Self.read(descriptor, path: path)
        let samples = chunk.isEmpty ? parser?.finish() ?? [] : parser?.parse(chunk) ?? []
        for sample in samples { queued += stamper?.stamp(sample) ?? [] }
        if chunk.isEmpty {
            queued += stamper?.finish() ?? []
            finished = true
            closeDescriptor()
        }
    }

    private func closeDescriptor() {
        if descriptor > STDIN_FILENO { close(descriptor) }
        descriptor = -1
    }

    /// Reads up to a megabyte; empty at the end.
    private static func read(_ descriptor: Int32, path: String) throws(CommandFailure) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var filled = 0
        while filled < chunk.count {
            let count = chunk.withUnsafeMutableBytes {
                Glibc.read(descriptor, $0.baseAddress! + filled, $0.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .input("cannot read \(path == "-" ? "standard input" : path): \(systemError())")
            }
            if count == 0 { break }
            filled += count
        }
        chunk.removeSubrange(filled...)
        return chunk
    }
}

/// A stream's timing the way the ffmpeg CLI sees it (``SampleSource/streamTiming`` reads it from
/// the library): the frame rate `ffmpeg` picks for its output time base (`av_guess_frame_rate`,
/// or a raw stream's stamping rate), the file's start time (which the CLI subtracts from every
/// time stamp) and the container's sample aspect ratio (which the CLI puts on every decoded
/// picture).
struct StreamTiming {
    /// Frames per second as a fraction.
    var frameRate: (num: Int, den: Int)
    /// The number of frames, when the container says (`AVStream.nb_frames`).
    var frameCount: Int? = nil
    /// `AVFormatContext.start_time`, zero when libavformat knows none (and for raw streams).
    var startTime: MediaTime? = nil
    /// The container's sample aspect ratio (`AVStream.sample_aspect_ratio`: MP4 `pasp`, Matroska
    /// display size), when it states one; the ffmpeg CLI gives it precedence over the codec's.
    var containerAspectRatio: PixelAspectRatio? = nil

    /// The time base of one frame, `1/frameRate`.
    var timeBase: (num: Int, den: Int) { (frameRate.den, frameRate.num) }

    /// The sample aspect ratio the ffmpeg CLI writes for a picture (`#sar`, Y4M `A`): the
    /// container's when it states one, else the picture's.
    func aspectRatio(of image: PixelBuffer) -> PixelAspectRatio? {
        containerAspectRatio ?? image.attachments.pixelAspectRatio
    }
}

/// `num/den` in lowest terms.
func reduced(_ num: Int, _ den: Int) -> (num: Int, den: Int) {
    var a = abs(num)
    var b = abs(den)
    while b != 0 { (a, b) = (b, a % b) }
    return a == 0 ? (num, den) : (num / a, den / a)
}
