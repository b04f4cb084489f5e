/// A frame rate as an exact fraction of frames per second, the way libavformat and `ffprobe`
/// state it: `30000/1001` for NTSC's 29.97, `25/1` for PAL.
///
/// Kept as a fraction because a decimal loses the rates that matter: 30000/1001 is not 29.97.
public struct FrameRate: Sendable, Hashable, CustomStringConvertible {
    /// Frames counted…
    public let numerator: Int32
    /// …per this many seconds.
    public let denominator: Int32

    /// A rate of `numerator` frames per `denominator` seconds; nil unless both are positive.
    public init?(numerator: Int32, denominator: Int32 = 1) {
        guard numerator > 0, denominator > 0 else { return nil }
        self.numerator = numerator
        self.denominator = denominator
    }

    /// Parses a rate as `ffmpeg -framerate` takes it: a fraction (`"30000/1001"`) or a whole
    /// number (`"24"`); nil for anything else, or a rate that is not positive.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let numerator = Int32(parts[0]) else { return nil }
        let denominator = parts.count == 2 ? Int32(parts[1]) : 1
        guard let denominator else { return nil }
        self.init(numerator: numerator, denominator: denominator)
    }

    /// The duration of one frame, `denominator/numerator` seconds, exactly.
    public var frameDuration: MediaTime { MediaTime(value: Int64(denominator), timescale: numerator) }

    /// Frames per second as a number (`29.97002997…`).
    public var framesPerSecond: Double { Double(numerator) / Double(denominator) }

    /// `"numerator/denominator"`, as `ffprobe` prints `r_frame_rate`.
    public var description: String { "\(numerator)/\(denominator)" }
}
