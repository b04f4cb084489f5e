import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A GPU back end whose every call is bounded in time: the calls run on a thread of the back
/// end's own, and the session's queue waits for each at most ``limit``
/// (``DecoderSpecification/hardwareResponseLimit``).
///
/// A GPU whose engine hangs makes its driver's calls block for seconds or for ever (a
/// `vaSyncSurface` or `vaEndPicture` that never returns; intel/media-driver#759), and libva offers
/// no way to cancel one. When a call outlives the bound, the back end is abandoned: this call and
/// every later one answer at once with ``DecodeFailure/deviceHung(_:)`` — the session then
/// leaves the GPU under ``DecoderSpecification/HardwareAcceleration/preferred`` and fails its
/// frames under ``DecoderSpecification/HardwareAcceleration/required`` — and the thread stuck in
/// the driver keeps the GPU back end (its libavcodec context, surfaces and display) until the
/// driver returns, when it releases them. A driver that never returns keeps them, and that thread,
/// until the process ends; ``stuckCalls`` counts them.
///
/// Only the work of the calls is moved: the back end is still used by one thread at a time, as
/// ``DecoderBackend`` requires (a call is not sent before the one before it has returned, or been
/// abandoned, after which nothing more is sent).
final class WatchdogBackend: DecoderBackend {
    /// The longest the session waits for one call.
    let limit: Duration
    let hardware: HardwareDecoding?
    /// The GPU back end, used only on `worker`.
    private let watched: Watched
    private let worker: DispatchQueue
    /// Set when a call outlived the limit: why the back end was abandoned.
    private var hang: VTError?

    /// How many times a call whose thread is runnable at the limit gets the limit again.
    static let extensions = 4

    /// The calls still running in a driver past their bound, in the whole process: each holds
    /// a thread and the back end it was called on.
    static var stuckCalls: Int { stuck.load(ordering: .relaxed) }
    fileprivate static let stuck = Atomic<Int>(0)

    /// Watches `backend`, whose calls are waited for at most `limit`.
    init(_ backend: any DecoderBackend, limit: Duration) {
        self.limit = limit
        hardware = backend.hardware
        watched = Watched(backend)
        worker = DispatchQueue(label: "VAToolbox.WatchdogBackend")
    }

    private init(opened watched: Watched, hardware: HardwareDecoding?, worker: DispatchQueue, limit: Duration) {
        self.limit = limit
        self.hardware = hardware
        self.watched = watched
        self.worker = worker
    }

    /// Opens a GPU back end on a thread of its own, waiting for it at most `limit`: a driver that
    /// hangs while the decoder opens (`vaCreateConfig`, `vaCreateSurfaces`, `vaCreateContext`)
    /// fails the opening as a hang (the session then decodes on the CPU, or fails under
    /// ``DecoderSpecification/HardwareAcceleration/required``) instead of blocking the caller.
    /// A back end that opens after the bound is released on that thread.
    ///
    /// - Parameters:
    ///   - renderNode: The device, for the error.
    ///   - make: Opens the back end (on the back end's thread).
    static func open(
        limit: Duration, renderNode: String?,
        _ make: @escaping @Sendable () -> Result<any DecoderBackend, VTError>
    ) -> Result<WatchdogBackend, VTError> {
        let watched = Watched(nil)
        let worker = DispatchQueue(label: "VAToolbox.WatchdogBackend")
        let call = Call<Result<HardwareDecoding?, VTError>>()
        let started = ContinuousClock.now
        worker.async {
            call.start()
            call.finish(watched.install(make))
        }
        guard call.wait(for: limit), let opened = call.value else {
            return .failure(
                hangError(renderNode: renderNode, limit: limit, while: "opening the decoder", call, started))
        }
        return opened.map { WatchdogBackend(opened: watched, hardware: $0, worker: worker, limit: limit) }
    }

    deinit {
        // The GPU back end is released on its own thread, as its calls ran: its teardown calls
        // the driver too (closing the decoder, terminating the display). It is waited for, within
        // the bound, so that a session let go has let go of the GPU; after a hang it waits there
        // behind the stuck call instead.
        let watched = watched
        guard hang == nil else {
            worker.async { watched.release() }
            return
        }
        _ = run("closing the decoder") { _ in watched.release() }
    }

    func decode(_ data: [UInt8], token: Int64) -> DecodeStep {
        if let hang { return DecodeStep(failure: .deviceHung(hang)) }
        let result = run("decoding a sample") { $0.decode(data, token: token) }
        switch result {
        case .success(let step): return step
        case .failure(let error): return DecodeStep(failure: .deviceHung(error))
        }
    }

    func drain() -> [DecodedPicture] {
        guard hang == nil else { return [] }
        return (try? run("draining the decoder") { $0.drain() }.get()) ?? []
    }

    func reconfigure(for format: VideoFormatDescription) {
        guard hang == nil else { return }
        _ = run("reconfiguring the decoder") { $0.reconfigure(for: format) }
    }

    func needsReopening(for configuration: SoftwareDecoderConfiguration) -> Bool { false }

    var hasHung: Bool { hang != nil }

    func boundingWaits<Value: Sendable>(
        _ work: @escaping @Sendable () throws(VTError) -> Value
    ) throws(VTError) -> Value {
        if let hang { throw hang }
        let result = run("reading a picture back") { _ in Result<Value, VTError>(catching: work) }
        switch result {
        case .success(let answer): return try answer.get()
        case .failure(let error): throw error
        }
    }

    /// Runs `work` on the back end's thread and waits for it at most ``limit``.
    ///
    /// - Returns: What `work` returned, or the error that abandons the back end when it did not
    ///   return in time.
    private func run<Value: Sendable>(
        _ what: String, _ work: @escaping @Sendable (any DecoderBackend) -> Value
    ) -> Result<Value, VTError> {
        let call = Call<Value>()
        let watched = watched
        let started = ContinuousClock.now
        worker.async {
            call.start()
            call.finish(watched.use(work))
        }
        if call.wait(for: limit), let value = call.value { return .success(value) }
        let error = Self.hangError(renderNode: hardware?.renderNode.path, limit: limit, while: what, call, started)
        hang = error
        return .failure(error)
    }

    /// The error of a call that did not return within `limit`: the device, what the call was
    /// for, the driver entry point it is stuck in (when it is in one) and the time waited.
    private static func hangError<Value>(
        renderNode: String?, limit: Duration, while what: String, _ call: Call<Value>,
        _ started: ContinuousClock.Instant
    ) -> VTError {
        let waited = ContinuousClock.now - started
        let node = renderNode.map { " (\($0))" } ?? ""
        var reason = "the GPU\(node) did not answer within \(seconds(limit)) while \(what)"
        var cause: UnderlyingCause?
        if let entryPoint = call.driverCall {
            reason += ": \(entryPoint) had not returned after \(seconds(waited))"
            cause = UnderlyingCause(
                library: "libva", function: "\(entryPoint)", code: VAStatusCheck.timedOutCode,
                message: "no answer after \(seconds(waited))")
        } else {
            reason += " (waited \(seconds(waited)))"
        }
        return VTError.videoDecoderMalfunction.with(reason + "; it is taken to be hung", cause: cause)
    }

    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + (attoseconds + 500_000_000_000_000) / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}

extension WatchdogBackend {
    /// The GPU back end, handed to the worker thread. Unchecked `Sendable`: it is used on the
    /// worker only, one call at a time (the worker is serial).
    private final class Watched: @unchecked Sendable {
        private var backend: (any DecoderBackend)?

        init(_ backend: (any DecoderBackend)?) {
            self.backend = backend
        }

        /// Opens the back end (on the worker): what it is, or why it could not open.
        func install(_ make: () -> Result<any DecoderBackend, VTError>) -> Result<HardwareDecoding?, VTError> {
            make().map { opened in
                backend = opened
                return opened.hardware
            }
        }

        func use<Value>(_ work: (any DecoderBackend) -> Value) -> Value? {
            backend.map(work)
        }

        /// Lets go of the back end (on the worker).
        func release() {
            backend = nil
        }
    }

    /// One call's answer, and whether the caller still waits for it.
    private final class Call<Value>: @unchecked Sendable {
        enum Outcome { case waiting, answered, abandoned }

        private let done = DispatchSemaphore(value: 0)
        private let state = Mutex<Outcome>(.waiting)
        /// Written by the worker before `done` is signalled, read by the caller after.
        private(set) var value: Value?

        /// Records the answer (on the worker); a call the caller gave up on is no longer stuck.
        func finish(_ value: Value?) {
            self.value = value
            state.withLock { outcome in
                if outcome == .abandoned { WatchdogBackend.stuck.subtract(1, ordering: .relaxed) }
                outcome = .answered
            }
            done.signal()
        }

        /// The worker thread running the call (its kernel thread ID), once it started.
        private let thread = Atomic<Int32>(0)

        /// The worker thread running the call, once it started (`pthread_self()`).
        private let pthread = Mutex<pthread_t?>(nil)

        /// Notes the thread running the call (on the worker, first).
        func start() {
            thread.store(Self.currentThread(), ordering: .relaxed)
            pthread.withLock { $0 = pthread_self() }
        }

        /// The driver entry point the call's thread is inside (``DriverCallsInFlight``): where a
        /// call that outlived its bound is stuck.
        var driverCall: StaticString? {
            pthread.withLock { $0 }.flatMap(DriverCallsInFlight.call(on:))
        }

        /// The calling thread's kernel ID, from `/proc/thread-self` (a link to `PID/task/TID`); 0
        /// when it cannot be read.
        private static func currentThread() -> Int32 {
            var path = [CChar](repeating: 0, count: 64)
            let count = readlink("/proc/thread-self", &path, path.count - 1)
            guard count > 0 else { return 0 }
            let text = String(decoding: path.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return text.split(separator: "/").last.flatMap { Int32($0) } ?? 0
        }

        /// Waits for the answer at most `limit`; false when it did not come (the call is then
        /// abandoned, and counted stuck until it returns).
        ///
        /// A call whose thread is runnable when the limit passes is waiting for a CPU, not for the
        /// GPU (a machine whose cores are all busy): it is given the limit again, up to
        /// ``extensions`` times, as Chromium's GPU watchdog gives a GPU thread that had no time to
        /// run more time (`kMaxCountOfMoreGpuThreadTimeAllowed`, gpu_watchdog_thread_v2.h).
        func wait(for limit: Duration) -> Bool {
            let (seconds, attoseconds) = limit.components
            let nanoseconds = max(0, seconds) * 1_000_000_000 + attoseconds / 1_000_000_000
            var extensions = 0
            while done.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) != .success {
                guard extensions < WatchdogBackend.extensions, Self.isRunnable(thread.load(ordering: .relaxed)) else {
                    return abandon()
                }
                extensions += 1
            }
            return true
        }

        /// Whether a thread of this process is running or waiting for a CPU (state `R` in
        /// `/proc/self/task/TID/stat`), rather than blocked; false when it cannot be told, or for
        /// a call that has not started (its thread would be the worker's queue's, still busy).
        private static func isRunnable(_ thread: Int32) -> Bool {
            guard thread > 0, let stream = fopen("/proc/self/task/\(thread)/stat", "r") else { return false }
            defer { fclose(stream) }
            var line = [CChar](repeating: 0, count: 512)
            guard fgets(&line, Int32(line.count), stream) != nil else { return false }
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // "TID (name) S …": the state follows the last ')' (a thread's name may hold one).
            guard let close = text.lastIndex(of: ")") else { return false }
            return text[text.index(after: close)...].trimmingPrefix(" ").first == "R"
        }

        /// Gives up on the call, unless its answer came just now.
        private func abandon() -> Bool {
            state.withLock { outcome -> Bool in
                if outcome == .answered { return true }  // it came just now
                outcome = .abandoned
                WatchdogBackend.stuck.add(1, ordering: .relaxed)
                return false
            }
        }
    }
}
