import Dispatch
import Foundation
import Synchronization
import Testing

@testable import VAToolbox

/// A GPU that hangs (Docs/Hardware.md, "A GPU that hangs"): the test driver blocks one call as a
/// hung engine does (`VATB_HANG`), and the session waits for the GPU at most its bound
/// (``DecoderSpecification/hardwareResponseLimit``, the tool's `--gpu-timeout`): a `.preferred`
/// session goes on on the CPU and every frame equals the ffmpeg CLI's software decode, a
/// `.required` one fails its frames with the hang, and nothing blocks past the bound.
///
/// Each run is a `vatoolbox framemd5` child process on the driver's reference mode (real
/// pixels), since a call that never returns stays stuck until its process ends.
@Suite(.enabled(if: CommandRunner.hasFFmpeg && CommandRunner.hasTool && TestVADriver.isBuilt))
struct HardwareHangTests {
    /// B-frames: the GPU holds pictures for reordering when it hangs.
    static let fixture = TestData.fixtures.appendingPathComponent("h264-high-bpyramid.264")
    /// The bound the runs use.
    static let limit = "300"
    /// What the session says of a hang at that bound.
    static let hangMessage = "did not answer within 300 ms"

    /// `vatoolbox framemd5` on the driver with the N-th call of an entry point hung.
    static func frameMD5(
        hanging hang: String, personality: String?, hwaccel: String = "auto", limit: String = limit
    ) throws -> CommandRunner.Result {
        var extra = ["VATB_HANG": hang, "VATB_REFERENCE_STREAM": fixture.path, "VATB_LIVE_REPORT": "1"]
        extra["VATB_PERSONALITY"] = personality
        return try CommandRunner.vatoolbox(
            [
                "framemd5", "--hwaccel", hwaccel, "--device", "/dev/null", "--gpu-timeout", limit, "--pixel-format",
                "y420", fixture.path,
            ], environment: TestVADriver.subprocessEnvironment(extra), timeout: .seconds(120))
    }

    /// The ffmpeg CLI's single-threaded software decode, the oracle.
    static func softwareFrameMD5() throws -> String {
        let run = try CommandRunner.ffmpeg([
            "-threads", "1", "-i", fixture.path, "-map", "0:v:0", "-autoscale", "0", "-f", "framemd5", "-",
        ])
        try #require(run.status == 0, "ffmpeg: \(run.standardError)")
        return run.text
    }

    static func frameLines(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }
    }

    struct HangPoint: Sendable, CustomTestStringConvertible {
        let personality: String?
        let call: String
        var testDescription: String { "\(personality ?? "default"): \(call)" }
    }

    /// Calls made while decoding a sample (libavcodec's submission, and the synchronisation of
    /// drivers that report errors there), under every personality.
    static let decodingHangs: [HangPoint] = TestVADriver.personalities.flatMap { personality in
        ["BeginPicture:30", "RenderPicture:40", "EndPicture:3", "CreateBuffer:20"].map {
            HangPoint(personality: personality, call: $0)
        }
    }

    @Test(arguments: decodingHangs)
    func aHungCallMovesThePreferredSessionToTheCPUWithEveryFrameExact(_ point: HangPoint) throws {
        let run = try Self.frameMD5(hanging: point.call, personality: point.personality)
        #expect(!run.timedOut, "the tool hung")
        #expect(run.standardError.contains("vatb: hanging call"), "the driver hung no call: \(run.standardError)")
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.text == (try Self.softwareFrameMD5()), "every frame, the GPU's held ones included")
    }

    /// A hang while a picture is read back for the conversion (`vaSyncSurface` of the drivers
    /// that synchronise only then): that frame is reported with the hang, every other one is the
    /// software decode's.
    @Test(arguments: TestVADriver.personalities)
    func aHungReadBackLosesAtMostThatFrame(_ personality: String?) throws {
        let run = try Self.frameMD5(hanging: "SyncSurface:5", personality: personality)
        #expect(!run.timedOut, "the tool hung")
        #expect(run.standardError.contains("vatb: hanging call 5 of SyncSurface"), "\(run.standardError)")
        let expected = Self.frameLines(try Self.softwareFrameMD5())
        let lines = Self.frameLines(run.text)
        #expect(expected.count - lines.count <= 1, "\(run.standardError)")
        #expect(lines.allSatisfy(expected.contains), "a frame differs from the software decode")
        if lines.count < expected.count {
            #expect(run.status == 1 && run.standardError.contains(Self.hangMessage), "\(run.standardError)")
            #expect(run.standardError.contains("vaSyncSurface had not returned"), "\(run.standardError)")
        }
    }

    /// `.required` stays on the GPU: the frames from the hang on fail with a typed malfunction
    /// naming it, the ones before are exact, and the tool returns.
    @Test(arguments: TestVADriver.personalities)
    func aHungCallFailsTheRequiredSessionsFrames(_ personality: String?) throws {
        let run = try Self.frameMD5(hanging: "EndPicture:12", personality: personality, hwaccel: "vaapi")
        #expect(!run.timedOut, "the tool hung")
        #expect(run.status == 1)
        #expect(run.standardError.contains("kVTVideoDecoderMalfunctionErr (-12911)"), "\(run.standardError)")
        #expect(run.standardError.contains(Self.hangMessage), "\(run.standardError)")
        #expect(
            run.standardError.contains("vaEndPicture had not returned after")
                && run.standardError.contains("[libva vaEndPicture: 38 no answer after"),
            "the hang names the entry point it is stuck in and the time waited: \(run.standardError)")
        let expected = Self.frameLines(try Self.softwareFrameMD5())
        let lines = Self.frameLines(run.text)
        #expect(!lines.isEmpty && lines.count < expected.count)
        #expect(lines.allSatisfy(expected.contains), "a frame before the hang differs from the software decode")
    }

    /// A driver that hangs while the decoder opens (the first `vaCreateConfig` of the process)
    /// does not block the caller: a `.preferred` session decodes every frame on the CPU, a
    /// `.required` one fails to open with the hang, naming the entry point.
    @Test(arguments: TestVADriver.personalities)
    func aHangWhileTheDecoderOpensIsBoundedToo(_ personality: String?) throws {
        let preferred = try Self.frameMD5(hanging: "CreateConfig:1", personality: personality)
        #expect(!preferred.timedOut, "the tool hung")
        #expect(preferred.standardError.contains("vatb: hanging call 1 of CreateConfig"), "\(preferred.standardError)")
        #expect(preferred.status == 0, "\(preferred.standardError)")
        #expect(preferred.text == (try Self.softwareFrameMD5()), "every frame, decoded on the CPU")

        let required = try Self.frameMD5(hanging: "CreateConfig:1", personality: personality, hwaccel: "vaapi")
        #expect(!required.timedOut, "the tool hung")
        #expect(required.status == 1, "\(required.standardError)")
        #expect(required.standardError.contains("kVTVideoDecoderMalfunctionErr (-12911)"), "\(required.standardError)")
        #expect(
            required.standardError.contains("did not answer within 300 ms while opening the decoder: vaCreateConfig"),
            "\(required.standardError)")
        #expect(Self.frameLines(required.text).isEmpty)
    }

    /// A call slower than usual but within the bound is no hang: the GPU decodes every frame.
    @Test func aSlowCallWithinTheBoundChangesNothing() throws {
        let run = try Self.frameMD5(hanging: "EndPicture:6:200", personality: nil, limit: "5000")
        #expect(run.standardError.contains("vatb: hanging call 6 of EndPicture for 200 ms"), "\(run.standardError)")
        #expect(run.status == 0 && !run.standardError.contains("did not answer"), "\(run.standardError)")
        #expect(run.text == (try Self.softwareFrameMD5()))
        #expect(run.standardError.contains("end_pictures=48"), "the GPU decoded every picture: \(run.standardError)")
    }
}

/// ``WatchdogBackend`` in process, over a back end that blocks until it is let go.
/// Serialized: ``WatchdogBackend/stuckCalls`` counts the whole process's stuck calls.
@Suite(.serialized) struct WatchdogBackendTests {
    /// A back end whose `decode` of the sample `[1]` blocks while `gate` is closed.
    final class BlockingBackend: DecoderBackend, @unchecked Sendable {
        let gate: DispatchSemaphore
        let hardware: HardwareDecoding? = nil
        let released: Flag
        /// The driver entry point the blocked call is inside, as the driver table's hooks record it.
        let entryPoint: StaticString?

        init(gate: DispatchSemaphore, released: Flag, entryPoint: StaticString? = nil) {
            self.gate = gate
            self.released = released
            self.entryPoint = entryPoint
        }
        deinit { released.value.withLock { $0 = true } }

        func decode(_ data: [UInt8], token: Int64) -> DecodeStep {
            guard data == [1] else { return DecodeStep() }
            if let entryPoint {
                DriverCallsInFlight.during(entryPoint) { gate.wait() }
            } else {
                gate.wait()
            }
            return DecodeStep()
        }
        func drain() -> [DecodedPicture] { [] }
        func reconfigure(for format: VideoFormatDescription) {}
        func needsReopening(for configuration: SoftwareDecoderConfiguration) -> Bool { false }
    }

    final class Flag: Sendable {
        let value = Mutex(false)
    }

    @Test func aCallPastTheLimitAbandonsTheBackEndUntilTheCallReturns() {
        let released = Flag()
        let gate = DispatchSemaphore(value: 0)
        var watchdog: WatchdogBackend? = WatchdogBackend(
            BlockingBackend(gate: gate, released: released), limit: .milliseconds(100))
        let before = WatchdogBackend.stuckCalls
        defer { gate.signal() }

        #expect(watchdog?.decode([0], token: 0).failure == nil, "a call that returns in time is answered")
        guard case .deviceHung(let error)? = watchdog?.decode([1], token: 1).failure else {
            Issue.record("a blocked call is not reported as a hang")
            return
        }
        #expect(error.status == VTError.videoDecoderMalfunction.status)
        #expect(error.reason.contains("did not answer within 100 ms"), "\(error.reason)")
        #expect(watchdog?.hasHung == true)
        #expect(WatchdogBackend.stuckCalls == before + 1)
        guard case .deviceHung? = watchdog?.decode([0], token: 2).failure else {
            Issue.record("a hung back end must answer every later call with the hang at once")
            return
        }
        #expect(watchdog?.drain().isEmpty == true)
        watchdog = nil
        #expect(!released.value.withLock { $0 }, "the stuck call still holds the back end")
        gate.signal()  // the driver returns at last
        var polls = 0
        while (WatchdogBackend.stuckCalls > before || !released.value.withLock { $0 }) && polls < 1000 {
            usleep(10_000)
            polls += 1
        }
        #expect(WatchdogBackend.stuckCalls == before, "the call that returned is no longer counted")
        #expect(released.value.withLock { $0 }, "the back end is released once its call returned")
    }

    @Test func theHangNamesTheDriverEntryPointItIsStuckInAndTheTimeWaited() {
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        let watchdog = WatchdogBackend(
            BlockingBackend(gate: gate, released: Flag(), entryPoint: "vaSyncSurface"), limit: .milliseconds(100))
        guard case .deviceHung(let error)? = watchdog.decode([1], token: 1).failure else {
            Issue.record("a blocked call is not reported as a hang")
            return
        }
        #expect(error.reason.contains("did not answer within 100 ms while decoding a sample"), "\(error.reason)")
        #expect(error.reason.contains(": vaSyncSurface had not returned after "), "\(error.reason)")
        #expect(error.cause?.library == "libva" && error.cause?.function == "vaSyncSurface", "\(error)")
        #expect(DriverCallsInFlight.call(on: pthread_self()) == nil, "the test's own thread is in no driver call")
    }
}
