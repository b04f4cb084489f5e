import Foundation
import Testing

@testable import VAToolbox

/// Every input the fuzz targets ever found (a crash, a leak, a timeout, a run out of memory, a
/// lost output or VA object), kept under `Tests/Regressions/TARGET/` and replayed here through
/// the same entry points as `Scripts/fuzz` (``FuzzEntryPoints``): each must now pass.
///
/// Nested in ``VATestDriverTests`` so that it inherits its serialisation: the GPU target sets
/// the driver's environment and compares its process-wide live-object counters.
extension VATestDriverTests {
    @Suite struct FuzzRegressionTests {
        static let folder = TestData.packageRoot.appendingPathComponent("Tests/Regressions")

        /// The inputs of one target, as `target/file` names (sorted, so that failures repeat).
        static func inputs(_ target: FuzzEntryPoints.Target) -> [String] {
            let directory = folder.appendingPathComponent(target.rawValue)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted().map {
                "\(target.rawValue)/\($0)"
            }
        }

        static func bytes(_ name: String) throws -> [UInt8] {
            try TestData.bytes(folder.appendingPathComponent(name))
        }

        /// The session targets' format descriptions, from the same fixtures as the fuzzer's.
        static func formats() throws -> [VideoFormatDescription] {
            try FuzzEntryPoints.sessionFixtures.map { name in
                let samples = FuzzEntryPoints.fixtureSamples(name, fixtures: TestData.fixtures.path)
                return try #require(samples.first, "no samples in \(name)").formatDescription
            }
        }

        /// The folder holds inputs for every target, so that the replay below replays something.
        @Test func everyTargetHasRegressionInputs() {
            for target in FuzzEntryPoints.Target.allCases {
                #expect(!Self.inputs(target).isEmpty, "Tests/Regressions/\(target.rawValue) is empty")
            }
        }

        @Test(arguments: inputs(.parser))
        func parserInputs(name: String) throws {
            FuzzEntryPoints.parse(try Self.bytes(name))
        }

        @Test(arguments: inputs(.session))
        func sessionInputs(name: String) throws {
            let problems = FuzzEntryPoints.decode(
                try Self.bytes(name), formats: try Self.formats(),
                specification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 1))
            #expect(problems.isEmpty)
        }

        @Test(arguments: inputs(.gpuSession))
        func gpuSessionInputs(name: String) throws {
            try #require(TestVADriver.isBuilt)
            let before = try HardwareSessions.liveObjects()
            let formats = try Self.formats()
            let input = try Self.bytes(name)
            let problems = TestVADriver.withEnvironment(MisuseTests.driverVariables) {
                FuzzEntryPoints.decode(
                    input, formats: formats,
                    specification: DecoderSpecification(
                        hardwareAcceleration: .required, renderNodePath: "/dev/null", threadCount: 1))
            }
            #expect(problems.isEmpty)
            #expect(try HardwareSessions.liveObjects() == before)
        }
    }
}
