import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The libav messages of one reader or one decoder: it claims the libav contexts the object
/// opens, keeps their recent errors and warnings, and quotes the one that explains a failure.
///
/// The owner registers each context it allocates with ``claim(_:)`` and makes its libav calls
/// inside ``whileCalling(_:)``, so that messages from contexts libav makes on its own (probing
/// decoders, parsers, hwaccel frames) are claimed too. A decoder stores each sample's token in
/// `AVCodecContext.reordered_opaque` before sending it: the messages logged while decoding that
/// sample, on any of libavcodec's threads, carry its token.
///
/// Thread-safe: libavcodec's threads log into it while its owner reads it.
final class LibavLogCapture: Sendable {
    /// The least important level kept for error reasons.
    static let keptLevel = LibavLog.Level.warning
    /// How many messages are kept (the most recent ones).
    static let keptCount = 64

    /// One kept message.
    private struct Entry: Sendable {
        let message: LibavLog.Message
        /// The token of the sample being decoded when it was logged, for a decoder's messages.
        let token: Int64?
        /// Its position among every message kept so far.
        let sequence: Int
    }

    /// The recent messages (oldest first), and how many were ever kept.
    private struct Kept: Sendable {
        var entries: [Entry] = []
        var count = 0
    }

    /// Whose messages these are.
    let origin: LibavLog.Origin
    private let kept = Mutex(Kept())
    /// The keys registered with the router, removed when the capture goes away.
    private let keys = Mutex<[UInt]>([])

    /// Creates the capture for a new reader or decoder, and installs libav's log callback if no
    /// capture did before.
    ///
    /// - Parameters:
    ///   - kind: A reader or a decoder.
    ///   - defaultLabel: The label when ``LibavLog/withLabel(_:_:)`` gives none.
    init(_ kind: LibavLog.Origin.Kind, defaultLabel: String = "") {
        LibavLogRouter.install()
        origin = LibavLog.Origin(
            kind: kind, label: LibavLogRouter.label ?? defaultLabel,
            serialNumber: LibavLogRouter.serialNumbers.add(1, ordering: .relaxed).newValue)
    }

    deinit {
        LibavLogRouter.unregister(keys.withLock { $0 })
    }

    /// Claims the messages a libav context logs (an `AVFormatContext`, an `AVCodecContext`, or
    /// any value a decoder's frame threads carry in `opaque`).
    func claim(_ context: UnsafeMutableRawPointer?) {
        guard let context else { return }
        let key = UInt(bitPattern: context)
        keys.withLock { $0.append(key) }
        LibavLogRouter.register(key, for: self)
    }

    /// Gives up a context libav freed (a failed `avformat_open_input` frees its context), so that
    /// memory reused at its address is not taken for this object's.
    func release(_ context: UnsafeMutableRawPointer?) {
        guard let context else { return }
        let key = UInt(bitPattern: context)
        keys.withLock { $0.removeAll { $0 == key } }
        LibavLogRouter.unregister([key])
    }

    /// A value that stands for this capture in a decoder's `opaque` field, when nothing else uses it.
    var opaqueKey: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Runs libav calls with this capture current on the thread: what libav logs on this thread
    /// meanwhile, from contexts nobody claimed, is this object's.
    func whileCalling<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let previous = pthread_getspecific(LibavLogRouter.currentKey)
        pthread_setspecific(LibavLogRouter.currentKey, opaqueKey)
        defer { pthread_setspecific(LibavLogRouter.currentKey, previous) }
        return try body()
    }

    /// Keeps a message (called by the router, on the logging thread).
    func keep(_ message: LibavLog.Message, token: Int64?) {
        kept.withLock { kept in
            kept.entries.append(Entry(message: message, token: token, sequence: kept.count))
            kept.count += 1
            if kept.entries.count > Self.keptCount { kept.entries.removeFirst(kept.entries.count - Self.keptCount) }
        }
    }

    /// A position in the log: ``explanation(since:)`` looks at what was logged after it.
    var mark: Int { kept.withLock { $0.count } }

    /// The last error logged since `mark`, or the last warning when there was no error.
    func explanation(since mark: Int) -> LibavLog.Message? {
        kept.withLock { kept in Self.explanation(in: kept.entries.filter { $0.sequence >= mark }) }
    }

    /// The last error logged while the sample with `token` was decoded, or the last warning when
    /// there was no error.
    func explanation(forToken token: Int64) -> LibavLog.Message? {
        kept.withLock { kept in Self.explanation(in: kept.entries.filter { $0.token == token }) }
    }

    /// The last error logged while one of the samples with `tokens` was decoded, or the last
    /// warning when there was no error.
    func explanation(forTokens tokens: ClosedRange<Int64>) -> LibavLog.Message? {
        kept.withLock { kept in Self.explanation(in: kept.entries.filter { $0.token.map(tokens.contains) ?? false }) }
    }

    private static func explanation(in entries: [Entry]) -> LibavLog.Message? {
        entries.last { $0.message.level <= .error }?.message ?? entries.last?.message
    }
}

extension VTError {
    /// The same error with libav's explanation after its reason, for example `"… is not a media
    /// file VAToolbox can read: moov atom not found"`; unchanged without one.
    func quoting(_ message: LibavLog.Message?) -> VTError {
        guard let message else { return self }
        return VTError(
            status: status, reason: reason.isEmpty ? message.text : "\(reason): \(message.text)", cause: cause,
            hint: hint)
    }
}
