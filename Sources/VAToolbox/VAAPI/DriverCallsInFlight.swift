import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The driver entry point each thread is inside, so that a watchdog that gave up on a thread can
/// name the call it is stuck in (``WatchdogBackend``).
///
/// The driver table's hooks (``DriverTableHooks``) wrap every entry point that may wait for the
/// GPU, whoever calls it — libavcodec's hwaccel or ``Display`` —, in ``during(_:_:)``.
enum DriverCallsInFlight {
    /// The entry point each thread is inside, by `pthread_self()`.
    private static let calls = Mutex<[pthread_t: StaticString]>([:])

    /// Runs `body`, a call of the driver's `call` entry point, with the call recorded as in flight
    /// on this thread.
    static func during<Value>(_ call: StaticString, _ body: () -> Value) -> Value {
        let thread = pthread_self()
        let outer = calls.withLock { $0.updateValue(call, forKey: thread) }
        defer { calls.withLock { $0[thread] = outer } }
        return body()
    }

    /// The entry point `thread` is inside, if it is inside one.
    static func call(on thread: pthread_t) -> StaticString? {
        calls.withLock { $0[thread] }
    }
}
