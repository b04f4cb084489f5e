/// Gives the samples of a raw H.264 or HEVC stream — which carry no time stamps — the
/// presentation and decode times, and durations, that the ffmpeg CLI gives their pictures.
///
/// A raw Annex B stream (`.264`, `.265`, a camera's elementary stream) says in which order
/// pictures are shown only through their picture order counts. The time stamper derives them
/// (H.264 clause 8.2.1, HEVC clause 8.3.1), puts the pictures in that order the way a decoder's
/// output process does (bounded by the stream's reorder depth), and counts frames:
/// - the *n*-th picture shown is presented at *n* frame durations, the first at zero, as
///   `ffmpeg -i stream.264 -f framemd5 -` numbers them;
/// - decode times count samples from minus the reorder depth (as the ffmpeg CLI starts them), so
///   that no sample is decoded after it is shown;
/// - a frame lasts what the sequence parameter set's timing information says (H.264 VUI
///   `2 × num_units_in_tick / time_scale`, HEVC `vui_num_units_in_tick / vui_time_scale`), or,
///   for a stream that says nothing, the `assumedFrameDuration` (ffmpeg's `-framerate`), which
///   is 1/25 s by default, as ffmpeg assumes. The stream's own timing wins, as in ffmpeg.
///
/// Samples come out in decode order, as they went in, once their presentation time is known: up
/// to the reorder depth later. A field picture is a sample of half a frame; the two fields of a
/// frame share one presentation slot (the second is presented half a frame after the first).
/// Pictures a decoder does not output (HEVC `pic_output_flag` 0, the skipped RASL pictures of
/// a CRA picture that starts the stream or follows an end of sequence, and the pictures still
/// waiting when a CRA picture follows an end of sequence: clause C.5.2.2 discards them) get no
/// presentation time and are marked ``SampleAttachments/doNotDisplay``. A skipped or discarded
/// picture leaves its presentation slot empty, as in ffmpeg's numbering.
///
/// ```swift
/// var parser = ElementaryStreamParser(codec: .h264)
/// var stamper = AnnexBTimeStamper(codec: .h264)
/// for chunk in chunks {
///     for sample in parser.parse(chunk) {
///         for stamped in stamper.stamp(sample) { try session.decodeFrame(stamped) }
///     }
/// }
/// for stamped in parser.finish().flatMap({ stamper.stamp($0) }) + stamper.finish() {
///     try session.decodeFrame(stamped)
/// }
/// ```
///
/// Limits: a picture whose slice header cannot be read is placed after the pictures waiting to
/// be shown; `no_output_of_prior_pics_flag` of IDR and BLA pictures is not honoured (the pictures
/// before them are all shown). For field-coded H.264 (PAFF) the ffmpeg CLI's own time stamps are
/// irregular; the stamper gives each frame one slot instead.
public struct AnnexBTimeStamper: Sendable {
    /// ffmpeg's frame duration for a raw stream that states no timing: 1/25 s.
    public static let defaultFrameDuration = MediaTime(value: 1, timescale: 25)

    /// The most samples held back waiting for their presentation time; past it, the oldest is
    /// presented, so that a stream whose counts never let it out cannot hold the whole file.
    static let maximumHeldSamples = 256

    /// The codec of the stream.
    public let codec: VideoCodecType
    /// The duration of a frame for samples whose parameter sets state no timing.
    public let assumedFrameDuration: MediaTime

    /// A sample waiting for its presentation time.
    private struct Held {
        var sample: SampleBuffer
        /// Whether its time stamps are final.
        var isStamped = false
    }

    /// A picture (a frame, a field pair or a lone field) waiting to be shown.
    private struct WaitingPicture {
        var pictureOrderCount: Int
        /// The absolute numbers of its samples (one, or two for a field pair).
        var samples: [Int]
        var frameDuration: MediaTime
        /// For an H.264 field not yet paired: its parity and `frame_num`.
        var openField: OpenField?
        /// The decode order of the picture, to break ties.
        var order: Int
    }

    private var held: [Held] = []
    /// The absolute number of `held[0]`.
    private var firstHeldNumber = 0
    private var waiting: [WaitingPicture] = []
    private var pictureNumber = 0
    private var decodeClock: MediaTime?
    private var presentationClock: MediaTime?
    private var lastShownCount = 0

    /// The codec's parameter sets and order counts; nil for a codec not made of NAL units.
    private var source: (any PictureOrderSource)?
    private var learnedFormat: VideoFormatDescription?

    /// Creates a time stamper for a stream.
    ///
    /// - Parameters:
    ///   - codec: ``VideoCodecType/h264`` or ``VideoCodecType/hevc``; samples of other codecs
    ///     are stamped in decode order.
    ///   - assumedFrameDuration: The duration of a frame when the stream states none (ffmpeg's
    ///     `-framerate`: 1001/30000 for 29.97 frames per second); nil or a time that is not a
    ///     positive number assumes ``defaultFrameDuration``.
    public init(codec: VideoCodecType, assumedFrameDuration: MediaTime? = nil) {
        self.codec = codec
        self.source = PictureOrderSources.source(for: codec)
        if let assumedFrameDuration, assumedFrameDuration.isNumeric, assumedFrameDuration.value > 0 {
            self.assumedFrameDuration = assumedFrameDuration
        } else {
            self.assumedFrameDuration = Self.defaultFrameDuration
        }
    }

    /// The duration of a frame of a format: its timing information's (in lowest terms: H.264's
    /// 2002/60000 is 1001/30000), else the assumed one.
    public func frameDuration(of format: VideoFormatDescription) -> MediaTime {
        guard let stated = format.stream.frameDuration, stated.isNumeric, stated.value > 0, stated.timescale > 0 else {
            return assumedFrameDuration
        }
        var a = stated.value
        var b = Int64(stated.timescale)
        while b != 0 { (a, b) = (b, a % b) }
        return MediaTime(value: stated.value / a, timescale: Int32(Int64(stated.timescale) / a))
    }

    /// Takes the next sample in decode order and returns the samples, in decode order, whose
    /// time stamps are now known (none, this one, or several held before it).
    public mutating func stamp(_ sample: SampleBuffer) -> [SampleBuffer] {
        let format = sample.formatDescription
        if format != learnedFormat {
            for unit in format.parameterSetNALUnits { source?.learn(unit) }
            learnedFormat = format
        }
        let units = sample.nalUnits
        for unit in units where unit.isParameterSet { source?.learn(unit) }
        let frame = frameDuration(of: format)
        let reorderDepth = max(0, format.stream.maxNumReorderFrames)
        // An end of sequence ends its access unit (HEVC clause 7.4.2.4.4); one placed before the
        // slices still applies to them.
        let endOfSequence = units.firstIndex(where: \.isEndOfSequence)
        let firstSlice = units.firstIndex(where: \.isVCL)
        if let endOfSequence, endOfSequence < firstSlice ?? units.endIndex { source?.noteEndOfSequence() }
        let (picture, isField) = pictureInfo(of: units)
        if let endOfSequence, let firstSlice, endOfSequence > firstSlice { source?.noteEndOfSequence() }

        var timed = sample
        let duration = isField ? Self.half(frame) : frame
        let decodeTime = decodeClock ?? frame.multiplied(by: -Int32(min(reorderDepth, 64)))
        timed.timing = SampleTimingInfo(
            duration: duration, presentationTimeStamp: .invalid, decodeTimeStamp: decodeTime)
        decodeClock = decodeTime + duration
        let number = firstHeldNumber + held.count
        held.append(Held(sample: timed))

        // The second field of a frame: opposite parity, same frame_num. The second field of an
        // IDR frame may be a non-IDR field (an I/P pair); an IDR field never completes another.
        if let picture, picture.isSecondField, let last = waiting.indices.last,
            let open = waiting[last].openField, open.bottom != picture.isBottomField,
            open.frameNum == picture.frameNum, open.isIDR || !picture.isIDR
        {
            waiting[last].samples.append(number)
            waiting[last].openField = nil
            waiting[last].pictureOrderCount = min(waiting[last].pictureOrderCount, picture.pictureOrderCount)
        } else {
            if picture?.discardsPriorPictures ?? false {
                // Clause C.5.2.3: the picture before was followed by the bumping it allows; only
                // the pictures that still wait after it are discarded.
                while waiting.count > reorderDepth { showNext() }
                discardAll()
            } else if picture?.startsSequence ?? false {
                showAll()
            }
            while waiting.count > reorderDepth { showNext() }
            if let picture, !picture.isOutput {
                held[number - firstHeldNumber].isStamped = true
                held[number - firstHeldNumber].sample.attachments.insert(.doNotDisplay)
                if picture.isSkipped { skipPresentationSlot(frame) }
            } else {
                let count =
                    picture?.pictureOrderCount ?? ((waiting.map(\.pictureOrderCount).max() ?? lastShownCount) + 1)
                waiting.append(
                    WaitingPicture(
                        pictureOrderCount: count, samples: [number], frameDuration: frame,
                        openField: picture.flatMap {
                            $0.isFieldPicture ? ($0.isBottomField, $0.frameNum, $0.isIDR) : nil
                        },
                        order: pictureNumber))
                pictureNumber += 1
            }
        }
        if held.count > Self.maximumHeldSamples, !held[0].isStamped,
            let owner = waiting.firstIndex(where: { $0.samples.contains(firstHeldNumber) })
        {
            show(at: owner)
        }
        return release()
    }

    /// Ends the stream: shows every picture still waiting and returns the samples held.
    public mutating func finish() -> [SampleBuffer] {
        showAll()
        let samples = release()
        for index in held.indices { held[index].isStamped = true }
        return samples + release()
    }

    // MARK: - Presentation order

    /// Shows every waiting picture, in count order (a new sequence of counts begins).
    private mutating func showAll() {
        while !waiting.isEmpty { showNext() }
    }

    /// Discards every waiting picture without showing it (HEVC `NoOutputOfPriorPicsFlag`, clause
    /// C.5.2.2): its samples are marked ``SampleAttachments/doNotDisplay``, and each keeps the
    /// presentation slot it would have had.
    private mutating func discardAll() {
        for picture in waiting.sorted(by: { $0.order < $1.order }) {
            for number in picture.samples where held.indices.contains(number - firstHeldNumber) {
                held[number - firstHeldNumber].isStamped = true
                held[number - firstHeldNumber].sample.attachments.insert(.doNotDisplay)
            }
            skipPresentationSlot(picture.frameDuration)
        }
        waiting.removeAll()
    }

    /// Leaves a presentation slot empty, for a picture a decoder drops (a discarded picture, a
    /// skipped RASL picture). The ffmpeg CLI times a picture by the packet that releases it
    /// (`best_effort_timestamp` from the packet's decode time), so the slots of pictures that
    /// are never released stay empty: the next picture shown comes that much later.
    private mutating func skipPresentationSlot(_ duration: MediaTime) {
        presentationClock = (presentationClock ?? MediaTime(value: 0, timescale: duration.timescale)) + duration
    }

    /// Shows the waiting picture with the smallest count (the earliest decoded among equals).
    private mutating func showNext() {
        guard
            let index = waiting.indices.min(by: {
                (waiting[$0].pictureOrderCount, waiting[$0].order) < (waiting[$1].pictureOrderCount, waiting[$1].order)
            })
        else { return }
        show(at: index)
    }

    /// Gives a waiting picture's samples the next presentation time.
    private mutating func show(at index: Int) {
        let picture = waiting.remove(at: index)
        lastShownCount = picture.pictureOrderCount
        var time = presentationClock ?? MediaTime(value: 0, timescale: picture.frameDuration.timescale)
        presentationClock = time + picture.frameDuration
        for number in picture.samples {
            let position = number - firstHeldNumber
            guard held.indices.contains(position) else { continue }
            held[position].sample.timing.presentationTimeStamp = time
            held[position].isStamped = true
            time = time + held[position].sample.duration
        }
    }

    /// The held samples, from the oldest, whose time stamps are final.
    private mutating func release() -> [SampleBuffer] {
        let count = held.prefix { $0.isStamped }.count
        guard count > 0 else { return [] }
        let samples = held.prefix(count).map(\.sample)
        held.removeFirst(count)
        firstHeldNumber += count
        return samples
    }

    // MARK: - Picture order counts

    /// The count of the picture in a sample's NAL units, from its first slice; nil when there
    /// is no slice or its header cannot be read. The second value tells a field picture.
    private mutating func pictureInfo(of units: [NALUnit]) -> (PictureOrderInfo?, Bool) {
        guard let slice = units.first(where: \.isVCL) else { return (nil, false) }
        guard let counted = source?.picture(of: slice, lastOpenField: waiting.last?.openField) else {
            return (PictureOrderInfo(pictureOrderCount: pictureNumber, startsSequence: false, isOutput: true), false)
        }
        return counted
    }

    /// Half a frame, exactly.
    private static func half(_ duration: MediaTime) -> MediaTime {
        if duration.value % 2 == 0 { return MediaTime(value: duration.value / 2, timescale: duration.timescale) }
        guard duration.timescale <= Int32.max / 2 else { return duration.multiplied(byRatio: 1, 2) }
        return MediaTime(value: duration.value, timescale: duration.timescale * 2)
    }
}
