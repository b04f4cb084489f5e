internal import CFFmpeg
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// libav's process-wide log callback (`av_log_set_callback`), installed once, and the table that
/// finds the reader or decoder a message belongs to.
///
/// A message is claimed by the ``LibavLogCapture`` that registered its context, found in this
/// order:
/// 1. the logging context itself: an `AVFormatContext` a reader opened, or an `AVCodecContext` a
///    decoder opened;
/// 2. for an `AVCodecContext`, its `opaque` field. libavcodec's frame threads log with their own
///    copy of the decoder's context (`pthread_frame.c`: `init_thread` duplicates the user's
///    context, and `update_context_from_user` copies `opaque` and `reordered_opaque` into it
///    before each packet), so a copy carries the owner's `opaque`;
/// 3. the same for the parent contexts libav names (`AVClass.parent_log_context_offset`);
/// 4. the capture calling into libav on this thread (``LibavLogCapture/whileCalling(_:)``): the
///    decoders libavformat opens to probe a file, parsers, the hwaccel's device and frames
///    contexts, all of which log on the caller's thread with contexts of their own.
///
/// Nothing else is claimed: it is the application's, and goes where the application's settings
/// send it.
enum LibavLogRouter {
    /// The application's handler and its choices.
    struct Configuration: Sendable {
        /// The least important level the handler receives.
        let level: LibavLog.Level
        /// Where unclaimed messages go.
        let unclaimed: LibavLog.UnclaimedMessages
        /// The handler.
        let handler: LibavLog.Handler
    }

    /// The installed handler; nil when the application has none.
    static let configuration = Mutex<Configuration?>(nil)

    /// The label ``LibavLog/withLabel(_:_:)`` binds for the readers and decoders opened inside it.
    @TaskLocal static var label: String?

    /// Issues the serial numbers of ``LibavLog/Origin``.
    static let serialNumbers = Atomic<Int>(0)

    /// Installs the callback, once.
    static func install() { _ = installed }

    private static let installed: Void = { av_log_set_callback(libavLogCallback) }()

    /// A capture, held weakly so that the table never keeps one alive.
    private struct WeakCapture: Sendable {
        weak var capture: LibavLogCapture?
    }

    /// Context addresses (and decoder `opaque` values) to the captures that registered them.
    private static let owners = Mutex<[UInt: WeakCapture]>([:])

    /// Registers `key` (a context's address) as `capture`'s.
    static func register(_ key: UInt, for capture: LibavLogCapture) {
        owners.withLock { $0[key] = WeakCapture(capture: capture) }
    }

    /// Removes keys a capture registered.
    static func unregister(_ keys: [UInt]) {
        owners.withLock { table in
            for key in keys { table[key] = nil }
        }
    }

    /// The thread's current capture (an unretained reference; ``LibavLogCapture/whileCalling(_:)``
    /// keeps it alive while it is set).
    static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()

    /// `AVCodecContext`'s and `AVFormatContext`'s classes, by address.
    private static let codecContextClass = UInt(bitPattern: avcodec_get_class())
    private static let formatContextClass = UInt(bitPattern: avformat_get_class())

    /// The first `AVClass` version with `parent_log_context_offset` (libavutil's own test in `av_vlog`).
    private static let parentOffsetVersion: Int32 = 50 << 16 | 15 << 8 | 3

    /// Sends one message where it belongs.
    static func route(
        _ context: UnsafeMutableRawPointer?, _ rawLevel: Int32, _ format: UnsafePointer<CChar>?,
        _ arguments: CVaListPointer?
    ) {
        // The low byte is the level; libav may keep a colour above it.
        let level = rawLevel & 0xff
        let settings = configuration.withLock { $0 }
        guard let owner = claimant(of: context) ?? current() else {
            guard let settings, settings.unclaimed == .deliverToHandler else {
                // Swift imports the callback's `va_list` as optional; libav always passes one.
                if let arguments { av_log_default_callback(context, rawLevel, format, arguments) }
                return
            }
            guard level <= settings.level.rawValue, let text = formatted(format, arguments) else { return }
            settings.handler(
                LibavLog.Message(
                    level: LibavLog.Level(libavLevel: level), component: component(of: context), text: text,
                    origin: nil))
            return
        }
        let kept = level <= LibavLogCapture.keptLevel.rawValue
        let handled = settings.map { level <= $0.level.rawValue } ?? false
        guard kept || handled, let text = formatted(format, arguments) else { return }
        let message = LibavLog.Message(
            level: LibavLog.Level(libavLevel: level), component: component(of: context), text: text,
            origin: owner.origin)
        if kept { owner.keep(message, token: token(of: context)) }
        if handled { settings?.handler(message) }
    }

    /// The capture that registered `context`, its `opaque` or one of its parents.
    private static func claimant(of context: UnsafeMutableRawPointer?) -> LibavLogCapture? {
        var keys: [UInt] = []
        var next = context
        // libav's parent chains are one or two deep; four bounds a malformed one.
        for _ in 0..<4 {
            guard let pointer = next, let avClass = pointer.load(as: UnsafePointer<AVClass>?.self) else { break }
            keys.append(UInt(bitPattern: pointer))
            if UInt(bitPattern: avClass) == codecContextClass,
                let opaque = pointer.assumingMemoryBound(to: AVCodecContext.self).pointee.opaque
            {
                keys.append(UInt(bitPattern: opaque))
            }
            let offset = avClass.pointee.parent_log_context_offset
            guard avClass.pointee.version >= parentOffsetVersion, offset > 0 else { break }
            next = (pointer + Int(offset)).load(as: UnsafeMutableRawPointer?.self)
        }
        guard !keys.isEmpty else { return nil }
        return owners.withLock { table in
            for key in keys {
                if let capture = table[key]?.capture { return capture }
            }
            return nil
        }
    }

    /// The capture calling into libav on this thread, if any.
    private static func current() -> LibavLogCapture? {
        pthread_getspecific(currentKey).map { Unmanaged<LibavLogCapture>.fromOpaque($0).takeUnretainedValue() }
    }

    /// For a decoder's context (or a frame thread's copy of it): the token of the sample it was
    /// decoding, which the decoder stores in `reordered_opaque` before sending each sample.
    private static func token(of context: UnsafeMutableRawPointer?) -> Int64? {
        guard let context, let avClass = context.load(as: UnsafePointer<AVClass>?.self),
            UInt(bitPattern: avClass) == codecContextClass
        else { return nil }
        let value = context.assumingMemoryBound(to: AVCodecContext.self).pointee.reordered_opaque
        return value == CFFmpeg_AV_NOPTS_VALUE() ? nil : value
    }

    /// The context's `AVClass` item name (`"h264"`, `"mov,mp4,m4a,3gp,3g2,mj2"`), or its class
    /// name when it has no item name; empty without a context.
    private static func component(of context: UnsafeMutableRawPointer?) -> String {
        guard let context, let avClass = context.load(as: UnsafePointer<AVClass>?.self) else { return "" }
        if let itemName = avClass.pointee.item_name, let name = itemName(context) {
            return String(cString: name)
        }
        return avClass.pointee.class_name.map { String(cString: $0) } ?? ""
    }

    /// The message's text (`vsnprintf`; at most 1023 bytes), without trailing white space; nil
    /// when it is empty.
    private static func formatted(_ format: UnsafePointer<CChar>?, _ arguments: CVaListPointer?) -> String? {
        guard let format, let arguments else { return nil }
        let text = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 1024) { buffer -> String in
            guard let base = buffer.baseAddress, vsnprintf(base, buffer.count, format, arguments) >= 0 else {
                return ""
            }
            return String(cString: base)
        }
        var end = text.endIndex
        while end > text.startIndex, text[text.index(before: end)].isWhitespace { end = text.index(before: end) }
        return end == text.startIndex ? nil : String(text[..<end])
    }
}

/// The function libav calls for every message (`av_log_set_callback`).
private func libavLogCallback(
    _ context: UnsafeMutableRawPointer?, _ level: Int32, _ format: UnsafePointer<CChar>?,
    _ arguments: CVaListPointer?
) {
    LibavLogRouter.route(context, level, format, arguments)
}

extension LibavLogRouter {
    /// Silences libav's default callback, process-wide (`av_log_set_level(AV_LOG_QUIET)`).
    static func silenceDefaultCallback() {
        av_log_set_level(AV_LOG_QUIET)
    }
}
