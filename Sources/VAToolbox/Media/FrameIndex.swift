/// Every sample and every shown picture of a video track, found in one pass over its samples
/// without decoding anything: the exact frame count, presentation time ↔ frame number, the sync
/// samples, and which samples nothing else needs.
///
/// Frame numbers count the pictures a player shows, in presentation order, from 0 — as ffmpeg's
/// `-vf select=eq(n\,N)` and the lines of `ffmpeg -fps_mode passthrough -f framemd5` count them,
/// and as ``DecompressionSession`` hands them out: samples an edit list hides show none, hidden
/// VP8/VP9/AV1 frames none, two H.264 field samples one, a VP9 superframe or AV1 temporal unit as
/// many as it shows.
///
/// A sample without a presentation time (libavformat stamps only the B pictures of a raw MPEG-2
/// stream) is placed where a decoder shows it: a picture others may refer to is shown when the
/// next such picture is decoded, so it takes that picture's decode time.
///
/// The pass reads every sample, for every input ``SampleSource`` reads: a container's own index
/// alone would not do (libavformat's index entries of an MP4 carry decode times, not the
/// composition offsets that order pictures with B-frames, nor whether a picture is referred to),
/// and raw H.264/HEVC, IVF, OBU and MPEG-2 streams have none. Reading is cheap beside decoding:
/// tens of milliseconds for a minute of 1080p.
///
/// ```swift
/// let index = try FrameIndex(path: "clip.mp4")
/// print(index.frameCount, index.frames[250].presentationTimeStamp)
/// ```
public struct FrameIndex: Sendable {
    /// One sample, in decode order.
    public struct Sample: Sendable, Hashable {
        /// Its presentation time stamp.
        public let presentationTimeStamp: MediaTime
        /// Its decode time stamp (invalid when the container gives none).
        public let decodeTimeStamp: MediaTime
        /// Its duration (invalid when unknown).
        public let duration: MediaTime
        /// Whether decoding can start at it (``SampleBuffer/isSync``).
        public let isSync: Bool
        /// Whether no other sample needs it decoded, by its headers: an H.264 picture with
        /// `nal_ref_idc` 0, an HEVC sub-layer non-reference picture of the highest sub-layer, an
        /// MPEG-2 B picture, an AV1 temporal unit that refreshes no reference slot, a droppable
        /// VP8 frame (``VP8FrameHeader/isDroppable(deltasInForce:)``: no reference, no saved
        /// probabilities, no persistent state changed — libvpx's upper temporal layers), a VP9
        /// frame that refreshes no reference slot followed by a key frame or an error-resilient
        /// frame (which resets what it left: motion vectors, segmentation, probabilities). False
        /// where the headers do not prove it.
        public internal(set) var isDisposable: Bool
        /// Whether it is a sync sample whose leading pictures may refer to pictures before it (an
        /// H.264 non-IDR sync sample, an HEVC CRA picture, an MPEG-2 I picture of an open GOP).
        public let isOpenRandomAccessPoint: Bool
        /// Whether the container hides it (``SampleAttachments/doNotDisplay``: outside an edit list).
        public let isHidden: Bool
        /// The pictures it shows (0 for a hidden frame, a second field or a hidden sample).
        public let pictureCount: Int
        /// How its picture was coded, from its headers, as libavcodec types the decoded frame
        /// (ffprobe's `pict_type`): the first slice's type for H.264 and HEVC, the picture
        /// coding type for MPEG-2, key or inter frame for VP8, VP9 and AV1. Nil where the headers
        /// do not say (a shown existing VP9 or AV1 frame, an unreadable header).
        public let pictureType: PictureType?
        /// For the first field of a pair, the place of the second, which completes its picture.
        var secondField: Int?
    }

    /// One shown picture, in presentation order.
    public struct Frame: Sendable, Hashable {
        /// Its number: its place in presentation order, from 0.
        public let number: Int
        /// Its presentation time stamp: its sample's, or for a sample without one (the I and P
        /// pictures of a raw MPEG-2 stream) the time the decoder shows it at (see
        /// ``FrameIndex``).
        public let presentationTimeStamp: MediaTime
        /// Its duration (its sample's; invalid when unknown).
        public let duration: MediaTime
        /// The sample that shows it, by its place in ``FrameIndex/samples`` (decode order).
        public let sample: Int
        /// The last sample its picture needs: the second field's, for a picture of two field
        /// samples; else ``sample``.
        public let lastSample: Int
        /// The sync sample decoding must start at to show it exactly: the last one at or before
        /// ``sample`` in decode order and at or before it in presentation order (an open GOP's
        /// leading pictures start at the sync sample before theirs). 0 when no sync sample
        /// comes before it (a stream cut in the middle of a GOP).
        public let decodingStart: Int
        /// Whether its sample is a sync sample.
        public let isSync: Bool
        /// How it was coded (its sample's ``Sample/pictureType``; a field pair's first field's).
        public let pictureType: PictureType?
    }

    /// The codec of the track.
    public let codecType: VideoCodecType
    /// Every sample the reader hands out, in decode order (damaged samples the reader skips are
    /// not among them).
    public let samples: [Sample]
    /// Every shown picture, in presentation order: `frames[n].number == n`.
    public let frames: [Frame]

    /// The damaged samples the reader met while indexing (``SampleSource/damagedSamples``: those
    /// with data are among ``samples``, flagged samples decode with errors; unreadable ones are not).
    public let damagedSamples: [DamagedSample]
    /// How many damaged samples the reader met (``SampleSource/damagedSampleCount``).
    public let damagedSampleCount: Int
    /// How the file ends before its container says it should (``SampleSource/truncation``).
    public let truncation: MediaFileTruncation?

    /// The number of pictures shown: `ffprobe -count_frames`' `nb_read_frames`.
    public var frameCount: Int { frames.count }

    /// The places of the sync samples in ``samples``, in decode order.
    public var syncSamples: [Int] { samples.indices.filter { samples[$0].isSync } }

    /// Indexes a file: opens it as ``SampleSource`` does and reads every sample.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - track: The stream index of the video track; nil for the one the ffmpeg CLI picks.
    ///   - frameRate: The frame rate of a raw stream that states none.
    /// - Throws: What ``SampleSource/init(path:track:frameRate:)`` and
    ///   ``SampleSource/nextSample()`` throw.
    public init(path: String, track: Int? = nil, frameRate: FrameRate? = nil) throws(VTError) {
        try self.init(reading: SampleSource(path: path, track: track, frameRate: frameRate))
    }

    /// Indexes the samples a source hands out from where it stands to its end (reading them).
    ///
    /// - Throws: What ``SampleSource/nextSample()`` throws.
    public init(reading source: SampleSource) throws(VTError) {
        var builder = Builder()
        while let sample = try source.nextSample() { builder.add(sample) }
        self.init(
            codecType: source.codecType, samples: builder.samples, damagedSamples: source.damagedSamples,
            damagedSampleCount: source.damagedSampleCount, truncation: source.truncation)
    }

    /// An index of samples already summed up, in decode order.
    init(
        codecType: VideoCodecType, samples: [Sample], damagedSamples: [DamagedSample] = [],
        damagedSampleCount: Int = 0, truncation: MediaFileTruncation? = nil
    ) {
        self.codecType = codecType
        self.samples = samples
        self.damagedSamples = damagedSamples
        self.damagedSampleCount = damagedSampleCount
        self.truncation = truncation
        frames = Self.frames(of: samples)
    }

    /// The picture shown at `time`: the last one presented at or before it (the first one for a
    /// time before every picture); nil past the end of the last picture (its time stamp plus its
    /// duration, or its time stamp when its duration is unknown) or for a time that is not numeric.
    public func frameNumber(displayedAt time: MediaTime) -> Int? {
        guard time.isNumeric, let last = frames.last else { return nil }
        let end = last.duration.isNumeric ? last.presentationTimeStamp + last.duration : last.presentationTimeStamp
        guard time < end || time == last.presentationTimeStamp else { return nil }
        // The first frame presented after `time`, by bisection (frames are in presentation order).
        var low = 0
        var high = frames.count
        while low < high {
            let middle = (low + high) / 2
            if frames[middle].presentationTimeStamp <= time { low = middle + 1 } else { high = middle }
        }
        return max(0, low - 1)
    }

    /// The shown picture of a sync sample nearest to frame `number` in presentation order (the
    /// earlier of two as near), or nil when no sync sample shows a picture.
    public func nearestSyncFrame(to number: Int) -> Int? {
        guard frames.indices.contains(number) else { return nil }
        let time = frames[number].presentationTimeStamp
        var best: Frame?
        for frame in frames where frame.isSync && frame.decodingStart == frame.sample {
            guard let current = best else {
                best = frame
                continue
            }
            if distance(frame.presentationTimeStamp, time) < distance(current.presentationTimeStamp, time) {
                best = frame
            }
        }
        return best?.number
    }

    /// How far apart two times are, as an exact time (the sign dropped).
    private func distance(_ a: MediaTime, _ b: MediaTime) -> MediaTime { a < b ? b - a : a - b }

    /// The pictures the samples show, in presentation order (decode order among equal times).
    private static func frames(of samples: [Sample]) -> [Frame] {
        let times = presentationTimes(of: samples)
        var shown: [(time: MediaTime, duration: MediaTime, sample: Int, start: Int, last: Int)] = []
        var syncs: [Int] = []
        for (position, sample) in samples.enumerated() {
            if sample.isSync { syncs.append(position) }
            guard sample.pictureCount > 0 else { continue }
            let time = times[position]
            // The last sync sample presented no later than the picture: a leading picture of an
            // open GOP needs the GOP before.
            let start = syncs.last { !time.isNumeric || !times[$0].isNumeric || times[$0] <= time } ?? 0
            for _ in 0..<sample.pictureCount {
                shown.append((time, sample.duration, position, start, sample.secondField ?? position))
            }
        }
        // Pictures with a time first, by time; those without (a stream with no time stamps at
        // all) after them, in decode order.
        let ordered = shown.enumerated().sorted { lhs, rhs in
            let (a, b) = (lhs.element.time, rhs.element.time)
            if a.isNumeric != b.isNumeric { return a.isNumeric }
            if a.isNumeric && a != b { return a < b }
            return lhs.offset < rhs.offset
        }
        return ordered.enumerated().map { number, entry in
            Frame(
                number: number, presentationTimeStamp: entry.element.time, duration: entry.element.duration,
                sample: entry.element.sample, lastSample: entry.element.last, decodingStart: entry.element.start,
                isSync: samples[entry.element.sample].isSync, pictureType: samples[entry.element.sample].pictureType)
        }
    }

    /// Each sample's presentation time, filled in where the container gives none: libavformat's
    /// raw MPEG-2 demuxer stamps only the B pictures (whose presentation time is their decode
    /// time). A sample without one that pictures may refer to is presented when the next such
    /// sample is decoded — the output rule of a decoder that holds one reference picture back
    /// (ISO/IEC 13818-2 §6.1.1.11: an I or P picture is displayed after the B pictures that
    /// follow it in coding order) — so it takes that sample's decode time, and the last one the
    /// time after every sample. Samples without a decode time either keep theirs invalid.
    private static func presentationTimes(of samples: [Sample]) -> [MediaTime] {
        var times = samples.map(\.presentationTimeStamp)
        guard times.contains(where: { !$0.isNumeric }) else { return times }
        let decodeTimes = samples.map(\.decodeTimeStamp).filter(\.isNumeric)
        var next: MediaTime? = decodeTimes.max().map { last in
            let step =
                samples.last?.duration.isNumeric == true
                ? samples[samples.count - 1].duration : MediaTime(value: 1, timescale: last.timescale)
            return last + step
        }
        for position in samples.indices.reversed() {
            let sample = samples[position]
            if !times[position].isNumeric, let next, sample.decodeTimeStamp.isNumeric {
                times[position] = sample.isDisposable ? sample.decodeTimeStamp : next
            }
            if !sample.isDisposable, sample.decodeTimeStamp.isNumeric { next = sample.decodeTimeStamp }
        }
        return times
    }

    /// Sums up samples as they are read.
    struct Builder {
        private var counters: [VideoCodecType: any ShownPictureCounting] = [:]
        private var fields = 0
        /// The first field of the pair being read.
        private var firstField: Int?
        /// The codec of the last sample added.
        private var previousCodec: VideoCodecType?
        private(set) var samples: [Sample] = []

        mutating func add(_ sample: SampleBuffer) {
            let codec = sample.formatDescription.codecType
            var pictures = 1
            var disposable = false
            var pictureType: PictureType?
            if var counter = counters[codec] ?? CodecRegistry.support(for: codec)?.makeShownPictureCounter() {
                if previousCodec == codec, !samples.isEmpty, let revised = counter.isPreviousDisposable(given: sample) {
                    samples[samples.count - 1].isDisposable = revised
                }
                switch counter.shown(by: sample) {
                case .frames(let count): pictures = count
                case .field:
                    // The first field of a pair shows the picture; the second completes it.
                    pictures = fields % 2 == 0 ? 1 : 0
                    if fields % 2 == 1, let firstField { samples[firstField].secondField = samples.count }
                    firstField = fields % 2 == 0 ? samples.count : nil
                    fields += 1
                }
                disposable = counter.isDisposable(sample)
                pictureType = counter.pictureType(of: sample)
                counters[codec] = counter
            }
            previousCodec = codec
            let hidden = sample.attachments.contains(.doNotDisplay)
            let open = sample.isSync && CodecRegistry.support(for: codec)?.randomAccess(of: sample) == .open
            samples.append(
                Sample(
                    presentationTimeStamp: sample.presentationTimeStamp, decodeTimeStamp: sample.decodeTimeStamp,
                    duration: sample.duration, isSync: sample.isSync, isDisposable: disposable,
                    isOpenRandomAccessPoint: open,
                    isHidden: hidden,
                    pictureCount: hidden ? 0 : pictures, pictureType: pictureType))
        }
    }
}
