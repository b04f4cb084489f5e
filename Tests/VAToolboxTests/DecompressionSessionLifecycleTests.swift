import Dispatch
import Foundation
import Synchronization
import Testing

@testable import VAToolbox

/// The documented semantics of ``DecompressionSession`` on real fixtures: one output per frame,
/// time stamps and refcons travelling with their frame, invalidation, do-not-output, damage,
/// format changes, draining mid-stream, parallel sessions, the decoder specification and zero copy.
///
/// Per-frame checksums of every fixture are `DecompressionSessionOracleTests`' job; here the
/// `ffmpeg -f framemd5` oracles only show that a behaviour did not cost a picture its bytes.
@Suite struct DecompressionSessionLifecycleTests {
    static let bpyramid = "h264-high-bpyramid.264"
    static let hevcMain = "hevc-main.265"
    static let frameDuration = MediaTime(value: 1, timescale: 25)

    // MARK: - One output per frame

    @Test(arguments: [bpyramid, hevcMain], [false, true])
    func oneOutputPerFrameWithItsOwnTimingAndRefcon(stream: String, asynchronous: Bool) throws {
        var options = ElementaryStreamParser.Options()
        options.frameDuration = Self.frameDuration
        var samples = try TestData.samples(stream, options: options)
        // Presentation times in decode order: each output must carry its own sample's, whatever
        // the reordering.
        for index in samples.indices {
            samples[index].timing.presentationTimeStamp = MediaTime(value: Int64(index), timescale: 25)
        }
        #expect(samples.allSatisfy { $0.decodeTimeStamp.isValid && $0.duration == Self.frameDuration })
        let oracle = try Self.oracle(stream)
        try #require(samples.count == oracle.count)

        let collector = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription, outputHandler: collector.handler)
        let flags: DecodeFrameFlags = asynchronous ? [.enableAsynchronousDecompression] : []
        for (index, sample) in samples.enumerated() {
            let info = try session.decodeFrame(sample, flags: flags, frameRefcon: index)
            #expect(info == (asynchronous ? .asynchronous : []))
        }
        if !asynchronous {
            // Synchronous calls hand out what is ready without waiting for finishDelayedFrames.
            let early = collector.all.count
            #expect(early > 0)
            #expect(early + session.framesInFlight == samples.count)
        }
        try session.finishDelayedFrames()
        try session.waitForAsynchronousFrames()
        #expect(session.framesInFlight == 0)
        session.invalidate()

        let outputs = collector.all
        #expect(outputs.count == samples.count)
        #expect(outputs.compactMap { $0.frameRefcon as? Int }.sorted() == Array(samples.indices))
        for output in outputs {
            guard let refcon = output.frameRefcon as? Int, samples.indices.contains(refcon) else {
                Issue.record("an output has refcon \(String(describing: output.frameRefcon))")
                continue
            }
            #expect(output.presentationTimeStamp == samples[refcon].presentationTimeStamp, "refcon \(refcon)")
            #expect(output.presentationDuration == samples[refcon].duration, "refcon \(refcon)")
            #expect(output.status == nil, "refcon \(refcon)")
            #expect(output.infoFlags.contains(.asynchronous) == asynchronous, "refcon \(refcon)")
            #expect(!output.infoFlags.contains(.frameDropped), "refcon \(refcon)")
        }
        #expect(outputs.map { $0.imageBuffer.map(planarMD5) } == oracle.map(\.md5))
        #expect(collector.overlappingCalls == 0)
    }

    // MARK: - The VideoToolbox example, by hand

    /// Annex B → parameter sets → format description → AVCC samples → asynchronous decode, as
    /// every VideoToolbox example does it, without the library's own parser.
    @Test(arguments: [bpyramid, hevcMain])
    func videoToolboxExampleProcedureByHand(stream: String) throws {
        let codec = Self.codec(stream)
        let units = AnnexB.split(try TestData.bytes(Self.url(stream)))
        let headerSize = codec == .hevc ? 2 : 1
        func type(_ unit: ArraySlice<UInt8>) -> UInt8 {
            codec == .hevc ? (unit[unit.startIndex] >> 1) & 0x3F : unit[unit.startIndex] & 0x1F
        }
        func isSlice(_ unit: ArraySlice<UInt8>) -> Bool {
            codec == .hevc ? type(unit) < 32 : [1, 5].contains(type(unit))
        }
        func isIDR(_ unit: ArraySlice<UInt8>) -> Bool {
            codec == .hevc ? [19, 20].contains(type(unit)) : type(unit) == 5
        }

        // VPS, SPS, PPS (HEVC) or SPS, PPS (H.264): the first of each type.
        let parameterSets: [[UInt8]] = try (codec == .hevc ? [32, 33, 34] : [7, 8]).map { (wanted: UInt8) in
            Array(try #require(units.first { type($0) == wanted }, "no NAL unit of type \(wanted)"))
        }
        let format =
            codec == .hevc
            ? try VideoFormatDescription(hevcParameterSets: parameterSets, nalUnitHeaderLength: 4)
            : try VideoFormatDescription(h264ParameterSets: parameterSets, nalUnitHeaderLength: 4)

        // A picture starts at a slice with first_mb_in_slice == 0 (H.264: ue(v) 0 is the single
        // bit 1) or first_slice_segment_in_pic_flag == 1 (HEVC): the first payload bit either way.
        var pictures: [[ArraySlice<UInt8>]] = []
        for unit in units where isSlice(unit) {
            if unit[unit.startIndex + headerSize] & 0x80 != 0 || pictures.isEmpty {
                pictures.append([unit])
            } else {
                pictures[pictures.count - 1].append(unit)
            }
        }
        let samples = try pictures.map { slices in
            var data: [UInt8] = []
            for slice in slices {
                let length = UInt32(slice.count)
                data += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) }
                data += slice
            }
            return try SampleBuffer(
                data: data, formatDescription: format, attachments: isIDR(slices[0]) ? [] : .notSync)
        }
        let oracle = try Self.oracle(stream)
        try #require(samples.count == oracle.count)
        #expect(samples.filter(\.isSync).count == 2)

        let outputs = try Self.outputs(samples, flags: [.enableAsynchronousDecompression, .enableTemporalProcessing])
        #expect(outputs.count == samples.count)
        #expect(outputs.allSatisfy { $0.status == nil })
        #expect(outputs.map { $0.imageBuffer.map(planarMD5) } == oracle.map(\.md5))
    }

    // MARK: - Invalidation

    @Test func invalidateWithFramesQueuedGivesEachFrameOneOutputAndNoneAfterwards() throws {
        let samples = try TestData.samples(Self.bpyramid)
        let oracle = try Self.oracle(Self.bpyramid)
        let collector = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription, outputHandler: collector.handler)
        session.maximumFramesInFlight = samples.count
        for (index, sample) in samples.enumerated() {
            try session.decodeFrame(sample, flags: [.enableAsynchronousDecompression], frameRefcon: index)
        }
        session.invalidate()
        collector.close()
        Thread.sleep(forTimeInterval: 0.05)  // time for a stray late call to happen

        let outputs = collector.all
        #expect(collector.lateCalls == 0)
        #expect(outputs.count == samples.count)
        #expect(outputs.compactMap { $0.frameRefcon as? Int }.sorted() == Array(samples.indices))
        #expect(outputs.allSatisfy { $0.infoFlags.contains(.asynchronous) })
        let decoded = outputs.filter { $0.imageBuffer != nil }
        let dropped = outputs.filter { $0.imageBuffer == nil }
        #expect(!dropped.isEmpty, "invalidate came after every frame was decoded: nothing was tested")
        for output in dropped {
            #expect(output.infoFlags.contains(.frameDropped))
            #expect(output.status == VTError.invalidSession)
        }
        // What did come out is a clean prefix of the stream in presentation order.
        #expect(decoded.allSatisfy { $0.status == nil && !$0.infoFlags.contains(.frameDropped) })
        #expect(decoded.map { $0.imageBuffer.map(planarMD5) } == oracle.prefix(decoded.count).map(\.md5))

        // Every method throws afterwards; a second invalidate does nothing.
        let decodeError = #expect(throws: VTError.self) {
            try session.decodeFrame(samples[0], frameRefcon: -1)
        }
        #expect(decodeError?.status == -12903)
        #expect(throws: VTError.invalidSession) { try session.waitForAsynchronousFrames() }
        #expect(throws: VTError.invalidSession) { try session.finishDelayedFrames() }
        #expect(!session.canAcceptFormatDescription(samples[0].formatDescription))
        session.invalidate()
        #expect(collector.all.count == samples.count)
        #expect(collector.lateCalls == 0)
    }

    @Test func invalidateAfterFinishingCallsNothing() throws {
        let samples = Array(try TestData.samples(Self.hevcMain).prefix(10))
        let collector = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription, outputHandler: collector.handler)
        for (index, sample) in samples.enumerated() { try session.decodeFrame(sample, frameRefcon: index) }
        try session.finishDelayedFrames()
        session.invalidate()
        collector.close()
        session.invalidate()
        #expect(collector.all.count == samples.count)
        #expect(collector.all.allSatisfy { $0.imageBuffer != nil && $0.status == nil })
        #expect(collector.lateCalls == 0)
    }

    @Test func releasingASessionWithPendingFramesDoesNotCrash() throws {
        let samples = try TestData.samples(Self.bpyramid)
        let collector = Outputs()
        weak var released: DecompressionSession?
        do {
            let session = try DecompressionSession(
                formatDescription: samples[0].formatDescription, outputHandler: collector.handler)
            session.maximumFramesInFlight = samples.count
            for (index, sample) in samples.enumerated() {
                try session.decodeFrame(sample, flags: [.enableAsynchronousDecompression], frameRefcon: index)
            }
            released = session
        }
        // deinit invalidates: every accepted frame still gets its one output.
        let deadline = Date().addingTimeInterval(10)
        while (released != nil || collector.all.count < samples.count) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(released == nil, "the session was never deallocated")
        #expect(collector.all.count == samples.count)
        #expect(collector.all.compactMap { $0.frameRefcon as? Int }.sorted() == Array(samples.indices))
    }

    /// The session's methods may be called from inside the output handler; `invalidate()` there
    /// hands out the remaining frames before it returns (so from inside that handler call).
    @Test func invalidateFromInsideTheOutputHandler() throws {
        let samples = try TestData.samples(Self.bpyramid)
        let sessionBox = Locked<DecompressionSession?>(nil)
        let invalidateReturned = Locked(false)
        let lateCalls = Locked(0)
        let collector = Outputs { output in
            if invalidateReturned.withLock({ $0 }) { lateCalls.withLock { $0 += 1 } }
            guard output.frameRefcon as? Int == 5 else { return }
            sessionBox.withLock { $0 }?.invalidate()
            invalidateReturned.withLock { $0 = true }
        }
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription, outputHandler: collector.handler)
        sessionBox.withLock { $0 = session }
        defer { sessionBox.withLock { $0 = nil } }  // the handler holds the box: break the cycle
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
        let deadline = Date().addingTimeInterval(10)
        while !invalidateReturned.withLock({ $0 }) && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: 0.05)  // time for a stray late call to happen

        #expect(invalidateReturned.withLock { $0 })
        #expect(lateCalls.withLock { $0 } == 0)
        let outputs = collector.all
        #expect(outputs.compactMap { $0.frameRefcon as? Int }.sorted() == Array(0..<accepted))
        for output in outputs where output.imageBuffer == nil {
            #expect(output.status == .invalidSession)
            #expect(output.infoFlags.contains(.frameDropped))
        }
        #expect(throws: VTError.invalidSession) { try session.waitForAsynchronousFrames() }
    }

    // MARK: - Do not output

    @Test(arguments: [bpyramid, hevcMain])
    func doNotOutputFramesComeBackDroppedAndStillServeAsReferences(stream: String) throws {
        let samples = try TestData.samples(stream)
        let oracle = try Self.oracle(stream)
        // Every third sample in decode order: the first IDR, reference P and B pictures among them.
        let hidden = Set(stride(from: 0, to: samples.count, by: 3))
        #expect(hidden.contains { !samples[$0].attachments.contains(.notDependedOnByOthers) })
        let collector = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription, outputHandler: collector.handler)
        for (index, sample) in samples.enumerated() {
            try session.decodeFrame(
                sample, flags: hidden.contains(index) ? [.doNotOutputFrame] : [], frameRefcon: index)
        }
        try session.finishDelayedFrames()
        session.invalidate()

        let outputs = collector.all
        try #require(outputs.count == samples.count)
        #expect(Set(outputs.filter { $0.imageBuffer == nil }.compactMap { $0.frameRefcon as? Int }) == hidden)
        for (position, output) in outputs.enumerated() {
            let refcon = output.frameRefcon as? Int ?? -1
            #expect(output.status == nil, "refcon \(refcon)")
            if hidden.contains(refcon) {
                #expect(output.infoFlags.contains(.frameDropped), "refcon \(refcon)")
            } else {
                #expect(!output.infoFlags.contains(.frameDropped), "refcon \(refcon)")
                #expect(output.imageBuffer.map(planarMD5) == oracle[position].md5, "display frame \(position)")
            }
        }
    }

    // MARK: - Damaged input

    /// Single-threaded and synchronous, as the fixture's oracle was made (concealment is
    /// deterministic then); and with frame threads, asynchronously, where which frames report
    /// damage varies from run to run but the count of outputs must not.
    @Test(arguments: [false, true])
    func bitFlippedStreamReportsDamagePerFrameAndGoesOn(frameThreads: Bool) throws {
        let samples = try TestData.samples("h264-bitflip.264")
        let clean = try Self.oracle(Self.bpyramid)
        try #require(samples.count == clean.count)
        let outputs = try Self.outputs(
            samples, flags: frameThreads ? [.enableAsynchronousDecompression] : [],
            specification: DecoderSpecification(threadCount: frameThreads ? 0 : 1))
        #expect(outputs.count == samples.count)
        #expect(outputs.compactMap { $0.frameRefcon as? Int }.sorted() == Array(samples.indices))
        // Display frame 0 comes before the first flipped byte.
        #expect(outputs.first?.status == nil)
        #expect(outputs.first?.imageBuffer.map(planarMD5) == clean[0].md5)
        let statuses = outputs.compactMap(\.status)
        if !frameThreads {
            #expect(!statuses.isEmpty, "four damaged slices and no frame reported damage")
        }
        for status in statuses {
            #expect(status == .videoDecoderBadData || status == .videoDecoderReferenceMissing, "\(status)")
        }
    }

    @Test func truncatedStreamGivesOneOutputPerSample() throws {
        let samples = try TestData.samples("h264-truncated.264")
        #expect(samples.count == 26)
        let outputs = try Self.outputs(samples, flags: [.enableAsynchronousDecompression])
        #expect(outputs.count == samples.count)
        #expect(outputs.compactMap { $0.frameRefcon as? Int }.sorted() == Array(samples.indices))
        let clean = try Self.oracle(Self.bpyramid)
        // Display frames 0–24 are whole; the last, cut in half, is the broken P after them.
        #expect(outputs.prefix(25).map { $0.imageBuffer.map(planarMD5) } == clean.prefix(25).map(\.md5))
    }

    // MARK: - Format changes

    /// The samples carry the second SPS/PPS in band, as the Annex B stream does.
    @Test func resolutionChangeGoesThroughOneSession() throws {
        try Self.checkResolutionChange(keepsParameterSetsInSamples: true)
    }

    /// Samples shaped like `avc1` ones: the parameter sets only in the format descriptions, so the
    /// session has to send the second description's sets to the decoder itself — all of them: PPS 0
    /// is byte-identical in both halves and must still be re-read against the new SPS.
    @Test func resolutionChangeFromTheFormatDescriptionAlone() throws {
        try Self.checkResolutionChange(keepsParameterSetsInSamples: false)
    }

    static func checkResolutionChange(keepsParameterSetsInSamples: Bool) throws {
        let stream = "h264-resolution-change.264"
        var options = ElementaryStreamParser.Options()
        options.keepsParameterSetsInSamples = keepsParameterSetsInSamples
        let samples = try TestData.samples(stream, options: options)
        let oracle = try Self.oracle(stream)
        try #require(samples.count == 48 && oracle.count == 48)
        let second = samples[24].formatDescription
        #expect(second != samples[0].formatDescription)
        #expect(second.dimensions == VideoDimensions(width: 176, height: 144))
        #expect(samples[24].nalUnits.contains { $0.isParameterSet } == keepsParameterSetsInSamples)

        let collector = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription, outputHandler: collector.handler)
        #expect(session.canAcceptFormatDescription(second))
        for (index, sample) in samples.enumerated() {
            try session.decodeFrame(sample, flags: [.enableAsynchronousDecompression], frameRefcon: index)
        }
        try session.finishDelayedFrames()
        try session.waitForAsynchronousFrames()
        #expect(session.formatDescription == second)
        session.invalidate()

        let outputs = collector.all
        try #require(outputs.count == 48)
        for (position, output) in outputs.enumerated() {
            let size = position < 24 ? (320, 240) : (176, 144)
            #expect(output.status == nil, "frame \(position)")
            #expect(output.imageBuffer?.width == size.0, "frame \(position)")
            #expect(output.imageBuffer?.height == size.1, "frame \(position)")
            #expect(output.imageBuffer?.rawVideoByteCount == oracle[position].size, "frame \(position)")
        }
        #expect(outputs.map { $0.imageBuffer.map(planarMD5) } == oracle.map(\.md5))
    }

    @Test func anotherCodecIsRefused() throws {
        let h264 = try TestData.samples(Self.bpyramid)
        let hevc = try TestData.samples(Self.hevcMain)
        let collector = Outputs()
        let session = try DecompressionSession(
            formatDescription: h264[0].formatDescription, outputHandler: collector.handler)
        #expect(!session.canAcceptFormatDescription(hevc[0].formatDescription))
        let error = #expect(throws: VTError.self) {
            try session.decodeFrame(hevc[0], flags: [.enableAsynchronousDecompression], frameRefcon: 0)
        }
        #expect(error == .formatDescriptionChangeNotSupported)
        #expect(error?.status == -12916)
        // A refused frame is not accepted: no output comes for it, and the session goes on.
        try session.decodeFrame(h264[0], frameRefcon: 1)
        try session.finishDelayedFrames()
        try session.waitForAsynchronousFrames()
        #expect(session.formatDescription == h264[0].formatDescription)
        session.invalidate()
        #expect(collector.all.compactMap { $0.frameRefcon as? Int } == [1])
    }

    // MARK: - Draining mid-stream

    /// Decoding goes on after `finishDelayedFrames()` with the decoder's references intact, as in
    /// VideoToolbox. (This test used to expect the three frames after the finish to be dropped
    /// as missing their references; Apple documents no such loss: the finish only "directs the
    /// decompression session to emit all delayed frames".)
    @Test(arguments: [bpyramid, hevcMain])
    func finishDelayedFramesThenContinuingKeepsTheReferences(stream: String) throws {
        let samples = try TestData.samples(stream)
        let oracle = try Self.oracle(stream)
        // Decode order, H.264: I0 P4 B2 b1 b3 … P20 B18 b17 b19 | P23 B21 B22 | I24 …; HEVC:
        // I0 P5 B3 B1 B2 B4 … P20 B18 B16 B17 B19 | P23 B22 B21 | I24 …. Either way the first 21
        // samples are display frames 0–20, and the next three need pictures decoded before the finish.
        let cut = 21
        let nextSync = 24
        try #require(samples.count == 48)
        #expect(samples.indices.filter { samples[$0].isSync } == [0, nextSync])

        let collector = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription, outputHandler: collector.handler)
        for index in 0..<cut { try session.decodeFrame(samples[index], frameRefcon: index) }
        try session.finishDelayedFrames()
        let drained = collector.all
        #expect(drained.count == cut)
        #expect(session.framesInFlight == 0)
        #expect(drained.map { $0.imageBuffer.map(planarMD5) } == oracle.prefix(cut).map(\.md5))

        for index in cut..<samples.count {
            try session.decodeFrame(samples[index], flags: [.enableAsynchronousDecompression], frameRefcon: index)
        }
        try session.finishDelayedFrames()
        try session.waitForAsynchronousFrames()
        session.invalidate()

        let rest = Array(collector.all.dropFirst(cut))
        #expect(rest.count == samples.count - cut)
        #expect(rest.allSatisfy { $0.status == nil && $0.imageBuffer != nil })
        #expect(rest.map { $0.imageBuffer.map(planarMD5) } == oracle[cut...].map(\.md5))
    }

    // MARK: - Parallel sessions

    @Test func sessionsDecodingInParallelMatchOneSessionAlone() throws {
        let streams = [Self.bpyramid, Self.hevcMain]
        let samples = try streams.map { try TestData.samples($0) }
        let alone = try samples.map { try Self.outputs($0).map { $0.imageBuffer.map(planarMD5) } }

        // Two sessions per stream, four at once.
        let jobs = [0, 0, 1, 1]
        let results = Locked<[Int: [String?]]>([:])
        DispatchQueue.concurrentPerform(iterations: jobs.count) { job in
            let md5s = (try? Self.outputs(samples[jobs[job]], flags: [.enableAsynchronousDecompression]))?.map {
                $0.imageBuffer.map(planarMD5)
            }
            results.withLock { $0[job] = md5s ?? [] }
        }
        let parallel = results.withLock { $0 }
        for (job, stream) in jobs.enumerated() {
            #expect(parallel[job] == alone[stream], "session \(job) of \(streams[stream])")
        }
        for (stream, name) in streams.enumerated() {
            #expect(alone[stream] == (try Self.oracle(name)).map(\.md5), "\(name) alone")
        }
    }

    // MARK: - Decoder specification and pixel formats

    @Test func requiredHardwareFailsWithAReason() throws {
        let format = try TestData.samples(Self.bpyramid)[0].formatDescription
        let error = #expect(throws: VTError.self) {
            _ = try DecompressionSession(
                formatDescription: format, decoderSpecification: DecoderSpecification(hardwareAcceleration: .required)
            ) { _ in }
        }
        #expect(error == .couldNotFindVideoDecoder)
        #expect(error?.status == -12906)
        #expect(error.map { !$0.reason.isEmpty } == true)
    }

    @Test func softwareSessionSaysWhyItDoesNotUseTheGPU() throws {
        let format = try TestData.samples(Self.bpyramid)[0].formatDescription
        let session = try DecompressionSession(formatDescription: format) { _ in }
        defer { session.invalidate() }
        #expect(!session.usingHardwareAcceleratedVideoDecoder)
        #expect(session.hardwareUnavailableReason.map { !$0.isEmpty } == true)
    }

    /// A lost reference picture: the frames that need it come back with an error status, and
    /// from the next sync sample on every frame is clean and equals the oracle.
    @Test func aLostReferenceDamagesFramesUntilTheNextSyncSample() throws {
        let samples = try TestData.samples(Self.bpyramid)
        let oracle = try Self.oracle(Self.bpyramid)
        let secondSync = try #require(samples.indices.dropFirst().first { samples[$0].isSync })
        // Drop the first P picture after the IDR (decode order 1): later pictures refer to it.
        let damaged = samples.enumerated().filter { $0.offset != 1 }.map(\.element)
        let collector = Outputs()
        _ = try Self.outputs(damaged, specification: DecoderSpecification(threadCount: 1), collector: collector)
        let outputs = collector.all
        #expect(outputs.count == damaged.count)
        let beforeSync = outputs.filter { ($0.frameRefcon as? Int).map { $0 < secondSync - 1 } ?? false }
        #expect(beforeSync.contains { $0.status != nil || $0.imageBuffer == nil }, "no frame reported the loss")
        // From the second IDR on (display order from there), the pictures are the clean ones.
        let tail = outputs.suffix(samples.count - secondSync).map { $0.imageBuffer.map(planarMD5) }
        #expect(tail == oracle.suffix(samples.count - secondSync).map(\.md5))
        #expect(outputs.suffix(samples.count - secondSync).allSatisfy { $0.status == nil })
    }

    /// HEVC: libavcodec replaces a missing reference with a generated picture and flags nothing;
    /// the session follows the reference picture sets and flags every frame from the first that
    /// uses the lost picture up to the next IRAP picture. The intact stream has no flag at all.
    @Test(arguments: [1, 2])
    func aLostHEVCReferenceDamagesFramesUntilTheNextIRAPPicture(dropped: Int) throws {
        let samples = try TestData.samples(Self.hevcMain)
        let oracle = try Self.oracle(Self.hevcMain)
        let secondSync = try #require(samples.indices.dropFirst().first { samples[$0].isSync })
        try #require(samples[dropped].nalUnits.contains { $0.isVCL && $0.isReference })

        let intact = try Self.outputs(samples, specification: DecoderSpecification(threadCount: 1))
        #expect(intact.allSatisfy { $0.status == nil })

        let damaged = samples.enumerated().filter { $0.offset != dropped }.map(\.element)
        let outputs = try Self.outputs(damaged, specification: DecoderSpecification(threadCount: 1))
        #expect(outputs.count == damaged.count)
        // In `damaged`, the samples after the dropped one up to the next IRAP are dropped ..< secondSync - 1.
        let flagged = outputs.filter { $0.status == .videoDecoderReferenceMissing }.compactMap {
            $0.frameRefcon as? Int
        }
        #expect(!flagged.isEmpty, "no frame reported the loss")
        #expect(flagged.allSatisfy { (dropped..<(secondSync - 1)).contains($0) }, "\(flagged.sorted())")
        let firstFlagged = flagged.min() ?? dropped
        #expect(Set(flagged) == Set(firstFlagged..<(secondSync - 1)), "\(flagged.sorted())")
        #expect(outputs.filter { $0.status != nil }.allSatisfy { $0.status == .videoDecoderReferenceMissing })
        // From the next IRAP picture on, the pictures are the clean ones.
        let tail = outputs.suffix(samples.count - secondSync)
        #expect(tail.map { $0.imageBuffer.map(planarMD5) } == oracle.suffix(samples.count - secondSync).map(\.md5))
        #expect(tail.allSatisfy { $0.status == nil })
    }

    /// An HEVC stream joined at a CRA picture (open GOP, as a broadcast is joined): the RASL
    /// pictures after it refer to pictures before the join, so libavcodec skips them. Each comes
    /// back dropped with -17694, every other frame clean and equal to the whole stream's picture.
    /// The stream is made here with the ffmpeg CLI's libx265 (no fixture has CRA/RASL pictures).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")))
    func anHEVCStreamJoinedAtACRAPictureSkipsItsRASLPictures() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("open-gop.265")
        let made = try CommandRunner.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=192x128:rate=25", "-frames:v", "36", "-c:v", "libx265", "-x265-params",
            "keyint=12:min-keyint=12:scenecut=0:open-gop=1:bframes=3:b-adapt=0:pools=1:frame-threads=1:info=0:"
                + "log-level=error:repeat-headers=1",
            "-f", "hevc", file.path,
        ])
        try #require(made.status == 0, "\(made.standardError)")
        let samples = ElementaryStreamParser.samples(in: try TestData.bytes(file), codec: .hevc)
        func type(_ sample: SampleBuffer) -> UInt8? { sample.nalUnits.first(where: \.isVCL)?.hevcType?.rawValue }
        let join = try #require(samples.indices.first { type(samples[$0]) == 21 }, "no CRA picture")
        let joined = Array(samples[join...])
        // The RASL pictures of the CRA picture decoding starts at (those of the next CRA picture
        // decode normally).
        let nextIRAP = joined.indices.dropFirst().first { joined[$0].isSync } ?? joined.count
        let rasl = Set((1..<nextIRAP).filter { [8, 9].contains(type(joined[$0])) })
        try #require(!rasl.isEmpty, "no RASL picture after the CRA picture")
        try #require(joined[nextIRAP...].contains { [8, 9].contains(type($0)) })

        let whole = try Self.outputs(samples, specification: DecoderSpecification(threadCount: 1))
        #expect(whole.allSatisfy { $0.status == nil })
        let wholePictures = Dictionary(
            uniqueKeysWithValues: whole.compactMap { output in
                (output.frameRefcon as? Int).map { ($0 - join, output.imageBuffer.map(planarMD5)) }
            })
        let outputs = try Self.outputs(joined, specification: DecoderSpecification(threadCount: 1))
        #expect(outputs.count == joined.count)
        for output in outputs {
            guard let refcon = output.frameRefcon as? Int else { continue }
            if rasl.contains(refcon) {
                #expect(output.status == .videoDecoderReferenceMissing, "refcon \(refcon)")
                #expect(output.infoFlags.contains(.frameDropped) && output.imageBuffer == nil)
            } else {
                #expect(output.status == nil, "refcon \(refcon)")
                #expect(output.imageBuffer.map(planarMD5) == wholePictures[refcon] ?? nil, "refcon \(refcon)")
            }
        }
    }

    @Test func nativeFormatRequestIsNoConversion() throws {
        // Asking for the CPU decoder's planar format is asking for its own pictures: zero copy,
        // no pool. Asking for the native format is no libswscale conversion either: no pool, and
        // only the chroma is copied (interleaved; the luma plane is the decoder's).
        let samples = try TestData.samples(Self.bpyramid)
        for (format, copiesChroma) in [(PixelFormat.yuv420Planar, false), (.nv12VideoRange, true)] {
            let collector = Outputs()
            let session = try DecompressionSession(
                formatDescription: samples[0].formatDescription,
                imageBufferAttributes: ImageBufferAttributes(pixelFormat: format), outputHandler: collector.handler)
            for sample in samples.prefix(4) { try session.decodeFrame(sample) }
            try session.finishDelayedFrames()
            #expect(session.pixelBufferPool == nil, "\(format)")
            let images = collector.all.compactMap(\.imageBuffer)
            #expect(!images.isEmpty)
            for image in images {
                let chroma = 2 * ((image.width + 1) / 2) * ((image.height + 1) / 2)
                #expect(image.pixelFormat == format)
                #expect(image.copiedByteCount == (copiesChroma ? chroma : 0), "\(image)")
            }
            session.invalidate()
        }
    }

    @Test(arguments: [
        (bpyramid, PixelFormat.nv12VideoRange), ("h264-main-cabac.264", .nv12FullRange),
        ("hevc-main10.265", .p010VideoRange),
    ])
    func nativePixelFormatIsWhatTheDecoderHandsOut(stream: String, expected: PixelFormat) throws {
        let samples = try TestData.samples(stream)
        let collector = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription,
            decoderSpecification: DecoderSpecification(threadCount: 1), outputHandler: collector.handler)
        #expect(session.nativePixelFormat == expected)
        try session.decodeFrame(samples[0], frameRefcon: 0)
        try session.finishDelayedFrames()
        session.invalidate()
        let image = try #require(collector.all.first?.imageBuffer)
        #expect(image.pixelFormat == expected)
        #expect(planarMD5(image) == (try Self.oracle(stream))[0].md5)
    }

    // MARK: - Zero copy

    /// Decoded pictures are handed out without a copy; writing to one must not reach the
    /// decoder's reference picture, so later frames predicted from it stay intact.
    @Test func outputsAreZeroCopyAndWritingOneLeavesLaterFramesIntact() throws {
        let stream = "h264-baseline-cavlc.264"  // 320x240 I P P …: every frame predicts from earlier ones
        let samples = try TestData.samples(stream)
        let oracle = try Self.oracle(stream)
        let record = Locked(ZeroCopyRecord())
        // The handler writes to display frame 0 before the frames that reference it are
        // decoded: one decoding thread, no reordering in Baseline.
        let collector = Outputs { output in
            guard let image = output.imageBuffer else { return }
            record.withLock { $0.copiedAtOutput.append(image.copiedByteCount) }
            guard output.frameRefcon as? Int == 0 else { return }
            let before = image.md5
            let shapes = try? image.withLockedPlanesForWriting { planes in
                for plane in planes {
                    for row in 0..<plane.height {
                        (plane.baseAddress + row * plane.bytesPerRow).initializeMemory(
                            as: UInt8.self, repeating: 0x10, count: plane.bytesPerRowOfPixels)
                    }
                }
                return planes.map { PlaneShape(width: $0.width, height: $0.height, bytesPerRow: $0.bytesPerRow) }
            }
            record.withLock {
                $0.md5BeforeWriting = before
                $0.md5AfterWriting = image.md5
                $0.shapes = shapes ?? []
            }
        }
        // The decoder's own planar pictures: the zero-copy hand-out this test is about.
        let outputs = try Self.outputs(
            samples, specification: DecoderSpecification(threadCount: 1),
            attributes: ImageBufferAttributes(pixelFormat: .yuv420Planar), collector: collector)
        let result = record.withLock { $0 }

        try #require(outputs.count == samples.count && samples.count == oracle.count)
        #expect(result.copiedAtOutput == Array(repeating: 0, count: samples.count))
        #expect(result.shapes.map { [$0.width, $0.height] } == [[320, 240], [160, 120], [160, 120]])
        #expect(result.shapes.allSatisfy { $0.bytesPerRow >= $0.width })
        #expect(result.md5BeforeWriting == oracle[0].md5)
        #expect(result.md5AfterWriting != oracle[0].md5, "the write did not reach the buffer")
        #expect(outputs.dropFirst().map { $0.imageBuffer.map(planarMD5) } == oracle.dropFirst().map(\.md5))
    }
}

// MARK: - Support

extension DecompressionSessionLifecycleTests {
    /// A value behind a lock that `@Sendable` closures can share.
    final class Locked<Value: Sendable>: Sendable {
        private let mutex: Mutex<Value>
        init(_ value: Value) { mutex = Mutex(value) }
        func withLock<Result>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
    }

    /// What the zero-copy test saw inside the output handler.
    struct ZeroCopyRecord: Sendable {
        var copiedAtOutput: [Int] = []
        var md5BeforeWriting: String?
        var md5AfterWriting: String?
        var shapes: [PlaneShape] = []
    }

    struct PlaneShape: Sendable {
        var width: Int
        var height: Int
        var bytesPerRow: Int
    }

    static func url(_ name: String) -> URL { TestData.fixtures.appendingPathComponent(name) }

    static func codec(_ name: String) -> VideoCodecType { name.hasSuffix(".265") ? .hevc : .h264 }

    /// The fixture's `.framemd5`: one entry per frame in output (presentation) order.
    static func oracle(_ name: String) throws -> [FrameMD5Oracle.Frame] {
        try FrameMD5Oracle(contentsOf: url(name + ".framemd5")).frames
    }

    /// Decodes samples through one session (refcon = sample index), drains, waits and
    /// invalidates; returns the outputs in the order they came.
    static func outputs(
        _ samples: [SampleBuffer], flags: DecodeFrameFlags = [],
        specification: DecoderSpecification = DecoderSpecification(), attributes: ImageBufferAttributes? = nil,
        collector: Outputs = Outputs()
    ) throws -> [DecompressionOutput] {
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription, decoderSpecification: specification,
            imageBufferAttributes: attributes, outputHandler: collector.handler)
        try decode(samples, with: session, flags: flags, then: .all)
        return collector.all
    }
}
