import Foundation
import Testing

/// The tool's one-line error summary after frames decoded with errors: Docs/CLI.md promises the
/// OSStatus name and value, the reason and the underlying cause from libavcodec.
@Suite(.enabled(if: CommandRunner.hasTool))
struct CommandLineErrorSummaryTests {
    @Test func damagedFramesNameTheStatusTheReasonAndLibavcodecsCause() throws {
        let file = TestData.fixtures.appendingPathComponent("h264-bitflip.264").path
        let result = try CommandRunner.vatoolbox(["decode", file, "--hwaccel", "none", "--threads", "1"])
        #expect(result.status == 1)
        #expect(result.errorLines.count == 1, "\(result.standardError)")
        let line = try #require(result.errorLines.first)
        #expect(line.hasPrefix("vatoolbox decode: "))
        #expect(line.contains("frames decoded with errors; the first: kVTVideoDecoderBadDataErr (-12909): "), "\(line)")
        #expect(line.contains("the decoder concealed the errors"), "\(line)")
        #expect(line.contains("[libavcodec avcodec_receive_frame: "), "\(line)")
        #expect(line.contains("decode_error_flags: "), "\(line)")
    }
}
