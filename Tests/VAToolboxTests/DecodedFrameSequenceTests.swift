import Foundation
import Synchronization
import Testing

@testable import VAToolbox

@Suite struct DecodedFrameSequenceTests {
    static func oracle(_ name: String) throws -> [String] {
        try FrameMD5Oracle(contentsOf: TestData.fixtures.appendingPathComponent(name + ".framemd5")).frames.map(\.md5)
    }

    /// A count shared between a sample source and a test.
    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        var count: Int { value.load(ordering: .relaxed) }
        @discardableResult func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
    }

    /// An async sequence of samples that counts how many were taken from it.
    static func counted(_ samples: [SampleBuffer], taken: Counter) -> AsyncStream<SampleBuffer> {
        let remaining = Mutex(samples[...])
        return AsyncStream(unfolding: {
            guard let sample = remaining.withLock({ $0.popFirst() }) else { return nil }
            taken.increment()
            return sample
        })
    }

    @Test(arguments: ["h264-high-bpyramid.264", "hevc-main.265", "h264-resolution-change.264"])
    func framesComeOutInPresentationOrderAndMatchTheOracle(name: String) async throws {
        let samples = try TestData.samples(name)
        let taken = Counter()
        var md5s: [String] = []
        for try await frame in DecompressionSession.frames(
            decoding: Self.counted(samples, taken: taken), formatDescription: samples[0].formatDescription)
        {
            #expect(frame.status == nil)
            md5s.append(frame.imageBuffer.map(planarMD5) ?? "no image")
        }
        #expect(md5s == (try Self.oracle(name)))
        #expect(taken.count == samples.count)
    }

    @Test func stoppingEarlyStopsReadingSamples() async throws {
        let samples = try TestData.samples("h264-high-bpyramid.264")
        let taken = Counter()
        var count = 0
        for try await _ in DecompressionSession.frames(
            decoding: Self.counted(samples, taken: taken), formatDescription: samples[0].formatDescription,
            framesAhead: 4)
        {
            count += 1
            if count == 5 { break }
        }
        // Give a producer that ignored the stop time to run on, then check it did not.
        try await Task.sleep(for: .milliseconds(200))
        let read = taken.count
        #expect(read < samples.count, "read \(read) of \(samples.count) samples after stopping at 5 frames")
        #expect(read <= 5 + 4 + 3)
    }

    @Test func cancellingTheConsumerEndsTheSequence() async throws {
        let samples = try TestData.samples("hevc-main.265")
        let taken = Counter()
        let seen = Counter()
        let consumer = Task {
            for try await _ in DecompressionSession.frames(
                decoding: Self.counted(samples, taken: taken), formatDescription: samples[0].formatDescription,
                framesAhead: 2)
            {
                if seen.increment() == 3 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        try await consumer.value
        try await Task.sleep(for: .milliseconds(200))
        #expect(seen.count < samples.count)
        #expect(taken.count < samples.count)
    }

    /// A sample the session cannot accept (HEVC after H.264) is decoded by a new session, after
    /// the first has handed out its frames (MediaFileReaderRealFileTests checks the pictures).
    @Test func aSampleOfAnotherCodecGoesToANewSession() async throws {
        let h264 = try TestData.samples("h264-high-bpyramid.264")
        let hevc = try TestData.samples("hevc-main.265")
        let mixed = Array(h264.prefix(3)) + [hevc[0]]
        var outputs: [DecompressionOutput] = []
        for try await output in DecompressionSession.frames(
            decoding: Self.counted(mixed, taken: Counter()), formatDescription: h264[0].formatDescription)
        {
            outputs.append(output)
        }
        #expect(outputs.count == 4, "one output per sample")
        #expect(outputs.last?.status == nil)
        #expect(outputs.last?.imageBuffer?.width == 320, "the HEVC picture, from the second session")
    }

    @Test func aFailingSampleSequenceBecomesSampleBufferDataFailed() async throws {
        struct SourceBroke: Error {}
        let samples = try TestData.samples("h264-high-bpyramid.264")
        let source = AsyncThrowingStream<SampleBuffer, any Error> { continuation in
            continuation.yield(samples[0])
            continuation.finish(throwing: SourceBroke())
        }
        await #expect(throws: VTError.sampleBufferDataFailed) {
            for try await _ in DecompressionSession.frames(
                decoding: source, formatDescription: samples[0].formatDescription)
            {}
        }
    }
}
