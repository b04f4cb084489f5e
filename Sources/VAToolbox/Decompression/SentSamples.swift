/// The samples a session's decoder gave its back end, as far as what comes back needs them: the
/// last one's token (a drain can only show frames up to it missing; later ones are accepted but
/// not decoded yet) and description (a new CPU decoder opens for it), and the recent ones' decode
/// time stamps (a picture's ``DecompressionOutput/releasingDecodeTimeStamp`` is its releasing
/// sample's).
struct SentSamples {
    /// The last token given to a back end; -1 before any.
    private(set) var lastToken: Int64 = -1
    /// The description of the last sample given (or of the session, before any).
    private(set) var lastFormat: VideoFormatDescription
    private var decodeTimes: [Int64: MediaTime] = [:]
    /// How many samples' decode time stamps are kept: a picture is released at most a DPB (or a
    /// thread count) of samples after its own.
    private static let releaseWindow: Int64 = 512

    init(format: VideoFormatDescription) {
        lastFormat = format
    }

    /// Records a sample given to the back end.
    mutating func record(_ sample: SampleBuffer, token: Int64) {
        lastToken = token
        lastFormat = sample.formatDescription
        decodeTimes[token] = sample.decodeTimeStamp
        if decodeTimes.count > 2 * Int(Self.releaseWindow) {
            decodeTimes = decodeTimes.filter { $0.key > token - Self.releaseWindow }
        }
    }

    /// The decode time stamp of the sample with `token` (invalid when unknown or nil).
    func decodeTime(of token: Int64?) -> MediaTime {
        token.flatMap { decodeTimes[$0] } ?? .invalid
    }
}
