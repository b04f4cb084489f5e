import CFFmpeg
import Foundation
import Synchronization
import Testing

@testable import VAToolbox

/// libav's log: claimed per reader and per decoder, quoted in errors, handed to the application's
/// handler, and the application's own log level and messages left alone. The oracle for every
/// message is the ffmpeg CLI's (or ffprobe's) own log of the same input.
///
/// Serialized: the handler is process-wide. Other suites log meanwhile; each test only looks at
/// the messages of the readers and decoders it labelled itself.
@Suite(.serialized) struct LibavLogTests {
    typealias Lifecycle = DecompressionSessionLifecycleTests

    // MARK: - The application's settings

    @Test func hostLogLevelIsUnchangedByReadersAndSessions() throws {
        let previous = av_log_get_level()
        defer { av_log_set_level(previous) }
        av_log_set_level(AV_LOG_ERROR)
        let reader = try MediaFileReader(path: Lifecycle.url("h264-high-bpyramid.mp4").path)
        let samples = try reader.readAllSamples()
        try #require(samples.count > 4)
        let outputs = try Lifecycle.outputs(
            Array(samples.prefix(4)), specification: DecoderSpecification(hardwareAcceleration: .disabled))
        #expect(outputs.count == 4)
        #expect(av_log_get_level() == AV_LOG_ERROR)
    }

    @Test func unclaimedMessagesGoWhereTheApplicationSays() throws {
        let previous = av_log_get_level()
        defer {
            av_log_set_level(previous)
            LibavLog.setHandler(nil)
        }
        // The default callback would print the probe: quiet, it filters it out.
        av_log_set_level(AV_LOG_QUIET)
        let received = Lifecycle.Locked<[LibavLog.Message]>([])
        let marker = "vatoolbox-unclaimed-\(UUID().uuidString)"
        func logFromTheApplication(_ level: Int32, _ number: Int32) {
            withVaList([number]) { arguments in av_vlog(nil, level, "\(marker) %d\n", arguments) }
        }
        func ours() -> [LibavLog.Message] { received.withLock { $0 }.filter { $0.text.hasPrefix(marker) } }

        LibavLog.setHandler(upTo: .info, unclaimed: .deliverToHandler) { message in
            received.withLock { $0.append(message) }
        }
        logFromTheApplication(AV_LOG_ERROR, 1)
        logFromTheApplication(AV_LOG_VERBOSE, 2)  // below the handler's level
        #expect(ours().map(\.text) == ["\(marker) 1"])
        #expect(ours().first?.origin == nil)
        #expect(ours().first?.level == .error)

        LibavLog.setHandler(upTo: .trace, unclaimed: .forwardToDefaultCallback) { message in
            received.withLock { $0.append(message) }
        }
        logFromTheApplication(AV_LOG_ERROR, 3)
        #expect(ours().map(\.text) == ["\(marker) 1"], "forwarded to libav's callback, not to the handler")
    }

    /// Without a handler, a message that is not VAToolbox's reaches libav's default callback,
    /// which prints it on standard error as far as `av_log_set_level` allows.
    @Test func unclaimedMessagesWithoutHandlerReachTheDefaultCallback() throws {
        let previous = av_log_get_level()
        LibavLog.setHandler(nil)
        let marker = "vatoolbox-default-\(UUID().uuidString)"
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = directory.appendingPathComponent("stderr")
        let descriptor = open(capture.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        let savedError = dup(STDERR_FILENO)
        try #require(savedError >= 0)
        av_log_set_level(AV_LOG_WARNING)
        dup2(descriptor, STDERR_FILENO)
        for (level, number) in [(AV_LOG_ERROR, Int32(1)), (AV_LOG_INFO, 2)] {
            withVaList([number]) { arguments in av_vlog(nil, level, "\(marker) %d\n", arguments) }
        }
        dup2(savedError, STDERR_FILENO)
        close(savedError)
        close(descriptor)
        av_log_set_level(previous)
        let printed = try String(contentsOf: capture, encoding: .utf8).split(separator: "\n").filter {
            $0.contains(marker)
        }
        #expect(
            printed.map(String.init) == ["\(marker) 1"], "libav prints errors and, at warning level, no information")
    }

    // MARK: - Readers

    @Test func truncatedMP4ReasonCarriesLibavformatsMessage() throws {
        let file = try Self.truncatedMP4()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let oracle = try Self.ffprobeMessages(file)
        try #require(!oracle.isEmpty, "ffprobe reported nothing for a file without moov")
        do {
            _ = try MediaFileReader(path: file.path)
            Issue.record("a truncated MP4 opened")
        } catch {
            #expect(error == .sampleBufferInvalidMediaFormat)
            #expect(oracle.contains { error.reason.hasSuffix(": \($0.text)") }, "\(error.reason) vs \(oracle)")
        }
    }

    @Test func handlerReceivesReaderMessagesTaggedWithTheReader() throws {
        let file = try Self.truncatedMP4()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let oracle = try Self.ffprobeMessages(file)
        let received = Lifecycle.Locked<[LibavLog.Message]>([])
        LibavLog.setHandler(upTo: .error) { message in received.withLock { $0.append(message) } }
        defer { LibavLog.setHandler(nil) }
        let label = "truncated-\(UUID().uuidString)"
        #expect(throws: VTError.sampleBufferInvalidMediaFormat) {
            try LibavLog.withLabel(label) { () throws(VTError) in _ = try MediaFileReader(path: file.path) }
        }
        let messages = received.withLock { $0 }.filter { $0.origin?.label == label }
        #expect(!messages.isEmpty)
        for message in messages {
            #expect(message.origin?.kind == .mediaFileReader)
            #expect(oracle.contains { $0.component == message.component && $0.text == message.text }, "\(message)")
        }
        // Without a label, a reader is labelled with its path.
        #expect(throws: VTError.sampleBufferInvalidMediaFormat) { _ = try MediaFileReader(path: file.path) }
        #expect(received.withLock { $0 }.contains { $0.origin?.label == file.path })
    }

    /// The tool quotes libavformat in its one failure line, and with `VATOOLBOX_FFMPEG_LOG`
    /// prints the reader's messages tagged with the reader.
    @Test(.enabled(if: CommandRunner.hasTool)) func toolQuotesAndShowsTheReadersMessages() throws {
        let file = try Self.truncatedMP4()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let oracle = try Self.ffprobeMessages(file)
        try #require(!oracle.isEmpty)
        let quiet = try CommandRunner.vatoolbox(["decode", file.path, "-o", "/dev/null"])
        #expect(quiet.status == 1)
        #expect(quiet.errorLines.count == 1, "\(quiet.errorLines)")
        // The quote ends the reason; the cause follows in brackets.
        #expect(oracle.contains { quiet.standardError.contains(": \($0.text) [") }, "\(quiet.standardError)")
        var environment = ProcessInfo.processInfo.environment
        environment["VATOOLBOX_FFMPEG_LOG"] = "1"
        let shown = try CommandRunner.vatoolbox(["decode", file.path, "-o", "/dev/null"], environment: environment)
        #expect(shown.status == 1)
        for line in oracle {
            let tagged = shown.errorLines.contains {
                $0.hasPrefix("[\(line.component) @ reader ") && $0.hasSuffix(" (\(file.path))] \(line.text)")
            }
            #expect(tagged, "\(shown.errorLines)")
        }
    }

    // MARK: - Decoders

    /// Single-threaded, as ffmpeg's oracle runs: every damaged picture's status quotes one of the
    /// decoder's error lines, and at least one does.
    @Test func damagedPictureStatusCarriesTheDecodersMessage() throws {
        let name = "h264-bitflip.264"
        let oracle = Set(try Self.ffmpegMessages(Lifecycle.url(name)).map(\.text))
        try #require(!oracle.isEmpty)
        let outputs = try Lifecycle.outputs(
            try TestData.samples(name),
            specification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 1))
        let damaged = outputs.compactMap(\.status).filter { $0 == .videoDecoderBadData }
        try #require(!damaged.isEmpty, "four damaged slices and no picture reported -12909")
        for status in damaged {
            #expect(oracle.contains { status.reason.hasSuffix(": \($0)") }, "\(status.reason)")
        }
    }

    /// Frame threads log from worker threads, each with its own copy of the decoder's context:
    /// their messages still reach the handler as this decoder's, and only ffmpeg's lines.
    @Test(arguments: [2, 4])
    func frameThreadedDecodingStillAttributesMessages(threads: Int) throws {
        let name = "h264-bitflip.264"
        let oracle = Set(try Self.ffmpegMessages(Lifecycle.url(name)).map(\.text))
        let received = Lifecycle.Locked<[LibavLog.Message]>([])
        LibavLog.setHandler(upTo: .error) { message in received.withLock { $0.append(message) } }
        defer { LibavLog.setHandler(nil) }
        let label = "frame-threads-\(UUID().uuidString)"
        let samples = try TestData.samples(name)
        let collector = Outputs()
        let session = try LibavLog.withLabel(label) { () throws(VTError) in
            try DecompressionSession(
                formatDescription: samples[0].formatDescription,
                decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: threads),
                outputHandler: collector.handler)
        }
        for (index, sample) in samples.enumerated() {
            try session.decodeFrame(sample, flags: [.enableAsynchronousDecompression], frameRefcon: index)
        }
        try session.finishDelayedFrames()
        try session.waitForAsynchronousFrames()
        session.invalidate()
        let messages = received.withLock { $0 }.filter { $0.origin?.label == label }
        #expect(!messages.isEmpty, "no message of the frame-threaded decoder reached the handler")
        #expect(Set(messages.compactMap(\.origin)).count == 1)
        for message in messages {
            #expect(message.origin?.kind == .decoder)
            #expect(message.component == "h264")
            #expect(oracle.contains(message.text), "\(message)")
        }
        for status in collector.all.compactMap(\.status) where status == .videoDecoderBadData {
            #expect(oracle.contains { status.reason.hasSuffix(": \($0)") }, "\(status.reason)")
        }
    }

    /// On the GPU path (libavcodec's VA-API hwaccel, on the test driver, in the tool's process):
    /// the HEVC decoder's messages about a damaged stream are the session decoder's, each one a
    /// message the ffmpeg CLI logs for the same stream, and none escapes untagged.
    @Test(.enabled(if: CommandRunner.hasTool && TestVADriver.isBuilt))
    func hardwareDecoderMessagesAreTheSessions() throws {
        let file = try Self.damagedHEVC()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let oracle = Set(
            Self.loggedLines(
                try CommandRunner.ffmpeg(["-v", "warning", "-threads", "1", "-i", file.path, "-f", "null", "-"])
                    .standardError
            ).map(\.text))
        let run = try CommandRunner.vatoolbox(
            ["framemd5", "--hwaccel", "vaapi", "--device", "/dev/null", file.path],
            environment: TestVADriver.subprocessEnvironment(["VATOOLBOX_FFMPEG_LOG": "1"]))
        #expect(run.status == 0 || run.status == 1, "\(run.errorLines)")
        let lines = Self.loggedLines(run.standardError).filter { $0.component == "hevc" }
        #expect(!lines.isEmpty, "\(run.errorLines)")
        for line in lines {
            #expect(line.place.hasPrefix("decoder "), "untagged: \(line)")
            #expect(oracle.contains(line.text), "\(line)")
        }
    }

    /// An H.264 and an HEVC session decode damaged streams at the same time: each one's messages
    /// and the messages its statuses quote are its own decoder's. (Not every status quotes one:
    /// the session's own, such as a frame that produced no picture, have none.)
    @Test func messagesOfConcurrentSessionsNeverCross() throws {
        let h264File = Lifecycle.url("h264-bitflip.264")
        let hevcFile = try Self.damagedHEVC()
        defer { try? FileManager.default.removeItem(at: hevcFile.deletingLastPathComponent()) }
        let oracles = [
            "h264": Set(try Self.ffmpegMessages(h264File).map(\.text)),
            "hevc": Set(try Self.ffmpegMessages(hevcFile).map(\.text)),
        ]
        try #require(oracles.values.allSatisfy { !$0.isEmpty })
        let streams = [
            ("h264", ElementaryStreamParser.samples(in: try TestData.bytes(h264File), codec: .h264)),
            ("hevc", ElementaryStreamParser.samples(in: try TestData.bytes(hevcFile), codec: .hevc)),
        ]
        let received = Lifecycle.Locked<[LibavLog.Message]>([])
        LibavLog.setHandler(upTo: .error) { message in received.withLock { $0.append(message) } }
        defer { LibavLog.setHandler(nil) }
        let run = UUID().uuidString
        let statuses = Lifecycle.Locked<[String: [VTError]]>([:])
        let failures = Lifecycle.Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: streams.count) { index in
            let (codec, samples) = streams[index]
            do throws(VTError) {
                let collector = Outputs()
                let session = try LibavLog.withLabel("\(codec)-\(run)") { () throws(VTError) in
                    try DecompressionSession(
                        formatDescription: samples[0].formatDescription,
                        decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 2),
                        outputHandler: collector.handler)
                }
                for (refcon, sample) in samples.enumerated() {
                    try session.decodeFrame(sample, flags: [.enableAsynchronousDecompression], frameRefcon: refcon)
                }
                try session.finishDelayedFrames()
                try session.waitForAsynchronousFrames()
                session.invalidate()
                statuses.withLock { $0[codec] = collector.all.compactMap(\.status) }
            } catch {
                failures.withLock { $0.append("\(codec): \(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let messages = received.withLock { $0 }
        for (codec, oracle) in oracles {
            let own = messages.filter { $0.origin?.label == "\(codec)-\(run)" }
            #expect(!own.isEmpty, "no \(codec) message")
            for message in own {
                #expect(message.component == codec, "\(message)")
                #expect(oracle.contains(message.text), "\(message)")
            }
            let others = oracles.filter { $0.key != codec }.values.reduce(into: Set<String>()) { $0.formUnion($1) }
                .subtracting(oracle)
            let quoting = statuses.withLock { $0[codec] ?? [] }.filter { status in
                (oracle.union(others)).contains { status.reason.hasSuffix(": \($0)") }
            }
            #expect(!quoting.isEmpty, "no \(codec) status quotes its decoder")
            for status in quoting {
                #expect(oracle.contains { status.reason.hasSuffix(": \($0)") }, "\(codec): \(status.reason)")
            }
        }
    }

    // MARK: - Inputs and oracles

    /// One line of a log in libav's shape: `[component @ place] text`, where the place is an
    /// address in the ffmpeg CLI's log and the reader or decoder in the tool's.
    struct LoggedLine: Hashable {
        var component: String
        var place: String
        var text: String
    }

    /// The `[component @ address] text` lines of a log, without the CLI's own lines.
    static func loggedLines(_ log: String) -> [LoggedLine] {
        log.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("["), let at = line.range(of: " @ "), let close = line.range(of: "] ") else {
                return nil
            }
            return LoggedLine(
                component: String(line[line.index(after: line.startIndex)..<at.lowerBound]),
                place: String(line[at.upperBound..<close.lowerBound]), text: String(line[close.upperBound...]))
        }
    }

    /// What ffprobe logs at `error` level opening a file.
    static func ffprobeMessages(_ file: URL) throws -> [LoggedLine] {
        loggedLines(try CommandRunner.ffprobe([file.path]).standardError)
    }

    /// What the ffmpeg CLI logs at `error` level decoding a file on one thread.
    static func ffmpegMessages(_ file: URL) throws -> [LoggedLine] {
        loggedLines(try CommandRunner.ffmpeg(["-threads", "1", "-i", file.path, "-f", "null", "-"]).standardError)
    }

    /// The first 40 kB of an MP4 whose `moov` box comes after its `mdat`: no `moov`, in a folder
    /// of its own.
    static func truncatedMP4() throws -> URL {
        let bytes = try TestData.bytes(Lifecycle.url("h264-high-bpyramid.mp4"))
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("no-moov.mp4")
        try Data(bytes.prefix(40_000)).write(to: file)
        return file
    }

    /// `hevc-main.265` with a byte inverted 9 bytes into every fourth slice NAL unit, in a
    /// folder of its own.
    static func damagedHEVC() throws -> URL {
        var bytes = try TestData.bytes(Lifecycle.url("hevc-main.265"))
        var slices = 0
        var index = 0
        while index + 12 < bytes.count {
            defer { index += 1 }
            guard bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 else { continue }
            guard (bytes[index + 3] >> 1) & 0x3f < 10 else { continue }  // VCL NAL unit types 0–9
            slices += 1
            if slices % 4 == 0 { bytes[index + 12] ^= 0xff }
        }
        let directory = try CommandRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("hevc-damaged.265")
        try Data(bytes).write(to: file)
        return file
    }
}
