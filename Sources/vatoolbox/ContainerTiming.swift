import CFFmpeg
import VAToolbox

/// The timing libavformat reads from a file's video stream, as ffprobe reports it: what
/// `probe --json` prints beside the samples it counts.
///
/// A stop-gap over libavformat until `MediaFileReader` exposes the same facts (its duration,
/// frame count, time base and frame rate); then this file goes and `probe` reads the reader.
struct ContainerTiming {
    /// `AVStream.time_base` (ffprobe's `time_base`).
    var timeBase: (num: Int, den: Int)?
    /// `AVStream.r_frame_rate` (ffprobe's `r_frame_rate`), nil when libavformat has none.
    var realFrameRate: (num: Int, den: Int)?
    /// `AVStream.avg_frame_rate` (ffprobe's `avg_frame_rate`), nil when libavformat has none.
    var averageFrameRate: (num: Int, den: Int)?
    /// Seconds: the stream's duration, else the file's (ffprobe's stream `duration`, else its
    /// format `duration`); nil when libavformat knows neither.
    var duration: Double?
    /// The frame count the container states (`AVStream.nb_frames`, ffprobe's `nb_frames`).
    var statedFrameCount: Int?

    /// Probes `path`; every field stays nil for standard input (`-`) or a file libavformat cannot
    /// open.
    init(path: String) {
        guard path != "-" else { return }
        var context: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_open_input(&context, path, nil, nil) >= 0, let opened = context else { return }
        defer { avformat_close_input(&context) }
        guard avformat_find_stream_info(opened, nil) >= 0 else { return }
        let index = av_find_best_stream(opened, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0, let stream = opened.pointee.streams[Int(index)] else { return }
        func fraction(_ value: AVRational) -> (num: Int, den: Int)? {
            value.num > 0 && value.den > 0 ? (Int(value.num), Int(value.den)) : nil
        }
        let base = stream.pointee.time_base
        timeBase = fraction(base)
        realFrameRate = fraction(stream.pointee.r_frame_rate)
        averageFrameRate = fraction(stream.pointee.avg_frame_rate)
        let noValue = CFFmpeg_AV_NOPTS_VALUE()
        if stream.pointee.duration != noValue, base.den > 0 {
            duration = Double(stream.pointee.duration) * Double(base.num) / Double(base.den)
        } else if opened.pointee.duration != noValue {
            duration = Double(opened.pointee.duration) / Double(AV_TIME_BASE)
        }
        statedFrameCount = stream.pointee.nb_frames > 0 ? Int(stream.pointee.nb_frames) : nil
    }

    /// The keys `probe --json` prints: `time_base`, `r_frame_rate`, `avg_frame_rate`, `duration`,
    /// `nb_frames` (null when unknown, as ffprobe's "N/A" or "0/0") and `frame_count`, the
    /// samples counted.
    func json(frameCount: Int) -> [(String, JSON)] {
        func text(_ fraction: (num: Int, den: Int)?) -> JSON { .string(fraction.map { "\($0.num)/\($0.den)" }) }
        return [
            ("time_base", text(timeBase)), ("r_frame_rate", text(realFrameRate)),
            ("avg_frame_rate", text(averageFrameRate)), ("duration", duration.map { .double($0) } ?? .null),
            ("nb_frames", statedFrameCount.map { .int($0) } ?? .null), ("frame_count", .int(frameCount)),
        ]
    }
}
