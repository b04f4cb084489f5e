internal import CVAAPI

/// The one place where a libva status is compared, and where it becomes a ``VTError``.
///
/// ``Display`` turns each call's status into a `Result` here (``result(_:_:_:)``); the driver
/// table's hooks ask ``succeeded(_:)``. No other file compares a libva status.
enum VAStatusCheck {
    /// `VA_STATUS_SUCCESS`, for the driver table's hooks to answer with.
    static let success: VAStatus = CVAAPI_STATUS_SUCCESS
    /// `VA_STATUS_ERROR_OPERATION_FAILED`, for the driver table's hooks to answer with.
    static let operationFailed: VAStatus = VA_STATUS_ERROR_OPERATION_FAILED

    /// `VA_STATUS_ERROR_TIMEDOUT`: the code of the cause of a call the session stopped waiting for
    /// (``WatchdogBackend``).
    static let timedOutCode: Int32 = VA_STATUS_ERROR_TIMEDOUT

    /// Whether `status` is `VA_STATUS_SUCCESS`.
    static func succeeded(_ status: VAStatus) -> Bool {
        status == CVAAPI_STATUS_SUCCESS
    }

    /// `value()` when `status` is `VA_STATUS_SUCCESS`; otherwise the call's failure.
    static func result<Value>(
        _ status: VAStatus, _ function: StaticString, _ value: () -> Value
    ) -> Result<Value, VAFailure> {
        succeeded(status) ? .success(value()) : .failure(VAFailure(function: function, status: status))
    }

    /// The error for a failed libva call.
    static func error(_ status: VAStatus, _ function: StaticString, as base: VTError, _ reason: String) -> VTError {
        base.with(reason, cause: cause(status, function))
    }

    /// The cause for a failed libva call, with libva's message (`vaErrorStr`).
    static func cause(_ status: VAStatus, _ function: StaticString) -> UnderlyingCause {
        UnderlyingCause(
            library: "libva", function: "\(function)", code: status,
            message: vaErrorStr(status).map { String(cString: $0) } ?? "unknown VA status")
    }
}

/// A libva call that did not return `VA_STATUS_SUCCESS`: the function and its status.
struct VAFailure: Error, Sendable {
    /// The libva function, for the error's cause.
    let function: StaticString
    /// What it returned.
    let status: Int32

    /// Whether the driver found errors in a picture's data (`VA_STATUS_ERROR_DECODING_ERROR`:
    /// the stream is damaged, the GPU is fine).
    var isDecodingError: Bool { status == VA_STATUS_ERROR_DECODING_ERROR }

    /// Whether the driver refused the surface (`VA_STATUS_ERROR_INVALID_SURFACE`).
    var isInvalidSurface: Bool { status == VA_STATUS_ERROR_INVALID_SURFACE }

    /// `base` with `reason` and this failure as its cause.
    func error(as base: VTError, _ reason: String) -> VTError {
        VAStatusCheck.error(status, function, as: base, reason)
    }

    /// The cause, with libva's message, for a reason that quotes it.
    var cause: UnderlyingCause { VAStatusCheck.cause(status, function) }
}

extension Result where Failure == VAFailure {
    /// The value of a libva call that succeeded; otherwise throws `base` with `reason` and the
    /// call's cause.
    func get(as base: VTError, _ reason: @autoclosure () -> String) throws(VTError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let failure): throw failure.error(as: base, reason())
        }
    }
}
