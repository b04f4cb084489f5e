#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// `localizedDescription` is ``VTError/description``: the one line the `vatoolbox` tool prints
/// after its command's name (the OSStatus name and value, the reason, the C call underneath and
/// the hint), instead of Foundation's `The operation could not be completed.`
extension VTError: LocalizedError {
    /// The full explanation, the same as ``description``.
    public var errorDescription: String? { description }

    /// The reason, or the status's ``summary`` when no reason was given.
    public var failureReason: String? { reason.isEmpty ? summary : reason }

    /// The ``hint``, when there is one.
    public var recoverySuggestion: String? { hint }
}
