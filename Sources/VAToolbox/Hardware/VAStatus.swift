internal import CVAAPI

/// The one place where a libva status becomes a ``VTError``.
enum VAStatusCheck {
    /// Throws `base` with the call's cause when `status` is not `VA_STATUS_SUCCESS`.
    ///
    /// - Parameters:
    ///   - status: What the libva function returned.
    ///   - function: The function's name, for the error's cause.
    ///   - base: The status to report (which OSStatus fits depends on the call).
    ///   - reason: What the library was doing, in the user's terms.
    static func check(
        _ status: VAStatus, _ function: StaticString, as base: VTError, _ reason: @autoclosure () -> String
    ) throws(VTError) {
        guard status != CVAAPI_STATUS_SUCCESS else { return }
        throw error(status, function, as: base, reason())
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
