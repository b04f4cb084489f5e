import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// A file that could not be read, with the system's reason.
struct ReadError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    var description: String { "cannot read \(path): \(reason)" }
}

/// Reads a whole file, or standard input for `-`.
func readFile(_ path: String) throws(ReadError) -> [UInt8] {
    let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY)
    guard descriptor >= 0 else { throw ReadError(path: path, reason: String(cString: strerror(errno))) }
    defer { if descriptor != STDIN_FILENO { close(descriptor) } }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw ReadError(path: path, reason: String(cString: strerror(errno)))
        }
        if count == 0 { break }
        bytes += chunk[0..<count]
    }
    return bytes
}

/// Writes a line to standard error.
func printError(_ text: String) {
    // write(2) on the descriptor, not the C `stderr` FILE global, which is shared mutable state.
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

/// Tells H.264 from HEVC for a raw stream.
enum StreamSniffer {
    /// Whether the file name says raw Annex B (read by the elementary stream parser) rather than
    /// a container (read by libavformat).
    static func isRawStream(path: String) -> Bool {
        let lower = path.lowercased()
        return path == "-" || rawExtensions.contains(where: lower.hasSuffix)
    }

    static let rawExtensions = [".265", ".h265", ".hevc", ".bit", ".264", ".h264", ".avc", ".jsv", ".26l", ".jvt"]

    /// By extension first; otherwise by the first parameter set's header under each codec's layout.
    static func codec(path: String, bytes: [UInt8]) -> VideoCodecType {
        let lower = path.lowercased()
        if [".265", ".h265", ".hevc", ".bit"].contains(where: lower.hasSuffix) { return .hevc }
        if [".264", ".h264", ".avc", ".jsv", ".26l", ".jvt"].contains(where: lower.hasSuffix) { return .h264 }
        for unit in AnnexB.split(bytes).prefix(8) where unit.count >= 2 {
            let first = unit[unit.startIndex]
            let hevcType = (first >> 1) & 0x3F
            if (32...35).contains(hevcType) && unit[unit.startIndex + 1] == 1 { return .hevc }
            if [7, 8, 9].contains(first & 0x1F) { return .h264 }
        }
        return .h264
    }
}
