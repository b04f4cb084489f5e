/// How to decode a set of pictures at the least cost: runs of samples in decode order, each
/// starting at a sync sample, each decoded once and only up to its last wanted picture.
///
/// The wanted pictures are sorted by the sync sample their exact decoding starts at
/// (``FrameIndex/Frame/decodingStart``); a picture whose start lies inside the run before joins
/// it (decoding goes on), any other starts a new run (the reader moves on, the decoder starts
/// afresh). Inside a run, a sample is decoded when it shows a wanted picture or another sample may
/// need it (``FrameIndex/Sample/isDisposable`` is false); the disposable samples nobody asked for
/// are never sent to the decoder.
struct SamplingPlan: Sendable {
    /// Samples decoded in one go.
    struct Run: Sendable {
        /// The first sample (a sync sample, or the first of the stream).
        var start: Int
        /// The last sample: the last one the run's wanted pictures need, in decode order.
        var end: Int
        /// The samples whose pictures are wanted (both fields of a field pair).
        var wantedSamples: Set<Int>
        /// The wanted pictures, by frame number.
        var frames: [Int]
    }

    /// The runs, in decode order.
    let runs: [Run]
    /// For each wanted picture, the places in the caller's list that asked for it.
    let requests: [Int: [Int]]

    /// Plans the decoding of `numbers` (frame numbers, in the caller's order, repeats allowed).
    ///
    /// - Precondition: Every number is one of `index`'s frames.
    init(frames numbers: [Int], index: FrameIndex) {
        var requests: [Int: [Int]] = [:]
        for (position, number) in numbers.enumerated() { requests[number, default: []].append(position) }
        self.requests = requests
        let wanted = requests.keys.map { index.frames[$0] }.sorted {
            ($0.decodingStart, $0.sample) < ($1.decodingStart, $1.sample)
        }
        var runs: [Run] = []
        for frame in wanted {
            // Both fields of a picture of two field samples are wanted.
            let samples = Set([frame.sample, frame.lastSample])
            if var last = runs.last, frame.decodingStart <= last.end {
                last.end = max(last.end, frame.lastSample)
                last.wantedSamples.formUnion(samples)
                last.frames.append(frame.number)
                runs[runs.count - 1] = last
            } else {
                runs.append(
                    Run(
                        start: frame.decodingStart, end: frame.lastSample, wantedSamples: samples,
                        frames: [frame.number]))
            }
        }
        self.runs = runs
    }

    /// Whether sample `position` of a run is sent to the decoder.
    static func decodes(_ position: Int, in run: Run, index: FrameIndex) -> Bool {
        run.wantedSamples.contains(position) || !index.samples[position].isDisposable
    }
}
