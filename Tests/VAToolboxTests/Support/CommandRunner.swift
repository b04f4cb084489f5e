import Foundation

/// Runs every subprocess of the tests: the built `vatoolbox` tool, the ffmpeg CLI tools and
/// pkg-config.
enum CommandRunner {
    /// What a finished process left.
    struct Result {
        var status: Int32
        var standardOutput: Data
        var standardError: String
        /// Whether the process ran past its time limit and was killed (``run(_:_:input:environment:timeout:)``).
        var timedOut = false

        /// Standard output as text.
        var text: String { String(decoding: standardOutput, as: UTF8.self) }
        /// The lines of standard error, without empty ones.
        var errorLines: [String] { standardError.split(separator: "\n").map(String.init) }
    }

    /// The built tool: beside the test bundle in the build folder (`swift build --build-tests`
    /// builds both), or `.build/debug/vatoolbox`.
    static let tool: URL = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("vatoolbox")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return TestData.packageRoot.appendingPathComponent(".build/debug/vatoolbox")
    }()

    /// Whether the tool was built.
    static var hasTool: Bool { FileManager.default.isExecutableFile(atPath: tool.path) }

    /// Whether the ffmpeg CLI is installed.
    static let hasFFmpeg = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")

    /// Runs `vatoolbox ARGUMENTS`, in `environment` when given (else the test's own).
    static func vatoolbox(
        _ arguments: [String], input: URL? = nil, environment: [String: String]? = nil, timeout: Duration? = nil
    ) throws -> Result {
        try run(tool, arguments, input: input, environment: environment, timeout: timeout)
    }

    /// Runs `ffmpeg -v error -nostdin ARGUMENTS`.
    static func ffmpeg(_ arguments: [String]) throws -> Result {
        try run(URL(fileURLWithPath: "/usr/bin/ffmpeg"), ["-v", "error", "-nostdin"] + arguments)
    }

    /// Runs `ffprobe -v error ARGUMENTS`.
    static func ffprobe(_ arguments: [String]) throws -> Result {
        try run(URL(fileURLWithPath: "/usr/bin/ffprobe"), ["-v", "error"] + arguments)
    }

    /// Runs an executable with standard output and error in temporary files (no pipe can fill up
    /// and stall it), and standard input from `input` or /dev/null.
    static func run(
        _ executable: URL, _ arguments: [String], input: URL? = nil, environment: [String: String]? = nil,
        timeout: Duration? = nil
    ) throws -> Result {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = try FileHandle(forReadingFrom: input ?? URL(fileURLWithPath: "/dev/null"))
        try process.run()
        // A process that hangs is killed at the limit, so that a hang fails its test, not the run.
        let killer = DispatchWorkItem { [process] in
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        if let timeout {
            let (seconds, attoseconds) = timeout.components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: killer)
        }
        process.waitUntilExit()
        killer.cancel()
        return Result(
            status: process.terminationStatus, standardOutput: try Data(contentsOf: outURL),
            standardError: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
            timedOut: process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
    }

    /// A new empty folder under the system's temporary folder.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vatoolbox-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
