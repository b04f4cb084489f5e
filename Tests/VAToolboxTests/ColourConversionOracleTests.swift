import Foundation
import Testing

@testable import VAToolbox

/// Colour correctness of the CPU conversion to BGRA (issue 23, "Done means"): for BT.601, BT.709
/// and BT.2020 streams in limited and full range, each picture equals the ffmpeg CLI's
/// `-vf scale=in_color_matrix=…:in_range=…:flags=bicubic,format=bgra` — the matrix and range
/// named explicitly rather than read from the stream, so a wrong reading of the tags, or a wrong
/// matrix for them, gives a wrong picture.
@Suite(.enabled(if: CommandRunner.hasFFmpeg)) struct ColourConversionOracleTests {
    /// (x264's `-colorspace`, libswscale's `in_color_matrix` name, range).
    static let cases: [(colorspace: String, matrix: String, range: String)] = [
        ("bt470bg", "bt601", "tv"), ("bt470bg", "bt601", "pc"), ("bt709", "bt709", "tv"), ("bt709", "bt709", "pc"),
        ("bt2020nc", "bt2020", "tv"), ("bt2020nc", "bt2020", "pc"),
    ]

    @Test(arguments: cases)
    func bgraEqualsFFmpegWithTheMatrixAndRangeNamed(_ testCase: (colorspace: String, matrix: String, range: String))
        throws
    {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stream = directory.appendingPathComponent("\(testCase.colorspace)-\(testCase.range).264")
        let encode = try CommandRunner.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25", "-frames:v", "3", "-pix_fmt", "yuv420p", "-c:v", "libx264",
            "-threads", "1", "-colorspace", testCase.colorspace, "-color_range", testCase.range, stream.path,
        ])
        try #require(encode.status == 0, "\(encode.standardError)")
        let oracle = try CommandRunner.ffmpeg([
            "-i", stream.path, "-vf",
            "scale=in_color_matrix=\(testCase.matrix):in_range=\(testCase.range):flags=bicubic,format=bgra", "-f",
            "framemd5", "-",
        ])
        try #require(oracle.status == 0, "\(oracle.standardError)")
        let expected = oracle.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces)
        }

        let samples = try TestData.samples(stream.path)
        let extensions = samples[0].formatDescription.extensions
        #expect(extensions.yCbCrMatrix?.name == testCase.colorspace)
        #expect(extensions.fullRangeVideo == (testCase.range == "pc"))
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled),
            imageBufferAttributes: ImageBufferAttributes(pixelFormat: .bgra), outputHandler: outputs.handler)
        try decode(samples, with: session)
        let pictures = outputs.all.compactMap(\.imageBuffer)
        #expect(pictures.count == 3 && expected.count == 3)
        #expect(pictures.map(\.md5) == expected, "\(testCase.colorspace) \(testCase.range)")
    }

    /// The six conversions differ from each other: each case tests its own matrix and range.
    @Test func theSixOraclesDiffer() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stream = directory.appendingPathComponent("source.264")
        let encode = try CommandRunner.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=160x120:r=25", "-frames:v", "1", "-pix_fmt", "yuv420p", "-c:v", "libx264",
            "-threads", "1", stream.path,
        ])
        try #require(encode.status == 0, "\(encode.standardError)")
        var hashes = Set<String>()
        for testCase in Self.cases {
            let run = try CommandRunner.ffmpeg([
                "-i", stream.path, "-vf",
                "scale=in_color_matrix=\(testCase.matrix):in_range=\(testCase.range):flags=bicubic,format=bgra", "-f",
                "framemd5", "-",
            ])
            hashes.insert(run.text.split(separator: "\n").last.map(String.init) ?? "")
        }
        #expect(hashes.count == Self.cases.count)
    }
}
