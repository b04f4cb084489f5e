import Foundation
import Testing

@testable import VAToolbox

/// VAToolbox's own picture attachments through the native API (``ImageBufferAttachments``'s
/// `pictureType`, `isKeyFrame`, `chromaLocation`, `statesColorRange` and where the static HDR
/// metadata comes from), against `ffprobe -show_frames` on the same fixture.
@Suite(.enabled(if: CommandRunner.hasFFmpeg))
struct ImageBufferAttachmentsPictureTests {
    /// Each picture's attachments, in presentation order, decoded on the CPU.
    static func attachments(_ fixture: String) throws -> [ImageBufferAttachments] {
        let samples = try TestData.samples(fixture)
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled),
            outputHandler: outputs.handler)
        try decode(samples, with: session)
        return outputs.all.sorted { $0.presentationTimeStamp < $1.presentationTimeStamp }.compactMap(\.imageBuffer)
            .map(\.attachments)
    }

    /// ffprobe's frames of the fixture's first video stream.
    static func ffprobeFrames(_ fixture: String) throws -> [[String: Any]] {
        let path = TestData.fixtures.appendingPathComponent(fixture).path
        let result = try CommandRunner.ffprobe(["-show_frames", "-select_streams", "v:0", "-of", "json", path])
        try #require(result.status == 0, "\(result.standardError)")
        let root = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        return try #require(root["frames"] as? [[String: Any]])
    }

    @Test(arguments: ["h264-high-bpyramid.mp4", "mpeg2-bframes.ts", "hevc-hdr10.265", "av1-hdr10.ivf"])
    func pictureTypeAndKeyFrameAreFFprobes(_ fixture: String) throws {
        let ours = try Self.attachments(fixture)
        let theirs = try Self.ffprobeFrames(fixture)
        try #require(ours.count == theirs.count)
        #expect(
            ours.map { $0.pictureType.map { String($0.ffmpegLetter) } ?? "?" }
                == theirs.map { $0["pict_type"] as? String ?? "" })
        #expect(ours.map { $0.isKeyFrame ? 1 : 0 } == theirs.map { $0["key_frame"] as? Int ?? -1 })
        #expect(ours.contains { $0.pictureType == .biPredicted } || fixture == "av1-hdr10.ivf")
    }

    @Test func chromaLocationAndStatedRangeAreTheDecoders() throws {
        let h264 = try Self.attachments("h264-high-bpyramid.mp4")
        // No VUI: libavcodec states no range, and the H.264 default chroma siting (left).
        #expect(h264.allSatisfy { !$0.statesColorRange && !$0.fullRange && $0.chromaLocation == 0 })
        let av1 = try Self.attachments("av1-hdr10.ivf")
        #expect(av1.allSatisfy { $0.statesColorRange && $0.chromaLocation == nil })
    }

    @Test(arguments: [("h264-container-hdr.mp4", true), ("h264-container-hdr.mkv", true), ("hevc-hdr10.265", false)])
    func staticHDRMetadataSaysWhereItComesFrom(_ fixture: String, fromContainer: Bool) throws {
        let pictures = try Self.attachments(fixture)
        #expect(!pictures.isEmpty)
        for picture in pictures {
            #expect(picture.masteringDisplayColorVolume != nil && picture.contentLightLevel != nil)
            #expect(picture.masteringDisplayIsFromContainer == fromContainer)
            #expect(picture.contentLightLevelIsFromContainer == fromContainer)
        }
    }

    @Test func pictureTypeLetters() {
        #expect(PictureType.allCases.map { String($0.ffmpegLetter) }.joined() == "IPBSipb")
        #expect(PictureType.allCases.allSatisfy { PictureType(ffmpegLetter: $0.ffmpegLetter) == $0 })
        #expect(PictureType(ffmpegLetter: "?") == nil)
    }
}
