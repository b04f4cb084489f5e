@testable import VAToolbox

/// What ``decode(_:with:flags:finishingAfter:afterEach:then:)`` does after the last sample, in
/// this order: `finishDelayedFrames()`, `waitForAsynchronousFrames()`, `invalidate()`.
struct DecodeEnding: OptionSet {
    let rawValue: Int

    /// `finishDelayedFrames()`.
    static let finish = DecodeEnding(rawValue: 1 << 0)
    /// `waitForAsynchronousFrames()`.
    static let wait = DecodeEnding(rawValue: 1 << 1)
    /// `invalidate()`.
    static let invalidate = DecodeEnding(rawValue: 1 << 2)
    /// Apple's full teardown: finish, wait, invalidate.
    static let all: DecodeEnding = [.finish, .wait, .invalidate]
}

/// Decodes every sample through `session`, its index as the frame refcon, then ends as `ending`
/// says (by default: finishes the delayed frames and invalidates the session).
///
/// - Parameters:
///   - flags: the flags of every `decodeFrame`.
///   - finishingAfter: whether to call `finishDelayedFrames()` right after the sample at an index.
///   - afterEach: runs with each index once its `decodeFrame` (and finish, if any) returned.
///   - ending: what follows the last sample.
/// - Throws: what `decodeFrame`, `finishDelayedFrames()` or `waitForAsynchronousFrames()` throws.
func decode(
    _ samples: [SampleBuffer], with session: DecompressionSession, flags: DecodeFrameFlags = [],
    finishingAfter: (Int) -> Bool = { _ in false }, afterEach: (Int) throws -> Void = { _ in },
    then ending: DecodeEnding = [.finish, .invalidate]
) throws {
    for (index, sample) in samples.enumerated() {
        try session.decodeFrame(sample, flags: flags, frameRefcon: index)
        if finishingAfter(index) { try session.finishDelayedFrames() }
        try afterEach(index)
    }
    if ending.contains(.finish) { try session.finishDelayedFrames() }
    if ending.contains(.wait) { try session.waitForAsynchronousFrames() }
    if ending.contains(.invalidate) { session.invalidate() }
}
