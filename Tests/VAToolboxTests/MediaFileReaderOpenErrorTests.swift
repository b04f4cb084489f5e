import Foundation
import Testing

@testable import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// What `MediaFileReader` says when a file cannot be opened: the error's `localizedDescription`
/// is the line the tool prints, and a missing file, a file the process may not read and a file
/// that is not a media file each carry a cause (libavformat's status and message) and a hint.
@Suite struct MediaFileReaderOpenErrorTests {
    /// The error `MediaFileReader(path:)` throws for `path`.
    static func openError(_ path: String) throws -> VTError {
        let error = #expect(throws: VTError.self) { _ = try MediaFileReader(path: path) }
        return try #require(error, "\(path) opened")
    }

    /// A temporary folder with a text file named like a video.
    static func textFile() throws -> (folder: URL, file: URL) {
        let folder = try CommandRunner.temporaryDirectory()
        let file = folder.appendingPathComponent("notes.mp4")
        try Data("not a video\n".utf8).write(to: file)
        return (folder, file)
    }

    @Test func localizedDescriptionIsTheDescriptionNotFoundationsPlaceholder() {
        let error = VTError.parameter.with(
            "width must be positive",
            cause: UnderlyingCause(library: "libc", function: "open", code: 2, message: "No such file or directory"),
            hint: "pass a width")
        let anyError: any Error = error
        #expect(anyError.localizedDescription == error.description)
        #expect(
            error.description
                == "kVTParameterErr (-12902): width must be positive [libc open: 2 No such file or directory]. "
                + "Hint: pass a width")
        #expect((anyError as? any LocalizedError)?.failureReason == "width must be positive")
        #expect((anyError as? any LocalizedError)?.recoverySuggestion == "pass a width")
        #expect(
            (VTError.parameter as any Error).localizedDescription == "kVTParameterErr (-12902): a parameter is invalid")
    }

    @Test(.enabled(if: CommandRunner.hasTool))
    func theToolPrintsTheErrorsLocalizedDescription() throws {
        let (folder, file) = try Self.textFile()
        defer { try? FileManager.default.removeItem(at: folder) }
        let error: any Error = try Self.openError(file.path)
        for command in ["probe", "decode", "framemd5"] {
            let result = try CommandRunner.vatoolbox([command, file.path])
            #expect(result.status == 1)
            #expect(result.errorLines == ["vatoolbox \(command): \(error.localizedDescription)"])
        }
    }

    @Test(
        "a codec VAToolbox does not decode: the tool's line is the error's localizedDescription",
        .enabled(if: CommandRunner.hasTool && CommandRunner.hasFFmpeg))
    func unsupportedCodecLineIsTheLocalizedDescription() throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("clip.mkv")
        let made = try CommandRunner.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=64x48:rate=25", "-frames:v", "2", "-c:v", "mjpeg", "-y", file.path,
        ])
        try #require(made.status == 0, "\(made.standardError)")
        let error: any Error = try Self.openError(file.path)
        #expect(error.localizedDescription.hasPrefix("kVTCouldNotFindVideoDecoderErr (-12906): "))
        let result = try CommandRunner.vatoolbox(["decode", file.path])
        #expect(result.status == 3)
        #expect(result.errorLines == ["vatoolbox decode: \(error.localizedDescription)"])
    }

    @Test func aMissingFileNamesTheSystemsReasonAndSaysToCheckThePath() throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = try Self.openError(folder.appendingPathComponent("missing.mp4").path)
        #expect(error == VTError.sampleBufferDataFailed)
        let cause = try #require(error.cause)
        #expect(cause.library == "libavformat" && cause.function == "avformat_open_input")
        #expect(cause.code == -ENOENT)
        #expect(cause.message == "No such file or directory")
        #expect(error.hint == "check the path")
        #expect(error.localizedDescription.contains("missing.mp4"))
    }

    @Test func aFileThatIsNotMediaSaysWhatVAToolboxReads() throws {
        let (folder, file) = try Self.textFile()
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = try Self.openError(file.path)
        #expect(error == VTError.sampleBufferInvalidMediaFormat)
        #expect(error.reason.contains("is not a media file"))
        let cause = try #require(error.cause)
        #expect(cause.function == "avformat_open_input")
        #expect(cause.message == "Invalid data found when processing input")
        #expect(error.hint?.hasPrefix("the file is not a video container VAToolbox reads") == true)
    }

    /// Root reads any file whatever its mode, so the open cannot fail this way when the tests run
    /// as root (the next test checks the mapping itself).
    @Test(.enabled(if: getuid() != 0, "root may read a file of mode 000: permission denied cannot happen"))
    func anUnreadableFileSaysToCheckItsPermissions() throws {
        let (folder, file) = try Self.textFile()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: file.path)
        let error = try Self.openError(file.path)
        #expect(error == VTError.sampleBufferDataFailed)
        #expect(error.cause?.code == -EACCES)
        #expect(error.cause?.message == "Permission denied")
        #expect(error.hint?.contains("permissions") == true)
    }

    /// The status-to-error table of the open, for the statuses a test cannot provoke as root.
    @Test func permissionDeniedMapsToItsHint() {
        let error = FormatInput.openFailure(-EACCES, path: "clip.mp4")
        #expect(error == VTError.sampleBufferDataFailed)
        #expect(error.cause?.message == "Permission denied")
        #expect(error.hint?.contains("permissions") == true)
        #expect(FormatInput.openFailure(-EISDIR, path: "clips").hint?.contains("directory") == true)
        #expect(FormatInput.openFailure(-EIO, path: "clip.mp4").hint == nil)
    }
}
