/// One video track of a media file, as ``MediaFileReader`` lists it — the video `AVAssetTrack`
/// of this library: what the container says of it before any sample is read.
public struct MediaTrack: Sendable, Hashable {
    /// The track's stream index in the file, as `ffprobe` numbers streams (`Stream #0:1` is 1)
    /// and as ``MediaFileReader/init(path:track:frameRate:)`` takes it.
    public let index: Int
    /// libavcodec's name of the track's codec (`"h264"`, `"hevc"`, `"mpeg4"` …).
    public let codecName: String
    /// The codec, when VAToolbox decodes it; nil otherwise.
    public let codecType: VideoCodecType?
    /// The coded width the container states, in pixels (0 when unknown).
    public let width: Int
    /// The coded height the container states, in pixels (0 when unknown).
    public let height: Int
    /// Whether this is the track the ffmpeg CLI picks by default (libavformat's
    /// `av_find_best_stream`), and ``MediaFileReader`` reads unless told otherwise.
    public let isDefault: Bool
    /// The unit of the track's time stamps (libavformat's stream time base): one tick lasts
    /// `timeBase.seconds` (`1/90000` for MPEG-TS, the `mdhd` time scale for MP4).
    public let timeBase: MediaTime
    /// The track's duration, when the container states it (or libavformat estimated it from
    /// the bit rate); nil when unknown.
    public let duration: MediaTime?
    /// The number of frames: exact when the container states it (MP4 `stsz`, Matroska
    /// statistics; see ``isFrameCountExact``), otherwise estimated from the duration and the
    /// frame rate; nil when neither is known.
    public let frameCount: Int?
    /// Whether ``frameCount`` is the container's own count rather than an estimate.
    public let isFrameCountExact: Bool
    /// The duration of one frame at the frame rate the ffmpeg CLI assumes for the track
    /// (`av_guess_frame_rate`: the container's or the codec's rate); nil when libavformat knows
    /// none. `1001/30000` for 29.97 frames per second.
    public let frameDuration: MediaTime?
    /// libavformat's "real base frame rate" (`AVStream.r_frame_rate`, ffprobe's `r_frame_rate`):
    /// the lowest rate at which every time stamp of the track falls on a frame, guessed from the
    /// first time stamps, or the rate the stream states; nil when libavformat knows none.
    public let realFrameRate: FrameRate?
    /// The average frame rate (`AVStream.avg_frame_rate`, ffprobe's `avg_frame_rate`): frames
    /// over duration, when libavformat could tell; nil otherwise.
    public let averageFrameRate: FrameRate?
    /// The sample aspect ratio the container states (`AVStream.sample_aspect_ratio`: MP4 `pasp`,
    /// Matroska display size), which the ffmpeg CLI prefers to the codec's; nil when it states
    /// none.
    public let pixelAspectRatio: PixelAspectRatio?

    /// Frames per second (`AVAssetTrack.nominalFrameRate`), 0 when unknown.
    public var nominalFrameRate: Double {
        guard let frameDuration, frameDuration.seconds > 0 else { return 0 }
        return 1 / frameDuration.seconds
    }

    /// Reads what libavformat found for a stream of an opened file.
    ///
    /// - Parameters:
    ///   - stream: The stream, after `avformat_find_stream_info`.
    ///   - fileDuration: The file's duration in microseconds, for a stream that states none.
    ///   - isDefault: Whether `av_find_best_stream` picked it.
    init(_ stream: FormatStream, fileDuration: Int64?, isDefault: Bool) {
        index = stream.index
        codecName = stream.codecName
        codecType = CodecRegistry.support(forFFmpegName: stream.codecName)?.codecType
        width = stream.width
        height = stream.height
        self.isDefault = isDefault
        let base = stream.timeBase
        timeBase = MediaTime(value: Int64(max(1, base.numerator)), timescale: max(1, base.denominator))
        realFrameRate = FrameRate(
            numerator: stream.realFrameRate.numerator, denominator: stream.realFrameRate.denominator)
        averageFrameRate = FrameRate(
            numerator: stream.averageFrameRate.numerator, denominator: stream.averageFrameRate.denominator)
        let aspect = stream.containerAspectRatio
        pixelAspectRatio =
            aspect.numerator > 0 && aspect.denominator > 0
            ? PixelAspectRatio(horizontalSpacing: Int(aspect.numerator), verticalSpacing: Int(aspect.denominator))
            : nil
        let rate = stream.guessedFrameRate
        frameDuration =
            rate.numerator > 0 && rate.denominator > 0
            ? MediaTime(value: Int64(rate.denominator), timescale: rate.numerator) : nil
        if let ticks = stream.duration, ticks > 0 {
            duration = MediaTime(value: ticks, timescale: max(1, base.denominator))
                .multiplied(by: max(1, base.numerator))
        } else if let fileDuration, fileDuration > 0 {
            duration = MediaTime(value: fileDuration, timescale: 1_000_000)
        } else {
            duration = nil
        }
        if stream.frameCount > 0 {
            frameCount = Int(stream.frameCount)
            isFrameCountExact = true
        } else {
            isFrameCountExact = false
            if let duration, let frameDuration, frameDuration.seconds > 0 {
                frameCount = Int(exactly: (duration.seconds / frameDuration.seconds).rounded())
            } else {
                frameCount = nil
            }
        }
    }
}
