import Foundation
import Synchronization
import Testing

@testable import VAToolbox

/// The session honours the sample attachments a VideoToolbox decoder acts on
/// (`kCMSampleAttachmentKey_DoNotDisplay`, `…_ResetDecoderBeforeDecoding`,
/// `…_DrainAfterDecoding`), and `MediaFileReader` turns an MP4 edit list into `doNotDisplay`
/// samples — through the public API, against ffmpeg's output.
@Suite struct SampleAttachmentTests {
    /// The B-pyramid fixture: reordered output, two sync samples.
    static let fixture = "h264-high-bpyramid.264"

    /// Decodes synchronously (refcon = index), calling `afterEach` with the outputs so far after
    /// each `decodeFrame` returns; finishes and invalidates.
    static func outputs(
        _ samples: [SampleBuffer], afterEach: (Int, [DecompressionOutput]) -> Void = { _, _ in }
    ) throws -> [DecompressionOutput] {
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 1),
            outputHandler: outputs.handler)
        try decode(samples, with: session, afterEach: { afterEach($0, outputs.all) })
        return outputs.all
    }

    /// Each refcon's picture MD5.
    static func pictures(_ outputs: [DecompressionOutput]) -> [Int: String] {
        var pictures: [Int: String] = [:]
        for output in outputs {
            if let refcon = output.frameRefcon as? Int, let image = output.imageBuffer {
                pictures[refcon] = planarMD5(image)
            }
        }
        return pictures
    }

    /// "DoNotDisplay: the sample should be decoded but not displayed" — the frame comes out
    /// dropped, without an image and without an error, and the frames that refer to it are intact.
    @Test func doNotDisplayDecodesTheFrameButOutputsNoImage() throws {
        let samples = try TestData.samples(
            Self.fixture, frameDuration: MediaTime(value: 1, timescale: 25), minimumCount: 21)
        let baseline = Self.pictures(try Self.outputs(samples))
        #expect(baseline.count == samples.count)
        var flagged = samples
        let hidden: Set<Int> = [0, 1, 4, 9]  // the IDR picture and references among them
        for index in hidden { flagged[index].attachments.insert(.doNotDisplay) }
        let outputs = try Self.outputs(flagged)
        #expect(outputs.count == samples.count, "one output per frame")
        for output in outputs {
            let refcon = try #require(output.frameRefcon as? Int)
            #expect(output.status == nil, "refcon \(refcon)")
            if hidden.contains(refcon) {
                #expect(output.imageBuffer == nil && output.infoFlags.contains(.frameDropped), "refcon \(refcon)")
            } else {
                #expect(
                    output.imageBuffer.map(planarMD5) == baseline[refcon],
                    "refcon \(refcon) decodes as without the flag")
            }
        }
    }

    /// "DrainAfterDecoding: the decoder should emit all frames after decoding this sample" — by
    /// the time the call returns, every frame so far is out; decoding goes on from the next sync
    /// sample with the same pictures.
    @Test func drainAfterDecodingEmitsEveryFrameBeforeTheCallReturns() throws {
        let samples = try TestData.samples(
            Self.fixture, frameDuration: MediaTime(value: 1, timescale: 25), minimumCount: 21)
        let baseline = Self.pictures(try Self.outputs(samples))
        let secondSync = try #require(samples.indices.dropFirst().first { samples[$0].isSync })
        var flagged = samples
        flagged[secondSync - 1].attachments.insert(.drainAfterDecoding)
        var outCountAtDrain: Int?
        let outputs = try Self.outputs(flagged) { index, soFar in
            if index == secondSync - 1 { outCountAtDrain = soFar.count }
        }
        #expect(outCountAtDrain == secondSync, "every frame up to the drained one is out when its call returns")
        #expect(outputs.allSatisfy { $0.status == nil })
        #expect(Self.pictures(outputs) == baseline)
    }

    /// "ResetDecoderBeforeDecoding: the decoder should be reset before decoding this sample" —
    /// the frames before it come out first, then it decodes from a clean state.
    @Test func resetBeforeDecodingFlushesTheEarlierFramesFirst() throws {
        let samples = try TestData.samples(
            Self.fixture, frameDuration: MediaTime(value: 1, timescale: 25), minimumCount: 21)
        let baseline = Self.pictures(try Self.outputs(samples))
        let secondSync = try #require(samples.indices.dropFirst().first { samples[$0].isSync })
        var flagged = samples
        flagged[secondSync].attachments.insert(.resetDecoderBeforeDecoding)
        var outBeforeReset: [DecompressionOutput] = []
        let outputs = try Self.outputs(flagged) { index, soFar in
            if index == secondSync { outBeforeReset = soFar }
        }
        let earlier = Set(outBeforeReset.compactMap { $0.frameRefcon as? Int })
        #expect(earlier.isSuperset(of: Set(0..<secondSync)), "every earlier frame is out by the reset")
        #expect(outputs.allSatisfy { $0.status == nil })
        #expect(Self.pictures(outputs) == baseline)
        // A reset in the middle of a GOP: the decoder keeps nothing, so the non-sync sample and the
        // frames after it up to the next sync sample miss their references.
        var midGOP = samples
        midGOP[3].attachments.insert(.resetDecoderBeforeDecoding)
        let damaged = try Self.outputs(midGOP)
        #expect(damaged.count == samples.count)
        let missing = damaged.filter { $0.status == .videoDecoderReferenceMissing }.compactMap {
            $0.frameRefcon as? Int
        }
        #expect(missing.contains(3) && missing.allSatisfy { $0 >= 3 && $0 < secondSync })
    }

    /// A finish called from inside the output handler, with asynchronous frames still queued:
    /// the queued frames are decoded afterwards, not reported missing.
    @Test func aDrainInsideTheHandlerLeavesQueuedFramesAlone() throws {
        let samples = try TestData.samples(
            Self.fixture, frameDuration: MediaTime(value: 1, timescale: 25), minimumCount: 21)
        let baseline = Self.pictures(try Self.outputs(samples))
        let outputs = Outputs()
        let drained = Atomic<Bool>(false)
        let box = Mutex<DecompressionSession?>(nil)
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 1)
        ) { output in
            outputs.handler(output)
            if !drained.exchange(true, ordering: .relaxed) { try? box.withLock { $0 }?.finishDelayedFrames() }
        }
        box.withLock { $0 = session }
        let secondSync = try #require(samples.indices.dropFirst().first { samples[$0].isSync })
        for (index, sample) in samples.enumerated() {
            try session.decodeFrame(sample, flags: [.enableAsynchronousDecompression], frameRefcon: index)
        }
        try session.finishDelayedFrames()
        try session.waitForAsynchronousFrames()
        session.invalidate()
        box.withLock { $0 = nil }
        let all = outputs.all
        #expect(all.count == samples.count)
        // No frame is "bad data": the ones the early drain cut off miss a reference, up to the next sync sample.
        #expect(!all.contains { $0.status == .videoDecoderBadData }, "\(all.compactMap(\.status))")
        for output in all where output.status == nil {
            let refcon = try #require(output.frameRefcon as? Int)
            #expect(output.imageBuffer.map(planarMD5) == baseline[refcon])
        }
        #expect(all.filter { ($0.frameRefcon as? Int ?? 0) >= secondSync }.allSatisfy { $0.status == nil })
    }

    /// An MP4 whose edit list starts after its first key frame (made with `ffmpeg -ss … -c copy`):
    /// the samples before the edit are `doNotDisplay`, and the pictures shown are ffmpeg's.
    @Test func anEditListHidesTheSamplesBeforeIt() throws {
        let fixture = TestData.fixtures.appendingPathComponent("h264-high-bpyramid.mp4")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vatoolbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cut = directory.appendingPathComponent("cut.mp4")
        let result = try CommandRunner.ffmpeg(["-ss", "0.3", "-i", fixture.path, "-c", "copy", cut.path])
        try #require(result.status == 0, "\(result.standardError)")
        let samples = try MediaFileReader(path: cut.path).readAllSamples()
        let hidden = samples.filter { $0.attachments.contains(.doNotDisplay) }.count
        #expect(hidden > 0, "the edit list hides samples")
        let expected = try CommandRunner.ffmpeg(["-i", cut.path, "-fps_mode", "passthrough", "-f", "framemd5", "-"])
            .text
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        let outputs = try Self.outputs(samples)
        #expect(outputs.count == samples.count)
        #expect(outputs.allSatisfy { $0.status == nil })
        #expect(outputs.compactMap(\.imageBuffer).count == samples.count - hidden)
        #expect(
            outputs.compactMap(\.imageBuffer).map(planarMD5) == expected, "the first and last pictures are ffmpeg's")
    }
}
