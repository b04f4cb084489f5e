import Foundation
import Testing
import VAToolbox
import VideoToolbox

/// The app's `VideoDecoder` (VideoDecoder.swift, written as an iOS developer writes it and
/// compiled unchanged in Swift 5 language mode) decoding a fixture: every picture's MD5 equals the
/// fixture's `.framemd5` (ffmpeg's), every frame's clean rect, display size and time stamp are what
/// Core Video and Core Media say of them, and its `NSLog` lines with an `NSError` read as on
/// Apple's platforms.
///
/// This file is the harness: the camera's network layer (access units cut by VAToolbox's parser,
/// with the container-less stream's time stamps) and the oracle.
@Suite(.serialized) struct VideoDecoderAcceptanceTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Collects what the decoder hands its delegate.
    final class Screen: VideoDecoderDelegate {
        // The decoder calls from its session's queue; the test reads after `flush()` returns.
        let lock = NSLock()
        var frames: [DecodedFrame] = []
        var hashes: [String] = []
        var errors: [NSError] = []

        func videoDecoder(_ decoder: VideoDecoder, didDecode frame: DecodedFrame) {
            let md5 = frame.pixelBuffer.pixelBuffer.md5
            lock.lock()
            frames.append(frame)
            hashes.append(md5)
            lock.unlock()
        }

        func videoDecoder(_ decoder: VideoDecoder, didFailWithError error: NSError) {
            lock.lock()
            errors.append(error)
            lock.unlock()
        }
    }

    /// The fixture's access units as the camera sends them, in decode order: Annex B, the
    /// parameter sets before each key frame, and the presentation times ffmpeg gives them (25
    /// frames a second).
    static func accessUnits(_ name: String) throws -> [(data: Data, time: CMTime, duration: CMTime)] {
        let bytes = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name)))
        var stamper = AnnexBTimeStamper(codec: .h264)
        let samples = ElementaryStreamParser.samples(in: bytes, codec: .h264).flatMap { stamper.stamp($0) }
        return (samples + stamper.finish()).map { sample in
            let parameterSets = sample.isSync ? sample.formatDescription.parameterSets.map { $0[...] } : []
            return (
                Data(AnnexB.join(parameterSets + sample.nalUnits.map(\.bytes))), sample.presentationTimeStamp,
                sample.duration
            )
        }
    }

    /// The MD5 column of a fixture's `.framemd5`.
    static func frameMD5s(_ name: String) throws -> [String] {
        let text = try String(contentsOf: fixtures.appendingPathComponent(name + ".framemd5"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// `h264-cropped-642x362.264`: coded 656x368, cropped by the SPS to 642x362, pixel aspect
    /// ratio 16:11 (ffprobe's `sample_aspect_ratio`), B-frames.
    @Test func decodesACroppedAnamorphicStreamBitExact() throws {
        let name = "h264-cropped-642x362.264"
        let units = try Self.accessUnits(name)
        let screen = Screen()
        let decoder = VideoDecoder()
        decoder.delegate = screen
        let log = try StandardErrorCapture.lines(containing: "VideoDecoder: ") {
            for unit in units {
                decoder.decode(accessUnit: unit.data, presentationTime: unit.time, duration: unit.duration)
            }
            decoder.flush()
            decoder.invalidate()
        }

        #expect(screen.errors.isEmpty, "\(screen.errors)")
        #expect(screen.hashes == (try Self.frameMD5s(name)), "\(screen.hashes.count) pictures")
        #expect(decoder.frameRate == 25)
        for frame in screen.frames {
            // The decoder applies the SPS crop: the buffer is the clean aperture.
            #expect(frame.cleanRect == CGRect(x: 0, y: 0, width: 642, height: 362))
            #expect(frame.displaySize == CGSize(width: 642.0 * 16 / 11, height: 362))
            #expect(CMTIME_IS_NUMERIC(frame.presentationTime))
        }
        #expect(
            screen.frames.map(\.presentationTime) == units.map(\.time).sorted(), "presentation order, every frame")
        #expect(units.map(\.time).sorted() == (0..<units.count).map { CMTimeMake(value: Int64($0), timescale: 25) })
        #expect(log.contains("VideoDecoder: new stream 642x362\n"), "\(log)")
        #expect(log.contains("VideoDecoder: showing 642x362 of 642x362 at 933.82x362.00\n"), "\(log)")
        #expect(!log.contains("failed"), "\(log)")
        #expect(!log.contains(" after "), "no frame out of order: \(log)")
    }

    /// A picture whose slice is garbage: the callback's status is `kVTVideoDecoderBadDataErr`,
    /// and the app's `NSLog("…%@", error)` prints the error as Apple's Foundation does.
    @Test func logsADecodeErrorAsApplePrintsIt() throws {
        let units = try Self.accessUnits("h264-baseline-cavlc.264")
        let nalUnits = VideoDecoder.nalUnits(in: units[0].data)
        let parameterSets = nalUnits.filter { $0[$0.startIndex] & 0x1F == 7 || $0[$0.startIndex] & 0x1F == 8 }
        var damaged = Data()
        for unit in parameterSets + [Data([0x65] + [UInt8](repeating: 0xFF, count: 64))] {
            damaged.append(contentsOf: [0, 0, 0, 1])
            damaged.append(unit)
        }
        let screen = Screen()
        let decoder = VideoDecoder()
        decoder.delegate = screen
        let log = try StandardErrorCapture.lines(containing: "VideoDecoder: ") {
            decoder.decode(
                accessUnit: damaged, presentationTime: CMTimeMake(value: 0, timescale: 25), duration: .invalid)
            decoder.flush()
            decoder.invalidate()
        }
        #expect(screen.errors.map(\.code) == [Int(kVTVideoDecoderBadDataErr)])
        #expect(screen.frames.isEmpty)
        #expect(
            log.contains(
                "VideoDecoder: decompression failed: Error Domain=NSOSStatusErrorDomain Code=-12909 \"(null)\"\n"),
            "\(log)")
    }
}

// A copy of ../Support/StandardErrorCapture.swift: a test target cannot use another's files.
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
