import Dispatch
import Foundation
import Synchronization
import Testing

@testable import VAToolbox

/// Hostile and careless use of the public API, on the CPU and on the test VA driver: each case
/// has the result Docs/Reliability.md documents — a status, a ``VTError``, never a crash, a hang
/// or a leak.
///
/// Nested in ``VATestDriverTests`` so that it inherits its serialisation: the driver's
/// environment and live-object counters are process-wide.
extension VATestDriverTests {
    @Suite(.timeLimit(.minutes(5))) struct MisuseTests {
        typealias Locked = DecompressionSessionLifecycleTests.Locked

        static let bpyramid = "h264-high-bpyramid.264"
        static let hevcMain = "hevc-main.265"

        /// Where a session decodes.
        enum DecodePath: String, CaseIterable, Sendable, CustomTestStringConvertible {
            /// libavcodec on the CPU.
            case cpu
            /// libavcodec's VA-API hwaccel on the test VA driver (`/dev/null` through the DRM shim).
            case testDriver

            var testDescription: String { rawValue }

            var specification: DecoderSpecification {
                switch self {
                case .cpu: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 1)
                case .testDriver:
                    DecoderSpecification(
                        hardwareAcceleration: .required, renderNodePath: "/dev/null", threadCount: 1)
                }
            }
        }

        // MARK: - Helpers

        /// The libva variables that load the test driver.
        static var driverVariables: [String: String?] {
            var variables: [String: String?] = [
                "LIBVA_DRIVERS_PATH": TestVADriver.buildDirectory.path, "LIBVA_DRIVER_NAME": TestVADriver.driverName,
            ]
            for name in TestVADriver.faultVariables { variables[name] = String?.none }
            return variables
        }

        static func session(
            _ format: VideoFormatDescription, on path: DecodePath, handler: @escaping DecompressionSession.OutputHandler
        ) throws -> DecompressionSession {
            if path == .testDriver { try #require(TestVADriver.isBuilt) }
            let session = try TestVADriver.withEnvironment(driverVariables) {
                try DecompressionSession(
                    formatDescription: format, decoderSpecification: path.specification, outputHandler: handler)
            }
            #expect(session.usingHardwareAcceleratedVideoDecoder == (path == .testDriver))
            return session
        }

        /// Open descriptors of this process.
        static func openDescriptors() -> Int {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
        }

        /// Resident set size in bytes (`/proc/self/statm`, second field, in pages).
        static func residentBytes() -> Int {
            guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
            let fields = text.split(separator: " ")
            guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
            return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        }

        /// Whether AddressSanitizer's runtime is in the process (`Scripts/sanitize address`).
        static let underAddressSanitizer = dlsym(nil, "__asan_init") != nil

        /// The test driver's live VA objects (configs, contexts, surfaces, buffers, images).
        static func vaObjects() throws -> [Int] {
            guard TestVADriver.isBuilt else { return [] }
            return try HardwareSessions.liveObjects()
        }

        /// Waits (up to 20 s, polling) until `condition` holds; for work that ends on another
        /// thread. The assertion that follows is on the state, never on the time taken.
        static func wait(until condition: () throws -> Bool) rethrows {
            let deadline = Date().addingTimeInterval(20)
            while try !condition() && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        }

        /// Statuses a frame of a stream whose samples arrive in a wrong order may carry.
        static let damageStatuses: [VTError] = [.videoDecoderBadData, .videoDecoderReferenceMissing]

        // MARK: - Calls after invalidate

        /// After `invalidate()`, every call throws `invalidSession` (-12903) and the handler is
        /// never called again; every frame accepted before got exactly one output.
        @Test(arguments: DecodePath.allCases)
        func decodeFrameAfterInvalidateThrowsInvalidSession(path: DecodePath) throws {
            let samples = Array(try TestData.samples(Self.bpyramid).prefix(8))
            let collector = Outputs()
            let session = try Self.session(samples[0].formatDescription, on: path, handler: collector.handler)
            for (index, sample) in samples.enumerated() { try session.decodeFrame(sample, frameRefcon: index) }
            session.invalidate()
            collector.close()
            for flags: DecodeFrameFlags in [[], [.enableAsynchronousDecompression]] {
                let error = #expect(throws: VTError.self) { try session.decodeFrame(samples[0], flags: flags) }
                #expect(error?.status == -12903)
            }
            #expect(throws: VTError.invalidSession) { try session.waitForAsynchronousFrames() }
            #expect(throws: VTError.invalidSession) { try session.finishDelayedFrames() }
            session.invalidate()
            #expect(collector.lateCalls == 0)
            #expect(collector.all.compactMap { $0.frameRefcon as? Int }.sorted() == Array(samples.indices))
        }

        // MARK: - Re-entrant calls

        /// `waitForAsynchronousFrames()` inside the handler returns at once (the handler runs
        /// on the session's queue); `invalidate()` there hands out what is left before it
        /// returns, and nothing is handed out afterwards.
        @Test(arguments: DecodePath.allCases)
        func waitAndInvalidateFromInsideTheOutputHandler(path: DecodePath) throws {
            let samples = try TestData.samples(Self.bpyramid)
            let box = Locked<DecompressionSession?>(nil)
            let invalidated = Locked(false)
            let lateCalls = Locked(0)
            let waitErrors = Locked<[VTError]>([])
            let collector = Outputs { output in
                if invalidated.withLock({ $0 }) { lateCalls.withLock { $0 += 1 } }
                guard output.frameRefcon as? Int == 4, let session = box.withLock({ $0 }) else { return }
                do throws(VTError) {
                    try session.waitForAsynchronousFrames()
                } catch {
                    waitErrors.withLock { $0.append(error) }
                }
                session.invalidate()
                invalidated.withLock { $0 = true }
            }
            let session = try Self.session(samples[0].formatDescription, on: path, handler: collector.handler)
            box.withLock { $0 = session }
            defer { box.withLock { $0 = nil } }
            session.maximumFramesInFlight = samples.count
            var accepted = 0
            for (index, sample) in samples.enumerated() {
                do {
                    try session.decodeFrame(sample, flags: [.enableAsynchronousDecompression], frameRefcon: index)
                    accepted += 1
                } catch {
                    #expect(error == .invalidSession, "frame \(index)")
                }
            }
            Self.wait { invalidated.withLock { $0 } }
            #expect(invalidated.withLock { $0 })
            #expect(waitErrors.withLock { $0 }.isEmpty)
            #expect(lateCalls.withLock { $0 } == 0)
            let outputs = collector.all
            #expect(outputs.compactMap { $0.frameRefcon as? Int }.sorted() == Array(0..<accepted))
            for output in outputs where output.imageBuffer == nil {
                #expect(output.status == .invalidSession)
                #expect(output.infoFlags.contains(.frameDropped))
            }
            #expect(throws: VTError.invalidSession) { try session.waitForAsynchronousFrames() }
        }

        /// `finishDelayedFrames()` inside the handler while asynchronous frames wait: the drain
        /// reports as missing only frames the decoder was given. Frames accepted and not yet
        /// given are decoded afterwards: a clean picture from the next sync sample on, and
        /// `referenceMissing` (-17694) with `frameDropped` before it — never `badData` (-12909).
        @Test(arguments: DecodePath.allCases)
        func anEarlyDrainInsideTheHandlerReportsOnlyFramesGivenToTheDecoder(path: DecodePath) throws {
            let samples = try TestData.samples(Self.bpyramid)
            let box = Locked<DecompressionSession?>(nil)
            let drained = Locked(false)
            let collector = Outputs { _ in
                guard !drained.withLock({ $0 }), let session = box.withLock({ $0 }) else { return }
                drained.withLock { $0 = true }
                try? session.finishDelayedFrames()
            }
            let session = try Self.session(samples[0].formatDescription, on: path, handler: collector.handler)
            box.withLock { $0 = session }
            defer { box.withLock { $0 = nil } }
            session.maximumFramesInFlight = samples.count
            for (index, sample) in samples.enumerated() {
                try session.decodeFrame(sample, flags: [.enableAsynchronousDecompression], frameRefcon: index)
            }
            try session.waitForAsynchronousFrames()
            try session.finishDelayedFrames()
            session.invalidate()
            let outputs = collector.all
            #expect(drained.withLock { $0 })
            #expect(outputs.compactMap { $0.frameRefcon as? Int }.sorted() == Array(samples.indices))
            #expect(!outputs.contains { $0.status == .videoDecoderBadData })
            for output in outputs where output.status != nil {
                #expect(output.status == .videoDecoderReferenceMissing)
                #expect(output.infoFlags.contains(.frameDropped))
            }
            // The second IDR picture restarts decoding: the stream's end decodes cleanly.
            #expect(outputs.contains { $0.status == nil && ($0.frameRefcon as? Int ?? 0) > 30 })
        }

        // MARK: - Threads

        /// Eight threads decode the same stream into one session, half of them asynchronously.
        /// The session serialises them: the decoder sees the samples in the order the calls took
        /// the session's lock (an interleaving of eight streams, so damage is expected), every
        /// accepted frame gets exactly one output with its refcon, handler calls never overlap,
        /// and nothing crashes.
        @Test(arguments: DecodePath.allCases)
        func eightThreadsDecodingIntoOneSession(path: DecodePath) throws {
            let samples = Array(try TestData.samples(Self.bpyramid).prefix(24))
            let collector = Outputs()
            let session = try Self.session(samples[0].formatDescription, on: path, handler: collector.handler)
            let thrown = Locked<[VTError]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                let flags: DecodeFrameFlags = thread.isMultiple(of: 2) ? [.enableAsynchronousDecompression] : []
                for (index, sample) in samples.enumerated() {
                    do throws(VTError) {
                        try session.decodeFrame(sample, flags: flags, frameRefcon: thread * 1000 + index)
                    } catch {
                        thrown.withLock { $0.append(error) }
                    }
                }
            }
            try session.waitForAsynchronousFrames()
            try session.finishDelayedFrames()
            session.invalidate()
            collector.close()
            let expected = (0..<8).flatMap { thread in samples.indices.map { thread * 1000 + $0 } }
            let outputs = collector.all
            #expect(thrown.withLock { $0 }.isEmpty)
            #expect(outputs.compactMap { $0.frameRefcon as? Int }.sorted() == expected)
            #expect(collector.overlappingCalls == 0)
            #expect(collector.lateCalls == 0)
            for output in outputs {
                if let status = output.status {
                    #expect(Self.damageStatuses.contains(status), "\(status)")
                } else {
                    #expect(output.imageBuffer != nil)
                }
            }
        }

        // MARK: - Many sessions

        /// 200 sessions made, used for three frames and destroyed, one after another: open
        /// descriptors, the driver's VA objects and the resident size come back to where they
        /// were after a warm-up of 10. Other suites run in parallel, so descriptors and memory
        /// get a margin (a leak of one descriptor or one decoder per session exceeds it); the
        /// VA objects are exact. Under AddressSanitizer, freed memory waits in its quarantine
        /// (`quarantine_size_mb`, 256 MB by default) before it is reused, so the resident size may
        /// grow by that much more without a leak (CI's ASan job saw 64 MiB on the CPU path).
        @Test(arguments: DecodePath.allCases)
        func twoHundredSessionsMadeAndDestroyed(path: DecodePath) throws {
            let samples = Array(try TestData.samples(Self.bpyramid).prefix(3))
            func cycle() throws {
                let collector = Outputs()
                let session = try Self.session(samples[0].formatDescription, on: path, handler: collector.handler)
                for sample in samples { try session.decodeFrame(sample) }
                try session.finishDelayedFrames()
                session.invalidate()
                #expect(collector.all.count == samples.count)
                #expect(collector.all.allSatisfy { $0.status == nil && $0.imageBuffer != nil })
            }
            for _ in 0..<10 { try cycle() }
            let descriptors = Self.openDescriptors()
            let objects = try Self.vaObjects()
            let resident = Self.residentBytes()
            for _ in 0..<200 { try cycle() }
            let grownDescriptors = Self.openDescriptors() - descriptors
            let grownResident = Self.residentBytes() - resident
            #expect(try Self.vaObjects() == objects)
            #expect(grownDescriptors < 50, "\(grownDescriptors) more descriptors after 200 sessions")
            let margin = (48 << 20) + (Self.underAddressSanitizer ? 256 << 20 : 0)
            #expect(grownResident < margin, "resident size grew by \(grownResident >> 20) MiB over 200 sessions")
        }

        // MARK: - Malformed samples

        /// A length prefix that runs past the end of the sample is refused when the sample is
        /// made, with `sampleBufferInvalidSampleData` (-12742); no session ever sees it, and a
        /// session goes on decoding the samples that follow.
        @Test(arguments: DecodePath.allCases)
        func aLengthPrefixPastTheEndOfTheSample(path: DecodePath) throws {
            let samples = Array(try TestData.samples(Self.bpyramid).prefix(6))
            let format = samples[0].formatDescription
            var damaged = samples[1].data
            let length = UInt32(damaged.count)  // the first unit claims the whole sample and more
            damaged.replaceSubrange(0..<4, with: withUnsafeBytes(of: length.bigEndian, Array.init))
            let error = #expect(throws: VTError.self) { try SampleBuffer(data: damaged, formatDescription: format) }
            #expect(error?.status == -12742)
            // The last unit's prefix too long by one byte.
            let units = samples[1].nalUnits.map { Array($0.bytes) }
            var tail = try AVCC.join(units, lengthSize: 4)
            tail.removeLast()
            #expect(throws: VTError.sampleBufferInvalidSampleData) {
                try SampleBuffer(data: tail, formatDescription: format)
            }

            let collector = Outputs()
            let session = try Self.session(format, on: path, handler: collector.handler)
            for (index, sample) in samples.enumerated() { try session.decodeFrame(sample, frameRefcon: index) }
            try session.finishDelayedFrames()
            session.invalidate()
            #expect(collector.all.count == samples.count)
            #expect(collector.all.allSatisfy { $0.status == nil })
        }

        /// An HEVC sample, with its own HEVC description, in an H.264 session: `decodeFrame`
        /// throws `formatDescriptionChangeNotSupported` (-12916), no output comes for it, and the
        /// session goes on with its own stream.
        @Test(arguments: DecodePath.allCases)
        func anHEVCSampleInAnH264Session(path: DecodePath) throws {
            let h264 = Array(try TestData.samples(Self.bpyramid).prefix(4))
            let hevc = try TestData.samples(Self.hevcMain)
            let collector = Outputs()
            let session = try Self.session(h264[0].formatDescription, on: path, handler: collector.handler)
            try session.decodeFrame(h264[0], frameRefcon: 0)
            let error = #expect(throws: VTError.self) { try session.decodeFrame(hevc[0], frameRefcon: -1) }
            #expect(error?.status == -12916)
            for index in 1..<h264.count { try session.decodeFrame(h264[index], frameRefcon: index) }
            try session.finishDelayedFrames()
            session.invalidate()
            #expect(collector.all.compactMap { $0.frameRefcon as? Int }.sorted() == Array(h264.indices))
            #expect(collector.all.allSatisfy { $0.status == nil })
        }

        /// HEVC bytes labelled with the H.264 session's own description: the bytes are NAL
        /// units, so the sample is made, and the decoder finds no H.264 picture in them. Each such
        /// frame gets one output with an error status and no picture; the H.264 samples around
        /// them decode.
        @Test(arguments: DecodePath.allCases)
        func hevcBytesUnderAnH264Description(path: DecodePath) throws {
            let h264 = Array(try TestData.samples(Self.bpyramid).prefix(3))
            let hevc = Array(try TestData.samples(Self.hevcMain).prefix(3))
            let format = h264[0].formatDescription
            let disguised = hevc.compactMap { try? SampleBuffer(data: $0.data, formatDescription: format) }
            let collector = Outputs()
            let session = try Self.session(format, on: path, handler: collector.handler)
            try session.decodeFrame(h264[0], frameRefcon: 0)
            for (index, sample) in disguised.enumerated() { try session.decodeFrame(sample, frameRefcon: 100 + index) }
            try session.finishDelayedFrames()
            session.invalidate()
            let outputs = collector.all
            let refcons = outputs.compactMap { $0.frameRefcon as? Int }.sorted()
            #expect(refcons == [0] + disguised.indices.map { 100 + $0 })
            for output in outputs where (output.frameRefcon as? Int ?? 0) >= 100 {
                #expect(output.status != nil, "refcon \(String(describing: output.frameRefcon))")
                #expect(output.imageBuffer == nil)
            }
            #expect(outputs.first { $0.frameRefcon as? Int == 0 }?.status == nil)
        }

        // MARK: - Lifetimes

        /// Pictures kept after their session is invalidated and released stay valid: locking
        /// reads the same bytes as inside the output handler, and the right picture (the
        /// oracle's MD5 on the CPU, the driver's stamp of its own sample on the GPU); releasing
        /// them frees every VA object.
        @Test(arguments: DecodePath.allCases)
        func aPixelBufferLockedAfterItsSessionIsGone(path: DecodePath) throws {
            let samples = Array(try TestData.samples(Self.bpyramid).prefix(6))
            let objects = try Self.vaObjects()
            var kept: [(refcon: Int, image: PixelBuffer)] = []
            let seenInHandler = Locked<[Int: String]>([:])
            weak var released: DecompressionSession?
            do {
                let collector = Outputs { output in
                    guard let refcon = output.frameRefcon as? Int, let image = output.imageBuffer else { return }
                    seenInHandler.withLock { $0[refcon] = image.md5 }
                }
                let session = try Self.session(samples[0].formatDescription, on: path, handler: collector.handler)
                for (index, sample) in samples.enumerated() { try session.decodeFrame(sample, frameRefcon: index) }
                try session.finishDelayedFrames()
                session.invalidate()
                released = session
                kept = collector.all.compactMap { output in
                    guard let refcon = output.frameRefcon as? Int, let image = output.imageBuffer else { return nil }
                    return (refcon, image)
                }
            }
            #expect(released == nil)
            #expect(kept.count == samples.count)
            // The first four pictures in presentation order are the stream's first four.
            let oracle = try DecompressionSessionLifecycleTests.oracle(Self.bpyramid)
            for (position, (refcon, image)) in kept.enumerated() {
                #expect(image.md5 == seenInHandler.withLock { $0[refcon] }, "refcon \(refcon)")
                switch path {
                case .cpu:
                    if position < 4 { #expect(planarMD5(image) == oracle[position].md5, "refcon \(refcon)") }
                case .testDriver:
                    let stamp = HardwareSessions.stamp(image)
                    #expect(stamp?.magic == "VATB", "refcon \(refcon)")
                    #expect(stamp?.hash == HardwareSessions.sliceHash(samples[refcon]), "refcon \(refcon)")
                }
            }
            kept.removeAll()
            #expect(try Self.vaObjects() == objects)
        }

        /// A ``DecodedFrameSequence`` whose consuming task is cancelled mid-stream ends without
        /// an error, stops reading samples, and its session is released with every VA object.
        @Test(arguments: DecodePath.allCases)
        func aDecodedFrameSequenceCancelledMidStream(path: DecodePath) async throws {
            if path == .testDriver { try #require(TestVADriver.isBuilt) }
            let samples = try TestData.samples(Self.hevcMain)
            let objects = try Self.vaObjects()
            let taken = DecodedFrameSequenceTests.Counter()
            let seen = DecodedFrameSequenceTests.Counter()
            let saved = Self.driverVariables.keys.map { ($0, getenv($0).map { String(cString: $0) }) }
            for (key, value) in Self.driverVariables {
                if let value { setenv(key, value, 1) } else { unsetenv(key) }
            }
            defer {
                for (key, value) in saved {
                    if let value { setenv(key, value, 1) } else { unsetenv(key) }
                }
            }
            let consumer = Task {
                for try await frame in DecompressionSession.frames(
                    decoding: DecodedFrameSequenceTests.counted(samples, taken: taken),
                    formatDescription: samples[0].formatDescription, decoderSpecification: path.specification,
                    framesAhead: 2)
                {
                    #expect(frame.status == nil)
                    if seen.increment() == 3 { withUnsafeCurrentTask { $0?.cancel() } }
                }
            }
            try await consumer.value
            #expect(seen.count >= 3)
            #expect(seen.count < samples.count)
            #expect(taken.count < samples.count)
            if path == .testDriver {
                for _ in 0..<2000 where try Self.vaObjects() != objects { try await Task.sleep(for: .milliseconds(10)) }
                #expect(try Self.vaObjects() == objects)
            }
        }
    }
}
