/// The samples a back end has been given since the random access point a replay must start at,
/// kept so that ``DecompressionSession/finishDelayedFrames()`` can hand out every delayed frame
/// and let decoding go on with its references.
///
/// libavcodec has no "output everything, keep the references": the only way to get the last
/// pictures out is to drain it, which leaves it without reference pictures. After the drain, the
/// session sends these samples again with their output suppressed; the decoder then holds the
/// same reference pictures (and the same pictures waiting for output) as before the drain, and
/// the frames after the finish decode as if nothing had happened.
///
/// Where the replay starts (see ``RandomAccess``):
/// - at the last *closed* random access point (an IDR picture, a key frame): nothing after it
///   refers to anything before it;
/// - after an *open* point (an HEVC CRA picture, an H.264 recovery point, an MPEG-2 I picture of an
///   open GOP), at the point before it, for as long as leading pictures of the open point may
///   still come: they refer to the GOP before it. A replay that started at the open point itself
///   would leave them without those references (libavcodec skips RASL pictures after a CRA picture
///   that starts decoding, and conceals the missing references of H.264 and MPEG-2 B-frames). Once
///   a picture ends the leading pictures (an HEVC trailing picture, an MPEG-2 P picture) the GOP
///   before is let go; H.264 has no such picture, so it is kept to the next point.
///
/// Replaying from an earlier open point is exact for the pictures still to come: that point's own
/// leading pictures come out of the replay wrong or not at all, but they were handed out before,
/// and no picture after them refers to them.
///
/// Memory is bounded: past ``limit`` bytes (a stream with very long or no GOPs) the samples are
/// let go until the next random access point, and a finish until then restarts decoding at the
/// next sync sample instead. After an open point that follows such a gap, the replay is complete
/// once its leading pictures are over.
struct ReplayBuffer: Sendable {
    /// The most compressed bytes kept: 64 MiB, some seconds of 4K video at a high bit rate.
    static let defaultLimit = 64 << 20

    /// The samples to replay, in decode order, as sent (in-band configuration included).
    private(set) var samples: [[UInt8]] = []
    /// The token of each sample's frame, in the same order: after a move to another back end,
    /// the frames the old one still held are decoded again from here (``SessionDecoder``).
    private(set) var tokens: [Int64] = []
    /// Their bytes.
    private(set) var byteCount = 0
    /// Whether a replay of `samples` rebuilds every reference picture that the samples still to
    /// come may need.
    private(set) var isComplete = false
    /// Where the last random access point is in `samples`: the samples before it are the GOP its
    /// leading pictures may refer to.
    private(set) var lastPointIndex = 0
    /// The most bytes kept.
    let limit: Int

    /// Whether nothing was given to the back end since it started (or restarted): a first random
    /// access point starts decoding, in the first pass as in a replay, open or not.
    private var startsAfresh = true
    /// Whether the samples since an open point are kept but not the GOP before it (they were over
    /// the limit): the replay is complete once its leading pictures are over.
    private var awaitsEndOfLeadingPictures = false

    init(limit: Int = Self.defaultLimit) {
        self.limit = limit
    }

    /// The samples before the last random access point that a replay sends for its leading
    /// pictures' sake.
    var previousGOPCount: Int { lastPointIndex }

    /// Records a sample sent to the back end.
    mutating func record(_ data: [UInt8], token: Int64, access: RandomAccess) {
        defer { startsAfresh = false }
        switch access {
        case .closed:
            startOver()
            isComplete = true
        case .open where isComplete || awaitsEndOfLeadingPictures:
            // The GOP before this point is now the one its leading pictures need; any before that goes.
            dropPreviousGOP()
            lastPointIndex = samples.count
            isComplete = true
            awaitsEndOfLeadingPictures = false
        case .open:
            startOver()
            isComplete = startsAfresh
            awaitsEndOfLeadingPictures = !startsAfresh
        case .endsLeadingPictures:
            dropPreviousGOP()
            if awaitsEndOfLeadingPictures {
                isComplete = true
                awaitsEndOfLeadingPictures = false
            }
        case .none:
            break
        }
        guard isComplete || awaitsEndOfLeadingPictures else { return }
        guard byteCount + data.count <= limit else {
            letGo()
            return
        }
        samples.append(data)
        tokens.append(token)
        byteCount += data.count
    }

    /// Forgets every sample: the back end starts afresh (a reset, or another back end).
    mutating func reset() {
        letGo()
        startsAfresh = true
    }

    /// Forgets every sample until the next random access point.
    private mutating func letGo() {
        samples = []
        tokens = []
        byteCount = 0
        lastPointIndex = 0
        isComplete = false
        awaitsEndOfLeadingPictures = false
    }

    /// Starts the samples at a random access point.
    private mutating func startOver() {
        samples.removeAll(keepingCapacity: true)
        tokens.removeAll(keepingCapacity: true)
        byteCount = 0
        lastPointIndex = 0
    }

    /// Lets go of the samples before the last random access point.
    private mutating func dropPreviousGOP() {
        guard lastPointIndex > 0 else { return }
        byteCount -= samples[..<lastPointIndex].reduce(0) { $0 + $1.count }
        samples.removeFirst(lastPointIndex)
        tokens.removeFirst(lastPointIndex)
        lastPointIndex = 0
    }
}
