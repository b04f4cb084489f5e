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

/// Opens the input a command names, through the library's ``SampleSource``: `-` is standard
/// input; a missing path or a directory is refused here with the system's message.
///
/// - Parameters:
///   - path: The file, or `-`.
///   - track: The stream index of the video track to read (`--track`); nil for the one the
///     ffmpeg CLI picks. Raw streams have one track, 0.
///   - frameRate: The frame rate of a raw stream that states none (`--frame-rate`).
/// - Throws: A failure with exit status 1 when the file is missing, unreadable, not a media
///   file or has nothing decodable; 3 when its video is in a codec VAToolbox does not decode; 2
///   when `track` is not one of its video tracks.
func openInput(_ path: String, track: Int? = nil, frameRate: FrameRate? = nil) throws(CommandFailure)
    -> SampleSource
{
    if path == "-" {
        if let track, track != 0 { throw .usage("\(path) is a raw stream: its one track is 0, not \(track)") }
    } else {
        var status = stat()
        guard stat(path, &status) == 0 else { throw .input("cannot open \(path): \(systemError())") }
        guard status.st_mode & S_IFMT != S_IFDIR else { throw .input("cannot read \(path): it is a directory") }
    }
    do throws(VTError) {
        if path == "-" { return try SampleSource.standardInput(frameRate: frameRate) }
        return try SampleSource(path: path, track: track, frameRate: frameRate)
    } catch {
        if error == VTError.parameter { throw .usage(error.reason) }
        throw CommandFailure(error)
    }
}

extension SampleSource {
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
            annexBFrameDuration
            ?? formatDescription.stream.frameDuration.flatMap { $0.value > 0 ? $0 : nil }
            ?? AnnexBTimeStamper.defaultFrameDuration
        return StreamTiming(
            frameRate: reduced(Int(duration.timescale), Int(duration.value)),
            startTime: reader?.startTime ?? .zero, containerAspectRatio: reader?.track.pixelAspectRatio)
    }

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

    /// Seeks to `seconds` from the start of the input, as `ffmpeg -ss` counts
    /// (``SampleSource/seek(toOffset:)``).
    ///
    /// - Throws: An input failure when the file cannot seek.
    func seek(toSeconds seconds: Double) throws(CommandFailure) {
        do throws(VTError) {
            try seek(toOffset: MediaTime(seconds: seconds, preferredTimescale: 1_000_000))
        } catch {
            throw CommandFailure(error)
        }
    }

    /// The next sample in decode order, or nil at the end.
    ///
    /// - Throws: An input failure when reading fails.
    func next() throws(CommandFailure) -> SampleBuffer? {
        do throws(VTError) {
            return try nextSample()
        } catch {
            throw CommandFailure(error)
        }
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
