import Foundation
import Synchronization
import Testing

@testable import VAToolbox

/// The lifecycle of ``DecompressionSession`` held against the wording of Apple's VideoToolbox
/// documentation, quoted in each test, with the pictures compared against ffmpeg's oracles
/// (fixtures' `.framemd5`, conformance vectors' whole-output MD5).
@Suite struct DecompressionSessionDocumentedLifecycleTests {
    typealias Lifecycle = DecompressionSessionLifecycleTests
    typealias OutputCollector = DecompressionSessionLifecycleTests.OutputCollector

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
        let samples = try Lifecycle.samples(stream)
        let oracle = try Lifecycle.oracle(stream)
        try #require(samples.count == oracle.count)
        let collector = OutputCollector()
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
        let atWait = collector.outputs.count
        session.invalidate()

        let outputs = collector.outputs
        #expect(atWait == samples.count, "every frame was out when the wait returned")
        #expect(outputs.count == samples.count)
        #expect(outputs.allSatisfy { $0.status == nil && !$0.infoFlags.contains(.frameDropped) })
        #expect(outputs.map { $0.imageBuffer?.md5 } == oracle.map(\.md5))
    }

    /// The same on a conformance vector with a deep reorder buffer (HPCV_BRCM_A held 16 pictures
    /// back at the end): decode, wait, invalidate, and the whole output's MD5 is the suite's.
    @Test(.enabled(if: TestData.hasConformance))
    func waitThenInvalidateReproducesAConformanceVectorsMD5() throws {
        let vector = try #require(DecompressionSessionOracleTests.vectors.first { $0.stream.name == "HPCV_BRCM_A" })
        let samples = ElementaryStreamParser.samples(in: try vector.stream.bytes(), codec: .h264)
        let first = try #require(samples.first)
        let collector = OutputCollector()
        let session = try DecompressionSession(
            formatDescription: first.formatDescription, decoderSpecification: DecoderSpecification(threadCount: 2),
            outputHandler: collector.handler)
        for (index, sample) in samples.enumerated() {
            try session.decodeFrame(sample, flags: [.enableAsynchronousDecompression], frameRefcon: index)
        }
        try session.waitForAsynchronousFrames()
        session.invalidate()

        let outputs = collector.outputs
        #expect(outputs.count == samples.count)
        #expect(outputs.allSatisfy { $0.status == nil })
        var digest = MD5()
        for image in outputs.compactMap(\.imageBuffer) { image.appendSamples(to: &digest) }
        #expect(digest.finish() == vector.md5)
    }
}
