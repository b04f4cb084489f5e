import Foundation
import Synchronization
import Testing

@testable import VAToolbox

/// The VA back end's pipeline and surfaces on the test VA driver: pictures wait for the GPU
/// without stalling decoding and still come out once each, in presentation order, with their own
/// status; and a picture kept after its session is gone holds its own surface only.
///
/// Nested in ``VATestDriverTests`` for its serialisation: the driver's variables and live-object
/// counters are process-wide.
extension VATestDriverTests {
    @Suite struct VAAPIBackendTests {
        typealias Sessions = HardwareSessions

        static let cabac = "h264-main-cabac.264"
        static let baseline = "h264-baseline-cavlc.264"
        static let bpyramid = "h264-high-bpyramid.264"

        /// A session on the test driver with `variables` set while its display opens.
        static func session(
            _ format: VideoFormatDescription, variables extra: [String: String], realTime: Bool = false,
            handler: @escaping DecompressionSession.OutputHandler
        ) throws -> DecompressionSession {
            try #require(TestVADriver.isBuilt)
            var variables: [String: String?] = [
                "LIBVA_DRIVERS_PATH": TestVADriver.buildDirectory.path, "LIBVA_DRIVER_NAME": TestVADriver.driverName,
                "VATB_REFERENCE_STREAM": extra["VATB_REFERENCE_STREAM"],
            ]
            for name in TestVADriver.faultVariables { variables[name] = extra[name] }
            let specification = DecoderSpecification(
                hardwareAcceleration: .required, renderNodePath: Sessions.node, threadCount: 1, realTime: realTime)
            return try TestVADriver.withEnvironment(variables) {
                try DecompressionSession(
                    formatDescription: format, decoderSpecification: specification, outputHandler: handler)
            }
        }

        // MARK: - Waiting for the GPU

        /// On a driver that reports macroblock errors at `vaSyncSurface` (iHD, and the test
        /// driver's own behaviour), with a GPU slow enough (5 ms a picture) that pictures wait
        /// for it in the back end: every frame still comes out exactly once, in presentation
        /// order (the CPU path's order), and exactly the five damaged pictures (the 3rd to 7th
        /// in decode order) say -12909 without an image, synchronous or asynchronous.
        @Test(arguments: [nil, "ihd"] as [String?], [[], [.enableAsynchronousDecompression]] as [DecodeFrameFlags])
        func waitingPicturesKeepTheirOrderAndTheirOwnStatus(personality: String?, flags: DecodeFrameFlags) throws {
            let samples = try TestData.samples(
                try Sessions.fixture(Self.cabac).name, frameDuration: Sessions.frameDuration)
            let outputs = Outputs()
            var variables = ["VATB_LATENCY_US": "5000", "VATB_CORRUPT_PICTURE": "3:5"]
            variables["VATB_PERSONALITY"] = personality
            let session = try Self.session(samples[0].formatDescription, variables: variables, handler: outputs.handler)
            for (index, sample) in samples.enumerated() {
                try session.decodeFrame(sample, flags: flags, frameRefcon: index)
            }
            try session.waitForAsynchronousFrames()
            session.invalidate()
            let results = outputs.all
            let software = try Sessions.softwareOutputs(samples)
            #expect(results.compactMap { $0.frameRefcon as? Int } == software.compactMap { $0.frameRefcon as? Int })
            #expect(results.compactMap { $0.frameRefcon as? Int }.sorted() == Array(samples.indices))
            let badData = results.filter { $0.status == .videoDecoderBadData }
            #expect(badData.compactMap { $0.frameRefcon as? Int }.sorted() == [2, 3, 4, 5, 6])
            #expect(badData.allSatisfy { $0.imageBuffer == nil })
            for output in results where output.status == nil {
                guard let refcon = output.frameRefcon as? Int, let image = output.imageBuffer else {
                    Issue.record("a clean frame without an image: \(String(describing: output.frameRefcon))")
                    continue
                }
                #expect(Sessions.stamp(image)?.hash == Sessions.sliceHash(samples[refcon]), "refcon \(refcon)")
            }
        }

        /// In real-time mode no picture waits for the GPU in the back end: on a stream without
        /// reordering, each frame is handed out before its synchronous `decodeFrame` returns,
        /// however slow the GPU (5 ms a picture).
        @Test(arguments: [nil, "ihd", "mesa"] as [String?])
        func realTimeHandsEachPictureOutBeforeDecodeFrameReturns(personality: String?) throws {
            let samples = Array(
                try TestData.samples(try Sessions.fixture(Self.baseline).name, frameDuration: Sessions.frameDuration)
                    .prefix(12))
            let outputs = Outputs()
            var variables = ["VATB_LATENCY_US": "5000"]
            variables["VATB_PERSONALITY"] = personality
            let session = try Self.session(
                samples[0].formatDescription, variables: variables, realTime: true, handler: outputs.handler)
            defer { session.invalidate() }
            #expect(session.decoderSpecification.realTime)
            for (index, sample) in samples.enumerated() {
                try session.decodeFrame(sample, frameRefcon: index)
                let out = outputs.all.compactMap { $0.frameRefcon as? Int }
                #expect(out == Array(0...index), "after sample \(index)")
            }
            #expect(outputs.all.allSatisfy { $0.status == nil && $0.imageBuffer != nil })
        }

        // MARK: - Surfaces

        /// One picture kept after `invalidate()` (and after the session is released) holds its own
        /// surface only: every other surface of the pool, the decoding context and its
        /// configuration are destroyed. The kept picture's pixels are still right (real pixels,
        /// `VATB_REFERENCE_STREAM`: its I420 MD5 is the `ffmpeg -f framemd5` oracle's), and when
        /// it goes, every VA object is gone.
        @Test(arguments: [nil, "ihd", "mesa"] as [String?])
        func aKeptPictureHoldsOnlyItsOwnSurfaceAfterInvalidate(personality: String?) throws {
            let fixture = try Sessions.fixture(Self.bpyramid)
            let samples = Array(try TestData.samples(fixture.name, frameDuration: Sessions.frameDuration).prefix(12))
            let oracle = try DecompressionSessionLifecycleTests.oracle(Self.bpyramid)
            let before = try TestVADriver.liveObjects()
            let objectsBefore = try Sessions.liveObjects()
            // The fourth picture in presentation order (a B-frame of the pyramid); the handler
            // lets every other picture go.
            let position = 3
            let keeper = Keeper(position: position)
            do {
                var variables = ["VATB_REFERENCE_STREAM": fixture.url.path]
                variables["VATB_PERSONALITY"] = personality
                let session = try Self.session(
                    samples[0].formatDescription, variables: variables, handler: keeper.handler)
                for (index, sample) in samples.enumerated() { try session.decodeFrame(sample, frameRefcon: index) }
                try session.finishDelayedFrames()
                #expect(
                    try TestVADriver.liveObjects().surfaces - before.surfaces > 4, "the pool is alive while decoding")
                session.invalidate()
            }
            #expect(keeper.imageCount == samples.count)
            do {
                let image = try #require(keeper.take())
                let live = try TestVADriver.liveObjects()
                #expect(live.surfaces == before.surfaces + 1, "only the kept picture's surface: \(live)")
                #expect(live.contexts == before.contexts && live.configs == before.configs, "\(live)")
                #expect(image.isGPUSurface)
                #expect(try i420MD5(image) == oracle[position].md5)
            }
            #expect(try Sessions.liveObjects() == objectsBefore)
        }

        /// Keeps the picture handed out at one position and counts the others, which it lets go.
        final class Keeper: Sendable {
            private let position: Int
            private let state = Mutex<(count: Int, image: PixelBuffer?)>((0, nil))

            init(position: Int) { self.position = position }

            var handler: DecompressionSession.OutputHandler {
                { output in
                    guard let image = output.imageBuffer else { return }
                    self.state.withLock { state in
                        if state.count == self.position { state.image = image }
                        state.count += 1
                    }
                }
            }

            var imageCount: Int { state.withLock { $0.count } }

            /// The kept picture, which the keeper no longer holds.
            func take() -> PixelBuffer? {
                state.withLock { state in
                    defer { state.image = nil }
                    return state.image
                }
            }
        }
    }
}
