import Foundation

/// What the process writes to standard error while a body runs.
///
/// Standard error is the process's: while the body runs, other tests' messages land in the
/// capture too. They are written back to standard error afterwards, so nothing is lost. Captures
/// take turns, in every test target of the process, through a lock on a file.
enum StandardErrorCapture {
    /// The lines of the body that contain `marker`, each with its newline, NSLog's date and
    /// process prefix (`2026-12-04 10:24:51.534 process[pid:tid] `) removed.
    static func lines(containing marker: String, _ body: () throws -> Void) throws -> String {
        let lockPath = FileManager.default.temporaryDirectory.appendingPathComponent("vatoolbox-stderr-capture.lock")
            .path
        let lock = open(lockPath, O_CREAT | O_RDWR, 0o600)
        defer { close(lock) }
        flock(lock, LOCK_EX)
        defer { flock(lock, LOCK_UN) }

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        let capture = try FileHandle(forWritingTo: file)
        let saved = dup(STDERR_FILENO)
        dup2(capture.fileDescriptor, STDERR_FILENO)
        var thrown: Error?
        do { try body() } catch { thrown = error }
        dup2(saved, STDERR_FILENO)
        close(saved)
        try capture.close()
        if let thrown { throw thrown }

        let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        var ours = ""
        var others = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            guard line.contains(marker) else {
                others += line + "\n"
                continue
            }
            let nsLogPrefix = line.range(
                of: #"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \S+\[[0-9a-f:]+\] "#, options: .regularExpression)
            ours += line[(nsLogPrefix?.upperBound ?? line.startIndex)...] + "\n"
        }
        FileHandle.standardError.write(Data(others.utf8))
        return ours
    }
}
