import Synchronization

/// Collects libva's messages for one display instead of letting libva print them to standard
/// error, so that a failure can quote them (``Display/routeMessages(to:keepingInfo:)``: error
/// messages come here; informational ones, "VA-API version …", "Trying to open …", are dropped
/// unless `VATOOLBOX_VA_LOG` is on).
final class VAMessageLog: Sendable {
    private let lines = Mutex<[String]>([])

    /// Keeps a message libva sent for the display (the last 16).
    func append(_ message: String) {
        let text = message.trimmingTrailingNewlines
        lines.withLock { $0 = Array(($0 + [text]).suffix(16)) }
    }

    /// The messages since the last call.
    func drain() -> [String] {
        lines.withLock { lines in
            defer { lines.removeAll() }
            return lines
        }
    }
}

extension String {
    /// The string without the newlines at its end.
    var trimmingTrailingNewlines: String {
        var text = Substring(self)
        while text.last == "\n" || text.last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
