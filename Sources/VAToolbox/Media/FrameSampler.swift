import Dispatch
import Synchronization

/// Pictures on demand: some frames of a file, by frame number or time, decoded at the least
/// cost — the thumbnails, scrubbing, data loading and quality checks that want *some* pictures.
///
/// The sampler indexes the file once (``FrameIndex``) and plans each request (`SamplingPlan`):
/// the wanted pictures are sorted, each group of pictures is decoded at most once and only up to
/// its last wanted picture, the reader moves on through the container's index only when the next
/// wanted picture lies past the next sync sample, and a sample that neither a wanted picture nor a
/// later decoded sample needs (``FrameIndex/Sample/isDisposable``) is never sent to the decoder,
/// on the CPU or the GPU. The frames come back in the caller's order. One
/// ``DecompressionSession`` serves every request, and the next file of the same format
/// (``open(path:track:frameRate:)``).
///
/// ```swift
/// let sampler = try FrameSampler(
///     path: "clip.mp4", imageBufferAttributes: ImageBufferAttributes(pixelFormat: .bgra, width: 240, height: 136))
/// for frame in try sampler.frames(at: [1499, 0, 250]) {
///     print(frame.number, frame.presentationTimeStamp.seconds, frame.image?.width ?? 0)
/// }
/// ```
///
/// Exact by default: frame N is the picture on line N of `ffmpeg -fps_mode passthrough -f framemd5`.
/// Thread-safe and `Sendable`; requests run one at a time, blocking the calling thread (see
/// ``frameSequence(at:accuracy:)`` for Swift concurrency).
public final class FrameSampler: Sendable {
    /// How the sampler decodes.
    public let decoderSpecification: DecoderSpecification
    /// The pictures' format and size; nil for the decoder's own.
    public let imageBufferAttributes: ImageBufferAttributes?

    private let state: Mutex<SamplerState>
    private let collector = OutputCollector()

    /// Opens and indexes a file.
    ///
    /// - Parameters:
    ///   - path: The file (anything ``SampleSource`` reads).
    ///   - track: The stream index of the video track; nil for the one the ffmpeg CLI picks.
    ///   - frameRate: The frame rate of a raw stream that states none.
    ///   - decoderSpecification: GPU or CPU, threads.
    ///   - imageBufferAttributes: The pictures' pixel format and size; nil for the decoder's own.
    /// - Throws: What ``FrameIndex/init(path:track:frameRate:)`` throws; the session is made at
    ///   the first request, which throws what ``DecompressionSession`` does.
    public init(
        path: String, track: Int? = nil, frameRate: FrameRate? = nil,
        decoderSpecification: DecoderSpecification = DecoderSpecification(),
        imageBufferAttributes: ImageBufferAttributes? = nil
    ) throws(VTError) {
        self.decoderSpecification = decoderSpecification
        self.imageBufferAttributes = imageBufferAttributes
        state = Mutex(try SamplerState(path: path, track: track, frameRate: frameRate))
    }

    deinit {
        state.withLock { $0.session?.invalidate() }
    }

    /// The index of the file open.
    public var index: FrameIndex { state.withLock { $0.index } }

    /// The path of the file open.
    public var path: String { state.withLock { $0.path } }

    /// What the sampler did since it was made or last opened a file.
    public var statistics: SamplingStatistics { state.withLock { $0.statistics } }

    /// Whether the session decodes on the GPU; nil before the first request.
    public var usingHardwareAcceleratedVideoDecoder: Bool? {
        state.withLock { $0.session?.usingHardwareAcceleratedVideoDecoder }
    }

    /// Moves the sampler onto another file, keeping its session when the file's format can follow
    /// (``DecompressionSession/canAcceptFormatDescription(_:)``): the cheap way through many
    /// clips of one kind.
    ///
    /// - Throws: What ``init(path:track:frameRate:decoderSpecification:imageBufferAttributes:)``
    ///   throws; the sampler stays on its file then.
    public func open(path: String, track: Int? = nil, frameRate: FrameRate? = nil) throws(VTError) {
        let next = try SamplerState(path: path, track: track, frameRate: frameRate)
        state.withLock { (current: inout SamplerState) in
            let session = current.session
            let sessionsCreated = current.statistics.sessionsCreated
            current = next
            current.statistics.sessionsCreated = sessionsCreated
            guard let session else { return }
            if session.canAcceptFormatDescription(next.source.formatDescription) {
                current.session = session
                current.sessionFormat = session.formatDescription
            } else {
                session.invalidate()
            }
        }
    }

    /// The pictures with the given frame numbers, in the order asked (repeats allowed).
    ///
    /// - Parameters:
    ///   - numbers: Frame numbers, from 0 (``FrameIndex/frames``).
    ///   - accuracy: Exact pictures, or the nearest sync samples' ones.
    /// - Throws: ``VTError/sampleBufferSampleIndexOutOfRange`` for a number outside the file's
    ///   frames (before anything is decoded); what ``DecompressionSession`` throws; what reading
    ///   throws (``VTError/sampleBufferDataFailed`` when the file changed since it was indexed).
    public func frames(at numbers: [Int], accuracy: SamplingAccuracy = .exact) throws(VTError) -> [SampledFrame] {
        let plan = try plan(numbers, accuracy: accuracy)
        var answers = [SampledFrame?](repeating: nil, count: numbers.count)
        for run in plan.plan.runs {
            for frame in try decode(run, plan: plan) { answers[frame.requestIndex] = frame }
        }
        return answers.compactMap { $0 }
    }

    /// The pictures shown at the given times (``FrameIndex/frameNumber(displayedAt:)``: the last
    /// one presented at or before each), in the order asked.
    ///
    /// - Parameters:
    ///   - times: Presentation times on the track's time line (a container's time stamps; add
    ///     ``MediaFileReader/startTime`` to a time counted from the start of the file).
    ///   - accuracy: Exact pictures, or the nearest sync samples' ones.
    /// - Throws: ``VTError/sampleBufferSampleIndexOutOfRange`` for a time past the last picture
    ///   or not numeric; what ``frames(at:accuracy:)`` throws.
    public func frames(atTimes times: [MediaTime], accuracy: SamplingAccuracy = .exact) throws(VTError)
        -> [SampledFrame]
    {
        try frames(at: numbers(atTimes: times), accuracy: accuracy)
    }

    /// The pictures with the given frame numbers as an `AsyncSequence`, decoded one run (a group of
    /// pictures) at a time on a dispatch queue as the sequence is iterated: in decode order of the
    /// runs, presentation order inside one, each ``SampledFrame/requestIndex`` saying which request
    /// it answers. Memory stays at one run's pictures whatever the number asked for.
    ///
    /// - Throws: ``VTError/sampleBufferSampleIndexOutOfRange`` for a number outside the file's frames.
    public func frameSequence(at numbers: [Int], accuracy: SamplingAccuracy = .exact) throws(VTError)
        -> SampledFrameSequence
    {
        SampledFrameSequence(sampler: self, plan: try plan(numbers, accuracy: accuracy))
    }

    /// The frame numbers of the pictures shown at `times`.
    ///
    /// - Throws: ``VTError/sampleBufferSampleIndexOutOfRange`` for a time past the last picture.
    public func numbers(atTimes times: [MediaTime]) throws(VTError) -> [Int] {
        let index = index
        var numbers: [Int] = []
        for time in times {
            guard let number = index.frameNumber(displayedAt: time) else {
                throw VTError.sampleBufferSampleIndexOutOfRange.with(
                    "no picture of \(path) is shown at \(time) (\(index.frameCount) pictures)")
            }
            numbers.append(number)
        }
        return numbers
    }

    /// A checked plan for a request, with the pictures the accuracy picks for each number.
    func plan(_ numbers: [Int], accuracy: SamplingAccuracy) throws(VTError) -> CheckedPlan {
        let index = index
        var picked: [Int] = []
        for number in numbers {
            guard index.frames.indices.contains(number) else {
                throw VTError.sampleBufferSampleIndexOutOfRange.with(
                    "\(path) has \(index.frameCount) pictures, numbered from 0: there is no picture \(number)")
            }
            switch accuracy {
            case .exact: picked.append(number)
            case .nearestSyncSample: picked.append(index.nearestSyncFrame(to: number) ?? number)
            }
        }
        return CheckedPlan(plan: SamplingPlan(frames: picked, index: index), path: path)
    }

    /// Decodes one run and returns its pictures, one per request, in presentation order.
    func decode(_ run: SamplingPlan.Run, plan: CheckedPlan) throws(VTError) -> [SampledFrame] {
        let decoded = try state.withLock {
            (state: inout SamplerState) throws(VTError) -> [Int: [DecompressionOutput]] in
            guard state.path == plan.path else {
                throw VTError.parameter.with(
                    "the sampler moved from \(plan.path) to \(state.path) before this request was decoded")
            }
            return try state.decode(
                run, collector: collector, specification: decoderSpecification, attributes: imageBufferAttributes)
        }
        let index = index
        var frames: [SampledFrame] = []
        for number in run.frames.sorted() {
            let frame = index.frames[number]
            // The sample's outputs, in order: its first picture is its first output with one (a
            // field pair's picture comes with either field's sample).
            let outputs = Set([frame.sample, frame.lastSample]).sorted().flatMap { decoded[$0] ?? [] }.filter {
                $0.imageBuffer != nil || $0.status != nil
            }
            let output: DecompressionOutput?
            if index.samples[frame.sample].pictureCount > 1 {
                let pictures = index.frames.filter { $0.sample == frame.sample }.map(\.number)
                let place = pictures.firstIndex(of: number) ?? 0
                output = place < outputs.count ? outputs[place] : nil
            } else {
                output = outputs.first { $0.imageBuffer != nil } ?? outputs.first
            }
            let status =
                output == nil
                ? VTError.videoDecoderBadData.with("picture \(number) did not come out of the decoder") : output?.status
            for request in plan.plan.requests[number] ?? [] {
                frames.append(
                    SampledFrame(
                        number: number, requestIndex: request,
                        presentationTimeStamp: output?.presentationTimeStamp ?? frame.presentationTimeStamp,
                        duration: frame.duration, image: output?.imageBuffer, status: status))
            }
        }
        return frames
    }

    /// A plan, with the file it was made for.
    struct CheckedPlan: Sendable {
        let plan: SamplingPlan
        let path: String
    }
}

/// The outputs of the sampler's session, by the sample (its place in decode order, the refcon)
/// that was decoded.
final class OutputCollector: Sendable {
    private let outputs = Mutex<[Int: [DecompressionOutput]]>([:])

    /// The session's output handler.
    var handler: DecompressionSession.OutputHandler {
        { [self] output in
            guard let sample = output.frameRefcon as? Int else { return }
            self.outputs.withLock { $0[sample, default: []].append(output) }
        }
    }

    /// Takes what came out so far.
    func take() -> [Int: [DecompressionOutput]] {
        outputs.withLock { current in
            let taken = current
            current = [:]
            return taken
        }
    }
}

/// The file open, where its reader stands, and the session.
struct SamplerState: Sendable {
    let path: String
    let track: Int?
    let frameRate: FrameRate?
    var index: FrameIndex
    var source: SampleSource
    /// The place in ``FrameIndex/samples`` of the next sample `source` hands out.
    var position = 0
    /// The sample a seek landed on, read to find the place and not handed out yet.
    var landed: SampleBuffer?
    var session: DecompressionSession?
    /// The format the session decodes now.
    var sessionFormat: VideoFormatDescription?
    var statistics = SamplingStatistics()

    init(path: String, track: Int?, frameRate: FrameRate?) throws(VTError) {
        self.path = path
        self.track = track
        self.frameRate = frameRate
        index = try FrameIndex(reading: SampleSource(path: path, track: track, frameRate: frameRate))
        source = try SampleSource(path: path, track: track, frameRate: frameRate)
    }

    /// Decodes a run: moves the reader to its first sample, sends the samples the plan decodes
    /// (the first with ``SampleAttachments/resetDecoderBeforeDecoding``, the unwanted ones with
    /// ``DecodeFrameFlags/doNotOutputFrame``), and drains the session.
    ///
    /// Every sample read is checked against the index by its time stamps: a reader that is not
    /// where the index says (a seek that landed on a sample whose time stamps another shares, in a
    /// damaged file) starts the run again from the file's start, reading on without seeking; a
    /// second mismatch means the file changed, and throws.
    mutating func decode(
        _ run: SamplingPlan.Run, collector: OutputCollector, specification: DecoderSpecification,
        attributes: ImageBufferAttributes?
    ) throws(VTError) -> [Int: [DecompressionOutput]] {
        statistics.runs += 1
        _ = collector.take()
        if try !send(run, seeking: true, collector: collector, specification: specification, attributes: attributes) {
            if let session {
                try session.finishDelayedFrames()
                try session.waitForAsynchronousFrames()
            }
            _ = collector.take()
            try reopen()
            guard
                try send(
                    run, seeking: false, collector: collector, specification: specification, attributes: attributes)
            else {
                throw VTError.sampleBufferDataFailed.with(
                    "\(path) no longer matches its index at sample \(position - 1)",
                    hint: "the file changed since it was indexed: open it again")
            }
        }
        try decodePastOpenStart(of: run)
        if let session {
            try session.finishDelayedFrames()
            try session.waitForAsynchronousFrames()
        }
        return collector.take()
    }

    /// Moves to the run's first sample and sends its samples; false when a sample read is not the
    /// one the index lists at that place.
    private mutating func send(
        _ run: SamplingPlan.Run, seeking: Bool, collector: OutputCollector, specification: DecoderSpecification,
        attributes: ImageBufferAttributes?
    ) throws(VTError) -> Bool {
        guard try move(to: run.start, seeking: seeking) else { return false }
        var first = true
        while position <= run.end {
            guard var sample = try nextSample() else {
                throw VTError.sampleBufferDataFailed.with(
                    "\(path) ends at sample \(position), before sample \(run.end) its index lists",
                    hint: "the file changed since it was indexed: open it again")
            }
            let current = position
            position += 1
            statistics.samplesRead += 1
            guard isListed(sample, at: current) else { return false }
            guard SamplingPlan.decodes(current, in: run, index: index) else {
                statistics.disposableSamplesSkipped += 1
                continue
            }
            if first { sample.attachments.insert(.resetDecoderBeforeDecoding) }
            first = false
            let session = try session(
                for: sample.formatDescription, collector: collector, specification: specification,
                attributes: attributes)
            let flags: DecodeFrameFlags =
                run.wantedSamples.contains(current)
                ? [.enableAsynchronousDecompression] : [.enableAsynchronousDecompression, .doNotOutputFrame]
            try session.decodeFrame(sample, flags: flags, frameRefcon: current)
            statistics.samplesDecoded += 1
        }
        return true
    }

    /// Whether `sample` has the time stamps the index lists for place `place`.
    private func isListed(_ sample: SampleBuffer, at place: Int) -> Bool {
        let listed = index.samples[place]
        return sample.presentationTimeStamp == listed.presentationTimeStamp
            && sample.decodeTimeStamp == listed.decodeTimeStamp
    }

    /// After a run that started at an open random access point, decodes (and does not output) the
    /// next few samples that are not disposable — as many as the stream reorders, plus one — so
    /// that the wanted pictures leave the decoder by the stream's own output order rather than at
    /// the drain. libavcodec's H.264 decoder hands out at a drain only the pictures it marked
    /// recovered, and after a start at a non-IDR recovery point it marks a picture recovered only
    /// once the recovery point picture has left by the output order (libavcodec/h264_slice.c,
    /// `h264_select_output_frame`: `h->frame_recovered |= out->recovered` only there; h264dec.c,
    /// `finalize_frame`, drops an unrecovered picture): drained straight after the last wanted
    /// sample, a trailing picture of an open GOP would be dropped.
    private mutating func decodePastOpenStart(of run: SamplingPlan.Run) throws(VTError) {
        guard index.samples[run.start].isOpenRandomAccessPoint, let session, let format = sessionFormat else { return }
        var remaining = format.stream.maxNumReorderFrames + 1
        while remaining > 0, position < index.samples.count {
            guard let sample = try nextSample() else { return }
            let current = position
            position += 1
            statistics.samplesRead += 1
            guard isListed(sample, at: current) else { return }
            guard !index.samples[current].isDisposable else {
                statistics.disposableSamplesSkipped += 1
                continue
            }
            guard sample.formatDescription == format || session.canAcceptFormatDescription(sample.formatDescription)
            else { return }
            try session.decodeFrame(
                sample, flags: [.enableAsynchronousDecompression, .doNotOutputFrame], frameRefcon: current)
            statistics.samplesDecoded += 1
            remaining -= 1
        }
    }

    /// The session for samples of `format`: the one there is when it can take them, else a new one
    /// (after the old one handed out its pictures).
    private mutating func session(
        for format: VideoFormatDescription, collector: OutputCollector, specification: DecoderSpecification,
        attributes: ImageBufferAttributes?
    ) throws(VTError) -> DecompressionSession {
        if let session, sessionFormat == format || session.canAcceptFormatDescription(format) {
            sessionFormat = format
            return session
        }
        if let session {
            try session.finishDelayedFrames()
            try session.waitForAsynchronousFrames()
            session.invalidate()
        }
        let made = try DecompressionSession(
            formatDescription: format, decoderSpecification: specification, imageBufferAttributes: attributes,
            outputHandler: collector.handler)
        session = made
        sessionFormat = format
        statistics.sessionsCreated += 1
        return made
    }

    /// The next sample: the one a seek landed on, else the reader's next.
    private mutating func nextSample() throws(VTError) -> SampleBuffer? {
        if let held = landed {
            landed = nil
            return held
        }
        return try source.nextSample()
    }

    /// Puts the reader at sample `target`: reading on when no sync sample lies between, moving
    /// through the container's index when one does and `seeking` allows it (a seek to the
    /// target's time, then reading on from the sample it lands on), reading again from the start
    /// to go back. False when a sample read on the way is not the one the index lists there.
    private mutating func move(to target: Int, seeking: Bool) throws(VTError) -> Bool {
        if target < position { try reopen() }
        if seeking, target > position + 1, let reader = source.reader,
            index.samples[target].presentationTimeStamp.isNumeric,
            index.samples[(position + 1)..<target].contains(where: \.isSync)
        {
            try seek(reader, to: target)
        }
        while position < target {
            guard let sample = try nextSample() else {
                throw VTError.sampleBufferDataFailed.with(
                    "\(path) ends at sample \(position), before sample \(target) its index lists",
                    hint: "the file changed since it was indexed: open it again")
            }
            guard isListed(sample, at: position) else { return false }
            position += 1
            statistics.samplesRead += 1
        }
        return true
    }

    /// Opens the file again, at its first sample.
    private mutating func reopen() throws(VTError) {
        source = try SampleSource(path: path, track: track, frameRate: frameRate)
        position = 0
        landed = nil
    }

    /// Seeks the reader to the sync sample `target`'s time and finds where it landed by the
    /// sample's time stamps; when they match no sample at or before `target`, reads again from the
    /// start.
    private mutating func seek(_ reader: MediaFileReader, to target: Int) throws(VTError) {
        let wanted = index.samples[target]
        try reader.seek(to: wanted.presentationTimeStamp, exactly: false)
        statistics.seeks += 1
        landed = nil
        guard let first = try reader.nextSample(),
            let place = index.samples[...target].lastIndex(where: {
                $0.presentationTimeStamp == first.presentationTimeStamp && $0.decodeTimeStamp == first.decodeTimeStamp
            })
        else {
            try reopen()
            return
        }
        landed = first
        position = place
    }
}
