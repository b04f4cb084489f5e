import Foundation
import Testing

@testable import VAToolbox

/// The VATOOLBOX_* environment variables: every value is either taken or refused with one line
/// naming the variable and its values; hints speak the interface's language.
@Suite("EnvironmentVariable")
struct EnvironmentVariableTests {
    /// An environment holding only `values`.
    static func environment(_ values: [String: String]) -> (String) -> String? { { values[$0] } }

    static let fixture = TestData.fixtures.appendingPathComponent("h264-baseline-cavlc.264").path

    @Test(
        "VATOOLBOX_HWACCEL's values and aliases",
        arguments: [
            ("auto", DecoderSpecification.HardwareAcceleration.preferred), ("preferred", .preferred),
            ("vaapi", .required), ("GPU", .required), ("required", .required), ("none", .disabled),
            ("cpu", .disabled), ("software", .disabled), ("disabled", .disabled), ("Off", .disabled),
            ("0", .disabled),
        ])
    func hardwareAccelerationValues(value: String, policy: DecoderSpecification.HardwareAcceleration) throws {
        let effective = try DecoderSelection.effective(
            DecoderSpecification(), environment: Self.environment(["VATOOLBOX_HWACCEL": value]))
        #expect(effective.hardwareAcceleration == policy)
    }

    @Test("an empty variable counts as unset")
    func emptyIsUnset() throws {
        let all = Dictionary(uniqueKeysWithValues: EnvironmentVariable.allCases.map { ($0.name, "") })
        let effective = try DecoderSelection.effective(DecoderSpecification(), environment: Self.environment(all))
        #expect(effective == DecoderSpecification())
    }

    @Test(
        "a value a variable does not take is refused, naming the variable and its values",
        arguments: [
            ("VATOOLBOX_HWACCEL", "1"), ("VATOOLBOX_HWACCEL", "on"), ("VATOOLBOX_HWACCEL", "cuda"),
            ("VATOOLBOX_RENDER_NODE", "renderD128"), ("VATOOLBOX_FFMPEG_LOG", "verbose"), ("VATOOLBOX_VA_LOG", "2"),
            ("VATOOLBOX_SHARED_VA_DISPLAY", "shared"),
        ])
    func badValueIsRefused(name: String, value: String) throws {
        let variable = try #require(EnvironmentVariable(rawValue: name))
        let error = #expect(throws: VTError.parameter) {
            _ = try DecoderSelection.effective(DecoderSpecification(), environment: Self.environment([name: value]))
        }
        #expect(error?.reason == "\(name)=\(value) is not a value it takes: \(variable.allowedValues)")
        #expect(error?.reason.contains("\n") == false)
        // An explicit policy does not hide a bad value: the variable is wrong either way.
        #expect(throws: VTError.parameter) {
            _ = try DecoderSelection.effective(
                DecoderSpecification(hardwareAcceleration: .disabled), environment: Self.environment([name: value]))
        }
    }

    @Test("switch variables: on, off, and unset")
    func switches() throws {
        for (value, expected) in [("1", true), ("yes", true), ("ON", true), ("0", false), ("false", false)] {
            try EnvironmentVariable.validateAll(Self.environment(["VATOOLBOX_FFMPEG_LOG": value]))
            #expect(try EnvironmentVariable.switchValue(.ffmpegLog, value) == expected, "\(value)")
        }
        #expect(try EnvironmentVariable.switchValue(.vaLog, nil) == nil)
        #expect(try EnvironmentVariable.switchValue(.vaLog, "") == nil)
    }

    @Test("a hardware requirement that fails: the hint names the Swift API, or the variable that asked")
    func libraryHints() throws {
        let format = try MediaFileReader(path: Self.fixture).formatDescription
        let missing = "/dev/dri/no-such-node"
        let explicit = DecoderSpecification(hardwareAcceleration: .required, renderNodePath: missing)
        let fromCode = #expect(throws: VTError.couldNotFindVideoDecoder) {
            _ = try DecoderSelection.choose(for: format, specification: explicit, requested: explicit, heldSurfaces: 0)
        }
        #expect(fromCode?.hint?.contains(".preferred") == true, "\(String(describing: fromCode?.hint))")
        let requested = DecoderSpecification(renderNodePath: missing)
        let effective = try DecoderSelection.effective(
            requested, environment: Self.environment(["VATOOLBOX_HWACCEL": "vaapi"]))
        let fromEnvironment = #expect(throws: VTError.couldNotFindVideoDecoder) {
            _ = try DecoderSelection.choose(
                for: format, specification: effective, requested: requested, heldSurfaces: 0)
        }
        #expect(fromEnvironment?.hint?.contains("VATOOLBOX_HWACCEL=auto") == true)
        #expect(fromEnvironment?.hint?.contains(".preferred") == false)
    }

    @Test(
        "vatoolbox: a bad value is one line naming the variable, exit status 2",
        .enabled(if: CommandRunner.hasTool),
        arguments: [("VATOOLBOX_HWACCEL", "1"), ("VATOOLBOX_RENDER_NODE", "renderD128"), ("VATOOLBOX_VA_LOG", "x")])
    func toolRefusesBadValue(name: String, value: String) throws {
        var environment = ProcessInfo.processInfo.environment
        environment[name] = value
        let result = try CommandRunner.vatoolbox(["decode", Self.fixture, "-o", "/dev/null"], environment: environment)
        #expect(result.status == 2)
        #expect(result.errorLines.count == 1, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("vatoolbox: \(name)=\(value) is not a value it takes: "))
        #expect(result.text.isEmpty)
    }

    @Test(
        "vatoolbox: a failed hardware requirement hints with the flag or the variable that asked",
        .enabled(if: CommandRunner.hasTool))
    func toolHints() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["VATOOLBOX_HWACCEL"] = nil
        let flag = try CommandRunner.vatoolbox(
            ["decode", Self.fixture, "--hwaccel", "vaapi", "--device", "/dev/dri/no-such-node"],
            environment: environment)
        #expect(flag.status == 3)
        #expect(flag.standardError.contains("--hwaccel auto"), "\(flag.standardError)")
        #expect(!flag.standardError.contains(".preferred"))
        environment["VATOOLBOX_HWACCEL"] = "vaapi"
        environment["VATOOLBOX_RENDER_NODE"] = "/dev/dri/no-such-node"
        let variable = try CommandRunner.vatoolbox(["decode", Self.fixture], environment: environment)
        #expect(variable.status == 3)
        #expect(variable.standardError.contains("VATOOLBOX_HWACCEL=auto"), "\(variable.standardError)")
        #expect(!variable.standardError.contains(".preferred"))
    }
}
