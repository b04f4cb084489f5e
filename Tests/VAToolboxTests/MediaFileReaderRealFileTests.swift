import Foundation
import Testing

@testable import VAToolbox

/// `MediaFileReader` on files shaped like real ones (`Tests/Fixtures/media-files.tsv`, made by
/// Scripts/make-fixtures): damaged samples, configuration records without parameter sets, two
/// video tracks. Oracles: the committed `ffmpeg -threads 1 -f framemd5` and ffprobe output.
@Suite struct MediaFileReaderRealFileTests {
    static func fixture(_ name: String) -> URL { TestData.fixtures.appendingPathComponent(name) }

    /// framemd5 text without its `#software` line (the oracles are made with `-fflags +bitexact`,
    /// which leaves it out).
    static func withoutSoftwareLine(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("#software") }
            .joined(separator: "\n")
    }

    /// The MD5 column of a committed framemd5 oracle.
    static func oracle(_ name: String) throws -> [String] {
        try FrameMD5Oracle(contentsOf: fixture(name)).frames.map(\.md5)
    }

    // MARK: - Damaged samples

    @Test func aSampleWhoseLengthPrefixRunsPastItsEndIsFlaggedAndReadingGoesOn() throws {
        let reader = try MediaFileReader(path: Self.fixture("h264-damaged.mp4").path)
        let samples = try reader.readAllSamples()
        let stream = StreamFile(
            name: "h264-damaged.mp4", url: Self.fixture("h264-damaged.mp4"), codec: .h264, isFixture: true)
        let probe = try FFprobeOracle.load(for: stream)
        #expect(samples.count == probe.packetCount, "every packet ffprobe lists comes out")
        #expect(samples.indices.filter { samples[$0].attachments.contains(.damaged) } == [5])
        #expect(reader.damagedSampleCount == 1)
        let damage = try #require(reader.damagedSamples.first)
        #expect(damage.number == 5)
        #expect(!damage.isSkipped)
        #expect(damage.presentationTimeStamp == samples[5].presentationTimeStamp)
        #expect(damage.reason.contains("16776960"), "\(damage.reason)")
    }

    /// The session decodes the damaged sample as ffmpeg's decoder meets it: the pictures are
    /// ffmpeg's (47 of 48), and the damaged sample's frame reports -12909.
    @Test func damagedSamplesDecodeToFFmpegsPicturesWithABadDataStatus() throws {
        let samples = try MediaFileReader(path: Self.fixture("h264-damaged.mp4").path).readAllSamples()
        let outputs = try SampleAttachmentTests.outputs(samples)
        #expect(outputs.count == samples.count, "one output per sample")
        let expected = try Self.oracle("h264-damaged.mp4.framemd5")
        #expect(expected.count == 47)
        #expect(outputs.compactMap(\.imageBuffer).map(planarMD5) == expected)
        let damaged = try #require(outputs.first { $0.frameRefcon as? Int == 5 })
        #expect(damaged.status == VTError.videoDecoderBadData)
        #expect(damaged.status?.status == -12909)
    }

    /// A PES packet that lost TS packets: libavformat marks it `AV_PKT_FLAG_CORRUPT`, the reader
    /// flags its sample damaged, and the session decodes it as ffmpeg does, reporting -12909.
    @Test func aSampleTheContainerMarksCorruptIsFlaggedAndDecodedAsFFmpegDoes() throws {
        let url = Self.fixture("h264-corrupt-packets.ts")
        let reader = try MediaFileReader(path: url.path)
        let samples = try reader.readAllSamples()
        #expect(samples.count == 30)
        let flagged = samples.indices.filter { samples[$0].attachments.contains(.damaged) }
        #expect(flagged.count == 1)
        #expect(reader.damagedSamples.map(\.number) == flagged)
        #expect(reader.damagedSamples.first?.reason.contains("corrupt") == true)
        let outputs = try SampleAttachmentTests.outputs(samples)
        #expect(
            outputs.compactMap(\.imageBuffer).map(planarMD5) == (try Self.oracle("h264-corrupt-packets.ts.framemd5")))
        let damaged = try #require(outputs.first { $0.frameRefcon as? Int == flagged.first })
        #expect(damaged.status == VTError.videoDecoderBadData)
    }

    @Test(.enabled(if: CommandRunner.hasTool))
    func framemd5AndDecodeGoOnCountTheDamageAndExitWithOne() throws {
        let path = Self.fixture("h264-damaged.mp4").path
        let hashes = try CommandRunner.vatoolbox(["framemd5", path, "--hwaccel", "none", "--threads", "1"])
        #expect(hashes.status == 1)
        let expected = try String(contentsOf: Self.fixture("h264-damaged.mp4.framemd5"), encoding: .utf8)
        #expect(Self.withoutSoftwareLine(hashes.text) == expected, "every picture ffmpeg decodes, byte for byte")
        #expect(hashes.standardError.contains("damaged samples: 1"), "\(hashes.standardError)")
        #expect(hashes.standardError.contains("sample 5 at 0.320 s"), "\(hashes.standardError)")

        let decoded = try CommandRunner.vatoolbox(["decode", path, "--hwaccel", "none", "--threads", "1"])
        #expect(decoded.status == 1)
        #expect(decoded.text.contains("frames: 47 decoded from 48 samples"), "\(decoded.text)")
        #expect(decoded.text.contains("damaged samples: 1"))
        #expect(decoded.text.contains("  sample 5 at 0.320 s: "))
        #expect(decoded.text.contains("frames with errors: "))

        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sheet = directory.appendingPathComponent("sheet.png")
        let thumbnails = try CommandRunner.vatoolbox([
            "thumbnails", path, "-o", sheet.path, "--count", "4", "--hwaccel", "none",
        ])
        #expect(thumbnails.status == 1)
        #expect(FileManager.default.fileExists(atPath: sheet.path), "the sheet is written before the exit status")
        #expect(thumbnails.standardError.contains("damaged samples: 1"))
    }

    // MARK: - Edit lists

    /// An edit list that ends inside a GOP: the samples after it are decoded as references and
    /// hidden, and the pictures shown — first and last included — are ffmpeg's.
    @Test func anEditListEndingInsideAGOPHidesTheSamplesAfterIt() throws {
        let samples = try MediaFileReader(path: Self.fixture("h264-edit-list-ends-in-gop.mp4").path).readAllSamples()
        #expect(samples.count == 48)
        let hidden = samples.filter { $0.attachments.contains(.doNotDisplay) }.count
        #expect(hidden == 10)
        let outputs = try SampleAttachmentTests.outputs(samples)
        #expect(outputs.allSatisfy { $0.status == nil })
        let shown = outputs.compactMap(\.imageBuffer).map(planarMD5)
        let expected = try Self.oracle("h264-edit-list-ends-in-gop.mp4.framemd5")
        #expect(expected.count == 38)
        #expect(shown == expected)
    }

    // MARK: - Configuration records without parameter sets

    @Test(arguments: ["h264-avcc-no-parameter-sets.mp4", "hevc-hvcc-no-vps.mp4"])
    func aRecordWithoutParameterSetsIsDescribedByTheFirstInBandOnes(file: String) throws {
        let reader = try MediaFileReader(path: Self.fixture(file).path)
        let format = reader.formatDescription
        let units = format.parameterSetNALUnits
        if reader.codecType == .h264 {
            #expect(units.contains { $0.h264Type == .sequenceParameterSet })
            #expect(units.contains { $0.h264Type == .pictureParameterSet })
        } else {
            #expect(units.contains { $0.hevcType == .videoParameterSet })
        }
        #expect(format.dimensions.width == 320 && format.dimensions.height == 240)
        let samples = try reader.readAllSamples()
        #expect(samples.count == 30, "the samples read while looking for parameter sets come out too")
        #expect(samples.allSatisfy { !$0.attachments.contains(.damaged) })
        let outputs = try SampleAttachmentTests.outputs(samples)
        #expect(outputs.allSatisfy { $0.status == nil })
        #expect(outputs.compactMap(\.imageBuffer).map(planarMD5) == (try Self.oracle(file + ".framemd5")))
    }

    // MARK: - Tracks

    @Test func tracksAreListedAndTheDefaultIsTheOneFFmpegPicks() throws {
        let path = Self.fixture("two-video-tracks.mkv").path
        let reader = try MediaFileReader(path: path)
        #expect(reader.videoTracks.map(\.index) == [0, 1])
        #expect(reader.videoTracks.map(\.width) == [176, 320])
        #expect(reader.track.index == 0 && reader.track.isDefault)
        #expect(reader.formatDescription.dimensions.width == 176)
        let first = try SampleAttachmentTests.outputs(try reader.readAllSamples())
        #expect(first.compactMap(\.imageBuffer).map(planarMD5) == (try Self.oracle("two-video-tracks.mkv.framemd5")))

        let second = try MediaFileReader(path: path, track: 1)
        #expect(second.track.index == 1 && !second.track.isDefault)
        #expect(second.formatDescription.dimensions.width == 320)
        let outputs = try SampleAttachmentTests.outputs(try second.readAllSamples())
        #expect(
            outputs.compactMap(\.imageBuffer).map(planarMD5)
                == (try Self.oracle("two-video-tracks.mkv.track1.framemd5")))

        #expect(throws: VTError.parameter) { try MediaFileReader(path: path, track: 2) }
    }

    /// An initialiser that throws after libavformat opened the file closes it again: no
    /// descriptor of this process stays open on the file (a copy of its own, so that tests
    /// running in parallel do not count).
    @Test func aFailedOpenLeavesNoDescriptorBehind() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("tracks.mkv")
        try FileManager.default.copyItem(at: Self.fixture("two-video-tracks.mkv"), to: copy)
        func descriptorsOnCopy() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { entry in
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry)) == copy.path
            }.count
        }
        for _ in 0..<5 {
            #expect(throws: VTError.parameter) { try MediaFileReader(path: copy.path, track: 9) }
        }
        #expect(try descriptorsOnCopy() == 0)
        let open = try MediaFileReader(path: copy.path)
        #expect(try descriptorsOnCopy() == 1, "the check sees a descriptor when there is one")
        withExtendedLifetime(open) {}
    }

    @Test(.enabled(if: CommandRunner.hasTool))
    func theToolTakesATrackAndSaysWhichItUsed() throws {
        let path = Self.fixture("two-video-tracks.mkv").path
        let hashes = try CommandRunner.vatoolbox(["framemd5", path, "--track", "1", "--hwaccel", "none"])
        #expect(hashes.status == 0, "\(hashes.standardError)")
        let expected = try String(contentsOf: Self.fixture("two-video-tracks.mkv.track1.framemd5"), encoding: .utf8)
        #expect(Self.withoutSoftwareLine(hashes.text) == expected)
        let decoded = try CommandRunner.vatoolbox(["decode", path, "--hwaccel", "none"])
        #expect(decoded.status == 0)
        #expect(decoded.text.contains("track: 0 (h264 176x144) of video tracks 0, 1 (the default)"), "\(decoded.text)")
        let chosen = try CommandRunner.vatoolbox(["decode", path, "--track", "1", "--hwaccel", "none"])
        #expect(chosen.text.contains("track: 1 (h264 320x240) of video tracks 0, 1 (chosen with --track)"))
        let missing = try CommandRunner.vatoolbox(["decode", path, "--track", "3"])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("its video tracks are 0, 1"))
    }

    // MARK: - Several sample descriptions

    /// Decodes a sequence of samples through `DecompressionSession.frames(decoding:)` on one CPU
    /// thread; the pictures' MD5s and the statuses.
    static func frames<Samples: AsyncSequence & Sendable>(
        _ samples: Samples, format: VideoFormatDescription
    ) async throws -> (md5s: [String], statuses: [VTError?]) where Samples.Element == SampleBuffer {
        var md5s: [String] = []
        var statuses: [VTError?] = []
        let frames = DecompressionSession.frames(
            decoding: samples, formatDescription: format,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 1))
        for try await frame in frames {
            statuses.append(frame.status)
            if let image = frame.imageBuffer { md5s.append(planarMD5(image)) }
        }
        return (md5s, statuses)
    }

    @Test func aNewSampleDescriptionStartsANewFormatAtItsFirstSample() throws {
        let reader = try MediaFileReader(path: Self.fixture("h264-two-sample-descriptions.mp4").path)
        let samples = try reader.readAllSamples()
        #expect(samples.count == 48)
        #expect(samples.prefix(24).allSatisfy { $0.formatDescription.dimensions.width == 320 })
        #expect(samples.suffix(24).allSatisfy { $0.formatDescription.dimensions.width == 176 })
        #expect(samples[24].formatDescription.stream.profileName != samples[0].formatDescription.stream.profileName)
        let outputs = try SampleAttachmentTests.outputs(samples)
        #expect(outputs.allSatisfy { $0.status == nil })
        let expected = try Self.oracle("h264-two-sample-descriptions.mp4.framemd5")
        #expect(outputs.compactMap(\.imageBuffer).map(planarMD5) == expected)
    }

    @Test(.enabled(if: CommandRunner.hasTool))
    func framemd5FollowsTheSecondSampleDescriptionAsFFmpegDoes() throws {
        let path = Self.fixture("h264-two-sample-descriptions.mp4").path
        let hashes = try CommandRunner.vatoolbox(["framemd5", path, "--hwaccel", "none"])
        #expect(hashes.status == 0, "\(hashes.standardError)")
        let expected = try String(
            contentsOf: Self.fixture("h264-two-sample-descriptions.mp4.framemd5"), encoding: .utf8)
        #expect(Self.withoutSoftwareLine(hashes.text) == expected, "ffmpeg -autoscale 0's pictures and sizes")
    }

    /// `reader.samples` is a lazy `Sendable` sequence the frame sequence decodes, following the
    /// change of description in its session.
    @Test func theFrameSequenceDecodesAReadersSamplesAcrossDescriptions() async throws {
        let reader = try MediaFileReader(path: Self.fixture("h264-two-sample-descriptions.mp4").path)
        let decoded = try await Self.frames(reader.samples, format: reader.formatDescription)
        #expect(decoded.statuses.count == 48)
        #expect(decoded.statuses.allSatisfy { $0 == nil })
        #expect(decoded.md5s == (try Self.oracle("h264-two-sample-descriptions.mp4.framemd5")))
        // The sequence read the reader's own samples: a new one reads nothing until a seek back.
        var count = 0
        for try await _ in reader.samples { count += 1 }
        #expect(count == 0)
        try reader.seek(to: .zero, exactly: false)
        for try await _ in reader.samples { count += 1 }
        #expect(count == 48)
    }

    /// A change the session cannot accept (H.264, then HEVC) goes to a new session, after the
    /// first has handed out every frame.
    @Test func theFrameSequenceStartsANewSessionForAnotherCodec() async throws {
        let h264 = try MediaFileReader(path: TestData.fixtures.appendingPathComponent("h264-high-bpyramid.mp4").path)
        let hevc = try MediaFileReader(path: TestData.fixtures.appendingPathComponent("hevc-main.mkv").path)
        let all = try h264.readAllSamples() + hevc.readAllSamples()
        let stream = AsyncStream<SampleBuffer> { continuation in
            for sample in all { continuation.yield(sample) }
            continuation.finish()
        }
        let decoded = try await Self.frames(stream, format: h264.formatDescription)
        let expected =
            try FrameMD5Oracle(contentsOf: TestData.fixtures.appendingPathComponent("h264-high-bpyramid.mp4.framemd5"))
            .frames.map(\.md5)
            + FrameMD5Oracle(contentsOf: TestData.fixtures.appendingPathComponent("hevc-main.mkv.framemd5")).frames
            .map(\.md5)
        #expect(decoded.statuses.count == all.count)
        #expect(decoded.md5s == expected)
    }

    // MARK: - Track properties

    /// Duration, frame count, time base and frame rate against ffprobe's stream fields (a count
    /// the container does not state is estimated, and must equal the packets ffprobe counts).
    @Test(
        .enabled(if: CommandRunner.hasFFmpeg),
        arguments: ["h264-high-bpyramid.mp4", "two-video-tracks.mkv", "h264-main-cabac.ts", "av1.mp4", "vp8.webm"])
    func trackPropertiesAreFFprobes(file: String) throws {
        let url = Self.fixture(file)
        let track = try MediaFileReader(path: url.path).track
        let probe = try CommandRunner.ffprobe([
            "-select_streams", "v:0", "-count_packets", "-show_entries",
            "stream=time_base,r_frame_rate,nb_frames,duration,nb_read_packets:format=duration", "-of", "json", url.path,
        ])
        let root = try #require(try JSONSerialization.jsonObject(with: probe.standardOutput) as? [String: Any])
        let stream = try #require((root["streams"] as? [[String: Any]])?.first)
        let format = try #require(root["format"] as? [String: Any])
        let timeBase = try #require((stream["time_base"] as? String)?.split(separator: "/").compactMap { Int($0) })
        #expect(timeBase == [Int(track.timeBase.value), Int(track.timeBase.timescale)], "\(file): time base")
        let rate = try #require((stream["r_frame_rate"] as? String)?.split(separator: "/").compactMap { Int($0) })
        let frameDuration = try #require(track.frameDuration)
        #expect([Int(frameDuration.timescale), Int(frameDuration.value)] == rate, "\(file): frame rate")
        let seconds = (stream["duration"] as? String ?? format["duration"] as? String).flatMap(Double.init)
        #expect(abs((track.duration?.seconds ?? -1) - (seconds ?? -2)) < 0.001, "\(file): duration")
        let packets = Int(stream["nb_read_packets"] as? String ?? "")
        if let stated = Int(stream["nb_frames"] as? String ?? "") {
            #expect(track.isFrameCountExact && track.frameCount == stated, "\(file): frame count")
        } else {
            #expect(!track.isFrameCountExact && track.frameCount == packets, "\(file): estimated frame count")
        }
    }

    // MARK: - Seeking

    /// The first picture decoded after `seek(to:)` is the one `ffmpeg -ss T -i F -frames:v 1`
    /// gives (accurate seek), and decoding starts at the sync sample before it.
    @Test(
        .enabled(if: CommandRunner.hasFFmpeg),
        arguments: [("h264-high-bpyramid.mp4", 1.3), ("h264-high-bpyramid.mp4", 0.5), ("two-video-tracks.mkv", 0.5)])
    func seekingToATimeShowsFFmpegsPictureAtThatTime(file: String, seconds: Double) throws {
        let url = Self.fixture(file)
        let reader = try MediaFileReader(path: url.path)
        _ = try reader.nextSample()
        try reader.seek(to: reader.startTime + MediaTime(seconds: seconds, preferredTimescale: 1000))
        var samples: [SampleBuffer] = []
        while let sample = try reader.nextSample() { samples.append(sample) }
        let first = try #require(samples.first)
        #expect(first.isSync)
        #expect(first.attachments.contains(.resetDecoderBeforeDecoding))
        let outputs = try SampleAttachmentTests.outputs(samples)
        let shown = outputs.compactMap(\.imageBuffer).map(planarMD5)
        let expected = try CommandRunner.ffmpeg([
            "-threads", "1", "-ss", String(seconds), "-i", url.path, "-frames:v", "1", "-f", "framemd5", "-",
        ])
        let md5 = try #require(expected.text.split(separator: "\n").last?.split(separator: ",").last)
        #expect(shown.first == md5.trimmingCharacters(in: .whitespaces), "\(file) at \(seconds) s")
        // Everything before it was decoded as a reference only: at most the GOP before.
        let hidden = samples.filter { $0.attachments.contains(.doNotDisplay) }.count
        #expect(hidden < 24, "at most one GOP of pictures is hidden")
    }

    @Test func aSeekThatIsNotExactStartsAtTheSyncSamplesPicture() throws {
        let url = Self.fixture("h264-high-bpyramid.mp4")
        let reader = try MediaFileReader(path: url.path)
        try reader.seek(to: MediaTime(seconds: 1.3, preferredTimescale: 1000), exactly: false)
        let samples = try reader.readAllSamples()
        #expect(samples.count == 24, "the second GOP")
        #expect(samples.allSatisfy { !$0.attachments.contains(.doNotDisplay) })
        let shown = try SampleAttachmentTests.outputs(samples).compactMap(\.imageBuffer).map(planarMD5)
        #expect(shown == Array((try Self.oracle("h264-high-bpyramid.mp4.framemd5")).suffix(24)))
    }

    @Test(.enabled(if: CommandRunner.hasTool))
    func snapshotAtATimeIsThePictureAtThatTime() throws {
        let path = Self.fixture("h264-high-bpyramid.mp4").path
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let byTime = directory.appendingPathComponent("time.png")
        let byFrame = directory.appendingPathComponent("frame.png")
        let timed = try CommandRunner.vatoolbox(["snapshot", path, "--time", "1.3", "-o", byTime.path])
        #expect(timed.status == 0, "\(timed.standardError)")
        // ffmpeg -ss 1.3 shows picture 33 (1.32 s), as the test above checks.
        let framed = try CommandRunner.vatoolbox(["snapshot", path, "--frame", "33", "-o", byFrame.path])
        #expect(framed.status == 0)
        #expect(try Data(contentsOf: byTime) == Data(contentsOf: byFrame))
        // Raw streams: RawStreamTimeStampTests.snapshotAtATimeInARawStream.
    }
}
