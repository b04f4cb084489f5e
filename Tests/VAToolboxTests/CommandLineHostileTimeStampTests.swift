import Foundation
import Testing

/// The tool on IVF files whose damaged sample states an absurd time stamp (10^17 s, time base
/// 1/1; `Scripts/make-fixtures`, `absurd_ivf_timestamps`): every command reports the damage and
/// exits with status 1, where its summary once trapped converting the time to `Int`.
@Suite(.enabled(if: CommandRunner.hasTool))
struct CommandLineHostileTimeStampTests {
    static let files = ["vp8-absurd-timestamps.ivf", "vp9-profile0-absurd-timestamps.ivf", "av1-absurd-timestamps.ivf"]

    static let commands: [[String]] = [
        ["decode", "--hwaccel", "none", "-o", "/dev/null"],
        ["framemd5", "--hwaccel", "none"],
        ["thumbnails", "--hwaccel", "none", "--count", "4"],
        ["frames", "--hwaccel", "none", "--every", "2", "--md5"],
        ["snapshot", "--hwaccel", "none", "--time", "100000000000000000"],
        ["probe"], ["probe", "--json"], ["probe", "--nal"],
    ]

    @Test(arguments: files)
    func decodeNamesTheDamagedSampleAndItsTime(name: String) throws {
        let file = TestData.fixtures.appendingPathComponent(name).path
        let result = try CommandRunner.vatoolbox(["decode", file, "--hwaccel", "none", "-o", "/dev/null"])
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.text.contains("sample 2 at 1e+17 s: "), "\(result.text)")
    }

    @Test(arguments: files, commands)
    func everyCommandEndsWithAStatusNotASignal(name: String, command: [String]) throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = TestData.fixtures.appendingPathComponent(name).path
        let output =
            ["thumbnails", "snapshot"].contains(command[0])
            ? ["-o", directory.appendingPathComponent("out.png").path] : []
        let result = try CommandRunner.vatoolbox([command[0], file] + command.dropFirst() + output)
        #expect([0, 1].contains(result.status), "\(command): status \(result.status)\n\(result.standardError)")
        #expect(!result.standardError.contains("Fatal error"), "\(result.standardError)")
    }
}
