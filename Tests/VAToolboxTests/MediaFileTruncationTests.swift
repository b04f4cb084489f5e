import Foundation
import Testing

@testable import VAToolbox

/// `MediaFileReader.truncation` and the tool's `partial file` line, on files cut short
/// (`h264-truncated-faststart.mp4`, `hevc-truncated.mkv`, made by Scripts/make-fixtures with
/// `head -c` from the fixtures they name; an IVF cut here). Oracles: ffprobe's packets of the cut
/// file and of the file it was cut from, the files' sizes on disk, and ffmpeg's framemd5 of what
/// it decodes from the cut file.
@Suite struct MediaFileTruncationTests {
    static func url(_ name: String) -> URL { TestData.fixtures.appendingPathComponent(name) }

    static func size(_ url: URL) throws -> Int64 {
        let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber
        return try #require(size).int64Value
    }

    static func probe(_ name: String) throws -> FFprobeOracle {
        try FFprobeOracle.load(for: StreamFile(name: name, url: url(name), codec: .h264, isFixture: true))
    }

    /// The pictures a single-threaded CPU session decodes from `samples` (the oracles are
    /// ffmpeg's with `-threads 1`: its concealment of a broken sample differs with threads).
    static func pictures(_ samples: [SampleBuffer]) throws -> [String] {
        try SampleAttachmentTests.outputs(samples).compactMap(\.imageBuffer).map(planarMD5)
    }

    // MARK: - MP4 (the sample table)

    /// A faststart MP4 cut in the middle of sample 25: the sample table still lists 48 samples,
    /// and the mdat box still says it runs to the end of the uncut file.
    @Test func aCutMP4IsReportedFromItsSampleTableWhenOpened() throws {
        let name = "h264-truncated-faststart.mp4"
        let cut = try Self.probe(name)
        let whole = try Self.probe("h264-high-bpyramid.mp4")
        let reader = try MediaFileReader(path: Self.url(name).path)
        let truncation = try #require(reader.truncation, "known before any sample is read")
        #expect(truncation.fileSize == (try Self.size(Self.url(name))))
        #expect(truncation.element == "mdat")
        // The faststart copy has the uncut file's boxes, moov first: the same size.
        #expect(truncation.expectedSize == (try Self.size(Self.url("h264-high-bpyramid.mp4"))))
        #expect(truncation.expectedSampleCount == whole.packetCount)
        // The packets ffprobe reads whole from the cut file are as long as the uncut file's.
        let complete = cut.packetSizes.indices.filter { cut.packetSizes[$0] == whole.packetSizes[$0] }
        #expect(complete == Array(0..<(cut.packetCount - 1)), "all but the last are whole")
        #expect(truncation.completeSampleCount == complete.count)
        #expect(truncation.firstIncompleteSampleOffset == cut.packetPositions.last ?? nil)
        #expect(truncation.description.hasSuffix("(partial file)"))
    }

    /// The samples wholly in the file come out as usual; the one the end cuts through comes out
    /// flagged damaged, as libavformat hands it out; the pictures are ffmpeg's of the cut file.
    @Test func aCutMP4DecodesToFFmpegsPicturesWithItsLastSampleFlagged() throws {
        let name = "h264-truncated-faststart.mp4"
        let reader = try MediaFileReader(path: Self.url(name).path)
        let samples = try reader.readAllSamples()
        #expect(samples.count == (try Self.probe(name)).packetCount)
        #expect(samples.indices.filter { samples[$0].attachments.contains(.damaged) } == [samples.count - 1])
        let damage = try #require(reader.damagedSamples.first)
        #expect(reader.damagedSampleCount == 1, "one damaged sample, however many things are wrong with it")
        #expect(damage.number == samples.count - 1)
        #expect(damage.reason.contains("the file ends inside the sample"), "\(damage.reason)")
        #expect(damage.reason.contains("(partial file)"))
        let expected = try FrameMD5Oracle(contentsOf: Self.url(name + ".framemd5")).frames.map(\.md5)
        #expect(try Self.pictures(samples) == expected)
    }

    // MARK: - Matroska (the Segment)

    @Test func aCutMatroskaFileIsReportedFromItsSegmentWhenOpened() throws {
        let name = "hevc-truncated.mkv"
        let reader = try MediaFileReader(path: Self.url(name).path)
        let truncation = try #require(reader.truncation)
        #expect(truncation.fileSize == (try Self.size(Self.url(name))))
        #expect(truncation.element == "Segment")
        // The uncut file's Segment runs to its end.
        #expect(truncation.expectedSize == (try Self.size(Self.url("hevc-main.mkv"))))
        #expect(truncation.expectedSampleCount == nil, "Matroska has no table of every sample")
        #expect(truncation.completeSampleCount == nil)

        let samples = try reader.readAllSamples()
        #expect(samples.count == (try Self.probe(name)).packetCount)
        #expect(reader.damagedSampleCount == 0, "libavformat drops the block the end cuts through")
        #expect(reader.truncation == truncation, "reading changes nothing")
        let expected = try FrameMD5Oracle(contentsOf: Self.url(name + ".framemd5")).frames.map(\.md5)
        #expect(try Self.pictures(samples) == expected)
    }

    /// An MP4 with its moov box last (as muxers write it unless asked for faststart) cut short
    /// loses its sample table with its end: libavformat cannot open it ("moov atom not found"),
    /// and the error says the file is truncated rather than not a media file.
    @Test func aCutMP4WithoutItsMoovBoxFailsToOpenSayingItIsTruncated() throws {
        let whole = try Self.probe("h264-high-bpyramid.mp4")
        let lastPosition = try #require(whole.packetPositions.last ?? nil)
        let lastSize = try #require(whole.packetSizes.last ?? nil)
        let bytes = try TestData.bytes(Self.url("h264-high-bpyramid.mp4"))
        let cutAt = bytes.count * 6 / 10
        #expect(cutAt < Int(lastPosition), "the cut is inside the samples, before the moov box")
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("moov-last-cut.mp4")
        try Data(bytes.prefix(cutAt)).write(to: file)

        let error = try #require(throws: VTError.self) { try MediaFileReader(path: file.path) }
        #expect(error == VTError.sampleBufferInvalidMediaFormat)
        // The mdat box holds the samples: it ends where the last one does.
        #expect(
            error.reason.contains(
                "is truncated: the file ends at byte \(cutAt), but its mdat box runs to byte "
                    + "\(lastPosition + Int64(lastSize)) (partial file)"), "\(error.reason)")
        #expect(error.hint?.contains("cut short") == true)
    }

    // MARK: - A container that states no extent

    /// An IVF file states no length: the cut shows only when a read meets the frame the end of
    /// the file cuts through (libavformat hands out what there is of it, marked corrupt).
    @Test func aCutIVFIsReportedWhenTheReadMeetsTheCutFrame() throws {
        let whole = try Self.probe("vp8.ivf")
        let cutIndex = whole.packetCount * 6 / 10
        let position = try #require(whole.packetPositions[cutIndex])
        let size = try #require(whole.packetSizes[cutIndex])
        // ffprobe's position of an IVF frame is its 12-byte frame header's.
        let cutAt = Int(position) + 12 + size / 2
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("vp8-cut.ivf")
        try Data(try TestData.bytes(Self.url("vp8.ivf")).prefix(cutAt)).write(to: file)

        let reader = try MediaFileReader(path: file.path)
        #expect(reader.truncation == nil, "nothing tells before the cut frame is read")
        let samples = try reader.readAllSamples()
        #expect(samples.count == cutIndex + 1)
        #expect(samples.last?.attachments.contains(.damaged) == true)
        let truncation = try #require(reader.truncation)
        #expect(truncation.fileSize == Int64(cutAt))
        #expect(truncation.firstIncompleteSampleOffset == position)
        #expect(truncation.expectedSize == nil)
        #expect(reader.damagedSamples.map(\.number) == [cutIndex])
    }

    // MARK: - Intact files

    /// Every container fixture that is not cut: nothing reported, neither when opened nor after
    /// every sample was read (the damaged ones included: their damage is not a cut).
    static let intactFiles: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: TestData.fixtures.path)) ?? []
        let containers: Set<String> = ["mp4", "mkv", "webm", "ts", "ivf", "obu", "m2v"]
        return names.filter { containers.contains(URL(fileURLWithPath: $0).pathExtension) && !$0.contains("truncated") }
            .sorted()
    }()

    @Test func theIntactFileListCoversEveryContainer() {
        let extensions = Set(Self.intactFiles.map { URL(fileURLWithPath: $0).pathExtension })
        #expect(extensions.isSuperset(of: ["mp4", "mkv", "webm", "ts"]), "\(Self.intactFiles)")
    }

    @Test(arguments: intactFiles)
    func anIntactFileIsNotReportedTruncated(_ name: String) throws {
        let reader = try MediaFileReader(path: Self.url(name).path)
        #expect(reader.truncation == nil, "\(name) when opened: \(String(describing: reader.truncation))")
        _ = try reader.readAllSamples()
        #expect(reader.truncation == nil, "\(name) after reading: \(String(describing: reader.truncation))")
    }

    // MARK: - The tool

    /// `decode` and `framemd5` print a `partial file` line, exit with 1 as for damaged samples,
    /// and hash every picture ffmpeg decodes from the cut file.
    @Test(.enabled(if: CommandRunner.hasTool), arguments: ["h264-truncated-faststart.mp4", "hevc-truncated.mkv"])
    func theToolSaysTheFileIsTruncatedAndExitsWithOne(_ name: String) throws {
        let path = Self.url(name).path
        let hashes = try CommandRunner.vatoolbox(["framemd5", path, "--hwaccel", "none", "--threads", "1"])
        #expect(hashes.status == 1)
        let expected = try String(contentsOf: Self.url(name + ".framemd5"), encoding: .utf8)
        #expect(MediaFileReaderRealFileTests.withoutSoftwareLine(hashes.text) == expected)
        let last = try #require(hashes.errorLines.last)
        #expect(last.hasPrefix("vatoolbox framemd5: \(path) is truncated: the file ends at byte "), "\(last)")
        #expect(last.contains("(partial file)"), "\(last)")

        let decoded = try CommandRunner.vatoolbox(["decode", path, "--hwaccel", "none", "--threads", "1"])
        #expect(decoded.status == 1)
        #expect(decoded.text.contains("\(path) is truncated: "), "the summary says so: \(decoded.text)")
        #expect(decoded.errorLines.last?.hasPrefix("vatoolbox decode: \(path) is truncated: ") == true)
    }

    /// A run that stops before the cut (a frame limit) does not meet it: `decode --frames 5`
    /// succeeds; the whole run does not.
    @Test(.enabled(if: CommandRunner.hasTool))
    func aRunThatStopsBeforeTheCutSucceeds() throws {
        let path = Self.url("h264-truncated-faststart.mp4").path
        let early = try CommandRunner.vatoolbox(["decode", path, "--frames", "5", "--hwaccel", "none"])
        #expect(early.status == 0, "\(early.standardError)")
        #expect(!early.text.contains("is truncated:"), "\(early.text)")
    }
}
