import Foundation
import Testing

@testable import VAToolbox

/// Deinterlacing on the CPU (issue 23, item 3): picture for picture the `ffmpeg` CLI's
/// `-vf bwdif=mode=…` and `-vf yadif=mode=…` on an interlaced H.264 (MBAFF) and MPEG-2 stream.
@Suite(.enabled(if: CommandRunner.hasFFmpeg)) struct DeinterlacerTests {
    static let fixtures = ["h264-mbaff.264", "mpeg2-interlaced.ts"]
    static let frameDuration = MediaTime(value: 1, timescale: 25)

    /// The MD5s of ffmpeg's deinterlaced pictures, in output order (`-fps_mode passthrough`: no
    /// picture dropped or repeated for its time stamp).
    static func ffmpegMD5s(_ fixture: String, filter: String) throws -> [String] {
        let run = try CommandRunner.ffmpeg([
            "-threads", "1", "-i", TestData.fixtures.appendingPathComponent(fixture).path, "-map", "0:v:0", "-vf",
            filter, "-fps_mode", "passthrough", "-f", "framemd5", "-",
        ])
        try #require(run.status == 0, "ffmpeg -vf \(filter) on \(fixture): \(run.standardError)")
        return run.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The session's pictures of a fixture, in presentation order, with their times (for a raw
    /// stream, which states none, 1/25 s apart).
    static func pictures(_ fixture: String) throws -> [(image: PixelBuffer, time: MediaTime)] {
        let samples = try TestData.samples(fixture, frameDuration: frameDuration)
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled), outputHandler: outputs.handler)
        try decode(samples, with: session)
        return outputs.all.compactMap { output in output.imageBuffer.map { ($0, output.presentationTimeStamp) } }
            .enumerated().map { index, picture in
                (
                    picture.0,
                    picture.1.isNumeric ? picture.1 : MediaTime(value: Int64(index), timescale: frameDuration.timescale)
                )
            }
    }

    @Test(arguments: fixtures, Deinterlacer.Method.allCases)
    func equalsFFmpegsFilterPictureForPicture(_ fixture: String, _ method: Deinterlacer.Method) throws {
        let pictures = try Self.pictures(fixture)
        #expect(pictures.count >= 20)
        #expect(pictures.allSatisfy { $0.image.attachments.fieldCount == 2 }, "the fixture is interlaced")
        for rate in Deinterlacer.Rate.allCases {
            let deinterlacer = Deinterlacer(method: method, rate: rate)
            var outputs: [Deinterlacer.Output] = []
            for picture in pictures {
                outputs += try deinterlacer.deinterlace(picture.image, presentationTimeStamp: picture.time)
            }
            outputs += try deinterlacer.finish()
            let mode = rate == .frame ? "send_frame" : "send_field"
            let expected = try Self.ffmpegMD5s(fixture, filter: "\(method.rawValue)=mode=\(mode)")
            #expect(outputs.count == pictures.count * (rate == .frame ? 1 : 2), "\(fixture) \(method) \(rate)")
            #expect(outputs.map(\.image.md5) == expected, "\(fixture) \(method) \(rate)")
            // The progressive pictures differ from the woven input (the filter ran).
            #expect(outputs.first?.image.md5 != pictures.first?.image.md5)
            // Times: the input's, or per field, half a picture apart.
            let times = outputs.map(\.presentationTimeStamp.seconds)
            #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "increasing")
            let step = rate == .frame ? Self.frameDuration.seconds : Self.frameDuration.seconds / 2
            #expect(abs((times.last ?? 0) - (times.first ?? 0) - step * Double(outputs.count - 1)) < 1e-6)
            #expect(abs((times.first ?? -1) - pictures[0].time.seconds) < 1e-6)
        }
    }

    /// Pictures without a numeric time are numbered in a time scale of 1.
    @Test func picturesWithoutTimesAreNumbered() throws {
        let pictures = try Self.pictures("mpeg2-interlaced.ts").prefix(4)
        let deinterlacer = Deinterlacer(method: .yadif, rate: .field)
        var outputs: [Deinterlacer.Output] = []
        for picture in pictures {
            outputs += try deinterlacer.deinterlace(picture.image, presentationTimeStamp: .invalid)
        }
        outputs += try deinterlacer.finish()
        #expect(outputs.map(\.presentationTimeStamp.seconds) == [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5])
    }

    /// A new size starts a new filter, after the old one gave what it held.
    @Test func aSizeChangeFinishesTheFilterAndStartsAnother() throws {
        let small = try Self.pictures("h264-mbaff.264")
        let other = try Self.pictures("mpeg2-interlaced.ts")
        try #require(small[0].image.width != other[0].image.width)
        let deinterlacer = Deinterlacer()
        var outputs: [Deinterlacer.Output] = []
        for picture in small.prefix(3) + other.prefix(3) {
            outputs += try deinterlacer.deinterlace(picture.image, presentationTimeStamp: picture.time)
        }
        outputs += try deinterlacer.finish()
        let widths = Array(repeating: small[0].image.width, count: 3) + Array(repeating: other[0].image.width, count: 3)
        #expect(outputs.map(\.image.width) == widths)
        #expect(try deinterlacer.finish().isEmpty, "nothing held after finishing")
    }
}
