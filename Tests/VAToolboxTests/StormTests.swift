import Dispatch
import Foundation
import Synchronization
import Testing

@testable import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// How long the storm blows (`VATOOLBOX_STORM_SECONDS`); nil outside `Scripts/storm`.
enum StormSettings {
    static let duration = ProcessInfo.processInfo.environment["VATOOLBOX_STORM_SECONDS"].flatMap(Double.init)
}

/// The storm (Docs/Reliability.md, "The storm"): many sessions at once in one process on the test
/// driver, which fails calls at random (`VATB_FAIL_RANDOM`) and takes time over each picture as a
/// GPU does (`VATB_LATENCY_US`), on streams of every codec, with `finishDelayedFrames()` and
/// `invalidate()` called from other threads at random moments. Every accepted frame must be
/// answered exactly once, nothing may crash or deadlock, and at the end no VA object, descriptor
/// or memory may be left.
///
/// It runs only in a process of its own, through `Scripts/storm`, which sets
/// `VATOOLBOX_STORM_SECONDS`: the driver reads its fault variables once per process, and random
/// faults would break every other test of the process.
@Suite(.enabled(if: StormSettings.duration != nil && TestVADriver.isBuilt))
struct StormTests {
    /// Sessions at once (`VATOOLBOX_STORM_SESSIONS`, default 16).
    static let sessionCount =
        ProcessInfo.processInfo.environment["VATOOLBOX_STORM_SESSIONS"].flatMap { Int($0) } ?? 16
    /// One stream per codec and bit depth the driver decodes, with reordering and open GOPs.
    static let fixtures = [
        "h264-high-bpyramid.264", "h264-open-gop.mp4", "hevc-main.265", "hevc-main10.265", "vp9-profile0.ivf",
        "vp8.ivf", "av1.ivf", "mpeg2-progressive.m2v",
    ]

    /// What the storm did, for its report.
    struct Totals {
        var sessions = 0
        var refused = 0
        var submitted = 0
        var answered = 0
        var withErrors = 0
        var invalidations = 0
        var finishes = 0
        var movedToCPU = 0
        /// Frames answered other than once, late answers, and other broken promises.
        var problems: [String] = []
    }

    @Test func sessionsUnderRandomFaultsAnswerEveryFrameOnceAndLeaveNothingBehind() throws {
        let duration = try #require(StormSettings.duration)
        // The driver for every session of the process, set once before any thread starts.
        setenv("LIBVA_DRIVERS_PATH", TestVADriver.buildDirectory.path, 1)
        setenv("LIBVA_DRIVER_NAME", TestVADriver.driverName, 1)
        setenv("LIBVA_MESSAGING_LEVEL", "0", 1)
        let streams = try Self.fixtures.map { try TestData.samples($0) }
        let objectsBefore = try TestVADriver.liveObjects()
        let descriptorsBefore = Self.openDescriptors()
        let memory = ResidentMemorySampler()
        let totals = Tally()
        let started = DispatchTime.now()
        let deadline = started + .milliseconds(Int(duration * 1000))

        DispatchQueue.concurrentPerform(iterations: Self.sessionCount) { worker in
            var random = SeededGenerator(seed: UInt64(worker) &+ 0x5EED)
            while DispatchTime.now() < deadline {
                let stream = streams[Self.below(streams.count, &random)]
                Self.runSession(on: stream, random: &random, totals: totals)
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        let peak = memory.stop()

        let result = totals.state.withLock { $0 }
        let objectsAfter = try TestVADriver.liveObjects()
        let descriptorsAfter = Self.openDescriptors()
        print(
            "storm: \(Self.sessionCount) sessions at once, \(result.sessions) sessions "
                + "(\(result.refused) refused), \(result.submitted) frames submitted, \(result.answered) answered "
                + "(\(result.withErrors) with errors), \(result.finishes) finishes and \(result.invalidations) "
                + "invalidations from other threads, \(result.movedToCPU) sessions moved to the CPU, "
                + "\(objectsAfter.endPictures - objectsBefore.endPictures) GPU pictures, "
                + String(
                    format: "%.0f s, peak RSS %.1f MiB (%.1f MiB after the warm-up, %.1f MiB at the end)", seconds,
                    peak.peak, peak.afterWarmUp, peak.last))
        #expect(result.problems.isEmpty, "\(result.problems.prefix(20))")
        #expect(result.answered == result.submitted)
        #expect(result.sessions > Self.sessionCount, "the storm ran too short to mean anything")
        #expect(result.withErrors > 0, "no fault reached a frame: is VATB_FAIL_RANDOM set?")
        #expect(objectsAfter.configs == objectsBefore.configs && objectsAfter.contexts == objectsBefore.contexts)
        #expect(objectsAfter.surfaces == objectsBefore.surfaces && objectsAfter.buffers == objectsBefore.buffers)
        #expect(objectsAfter.images == objectsBefore.images && objectsAfter.drivers == objectsBefore.drivers)
        #expect(descriptorsAfter == descriptorsBefore, "descriptors left open")
        #expect(peak.last - peak.afterWarmUp < 64, "resident memory grew after the warm-up")
        #expect(DecompressionSession.stuckHardwareCalls == 0)
    }

    /// One session on one stream: decoded to its end, or cut short by an invalidation from
    /// another thread; finishes from other threads on the way.
    static func runSession(on samples: [SampleBuffer], random: inout SeededGenerator, totals: Tally) {
        let answers = Mutex<[Int: Int]>([:])
        let closed = Mutex(false)
        let late = Atomic<Int>(0)
        let errors = Atomic<Int>(0)
        let specification = DecoderSpecification(
            hardwareAcceleration: Self.below(4, &random) == 0 ? .required : .preferred, renderNodePath: "/dev/null",
            threadCount: 1, maximumConsecutiveHardwareFaults: 1 + Self.below(3, &random))
        let session: DecompressionSession
        do {
            session = try DecompressionSession(
                formatDescription: samples[0].formatDescription, decoderSpecification: specification
            ) { output in
                if closed.withLock({ $0 }) { late.add(1, ordering: .relaxed) }
                if output.status != nil { errors.add(1, ordering: .relaxed) }
                guard let refcon = output.frameRefcon as? Int else { return }
                answers.withLock { $0[refcon, default: 0] += 1 }
            }
        } catch {
            totals.state.withLock {
                $0.sessions += 1
                $0.refused += 1
            }
            return
        }
        let others = DispatchGroup()
        let invalidateAt = Self.below(5, &random) == 0 ? Self.below(samples.count, &random) : nil
        var accepted: [Int] = []
        var finishes = 0
        for (index, sample) in samples.enumerated() {
            if index == invalidateAt {
                DispatchQueue.global().async(group: others) {
                    session.invalidate()
                    closed.withLock { $0 = true }
                }
            }
            if Self.below(16, &random) == 0 {
                finishes += 1
                DispatchQueue.global().async(group: others) { try? session.finishDelayedFrames() }
            }
            let flags: DecodeFrameFlags = Self.below(2, &random) == 0 ? .enableAsynchronousDecompression : []
            // A frame decodeFrame throws for was not accepted, and gets no output.
            if (try? session.decodeFrame(sample, flags: flags, frameRefcon: index)) != nil { accepted.append(index) }
        }
        try? session.waitForAsynchronousFrames()
        let moved = session.hardwareUnavailableReason != nil
        session.invalidate()
        others.wait()
        closed.withLock { $0 = true }
        let counts = answers.withLock { $0 }
        var problems: [String] = []
        for index in accepted where counts[index] != 1 {
            problems.append("frame \(index) answered \(counts[index] ?? 0) times")
        }
        for (refcon, count) in counts where !accepted.contains(refcon) && count > 0 {
            problems.append("frame \(refcon), not accepted, answered \(count) times")
        }
        if late.load(ordering: .relaxed) > 0 {
            problems.append("\(late.load(ordering: .relaxed)) answers after invalidate")
        }
        totals.state.withLock {
            $0.sessions += 1
            $0.submitted += accepted.count
            $0.answered += counts.values.reduce(0, +)
            $0.withErrors += errors.load(ordering: .relaxed)
            $0.finishes += finishes
            $0.invalidations += invalidateAt == nil ? 0 : 1
            $0.movedToCPU += moved && specification.hardwareAcceleration == .preferred ? 1 : 0
            $0.problems += problems
        }
    }

    /// The totals, shared by the workers.
    final class Tally: Sendable {
        let state = Mutex(Totals())
    }

    /// The process's open file descriptors.
    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// A number in `0..<bound` from a worker's generator.
    static func below(_ bound: Int, _ random: inout SeededGenerator) -> Int {
        Int.random(in: 0..<max(1, bound), using: &random)
    }
}

/// Samples the process's resident size every 100 ms on a thread of its own.
final class ResidentMemorySampler: Sendable {
    private let samples = Mutex<[Double]>([])
    private let running = Atomic<Bool>(true)
    private let done = DispatchSemaphore(value: 0)

    init() {
        DispatchQueue.global().async { [self] in
            while running.load(ordering: .relaxed) {
                let resident = Self.residentMiB()
                samples.withLock { $0.append(resident) }
                usleep(100_000)
            }
            done.signal()
        }
    }

    /// Stops sampling: the largest sample, the largest of the first fifth (the warm-up), the last.
    func stop() -> (peak: Double, afterWarmUp: Double, last: Double) {
        running.store(false, ordering: .relaxed)
        done.wait()
        let all = samples.withLock { $0 } + [Self.residentMiB()]
        let warmUp = all.prefix(max(1, all.count / 5))
        return (all.max() ?? 0, warmUp.max() ?? 0, all.last ?? 0)
    }

    /// Resident pages from `/proc/self/statm`, in MiB.
    static func residentMiB() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }
}
