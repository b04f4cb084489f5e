/// An error from VAToolbox, carrying the Apple `OSStatus` value a VideoToolbox user looks up.
///
/// Every failure in the library is a `VTError`: the ``status`` is the exact value VideoToolbox or
/// CoreMedia returns for the same situation (for example `kVTVideoDecoderBadDataErr`, -12909), the
/// ``reason`` says in plain words what went wrong, ``cause`` names the C call underneath when there
/// is one, and ``hint`` says what the user can do about it where they can do something.
///
/// Two errors are equal when their status values are equal: the reason, cause and hint explain a
/// status, they do not make a different one. That lets you match errors by their Apple name:
///
/// ```swift
/// do {
///     try session.decodeFrame(sample)
/// } catch VTError.invalidSession {
///     // recreate the session
/// }
/// ```
public struct VTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The Apple `OSStatus` value, for example -12909 for `kVTVideoDecoderBadDataErr`.
    public let status: Int32

    /// What went wrong, in words a user understands; empty when only the status is known.
    public var reason: String

    /// The C library call underneath the failure, when there is one.
    public var cause: UnderlyingCause?

    /// What the user can do about the failure, when there is something they can do.
    public var hint: String?

    /// Creates an error with a status value and an explanation.
    ///
    /// - Parameters:
    ///   - status: The Apple `OSStatus` value.
    ///   - reason: What went wrong, in plain words.
    ///   - cause: The C call that failed underneath, if any.
    ///   - hint: What the user can do about it, if anything.
    public init(status: Int32, reason: String = "", cause: UnderlyingCause? = nil, hint: String? = nil) {
        self.status = status
        self.reason = reason
        self.cause = cause
        self.hint = hint
    }

    /// The same status with a reason, and optionally a cause and a hint, attached.
    ///
    /// Use it on the named constants: `VTError.parameter.with("width must be positive")`.
    public func with(_ reason: String, cause: UnderlyingCause? = nil, hint: String? = nil) -> VTError {
        VTError(status: status, reason: reason, cause: cause ?? self.cause, hint: hint ?? self.hint)
    }

    /// The Apple constant's name, for example `"kVTVideoDecoderBadDataErr"`, or `"OSStatus N"`
    /// for a value this library does not know.
    public var name: String { Self.catalogue[status]?.name ?? "OSStatus \(status)" }

    /// A one-line summary of what the status means in general, independent of this failure.
    public var summary: String { Self.catalogue[status]?.summary ?? "unknown status" }

    /// The full explanation on one line: name, status, reason, cause and hint, as in
    /// `kCMSampleBufferError_DataFailed (-12742): cannot open clip.mp4 [libavformat
    /// avformat_open_input: -2 No such file or directory]. Hint: check the path`.
    ///
    /// It is also the error's `localizedDescription`, and the line the `vatoolbox` tool prints
    /// after its command's name (`vatoolbox decode: …`).
    public var description: String {
        var text = "\(name) (\(status)): \(reason.isEmpty ? summary : reason)"
        if let cause { text += " [\(cause)]" }
        if let hint { text += ". Hint: \(hint)" }
        return text
    }

    /// Equality by status value only.
    public static func == (lhs: VTError, rhs: VTError) -> Bool { lhs.status == rhs.status }

    /// Hashes the status value only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(status) }

    /// Matches any error that is a `VTError` with the same status, so `catch VTError.parameter` works.
    public static func ~= (pattern: VTError, value: any Error) -> Bool {
        (value as? VTError)?.status == pattern.status
    }
}

/// The C library call that failed underneath a ``VTError``.
public struct UnderlyingCause: Sendable, Hashable, CustomStringConvertible {
    /// The library, for example `"libavcodec"`, `"libva"` or `"libc"`.
    public var library: String
    /// The C function that failed, for example `"avcodec_send_packet"`.
    public var function: String
    /// The status the function returned (an `AVERROR`, a `VAStatus`, an `errno`).
    public var code: Int32
    /// The library's own message for that status.
    public var message: String

    /// Creates a cause from the failing call and its status.
    public init(library: String, function: String, code: Int32, message: String) {
        self.library = library
        self.function = function
        self.code = code
        self.message = message
    }

    /// `"libavcodec avcodec_send_packet: -1094995529 Invalid data found when processing input"`.
    public var description: String { "\(library) \(function): \(code) \(message)" }
}
