import Foundation
import Synchronization
import Testing

@testable import VAToolbox

/// The colour, range, field and aspect attachments of decoded pictures, against what ffprobe
/// says of the same frames (`frames` of the fixture oracles) and of the stream.
@Suite struct PixelBufferAttachmentTests {
    static func firstImage(_ name: String) throws -> PixelBuffer {
        let stream = try #require(StreamFile.validFixtures.first { $0.name == name })
        let samples = ElementaryStreamParser.samples(in: try stream.bytes(), codec: stream.codec)
        let images = Mutex<[PixelBuffer]>([])
        let session = try DecompressionSession(formatDescription: samples[0].formatDescription) { output in
            if let image = output.imageBuffer { images.withLock { $0.append(image) } }
        }
        for sample in samples.prefix(6) { try session.decodeFrame(sample) }
        try session.finishDelayedFrames()
        session.invalidate()
        return try #require(images.withLock { $0.first })
    }

    /// The first frame's fields in the committed ffprobe oracle.
    static func oracleFrame(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: TestData.fixtures.appendingPathComponent(name + ".ffprobe.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frames = try #require(root["frames"] as? [[String: Any]])
        return try #require(frames.first)
    }

    @Test(arguments: StreamFile.validFixtures.map(\.name))
    func attachmentsMatchFFprobe(name: String) throws {
        let image = try Self.firstImage(name)
        let frame = try Self.oracleFrame(name)
        let streamOracle = try FFprobeOracle.load(for: try #require(StreamFile.validFixtures.first { $0.name == name }))
        let attachments = image.attachments
        #expect(attachments.fieldCount == ((frame["interlaced_frame"] as? Int) == 1 ? 2 : 1), "\(name)")
        if attachments.fieldCount == 2 {
            #expect(attachments.topFieldFirst == ((frame["top_field_first"] as? Int) == 1))
        }
        if let sar = frame["sample_aspect_ratio"] as? String, sar != "0:1" {
            let parts = sar.split(separator: ":").compactMap { Int($0) }
            let ours = attachments.pixelAspectRatio.map {
                OracleExpectations.reduce($0.horizontalSpacing, $0.verticalSpacing)
            }
            #expect(ours.map { [$0.0, $0.1] } == parts, "\(name): SAR")
        }
        #expect(attachments.fullRange == (streamOracle.stream["color_range"] == "pc"), "\(name): range")
        let primaries = streamOracle.stream["color_primaries"].flatMap { OracleExpectations.primaries[$0] }
        #expect(attachments.colorPrimaries.map { Int($0.rawValue) } == primaries, "\(name): primaries")
        let matrix = streamOracle.stream["color_space"].flatMap { OracleExpectations.matrices[$0] }
        #expect(attachments.yCbCrMatrix.map { Int($0.rawValue) } == matrix, "\(name): matrix")
    }
}
