/// The samples a back end has been given since the last sync sample, kept so that
/// ``DecompressionSession/finishDelayedFrames()`` can hand out every delayed frame and let
/// decoding go on with its references.
///
/// libavcodec has no "output everything, keep the references": the only way to get the last
/// pictures out is to drain it, which leaves it without reference pictures. After the drain, the
/// session sends these samples again with their output suppressed; the decoder then holds the
/// same reference pictures (and the same pictures waiting for output) as before the drain, and
/// the frames after the finish decode as if nothing had happened.
///
/// Memory is bounded: past ``limit`` bytes (a stream with very long or no GOPs) the samples are
/// let go until the next sync sample, and a finish until then restarts decoding there instead.
struct ReplayBuffer: Sendable {
    /// The most compressed bytes kept: 64 MiB, some seconds of 4K video at a high bit rate.
    static let defaultLimit = 64 << 20

    /// The samples since the last sync sample, in decode order, as sent (in-band configuration
    /// included).
    private(set) var samples: [[UInt8]] = []
    /// Their bytes.
    private(set) var byteCount = 0
    /// Whether `samples` starts at a sync sample and holds every sample since: a replay of them
    /// rebuilds the decoder's references.
    private(set) var isComplete = false
    /// The most bytes kept.
    let limit: Int

    init(limit: Int = Self.defaultLimit) {
        self.limit = limit
    }

    /// Records a sample sent to the back end.
    mutating func record(_ data: [UInt8], isSync: Bool) {
        if isSync {
            samples.removeAll(keepingCapacity: true)
            byteCount = 0
            isComplete = true
        }
        guard isComplete else { return }
        guard byteCount + data.count <= limit else {
            reset()
            return
        }
        samples.append(data)
        byteCount += data.count
    }

    /// Forgets every sample: the back end starts afresh (a reset, or another back end).
    mutating func reset() {
        samples = []
        byteCount = 0
        isComplete = false
    }
}
