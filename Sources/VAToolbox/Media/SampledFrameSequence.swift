import Dispatch

/// The pictures a ``FrameSampler`` was asked for, as a lazy `Sendable` `AsyncSequence`
/// (``FrameSampler/frameSequence(at:accuracy:)``): each step that finds no picture ready decodes
/// the next run of the plan on a dispatch queue of the iterator's own, never blocking the
/// cooperative thread pool.
///
/// ```swift
/// let sampler = try FrameSampler(path: "clip.mp4")
/// for try await frame in try sampler.frameSequence(at: Array(stride(from: 0, to: 1500, by: 25))) {
///     print(frame.number, frame.requestIndex)
/// }
/// ```
///
/// Pictures come run by run (a run is one group of pictures, decoded once), in presentation order
/// inside a run; ``SampledFrame/requestIndex`` says which request each answers. A failure ends the
/// sequence; opening another file in the sampler before the sequence is done fails it with
/// ``VTError/parameter``.
public struct SampledFrameSequence: AsyncSequence, Sendable {
    /// One picture asked for.
    public typealias Element = SampledFrame
    /// Decoding or reading fails with a ``VTError``.
    public typealias Failure = VTError

    let sampler: FrameSampler
    let plan: FrameSampler.CheckedPlan

    /// Starts at the plan's first run.
    public func makeAsyncIterator() -> Iterator { Iterator(sampler: sampler, plan: plan) }

    /// Decodes the runs one by one.
    public struct Iterator: AsyncIteratorProtocol {
        let sampler: FrameSampler
        let plan: FrameSampler.CheckedPlan
        let queue = DispatchQueue(label: "VAToolbox.SampledFrameSequence")
        private var nextRun = 0
        private var ready: [SampledFrame] = []
        private var finished = false

        init(sampler: FrameSampler, plan: FrameSampler.CheckedPlan) {
            self.sampler = sampler
            self.plan = plan
        }

        /// The next picture; nil after the last, and after a failure.
        ///
        /// - Throws: What ``FrameSampler/frames(at:accuracy:)`` throws while decoding.
        public mutating func next() async throws(VTError) -> SampledFrame? {
            while ready.isEmpty {
                guard !finished, nextRun < plan.plan.runs.count else { return nil }
                let (sampler, plan, run) = (sampler, plan, plan.plan.runs[nextRun])
                nextRun += 1
                let result = await withCheckedContinuation {
                    (continuation: CheckedContinuation<Result<[SampledFrame], VTError>, Never>) in
                    queue.async {
                        continuation.resume(
                            returning: Result { () throws(VTError) -> [SampledFrame] in
                                try sampler.decode(run, plan: plan)
                            })
                    }
                }
                switch result {
                case .success(let frames): ready = frames.reversed()
                case .failure(let error):
                    finished = true
                    throw error
                }
            }
            return ready.popLast()
        }
    }
}
