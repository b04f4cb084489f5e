import Synchronization

/// The messages FFmpeg's libraries (libavformat, libavcodec, libavutil) log while VAToolbox reads
/// and decodes, and what becomes of them.
///
/// libav* logs through one process-wide callback (`av_log`). VAToolbox installs its own callback
/// once, the first time a ``MediaFileReader`` or a decoder opens, and never changes libav's log
/// level (`av_log_set_level`): that level stays the application's.
///
/// Each message is sorted by where it comes from:
/// - **Claimed** messages come from a ``MediaFileReader`` or from a decoder of a
///   ``DecompressionSession`` (including libavcodec's frame threads and its VA-API hwaccel). Each
///   reader and decoder keeps its recent ones: a failure's ``VTError/reason`` quotes the message
///   that explains it, for example `"… is not a media file VAToolbox can read: moov atom not
///   found"`, and a frame reported as ``VTError/videoDecoderBadData`` carries the decoder's last
///   error line for that frame. Claimed messages go to the handler installed with
///   ``setHandler(upTo:unclaimed:_:)`` and nowhere else: VAToolbox does not write to standard error.
/// - **Unclaimed** messages come from the application's own use of libav*. Without a handler
///   they go to libav's default callback (`av_log_default_callback`), exactly as if VAToolbox
///   were not there, filtered by the application's `av_log_set_level`.
///
/// libav keeps one callback and cannot give it back, so VAToolbox's replaces one the application
/// installed before: route libav's log into your own logger with
/// `setHandler(unclaimed: .deliverToHandler)` rather than `av_log_set_callback`.
///
/// ```swift
/// LibavLog.setHandler(upTo: .warning) { message in
///     logger.warning("\(message.component): \(message.text) [\(message.origin?.description ?? "app")]")
/// }
/// let reader = try LibavLog.withLabel("camera 2") { () throws(VTError) in try MediaFileReader(path: path) }
/// ```
public enum LibavLog {
    /// How important a message is: libavutil's `AV_LOG_*` levels, from the most important
    /// (``panic``) to the least (``trace``). A level compares as libav's numbers do: a less
    /// important level is greater.
    public enum Level: Int32, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
        /// The process is about to abort (`AV_LOG_PANIC`).
        case panic = 0
        /// Something went wrong that cannot be recovered from (`AV_LOG_FATAL`).
        case fatal = 8
        /// Something went wrong, for example damaged data (`AV_LOG_ERROR`).
        case error = 16
        /// Something looks wrong and may lead to problems (`AV_LOG_WARNING`).
        case warning = 24
        /// Standard information (`AV_LOG_INFO`), libav's default level.
        case info = 32
        /// Detailed information (`AV_LOG_VERBOSE`).
        case verbose = 40
        /// Information for libav's developers (`AV_LOG_DEBUG`).
        case debug = 48
        /// Extremely verbose debugging (`AV_LOG_TRACE`).
        case trace = 56

        /// The level of a libav level number: the nearest level at or above it in importance.
        init(libavLevel: Int32) {
            self = Self.allCases.first { libavLevel <= $0.rawValue } ?? .trace
        }

        /// Orders by libav's numbers: ``error`` < ``warning`` < ``info``.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The level's name, for example `"warning"`.
        public var description: String {
            switch self {
            case .panic: "panic"
            case .fatal: "fatal"
            case .error: "error"
            case .warning: "warning"
            case .info: "info"
            case .verbose: "verbose"
            case .debug: "debug"
            case .trace: "trace"
            }
        }
    }

    /// The VAToolbox object a message belongs to.
    public struct Origin: Sendable, Hashable, CustomStringConvertible {
        /// What kind of object logged.
        public enum Kind: Sendable, Hashable {
            /// A ``MediaFileReader`` (libavformat, and the decoders libavformat runs to probe a file).
            case mediaFileReader
            /// A decoder of a ``DecompressionSession`` (libavcodec, its threads and its hwaccel).
            case decoder
        }

        /// What kind of object logged.
        public let kind: Kind
        /// The label given with ``LibavLog/withLabel(_:_:)`` when the object opened; without
        /// one, a reader's path, or an empty string for a decoder.
        public let label: String
        /// A number unique to the object in this process, counting from 1 in the order they opened.
        public let serialNumber: Int

        /// `"reader 3 (movie.mp4)"`, `"decoder 4"`.
        public var description: String {
            let kindName = kind == .mediaFileReader ? "reader" : "decoder"
            return label.isEmpty ? "\(kindName) \(serialNumber)" : "\(kindName) \(serialNumber) (\(label))"
        }
    }

    /// One message, one line of libav's log.
    public struct Message: Sendable, CustomStringConvertible {
        /// How important it is.
        public let level: Level
        /// The libav component that logged it (its `AVClass` item name), for example `"h264"` or
        /// `"mov,mp4,m4a,3gp,3g2,mj2"`; empty when libav gave no context.
        public let component: String
        /// The text, without the trailing newline.
        public let text: String
        /// The reader or decoder it belongs to; nil for an unclaimed message (the application's
        /// own use of libav*).
        public let origin: Origin?

        /// `"[h264 @ decoder 4] error while decoding MB 15 13, bytestream 547"`, in the shape of
        /// libav's own lines.
        public var description: String {
            let place = [component, origin?.description].compactMap { $0 }.filter { !$0.isEmpty }
            return place.isEmpty ? text : "[\(place.joined(separator: " @ "))] \(text)"
        }
    }

    /// What becomes of messages that no reader or decoder of VAToolbox claims.
    public enum UnclaimedMessages: Sendable, Hashable {
        /// libav's default callback gets them (`av_log_default_callback`: standard error,
        /// filtered by `av_log_set_level`), as if VAToolbox were not there.
        case forwardToDefaultCallback
        /// The handler gets them, with a nil ``Message/origin``, up to the handler's level.
        case deliverToHandler
    }

    /// Receives messages; see ``setHandler(upTo:unclaimed:_:)``.
    public typealias Handler = @Sendable (Message) -> Void

    /// Installs the function that receives libav's messages, or removes it.
    ///
    /// The handler is called on the thread that logs, which may be one of libavcodec's decoding
    /// threads, and from several threads at a time: keep it short, and make it thread-safe. It
    /// must not call back into VAToolbox. `av_log_set_level` does not filter what the handler
    /// receives; `level` does.
    ///
    /// - Parameters:
    ///   - level: The least important level the handler receives (``Level/info`` receives
    ///     information, warnings and errors).
    ///   - unclaimed: Whether the handler also receives the messages no reader or decoder claims,
    ///     or libav's default callback keeps them (the default).
    ///   - handler: The function; nil removes the handler, so that claimed messages are kept for
    ///     error reasons only and unclaimed ones go to libav's default callback.
    public static func setHandler(
        upTo level: Level = .info, unclaimed: UnclaimedMessages = .forwardToDefaultCallback,
        _ handler: Handler?
    ) {
        LibavLogRouter.install()
        LibavLogRouter.configuration.withLock {
            $0 = handler.map { LibavLogRouter.Configuration(level: level, unclaimed: unclaimed, handler: $0) }
        }
    }

    /// Silences libav's default callback (`av_log_set_level(AV_LOG_QUIET)`), process-wide: the
    /// messages no handler receives are dropped instead of printed on standard error. The readers'
    /// and decoders' own messages are still kept for their errors and damaged pictures, and a
    /// handler set with ``setHandler(upTo:unclaimed:_:)`` still receives what it asks for.
    public static func silenceDefaultCallback() {
        LibavLogRouter.silenceDefaultCallback()
    }

    /// Runs `body` so that the readers and decoders it opens carry `label` in their messages'
    /// ``Message/origin``.
    ///
    /// A session's decoders are opened when the session is created; open it inside `body`. A
    /// decoder a session opens later on its own (moving from the GPU to the CPU after device
    /// faults) has no label; its origin still names a decoder of its own.
    ///
    /// - Parameters:
    ///   - label: A name the application knows the stream by, for example `"camera 2"`.
    ///   - body: Opens readers or sessions.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public static func withLabel<Result, Failure: Error>(
        _ label: String, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let outcome: Swift.Result<Result, Failure> = LibavLogRouter.$label.withValue(label) {
            do throws(Failure) {
                return .success(try body())
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}
