import Foundation
import Testing

@testable import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// `SampleSource`, the one input of the tool: raw Annex B streams (a file, or any descriptor as
/// their bytes arrive) through the parser and the time stamper, everything else through
/// `MediaFileReader`; checked against ffmpeg's pictures and ffprobe's packets.
@Suite struct SampleSourceTests {
    static func fixture(_ name: String) -> String { TestData.fixtures.appendingPathComponent(name).path }

    static func readAll(_ source: SampleSource) throws -> [SampleBuffer] {
        var samples: [SampleBuffer] = []
        while let sample = try source.nextSample() { samples.append(sample) }
        return samples
    }

    @Test(
        "a raw Annex B file is cut and time-stamped as ffmpeg times its pictures",
        arguments: RawStreamTimeStampTests.rawFiles)
    func rawFile(_ file: String) throws {
        let source = try SampleSource(path: Self.fixture(file))
        #expect(source.isAnnexBStream)
        #expect(source.reader == nil)
        #expect(source.containerName == "Annex B")
        #expect(source.codecType == (file.hasSuffix(".265") ? .hevc : .h264))
        let samples = try Self.readAll(source)
        #expect(samples.first?.formatDescription == source.formatDescription)
        let oracle = try FFprobeOracle.load(
            for: StreamFile(
                name: file, url: URL(fileURLWithPath: Self.fixture(file)), codec: source.codecType, isFixture: true))
        #expect(samples.count == oracle.packetCount)
        RawStreamTimeStampTests.checkTimes(samples, against: try RawStreamTimeStampTests.oracle(file), file)
        #expect(source.diagnostics.isEmpty)
    }

    @Test(
        "a pipe gives the samples of the file it carries, its codec told by its parameter sets",
        arguments: ["hevc-main.265", "h264-high-bpyramid.264", "hevc-no-vui-timing.265"])
    func pipe(_ file: String) throws {
        let bytes = try TestData.bytes(URL(fileURLWithPath: Self.fixture(file)))
        var ends: [Int32] = [0, 0]
        try #require(Glibc.pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        defer { close(readEnd) }
        let writer = Thread {
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(writeEnd, buffer.baseAddress! + offset, min(65536, buffer.count - offset))
                    if written <= 0 { break }
                    offset += written
                }
            }
            close(writeEnd)
        }
        writer.start()
        let piped = try SampleSource.annexBStream(fileDescriptor: readEnd, name: "pipe")
        #expect(piped.name == "pipe")
        #expect(piped.path == nil)
        let fromPipe = try Self.readAll(piped)
        let fromFile = try Self.readAll(try SampleSource(path: Self.fixture(file)))
        #expect(piped.codecType == (file.hasSuffix(".265") ? .hevc : .h264))
        #expect(fromPipe.map(\.data) == fromFile.map(\.data))
        #expect(fromPipe.map(\.timing) == fromFile.map(\.timing))
        #expect(fromPipe.map(\.isSync) == fromFile.map(\.isSync))
    }

    @Test("standard input through the tool decodes as the file does")
    func standardInput() throws {
        let file = URL(fileURLWithPath: Self.fixture("hevc-main.265"))
        let piped = try CommandRunner.vatoolbox(["framemd5", "-"], input: file)
        let named = try CommandRunner.vatoolbox(["framemd5", file.path])
        #expect(piped.status == 0)
        #expect(piped.standardOutput == named.standardOutput)
    }

    @Test(
        "a container goes through MediaFileReader, packet for packet as ffprobe lists them",
        arguments: ["h264-high-bpyramid.mp4", "hevc-main.mkv", "vp9-profile0.ivf", "av1.obu", "mpeg2-progressive.m2v"])
    func container(_ file: String) throws {
        let source = try SampleSource(path: Self.fixture(file))
        let reader = try #require(source.reader)
        #expect(!source.isAnnexBStream)
        #expect(source.containerName == reader.containerName)
        #expect(source.codecType == reader.codecType)
        #expect(source.annexBFrameDuration == nil)
        let samples = try Self.readAll(source)
        let oracle = try FFprobeOracle.load(
            for: StreamFile(
                name: file, url: URL(fileURLWithPath: Self.fixture(file)), codec: source.codecType, isFixture: true))
        #expect(samples.count == oracle.packetCount)
        #expect(samples.indices.filter { samples[$0].isSync } == oracle.keyPacketIndices)
        #expect(source.mediaTrack() == reader.track)
    }

    @Test("a raw stream seeks by hiding the pictures before the time")
    func seekHides() throws {
        let source = try SampleSource(path: Self.fixture("h264-high-bpyramid.264"))
        let offset = MediaTime(value: 1, timescale: 2)
        try source.seek(toOffset: offset)
        let samples = try Self.readAll(source)
        #expect(samples.contains { $0.presentationTimeStamp < offset })
        for sample in samples {
            #expect(sample.attachments.contains(.doNotDisplay) == (sample.presentationTimeStamp < offset))
        }
    }

    @Test("bad input throws the error that names it")
    func errors() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: VTError.sampleBufferDataFailed) {
            try SampleSource(path: directory.appendingPathComponent("missing.264").path)
        }
        let folder = directory.appendingPathComponent("folder.264")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(throws: VTError.sampleBufferDataFailed) { try SampleSource(path: folder.path) }
        let empty = directory.appendingPathComponent("empty.265")
        try Data().write(to: empty)
        #expect(throws: VTError.sampleBufferInvalidMediaFormat) { try SampleSource(path: empty.path) }
        #expect(throws: VTError.parameter) { try SampleSource(path: Self.fixture("hevc-main.265"), track: 1) }
    }

    @Test("a raw stream's codec: by extension, else by its first parameter sets")
    func recognition() throws {
        #expect(AnnexBStreamRecognition.codec(forFileName: "CLIP.H265") == .hevc)
        #expect(AnnexBStreamRecognition.codec(forFileName: "vector.bit") == .hevc)
        #expect(AnnexBStreamRecognition.codec(forFileName: "vector.jsv") == .h264)
        #expect(AnnexBStreamRecognition.codec(forFileName: "clip.mp4") == nil)
        for (file, codec) in [("hevc-main.265", VideoCodecType.hevc), ("h264-main-cabac.264", .h264)] {
            let bytes = try TestData.bytes(URL(fileURLWithPath: Self.fixture(file)))
            #expect(AnnexBStreamRecognition.codec(forFileName: nil, bytes: bytes) == codec)
            #expect(AnnexBStreamRecognition.codec(forFileName: "stream", bytes: bytes) == codec)
        }
        #expect(AnnexBStreamRecognition.codec(forFileName: nil, bytes: []) == .h264)
    }
}
