/// When a session leaves the GPU for the CPU: the rule of
/// ``DecoderSpecification/maximumConsecutiveHardwareFaults`` and of a driver refusing a new
/// stream configuration, and the bookkeeping of GPU faults since the last sync sample.
///
/// Only a ``DecoderSpecification/HardwareAcceleration/preferred`` session moves; a `.required`
/// one stays on the GPU and reports every fault.
struct FailoverPolicy: Sendable {
    /// Why a frame decoded after a GPU fault may be wrong.
    static let afterFault = "the frame may refer to a picture the GPU failed to decode (since the last sync sample)"

    /// GPU faults in a row: a malfunction adds one, a clean picture starts again at zero.
    private(set) var consecutiveFaults = 0
    /// Whether the GPU failed a picture since the last sync sample: later frames may refer to it.
    private(set) var faultSinceSync = false
    private let maximumConsecutiveFaults: Int
    private let mayMove: Bool

    init(specification: DecoderSpecification) {
        maximumConsecutiveFaults = max(1, specification.maximumConsecutiveHardwareFaults)
        mayMove = specification.hardwareAcceleration == .preferred
    }

    /// Whether a driver that refuses the stream's configuration sends the session to the CPU.
    var movesOnSetupFailure: Bool { mayMove }

    /// Whether the faults in a row send the session to the CPU now.
    var movesAfterFaults: Bool { mayMove && consecutiveFaults >= maximumConsecutiveFaults }

    /// Counts one GPU result.
    mutating func record(isFault: Bool) {
        consecutiveFaults = isFault ? consecutiveFaults + 1 : 0
    }

    /// Notes that the GPU failed a picture (counted or not).
    mutating func noteFault() {
        faultSinceSync = true
    }

    /// Follows one sample in decode order; returns whether it may refer to a picture the GPU
    /// failed (a fault since the last sync sample, and it is not one).
    mutating func follow(isSync: Bool) -> Bool {
        if isSync { faultSinceSync = false }
        return faultSinceSync
    }

    /// Starts afresh, on another back end.
    mutating func reset() {
        consecutiveFaults = 0
        faultSinceSync = false
    }
}
