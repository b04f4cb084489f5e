import Synchronization

@testable import VAToolbox

/// Collects what a session's output handler receives, in the order it came, and notices calls
/// that come after ``close()`` or while another call is running.
///
/// A class because the handler is `@Sendable` and runs on the session's queue; the state lives in
/// a `Mutex`.
final class Outputs: Sendable {
    private struct State {
        var outputs: [DecompressionOutput] = []
        var isClosed = false
        var lateCalls = 0
        var isInHandler = false
        var overlappingCalls = 0
    }

    private let state = Mutex(State())
    /// Runs inside the handler, for tests that act on a frame while the session waits.
    private let inspect: (@Sendable (DecompressionOutput) -> Void)?

    init(inspect: (@Sendable (DecompressionOutput) -> Void)? = nil) {
        self.inspect = inspect
    }

    /// The handler to give the session.
    var handler: DecompressionSession.OutputHandler { { output in self.append(output) } }

    /// The outputs so far, in the order the handler received them.
    var all: [DecompressionOutput] { state.withLock { $0.outputs } }
    /// Calls that came after ``close()``.
    var lateCalls: Int { state.withLock { $0.lateCalls } }
    /// Calls that began while another was running.
    var overlappingCalls: Int { state.withLock { $0.overlappingCalls } }

    /// Marks the point after which the handler must not be called.
    func close() { state.withLock { $0.isClosed = true } }

    /// Records one call of the handler.
    func append(_ output: DecompressionOutput) {
        state.withLock {
            if $0.isInHandler { $0.overlappingCalls += 1 }
            if $0.isClosed { $0.lateCalls += 1 }
            $0.isInHandler = true
        }
        inspect?(output)
        state.withLock {
            $0.outputs.append(output)
            $0.isInHandler = false
        }
    }
}
