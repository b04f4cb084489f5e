import Foundation
import Testing

@testable import VAToolbox

/// ``MediaFileReader/streams(inFile:frameRate:)`` through the public API: every stream of every
/// fixture against `ffprobe -show_streams` (the committed `FILE.streams.json`).
@Suite struct MediaStreamTests {
    @Test("every stream's values equal ffprobe's", arguments: StreamsOracle.fixtures)
    func againstFFprobe(_ file: String) throws {
        let url = TestData.fixtures.appendingPathComponent(file)
        let expected = try StreamsOracle.streams(of: url)
        let streams = try MediaFileReader.streams(inFile: url.path)
        try #require(streams.count == expected.count)
        for (stream, oracle) in zip(streams, expected) {
            let at = "\(file) stream \(stream.index)"
            #expect(stream.index == oracle["index"] as? Int, "\(at)")
            #expect(stream.mediaType.rawValue == oracle["codec_type"] as? String, "\(at)")
            #expect(stream.codecName == oracle["codec_name"] as? String, "\(at)")
            #expect((stream.profileName ?? stream.profile.map(String.init)) == oracle["profile"] as? String, "\(at)")
            #expect(stream.level == oracle["level"] as? Int, "\(at)")
            #expect(stream.width == oracle["width"] as? Int, "\(at)")
            #expect(stream.height == oracle["height"] as? Int, "\(at)")
            #expect(stream.codedWidth == oracle["coded_width"] as? Int, "\(at)")
            #expect(stream.codedHeight == oracle["coded_height"] as? Int, "\(at)")
            #expect(stream.pixelFormatName == oracle["pix_fmt"] as? String, "\(at)")
            #expect(stream.colorRangeName == oracle["color_range"] as? String, "\(at)")
            #expect(stream.colorSpaceName == oracle["color_space"] as? String, "\(at)")
            #expect(stream.colorTransferName == oracle["color_transfer"] as? String, "\(at)")
            #expect(stream.colorPrimariesName == oracle["color_primaries"] as? String, "\(at)")
            #expect(stream.fieldOrder?.rawValue == oracle["field_order"] as? String, "\(at)")
            #expect(stream.sampleFormatName == oracle["sample_fmt"] as? String, "\(at)")
            #expect(stream.sampleRate.map(String.init) == oracle["sample_rate"] as? String, "\(at)")
            #expect(stream.channelCount == oracle["channels"] as? Int, "\(at)")
            #expect((stream.realFrameRate?.description ?? "0/0") == oracle["r_frame_rate"] as? String, "\(at)")
            #expect((stream.averageFrameRate?.description ?? "0/0") == oracle["avg_frame_rate"] as? String, "\(at)")
            #expect(
                "\(stream.timeBase.value)/\(stream.timeBase.timescale)" == oracle["time_base"] as? String, "\(at)")
            #expect(stream.durationTicks.map(Int.init) == oracle["duration_ts"] as? Int, "\(at)")
            #expect(stream.frameCount.map(String.init) == oracle["nb_frames"] as? String, "\(at)")
            if let seconds = (oracle["duration"] as? String).flatMap(Double.init) {
                let duration = try #require(stream.duration, "\(at): no duration, ffprobe says \(seconds)")
                #expect(abs(duration.seconds - seconds) < 0.000_001, "\(at)")
            } else {
                #expect(stream.duration == nil, "\(at)")
            }
        }
        // The default video stream is the track a reader opens without being told one.
        let reader = try MediaFileReader(path: url.path)
        #expect(streams.filter(\.isDefault).map(\.index) == [reader.track.index], "\(file)")
        #expect(streams.first(where: \.isDefault)?.codecType == reader.codecType, "\(file)")
    }

    @Test("audio and subtitles are listed, not decodable; the video is")
    func mediaTypes() throws {
        let streams = try MediaFileReader.streams(
            inFile: TestData.fixtures.appendingPathComponent("mpeg2-bframes.mp4").path)
        #expect(streams.map(\.mediaType) == [.video, .audio, .subtitle])
        #expect(streams.map(\.isDecodable) == [true, false, false])
        #expect(streams.map(\.codecType) == [.mpeg2Video, nil, nil])
        #expect(streams.map(\.isDefault) == [true, false, false])
        #expect(streams[1].sampleRate == 48000 && streams[1].channelCount == 1 && streams[1].profileName == "LC")
        #expect(streams[1].realFrameRate == nil && streams[1].level == nil && streams[1].width == nil)
    }

    @Test("a file that cannot be opened throws the reader's errors")
    func errors() throws {
        #expect(throws: VTError.sampleBufferDataFailed) { try MediaFileReader.streams(inFile: "/nonexistent/file.mp4") }
        #expect(throws: VTError.sampleBufferInvalidMediaFormat) {
            try MediaFileReader.streams(inFile: TestData.fixtures.appendingPathComponent("README.md").path)
        }
    }
}
