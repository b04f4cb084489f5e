import Foundation
import Synchronization
import Testing

@testable import VAToolbox

/// Container fixtures read through libavformat and decoded, against their ffmpeg/ffprobe oracles.
@Suite struct MediaFileReaderTests {
    static let containers = TestData.tsv(TestData.fixtures.appendingPathComponent("manifest.tsv"))
        .filter { $0["container"] != "annexb" }
        .compactMap { $0["file"] }

    @Test(arguments: containers)
    func samplesMatchFFprobePackets(file: String) throws {
        let url = TestData.fixtures.appendingPathComponent(file)
        let reader = try MediaFileReader(path: url.path)
        let samples = try reader.readAllSamples()
        let stream = StreamFile(name: file, url: url, codec: reader.codecType, isFixture: true)
        let oracle = try FFprobeOracle.load(for: stream)
        #expect(samples.count == oracle.packetCount, "\(file): samples vs packets")
        #expect(samples.indices.filter { samples[$0].isSync } == oracle.keyPacketIndices, "\(file): sync samples")
        OracleExpectations.check(reader.formatDescription, against: oracle, file)
    }

    @Test(arguments: containers)
    func decodedFramesMatchFramemd5AndCarryTheirTimeStamps(file: String) throws {
        let url = TestData.fixtures.appendingPathComponent(file)
        let reader = try MediaFileReader(path: url.path)
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: reader.formatDescription, outputHandler: outputs.handler)
        while let sample = try reader.nextSample() { try session.decodeFrame(sample) }
        try session.finishDelayedFrames()
        session.invalidate()
        // A frame dropped without an error has no picture in ffmpeg's output either: a sample outside
        // the edit list, or the picture the MPEG-2 decoder drops when a new sequence restarts it.
        let decoded = outputs.all.filter { $0.imageBuffer != nil || $0.status != nil }
        let expected = try FrameMD5Oracle(contentsOf: URL(fileURLWithPath: url.path + ".framemd5")).frames.map(\.md5)
        #expect(decoded.map { $0.imageBuffer.map(planarMD5) ?? "none" } == expected, "\(file)")
        // Presentation time stamps, in the track's time scale, against ffprobe's frame pts.
        let data = try Data(contentsOf: URL(fileURLWithPath: url.path + ".ffprobe.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frames = try #require(root["frames"] as? [[String: Any]])
        // A frame without pts (MPEG-2 anchors in an elementary stream) has none here either.
        let expectedPTS = frames.map { frame in
            (frame["pts"] as? Int).map { MediaTime(value: Int64($0), timescale: reader.timescale) } ?? .invalid
        }
        #expect(decoded.map(\.presentationTimeStamp) == expectedPTS, "\(file): PTS")
        // The sample that released each picture, against libavcodec's pkt_dts in ffprobe's frames.
        let expectedRelease = frames.map { frame in
            (frame["pkt_dts"] as? Int).map { MediaTime(value: Int64($0), timescale: reader.timescale) } ?? .invalid
        }
        #expect(decoded.map(\.releasingDecodeTimeStamp) == expectedRelease, "\(file): releasing samples")
    }

    @Test func missingFileUnknownContainerAndOtherCodecsAreClearErrors() throws {
        #expect(throws: VTError.sampleBufferDataFailed) { try MediaFileReader(path: "/nonexistent/file.mp4") }
        #expect(throws: VTError.sampleBufferInvalidMediaFormat) {
            try MediaFileReader(path: TestData.fixtures.appendingPathComponent("README.md").path)
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vatoolbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let mpeg4 = directory.appendingPathComponent("mpeg4.mp4")
        _ = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/ffmpeg"),
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=5", "-frames:v", "2", "-c:v", "mpeg4",
                mpeg4.path,
            ])
        do {
            _ = try MediaFileReader(path: mpeg4.path)
            Issue.record("an MPEG-4 Part 2 file was accepted")
        } catch {
            #expect(error == .couldNotFindVideoDecoder)
            #expect(error.reason.contains("mpeg4"))
        }
    }

    @Test func rawAnnexBFilesAreReadToo() throws {
        let url = TestData.fixtures.appendingPathComponent("hevc-main.265")
        let reader = try MediaFileReader(path: url.path)
        #expect(reader.codecType == .hevc)
        let samples = try reader.readAllSamples()
        #expect(samples.count == 48)
        #expect(samples.filter(\.isSync).count == 2)
    }
}
