internal import CFFmpeg

/// The one place where a libav* status becomes a ``VTError``.
///
/// `AVERROR(EAGAIN)` and `AVERROR_EOF` are control flow for the send/receive loop, not errors;
/// callers test for them with ``isAgain(_:)`` and ``isEndOfFile(_:)`` before calling ``check``.
enum FFmpegStatus {
    /// Whether `status` is `AVERROR(EAGAIN)`.
    static func isAgain(_ status: Int32) -> Bool { status == CFFmpeg_AVERROR_EAGAIN() }
    /// Whether `status` is `AVERROR_EOF`.
    static func isEndOfFile(_ status: Int32) -> Bool { status == CFFmpeg_AVERROR_EOF() }

    /// Throws the error a negative status stands for; returns the status otherwise.
    ///
    /// - Parameters:
    ///   - status: What the libav* function returned.
    ///   - function: The function's name, for the error's cause.
    ///   - reason: What the library was doing, in the user's terms.
    @discardableResult
    static func check(_ status: Int32, _ function: StaticString, _ reason: @autoclosure () -> String) throws(VTError)
        -> Int32
    {
        guard status < 0 else { return status }
        throw error(status, function, reason())
    }

    /// The ``VTError`` for a negative libav* status (table below), with the cause filled in.
    static func error(_ status: Int32, _ function: StaticString, _ reason: String) -> VTError {
        let base: VTError
        switch status {
        case CFFmpeg_AVERROR_INVALIDDATA(): base = .videoDecoderBadData
        case CFFmpeg_AVERROR(ENOMEM): base = .allocationFailed
        case CFFmpeg_AVERROR(EINVAL): base = .parameter
        case CFFmpeg_AVERROR(ENOSYS): base = .videoDecoderUnsupportedDataFormat
        default: base = .videoDecoderMalfunction
        }
        return base.with(
            reason,
            cause: UnderlyingCause(
                library: "libavcodec", function: "\(function)", code: status, message: message(status)))
    }

    /// The cause of a failed libavformat call: the function, its status and FFmpeg's message for it.
    static func formatCause(_ status: Int32, _ function: StaticString) -> UnderlyingCause {
        UnderlyingCause(library: "libavformat", function: "\(function)", code: status, message: message(status))
    }

    /// FFmpeg's message for a status (`av_strerror`).
    static func message(_ status: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        return buffer.withUnsafeMutableBufferPointer {
            String(cString: CFFmpeg_av_err2str(status, $0.baseAddress, 128))
        }
    }
}
