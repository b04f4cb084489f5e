#if canImport(Glibc)
    import Glibc
#endif

/// `VATOOLBOX_REPORT_DESCRIPTORS=1`: at exit, the tool prints the file descriptors its command
/// opened and left open (render nodes, DMA-BUF exports, input files), one line on standard error:
/// `vatoolbox: descriptors left open: 0`, or the count and what each one is. `Scripts/faults`
/// checks that every run ends with none.
enum DescriptorReport {
    /// Whether the report was asked for.
    static let isOn = getenv("VATOOLBOX_REPORT_DESCRIPTORS").map { String(cString: $0) == "1" } ?? false

    /// The process's open descriptors and what each refers to (`/proc/self/fd`).
    static func openDescriptors() -> [Int32: String] {
        guard let directory = opendir("/proc/self/fd") else { return [:] }
        defer { closedir(directory) }
        var found: [Int32: String] = [:]
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let descriptor = Int32(name) else { continue }
            found[descriptor] = target(of: descriptor)
        }
        if let own = Int32(exactly: dirfd(directory)) { found[own] = nil }
        return found
    }

    /// Prints the descriptors open now that were not open in `before`, leaving out the ones the
    /// Swift runtime and Dispatch keep for the process (event and timer descriptors, epoll).
    static func print(since before: [Int32: String]) {
        let left = openDescriptors().filter { descriptor, target in
            before[descriptor] != target && !target.hasPrefix("anon_inode:[event") && target != "anon_inode:[timerfd]"
        }
        var line = "vatoolbox: descriptors left open: \(left.count)"
        if !left.isEmpty {
            line +=
                " (" + left.sorted { $0.key < $1.key }.map { "\($0.key) → \($0.value)" }.joined(separator: ", ") + ")"
        }
        printError(line)
    }

    private static func target(of descriptor: Int32) -> String {
        var path = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/fd/\(descriptor)", &path, path.count - 1)
        guard count > 0 else { return "?" }
        return String(decoding: path.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
