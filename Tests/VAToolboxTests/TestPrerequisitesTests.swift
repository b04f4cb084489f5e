import Foundation
import Testing

/// What the other suites need from the build and the machine. Those suites are disabled rather
/// than failed when something is missing, so that one cause gives one failure; this suite is that
/// failure — a test run that skipped them cannot pass.
@Suite struct TestPrerequisitesTests {
    @Test func theToolIsBuiltBesideTheTests() {
        #expect(CommandRunner.hasTool, "\(CommandRunner.tool.path) is missing: run swift build --build-tests")
    }

    @Test func theTestVADriverAndShimAreBuilt() {
        #expect(
            TestVADriver.isBuilt,
            "\(TestVADriver.driverLibrary.path) or the shim is missing: \(TestVADriver.buildFailure ?? "")")
    }

    @Test func theOraclesAreInstalled() {
        #expect(CommandRunner.hasFFmpeg, "ffmpeg is missing: Scripts/bootstrap installs it")
        #expect(TestData.hasFFprobe, "ffprobe is missing: Scripts/bootstrap installs it")
    }
}
