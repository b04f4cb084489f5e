import Foundation
import Synchronization
import Testing

@testable import VAToolbox

/// The lifecycle of ``DecompressionSession`` held against the wording of Apple's VideoToolbox
/// documentation, quoted in each test, with the pictures compared against ffmpeg's oracles
/// (fixtures' `.framemd5`, conformance vectors' whole-output MD5).
@Suite struct DecompressionSessionDocumentedLifecycleTests {
    typealias Lifecycle = DecompressionSessionLifecycleTests

    static let bpyramid = Lifecycle.bpyramid
    static let hevcMain = Lifecycle.hevcMain

    // MARK: - Waiting

    /// `VTDecompressionSessionWaitForAsynchronousFrames`: "Waits for any and all outstanding
    /// asynchronous and delayed frames to complete, then returns. This function automatically
    /// calls VTDecompressionSessionFinishDelayedFrames, so clients don't have to call both."
    ///
    /// The seeds' teardown is exactly that: decode, wait, invalidate. No picture may be lost.
    @Test(arguments: [bpyramid, hevcMain], [false, true])
    func waitEmitsTheDelayedFramesSoThatWaitThenInvalidateLosesNone(stream: String, asynchronous: Bool) throws {
        let samples = try TestData.samples(stream)
        let oracle = try Lifecycle.oracle(stream)
        try #require(samples.count == oracle.count)
        let collector = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription, outputHandler: collector.handler)
        let flags: DecodeFrameFlags = asynchronous ? [.enableAsynchronousDecompression] : []
        for (index, sample) in samples.enumerated() {
            try session.decodeFrame(sample, flags: flags, frameRefcon: index)
        }
        if !asynchronous {
            // Frames held for reordering: what the wait must hand out.
            #expect(session.framesInFlight > 0, "no frame was delayed: nothing is tested")
        }
        try session.waitForAsynchronousFrames()
        #expect(session.framesInFlight == 0)
        let atWait = collector.all.count
        session.invalidate()

        let outputs = collector.all
        #expect(atWait == samples.count, "every frame was out when the wait returned")
        #expect(outputs.count == samples.count)
        #expect(outputs.allSatisfy { $0.status == nil && !$0.infoFlags.contains(.frameDropped) })
        #expect(outputs.map { $0.imageBuffer.map(planarMD5) } == oracle.map(\.md5))
    }

    /// The same on a conformance vector with a deep reorder buffer (HPCV_BRCM_A held 16 pictures
    /// back at the end): decode, wait, invalidate, and the whole output's MD5 is the suite's.
    @Test(.needsConformance)
    func waitThenInvalidateReproducesAConformanceVectorsMD5() throws {
        let vector = try #require(DecompressionSessionOracleTests.vectors.first { $0.stream.name == "HPCV_BRCM_A" })
        let samples = ElementaryStreamParser.samples(in: try vector.stream.bytes(), codec: .h264)
        let first = try #require(samples.first)
        let collector = Outputs()
        // The suite's MD5 is of the planar output.
        let session = try DecompressionSession(
            formatDescription: first.formatDescription, decoderSpecification: DecoderSpecification(threadCount: 2),
            imageBufferAttributes: ImageBufferAttributes(
                pixelFormat: DecompressionSession.planarPixelFormat(for: first.formatDescription)),
            outputHandler: collector.handler)
        for (index, sample) in samples.enumerated() {
            try session.decodeFrame(sample, flags: [.enableAsynchronousDecompression], frameRefcon: index)
        }
        try session.waitForAsynchronousFrames()
        session.invalidate()

        let outputs = collector.all
        #expect(outputs.count == samples.count)
        #expect(outputs.allSatisfy { $0.status == nil })
        var digest = MD5()
        for image in outputs.compactMap(\.imageBuffer) { image.appendSamples(to: &digest) }
        #expect(digest.finish() == vector.md5)
    }

    // MARK: - Finishing delayed frames

    /// Decodes `samples` (refcon = index) with a `finishDelayedFrames()` after every
    /// `finishEvery`-th sample, then waits and invalidates; returns the picture of each refcon.
    static func decodeFinishing(
        _ samples: [SampleBuffer], every finishEvery: Int, asynchronous: Bool, threads: Int = 0,
        session make: (Outputs) throws -> DecompressionSession
    ) throws -> [DecompressionOutput] {
        let collector = Outputs()
        let session = try make(collector)
        let flags: DecodeFrameFlags = asynchronous ? [.enableAsynchronousDecompression] : []
        try decode(
            samples, with: session, flags: flags, finishingAfter: { ($0 + 1) % finishEvery == 0 },
            then: [.wait, .invalidate])
        return collector.all
    }

    /// Each refcon's position in presentation order, from an uninterrupted decode whose pictures
    /// equal the oracle's.
    static func presentationPositions(
        _ samples: [SampleBuffer], oracle: [String]?, session make: (Outputs) throws -> DecompressionSession
    ) throws -> [Int: Int] {
        let outputs = try decodeFinishing(samples, every: Int.max, asynchronous: false, session: make)
        if let oracle { #expect(outputs.map { $0.imageBuffer.map(planarMD5) } == oracle) }
        var positions: [Int: Int] = [:]
        for (position, output) in outputs.enumerated() {
            if let refcon = output.frameRefcon as? Int { positions[refcon] = position }
        }
        return positions
    }

    /// `VTDecompressionSessionFinishDelayedFrames`: "Directs the decompression session to emit all
    /// delayed frames." Nothing in Apple's documentation lets it cost the decoder its references:
    /// decoding simply goes on. A finish after every fifth sample, mid-GOP, with B-frame
    /// reordering: every frame still comes out, clean, with ffmpeg's picture.
    @Test(arguments: [bpyramid, hevcMain], [false, true])
    func finishMidStreamEmitsTheDelayedFramesAndDecodingGoesOn(stream: String, asynchronous: Bool) throws {
        let samples = try TestData.samples(stream)
        let oracle = try Lifecycle.oracle(stream).map(\.md5)
        let make = { (collector: Outputs) in
            try DecompressionSession(
                formatDescription: samples[0].formatDescription,
                decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled),
                outputHandler: collector.handler)
        }
        let positions = try Self.presentationPositions(samples, oracle: oracle, session: make)
        let outputs = try Self.decodeFinishing(samples, every: 5, asynchronous: asynchronous, session: make)
        #expect(outputs.count == samples.count)
        #expect(outputs.allSatisfy { $0.status == nil && $0.imageBuffer != nil })
        for output in outputs {
            let refcon = try #require(output.frameRefcon as? Int)
            let position = try #require(positions[refcon])
            #expect(output.imageBuffer.map(planarMD5) == oracle[position], "\(stream) refcon \(refcon)")
        }
        // Each finish emitted the frames it was asked to: after it, every frame accepted before it is out.
        #expect(Set(outputs.compactMap { $0.frameRefcon as? Int }) == Set(samples.indices))
    }

    /// The same on a conformance vector (1920x1080 High, deep reordering): a finish every seventh
    /// sample, and each picture equals the one decoded without finishing, whose whole output has the
    /// suite's MD5.
    @Test(.needsConformance)
    func finishMidStreamOnAConformanceVectorKeepsEveryPicture() throws {
        let vector = try #require(DecompressionSessionOracleTests.vectors.first { $0.stream.name == "HPCV_BRCM_A" })
        let samples = ElementaryStreamParser.samples(in: try vector.stream.bytes(), codec: .h264)
        let make = { (collector: Outputs) in
            try DecompressionSession(
                formatDescription: samples[0].formatDescription,
                decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 2),
                // The suite's MD5 is of the planar output.
                imageBufferAttributes: ImageBufferAttributes(
                    pixelFormat: DecompressionSession.planarPixelFormat(for: samples[0].formatDescription)),
                outputHandler: collector.handler)
        }
        let whole = try Self.decodeFinishing(samples, every: Int.max, asynchronous: false, session: make)
        var digest = MD5()
        for image in whole.compactMap(\.imageBuffer) { image.appendSamples(to: &digest) }
        #expect(digest.finish() == vector.md5)
        var expected: [Int: String] = [:]
        for output in whole {
            if let refcon = output.frameRefcon as? Int { expected[refcon] = output.imageBuffer.map(planarMD5) }
        }

        let finished = try Self.decodeFinishing(samples, every: 7, asynchronous: true, session: make)
        #expect(finished.count == samples.count)
        #expect(finished.allSatisfy { $0.status == nil && $0.imageBuffer != nil })
        for output in finished {
            let refcon = try #require(output.frameRefcon as? Int)
            #expect(output.imageBuffer.map(planarMD5) == expected[refcon], "refcon \(refcon)")
        }
    }

    /// The samples kept for a finish are bounded: past the limit they are let go until the next
    /// sync sample, and a finish until then restarts decoding there (the old behaviour).
    @Test func theReplayBufferIsBounded() {
        var buffer = ReplayBuffer(limit: 100)
        buffer.record(Array(repeating: 0, count: 40), token: 0, access: .none)
        #expect(!buffer.isComplete && buffer.samples.isEmpty, "nothing before the first sync sample")
        buffer.record(Array(repeating: 1, count: 40), token: 1, access: .closed)
        buffer.record(Array(repeating: 2, count: 40), token: 2, access: .none)
        #expect(buffer.isComplete && buffer.byteCount == 80 && buffer.samples.count == 2)
        buffer.record(Array(repeating: 3, count: 40), token: 3, access: .none)
        #expect(!buffer.isComplete && buffer.byteCount == 0 && buffer.samples.isEmpty, "over the limit")
        buffer.record(Array(repeating: 4, count: 40), token: 4, access: .none)
        #expect(!buffer.isComplete && buffer.samples.isEmpty)
        buffer.record(Array(repeating: 5, count: 40), token: 5, access: .closed)
        #expect(buffer.isComplete && buffer.samples == [Array(repeating: 5, count: 40)])
    }

    // MARK: - Low delay

    /// Streams without reordering, each with its `ffmpeg -f framemd5` oracle.
    static let streamsWithoutReordering = ["h264-baseline-cavlc.264", "vp8.ivf", "vp9-profile0.ivf", "av1.ivf"]

    static func samplesAndOracle(_ name: String) throws -> ([SampleBuffer], [FrameMD5Oracle.Frame]) {
        let oracle = try Lifecycle.oracle(name)
        if name.hasSuffix(".264") { return (try TestData.samples(name), oracle) }
        let file = try #require(CodecFile.fixtures.first { $0.name == name })
        return (try TestData.samples(file.url.path), oracle)
    }

    /// `kVTDecodeFrame_EnableAsynchronousDecompression`: "With this bit cleared, the video
    /// decoder emits every frame before it returns." `kVTDecompressionPropertyKey_RealTime`: the
    /// session "is being used for realtime playback". In real-time mode a synchronous
    /// `decodeFrame` on a stream without reordering hands out its own picture before it returns;
    /// with frame threads (the default, for throughput) the first pictures come calls later.
    @Test(arguments: streamsWithoutReordering)
    func realTimeSynchronousDecodeEmitsEachFrameBeforeReturning(stream: String) throws {
        let (samples, oracle) = try Self.samplesAndOracle(stream)
        try #require(samples.count == oracle.count)
        #expect(samples[0].formatDescription.stream.maxNumReorderFrames == 0)
        for realTime in [false, true] {
            let collector = Outputs()
            let session = try DecompressionSession(
                formatDescription: samples[0].formatDescription,
                decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 4),
                outputHandler: collector.handler)
            if realTime { try session.setProperty(.realTime, to: true) }
            var lateCalls = 0
            for (index, sample) in samples.enumerated() {
                try session.decodeFrame(sample, frameRefcon: index)
                let outputs = collector.all
                if outputs.count != index + 1 {
                    lateCalls += 1
                    continue
                }
                #expect(outputs.last?.frameRefcon as? Int == index, "\(stream) frame \(index)")
                #expect(outputs.last?.imageBuffer.map(planarMD5) == oracle[index].md5, "\(stream) frame \(index)")
            }
            try session.waitForAsynchronousFrames()
            session.invalidate()
            #expect(collector.all.map { $0.imageBuffer.map(planarMD5) } == oracle.map(\.md5), "\(stream)")
            if realTime {
                #expect(lateCalls == 0, "\(stream): \(lateCalls) calls returned before their picture")
            } else {
                #expect(lateCalls > 0, "\(stream): frame threads delayed nothing; the test shows nothing")
            }
        }
    }

    // MARK: - Properties

    static func cpuSession(
        _ stream: String, threads: Int = 0, attributes: ImageBufferAttributes? = nil, collector: Outputs
    ) throws -> (DecompressionSession, [SampleBuffer]) {
        let samples = try TestData.samples(stream)
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: threads),
            imageBufferAttributes: attributes, outputHandler: collector.handler)
        return (session, samples)
    }

    /// `VTSessionCopyProperty` returns "kVTPropertyNotSupportedErr for unrecognized or unsupported
    /// properties"; a property documented "Read-only" cannot be set (`kVTPropertyReadOnlyErr`);
    /// `VTSessionSetProperty`: "Setting a property value to NULL restores the default value."
    @Test func everyDocumentedKeyAnswersByItsAccess() throws {
        let (session, _) = try Self.cpuSession(Self.bpyramid, collector: Outputs())
        defer { session.invalidate() }
        var counts: [DecompressionPropertyKey.Access: Int] = [:]
        for key in DecompressionPropertyKey.allDocumented {
            counts[key.access, default: 0] += 1
            switch key.access {
            case .notSupported:
                #expect(throws: VTError.propertyNotSupported, "\(key)") { _ = try session.property(key) }
                #expect(throws: VTError.propertyNotSupported, "\(key)") { try session.setProperty(key, to: true) }
            case .readOnly:
                #expect(throws: Never.self, "\(key)") { _ = try session.property(key) }
                let error = #expect(throws: VTError.self, "\(key)") { try session.setProperty(key, to: nil) }
                #expect(error?.status == -12901, "\(key)")
            case .readWrite:
                let before = try session.property(key)
                try session.setProperty(key, to: nil)  // the default
                #expect(try session.property(key) != nil, "\(key)")
                _ = before
            }
        }
        #expect(counts == [.readWrite: 7, .readOnly: 7, .notSupported: 16])
        let unknown = #expect(throws: VTError.self) {
            _ = try session.property(DecompressionPropertyKey(rawValue: "unsupported"))
        }
        #expect(unknown?.status == -12900)
        #expect(DecompressionPropertyKey.realTime.rawValue == "RealTime")
        #expect(
            DecompressionPropertyKey.usingHardwareAcceleratedVideoDecoder.rawValue
                == "UsingHardwareAcceleratedVideoDecoder")
    }

    /// `kVTDecompressionPropertyKey_UsingHardwareAcceleratedVideoDecoder`: "You can query this
    /// property using VTSessionCopyProperty after you have enabled hardware accelerated decode
    /// […] to see if a hardware accelerated decoder was selected." `kVTDecompressionPropertyKey_RealTime`:
    /// "Setting the property to NULL is equivalent to setting it to kCFBooleanTrue."
    @Test func valuesReadBackAsAppleDescribesThem() throws {
        let (session, _) = try Self.cpuSession(Self.bpyramid, threads: 2, collector: Outputs())
        defer { session.invalidate() }
        #expect(try session.property(.usingHardwareAcceleratedVideoDecoder) as? Bool == false)
        #expect(try session.property(.usingGPURegistryID) == nil)
        #expect(try session.property(.pixelBufferPoolIsShared) as? Bool == false)
        #expect(try session.property(.realTime) as? Bool == false)
        try session.setProperty(.realTime, to: nil)
        #expect(try session.property(.realTime) as? Bool == true)
        #expect(session.realTime)
        try session.setProperty(.realTime, to: false)
        #expect(!session.realTime)
        #expect(try session.property(.maximizePowerEfficiency) as? Bool == false)
        #expect(try session.property(.threadCount) as? Int == 2)
        #expect(try session.property(.fieldMode) as? String == FieldMode.bothFields)
        try session.setProperty(.fieldMode, to: FieldMode.topFieldOnly)
        #expect(try session.property(.fieldMode) as? String == FieldMode.topFieldOnly)
        try session.setProperty(.fieldMode, to: nil)
        #expect(try session.property(.fieldMode) as? String == FieldMode.bothFields, "nil restores the default")
        #expect(throws: VTError.parameter) { try session.setProperty(.fieldMode, to: "AllFields") }
        #expect(try session.property(.deinterlaceMode) as? String == DeinterlaceMode.verticalFilter)
        try session.setProperty(.deinterlaceMode, to: DeinterlaceMode.temporal)
        #expect(try session.property(.deinterlaceMode) as? String == DeinterlaceMode.temporal)
        #expect(throws: VTError.parameter) { try session.setProperty(.deinterlaceMode, to: "Adaptive") }
        // Values of the wrong type, or out of range, are parameter errors.
        #expect(throws: VTError.parameter) { try session.setProperty(.realTime, to: 1) }
        #expect(throws: VTError.parameter) { try session.setProperty(.threadCount, to: "four") }
        #expect(throws: VTError.parameter) { try session.setProperty(.threadCount, to: -1) }
        session.invalidate()
        #expect(throws: VTError.invalidSession) { _ = try session.property(.threadCount) }
        #expect(throws: VTError.invalidSession) { try session.setProperty(.threadCount, to: 1) }
    }

    /// `kVTDecompressionPropertyKey_ThreadCount`: "Gets number of threads used by codec or
    /// suggests number of threads to use." Set on a live session: at once before the first
    /// frame, and from the next finish later; the pictures stay ffmpeg's throughout.
    @Test func threadCountChangesOnALiveSession() throws {
        let collector = Outputs()
        let (session, samples) = try Self.cpuSession(Self.bpyramid, collector: collector)
        let oracle = try Lifecycle.oracle(Self.bpyramid)
        let secondSync = try #require(samples.indices.dropFirst().first { samples[$0].isSync })
        try session.setProperty(.threadCount, to: 1)
        #expect(try session.property(.threadCount) as? Int == 1)
        for index in 0..<secondSync { try session.decodeFrame(samples[index], frameRefcon: index) }
        session.threadCount = 3
        #expect(session.threadCount == 3)
        #expect(try session.property(.threadCount) as? Int == 1, "the decoder holds pictures: its threads stay")
        try session.waitForAsynchronousFrames()
        #expect(try session.property(.threadCount) as? Int == 3)
        for index in secondSync..<samples.count { try session.decodeFrame(samples[index], frameRefcon: index) }
        try session.waitForAsynchronousFrames()
        session.invalidate()
        let outputs = collector.all
        #expect(outputs.allSatisfy { $0.status == nil })
        #expect(outputs.map { $0.imageBuffer.map(planarMD5) } == oracle.map(\.md5))
    }

    /// `kVTDecompressionPropertyKey_NumberOfFramesBeingDecoded`: "Returns the number of frames
    /// currently being decoded"; the minimum and maximum output presentation time stamps "of the
    /// frames currently being decoded".
    @Test func asynchronousStateIsTheFramesNotYetOutput() throws {
        let collector = Outputs()
        // The MP4 copy of the B-pyramid fixture: its samples carry their presentation time stamps.
        let samples = try MediaFileReader(path: Lifecycle.url("h264-high-bpyramid.mp4").path).readAllSamples()
        try #require(samples.count > 10 && samples.allSatisfy { $0.presentationTimeStamp.isValid })
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 1),
            outputHandler: collector.handler)
        defer { session.invalidate() }
        #expect(try session.property(.numberOfFramesBeingDecoded) as? Int == 0)
        #expect(try session.property(.minOutputPresentationTimeStampOfFramesBeingDecoded) as? MediaTime == .invalid)
        for (index, sample) in samples.prefix(10).enumerated() { try session.decodeFrame(sample, frameRefcon: index) }
        let out = collector.all
        let beingDecoded = try #require(try session.property(.numberOfFramesBeingDecoded) as? Int)
        #expect(beingDecoded > 0 && beingDecoded == 10 - out.count)
        let minimum = try #require(
            try session.property(.minOutputPresentationTimeStampOfFramesBeingDecoded) as? MediaTime)
        let maximum = try #require(
            try session.property(.maxOutputPresentationTimeStampOfFramesBeingDecoded) as? MediaTime)
        let waiting = samples.prefix(10).filter { sample in
            !out.contains { $0.presentationTimeStamp == sample.presentationTimeStamp }
        }.map(\.presentationTimeStamp)
        #expect(minimum == waiting.min() && maximum == waiting.max())
        // Presentation order: every frame still being decoded comes after those already out.
        #expect(out.allSatisfy { $0.presentationTimeStamp < minimum })
    }

    /// `kVTDecompressionPropertyKey_OutputPoolRequestedMinimumBufferCount`: "Setting this property
    /// while a VTDecompressionSession is in use will result in the creation of a new
    /// CVPixelBufferPool."
    @Test func aNewMinimumBufferCountMakesANewPool() throws {
        // A conversion (the native NV12 would need none, and has no pool).
        let attributes = ImageBufferAttributes(pixelFormat: .bgra)
        let collector = Outputs()
        let (session, samples) = try Self.cpuSession(Self.bpyramid, attributes: attributes, collector: collector)
        for index in 0..<12 { try session.decodeFrame(samples[index], frameRefcon: index) }
        let first = try #require(try session.property(.pixelBufferPool) as? PixelBufferPool)
        #expect(session.outputPoolRequestedMinimumBufferCount == 0)
        try session.setProperty(.outputPoolRequestedMinimumBufferCount, to: 6)
        #expect(try session.property(.outputPoolRequestedMinimumBufferCount) as? Int == 6)
        for index in 12..<samples.count { try session.decodeFrame(samples[index], frameRefcon: index) }
        try session.waitForAsynchronousFrames()
        let second = try #require(session.pixelBufferPool)
        session.invalidate()
        #expect(first !== second)
        #expect(second.minimumBufferCount == 6 && first.minimumBufferCount == 0)
        // The conversion is the same either side of the change.
        let unchanged = Outputs()
        let (reference, _) = try Self.cpuSession(Self.bpyramid, attributes: attributes, collector: unchanged)
        for (index, sample) in samples.enumerated() { try reference.decodeFrame(sample, frameRefcon: index) }
        try reference.waitForAsynchronousFrames()
        reference.invalidate()
        #expect(
            collector.all.map { $0.imageBuffer.map(planarMD5) }
                == unchanged.all.map { $0.imageBuffer.map(planarMD5) })
        #expect(collector.all.allSatisfy { $0.imageBuffer?.pixelFormat == .bgra })
    }

    /// The destination image buffer attributes may change until the first frame, and no later.
    @Test func imageBufferAttributesChangeOnlyBeforeTheFirstFrame() throws {
        let collector = Outputs()
        let (session, samples) = try Self.cpuSession(Self.bpyramid, collector: collector)
        #expect(session.imageBufferAttributes == nil)
        try session.setImageBufferAttributes(ImageBufferAttributes(pixelFormat: .nv12VideoRange))
        #expect(throws: VTError.parameter) {
            try session.setImageBufferAttributes(ImageBufferAttributes(width: 0))
        }
        try session.decodeFrame(samples[0], frameRefcon: 0)
        let late = #expect(throws: VTError.self) { try session.setImageBufferAttributes(nil) }
        #expect(late?.status == -12901)
        try session.waitForAsynchronousFrames()
        session.invalidate()
        let image = try #require(collector.all.first?.imageBuffer)
        #expect(image.pixelFormat == .nv12VideoRange)
        #expect(image.copiedByteCount > 0)
    }
}

// MARK: - On the GPU (the test VA driver)

extension VATestDriverTests {
    /// `finishDelayedFrames()` keeps the references on the GPU path too: libavcodec's VA-API
    /// hwaccel is drained and given the samples since the last sync sample again.
    @Suite struct HardwareFinish {
        typealias Hardware = VATestDriverTests.HardwareSessions

        @Test(.enabled(if: TestVADriver.isBuilt), arguments: ["h264-high-bpyramid.264", "hevc-main.265"])
        func finishMidStreamOnTheGPUKeepsEveryPicture(stream: String) throws {
            let samples = try TestData.samples(
                try Hardware.fixture(stream).name, frameDuration: Hardware.frameDuration)
            let make = { (collector: Outputs) in
                try Self.session(samples[0].formatDescription, handler: collector.handler)
            }
            let whole = try DecompressionSessionDocumentedLifecycleTests.decodeFinishing(
                samples, every: Int.max, asynchronous: false, session: make)
            #expect(whole.count == samples.count)
            #expect(whole.allSatisfy { $0.status == nil && $0.imageBuffer != nil })
            // The driver's stamp, without its decode index (which counts the replayed pictures too).
            func identity(_ output: DecompressionOutput) -> DriverStamp? {
                guard let image = output.imageBuffer, var stamp = Hardware.stamp(image) else { return nil }
                stamp.decodeIndex = 0
                return stamp
            }
            var expected: [Int: DriverStamp] = [:]
            for output in whole {
                if let refcon = output.frameRefcon as? Int { expected[refcon] = identity(output) }
            }
            #expect(expected.count == samples.count)
            for (refcon, stamp) in expected {
                #expect(stamp.hash == Hardware.sliceHash(samples[refcon]), "each picture is its own sample's")
            }

            let finished = try DecompressionSessionDocumentedLifecycleTests.decodeFinishing(
                samples, every: 5, asynchronous: true, session: make)
            #expect(finished.count == samples.count)
            #expect(finished.allSatisfy { $0.status == nil && $0.imageBuffer != nil })
            for output in finished {
                let refcon = try #require(output.frameRefcon as? Int)
                #expect(identity(output) == expected[refcon], "\(stream) refcon \(refcon)")
            }
        }

        /// How a test sets `RealTime`.
        enum RealTimeSetting: CaseIterable {
            /// `DecoderSpecification(realTime: true)`.
            case atCreation
            /// `setProperty(.realTime, to: true)` on the live session, before the first frame.
            case asAProperty
            /// Not set: the GPU decodes from one libavcodec thread, without frame threads.
            case unset
        }

        /// `kVTDecodeFrame_EnableAsynchronousDecompression`: "With this bit cleared, the video
        /// decoder emits every frame before it returns." `kVTDecompressionPropertyKey_RealTime`:
        /// the session "is being used for realtime playback". On the GPU path too, a synchronous
        /// `decodeFrame` on a stream without reordering hands out its own picture, ffmpeg's (the
        /// driver's reference mode), before it returns: in real-time mode, and also without it,
        /// since the GPU path never runs frame threads.
        @Test(
            .enabled(if: TestVADriver.isBuilt),
            arguments: ["h264-baseline-cavlc.264", "vp8.ivf", "vp9-profile0.ivf"], RealTimeSetting.allCases)
        func realTimeSynchronousDecodeOnTheGPUEmitsEachFrameBeforeReturning(
            stream: String, setting: RealTimeSetting
        ) throws {
            let (samples, oracle) = try DecompressionSessionDocumentedLifecycleTests.samplesAndOracle(stream)
            try #require(samples.count == oracle.count)
            #expect(samples[0].formatDescription.stream.maxNumReorderFrames == 0)
            let collector = Outputs()
            let make = VATestDriverTests.OpenGOPFinish.session(
                samples[0].formatDescription, reference: DecompressionSessionLifecycleTests.url(stream),
                realTime: setting == .atCreation)
            let session = try make(collector)
            if setting == .asAProperty { try session.setProperty(.realTime, to: true) }
            #expect(session.realTime == (setting != .unset))
            #expect(session.usingHardwareAcceleratedVideoDecoder)
            var lateCalls = 0
            for (index, sample) in samples.enumerated() {
                try session.decodeFrame(sample, frameRefcon: index)
                let outputs = collector.all
                guard outputs.count == index + 1, let image = outputs.last?.imageBuffer else {
                    lateCalls += 1
                    continue
                }
                #expect(outputs.last?.frameRefcon as? Int == index, "\(stream) frame \(index)")
                #expect(try i420MD5(image) == oracle[index].md5, "\(stream) frame \(index)")
            }
            #expect(lateCalls == 0, "\(stream): \(lateCalls) calls returned before their picture")
            #expect(session.usingHardwareAcceleratedVideoDecoder, "\(stream): still on the GPU")
            try session.waitForAsynchronousFrames()
            session.invalidate()
            let outputs = collector.all
            #expect(outputs.count == samples.count)
            #expect(outputs.allSatisfy { $0.status == nil })
        }

        /// A GPU session on the test driver, with its libva variables set while the display opens.
        static func session(
            _ format: VideoFormatDescription, handler: @escaping DecompressionSession.OutputHandler
        ) throws -> DecompressionSession {
            var variables: [String: String?] = [
                "LIBVA_DRIVERS_PATH": TestVADriver.buildDirectory.path, "LIBVA_DRIVER_NAME": TestVADriver.driverName,
            ]
            for name in TestVADriver.faultVariables { variables[name] = nil }
            return try TestVADriver.withEnvironment(variables) {
                try DecompressionSession(
                    formatDescription: format,
                    decoderSpecification: DecoderSpecification(
                        hardwareAcceleration: .required, renderNodePath: Hardware.node, threadCount: 1),
                    outputHandler: handler)
            }
        }
    }
}
