// The tool's numbers as text. Self-contained (no import), so that Scripts/fuzz compiles this file
// into its binary and formats every time stamp a fuzzed stream states, as the summaries do.

/// `1.23`: a number with a fixed count of decimals.
func fixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return "–" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    // A stream can state any time stamp (a damaged IVF sample's reached 10^17 s): past what an
    // Int holds at this precision, Swift's own shortest form ("1e+17") is still an honest answer.
    guard let scaled = Int(exactly: (abs(value) * scale).rounded()), let unit = Int(exactly: scale) else {
        return "\(value)"
    }
    let whole = scaled / unit
    var fraction = String(scaled % unit)
    fraction = String(repeating: "0", count: max(0, decimals - fraction.count)) + fraction
    return (value < 0 && scaled != 0 ? "-" : "") + "\(whole)" + (decimals > 0 ? "." + fraction : "")
}

/// `"01:02.480"`, or `"1:01:02.480"` past an hour.
func clockTime(_ seconds: Double) -> String {
    guard let milliseconds = Int(exactly: (max(0, seconds) * 1000).rounded()) else { return fixed(seconds, 3) + " s" }
    let hours = milliseconds / 3_600_000
    let minutes = milliseconds / 60_000 % 60
    let secs = milliseconds / 1000 % 60
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let millis = milliseconds % 1000
    let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
    return (hours > 0 ? "\(hours):" : "") + "\(two(minutes)):\(two(secs)).\(fraction)"
}
