import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Every input VAToolbox reads, as one source of samples in decode order: a raw H.264/HEVC
/// Annex B stream from a file or standard input, or anything ``MediaFileReader`` reads (MP4/MOV,
/// Matroska/WebM, MPEG-TS, IVF, AV1 OBU streams, MPEG-2 elementary streams).
///
/// A raw Annex B stream — a file named as one (`.264`, `.h264`, `.265`, `.hevc`, `.bit`, …) or
/// standard input — is read as it arrives, a megabyte at a time, and cut into access units by an
/// ``ElementaryStreamParser``; its codec is the one its extension names, else the one its first
/// parameter sets are laid out for. Its samples get the time stamps the ffmpeg CLI gives its
/// pictures (``AnnexBTimeStamper``): one frame apart at the stream's own rate, else the
/// `frameRate` given, else 25 frames per second, in the order their picture order counts show
/// them. Any other file goes to a ``MediaFileReader`` (``reader``).
///
/// ```swift
/// let source = try SampleSource(path: "clip.265")
/// let session = try DecompressionSession(formatDescription: source.formatDescription)
/// while let sample = try source.nextSample() { try session.decodeFrame(sample) }
/// ```
///
/// Thread-safe and `Sendable`: the reading state sits behind a lock, and each sample goes to one
/// caller. Reads block the calling thread on input.
public final class SampleSource: Sendable {
    /// The file read; nil for standard input and a file descriptor.
    public let path: String?
    /// The codec of the samples.
    public let codecType: VideoCodecType
    /// `"Annex B"` for a raw H.264/HEVC stream; the container's name as libavformat reports it
    /// otherwise (``MediaFileReader/containerName``).
    public let containerName: String
    /// The format description of the first sample (a sample's own
    /// ``SampleBuffer/formatDescription`` is the one in force for it).
    public let formatDescription: VideoFormatDescription
    /// The frame rate given for a raw stream that states none.
    public let assumedFrameRate: FrameRate?
    /// The reader of a file libavformat reads; nil for a raw Annex B stream.
    public let reader: MediaFileReader?

    /// The raw Annex B stream's reading state; nil for a file the ``reader`` reads.
    private let annexB: Mutex<AnnexBStreamReader?>

    /// Whether the input is a raw H.264/HEVC Annex B stream (read by the elementary stream
    /// parser), rather than a file the ``reader`` reads.
    public var isAnnexBStream: Bool { reader == nil }

    /// The input's name for messages: the path, `"standard input"`, or the name given with a
    /// file descriptor.
    public var name: String { path ?? streamName }

    /// The name given with a file descriptor read; ignored when there is a ``path``.
    private let streamName: String

    /// Opens a file: a raw Annex B stream when its name says so (see ``isAnnexBStream``),
    /// otherwise through a ``MediaFileReader``.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - track: The stream index of the video track to read; nil for the one the ffmpeg CLI
    ///     picks. A raw stream has one track, 0.
    ///   - frameRate: The frame rate of a raw stream that states none (`ffmpeg -framerate`).
    /// - Throws: ``VTError/sampleBufferDataFailed`` when the file cannot be opened or read (a
    ///   missing file, a directory); ``VTError/sampleBufferInvalidMediaFormat`` when it has no
    ///   decodable sample or is not a media file; ``VTError/parameter`` when `track` is not one of
    ///   its video tracks; and what ``MediaFileReader/init(path:track:frameRate:)`` throws.
    public init(path: String, track: Int? = nil, frameRate: FrameRate? = nil) throws(VTError) {
        self.path = path
        streamName = path
        assumedFrameRate = frameRate
        guard AnnexBStreamRecognition.codec(forFileName: path) != nil else {
            let reader = try MediaFileReader(path: path, track: track, frameRate: frameRate)
            self.reader = reader
            codecType = reader.codecType
            containerName = reader.containerName
            formatDescription = reader.formatDescription
            annexB = Mutex(nil)
            return
        }
        if let track, track != 0 {
            throw VTError.parameter.with("\(path) is a raw stream: its one track is 0, not \(track)")
        }
        let stream = try AnnexBStreamReader(path: path, frameRate: frameRate)
        reader = nil
        codecType = stream.codecType
        containerName = Self.annexBContainerName
        formatDescription = stream.formatDescription
        annexB = Mutex(stream)
    }

    /// Reads a raw H.264/HEVC Annex B stream from standard input; its codec is the one its first
    /// parameter sets are laid out for.
    ///
    /// - Parameter frameRate: The frame rate of a stream that states none.
    /// - Throws: ``VTError/sampleBufferDataFailed`` when standard input cannot be read;
    ///   ``VTError/sampleBufferInvalidMediaFormat`` when it has no decodable access unit.
    public static func standardInput(frameRate: FrameRate? = nil) throws(VTError) -> SampleSource {
        try annexBStream(fileDescriptor: STDIN_FILENO, name: "standard input", frameRate: frameRate)
    }

    /// Reads a raw H.264/HEVC Annex B stream from an open file descriptor (a pipe, a socket, a
    /// file), from where it stands, as its bytes arrive; its codec is the one its first
    /// parameter sets are laid out for. The source reads until the first access unit is complete
    /// before it returns. It never closes the descriptor, which must stay open while the source
    /// reads.
    ///
    /// - Parameters:
    ///   - descriptor: The descriptor to read.
    ///   - name: The stream's name in messages (``name``).
    ///   - frameRate: The frame rate of a stream that states none.
    /// - Throws: ``VTError/sampleBufferDataFailed`` when the descriptor cannot be read;
    ///   ``VTError/sampleBufferInvalidMediaFormat`` when it has no decodable access unit.
    public static func annexBStream(
        fileDescriptor descriptor: Int32, name: String, frameRate: FrameRate? = nil
    ) throws(VTError) -> SampleSource {
        let stream = try AnnexBStreamReader(
            descriptor: descriptor, ownsDescriptor: false, name: name, fileName: nil, codec: nil, frameRate: frameRate)
        return SampleSource(lent: stream, name: name, frameRate: frameRate)
    }

    private init(lent stream: sending AnnexBStreamReader, name: String, frameRate: FrameRate?) {
        path = nil
        streamName = name
        assumedFrameRate = frameRate
        reader = nil
        codecType = stream.codecType
        containerName = Self.annexBContainerName
        formatDescription = stream.formatDescription
        annexB = Mutex(stream)
    }

    /// ``containerName`` of a raw Annex B stream.
    static let annexBContainerName = "Annex B"

    /// The next sample in decode order, or nil at the end.
    ///
    /// - Throws: ``VTError/sampleBufferDataFailed`` when reading a raw stream fails; what
    ///   ``MediaFileReader/nextSample()`` throws.
    public func nextSample() throws(VTError) -> SampleBuffer? {
        if let reader { return try reader.nextSample() }
        return try annexB.withLock { (stream: inout AnnexBStreamReader?) throws(VTError) in try stream?.nextSample() }
    }

    /// Moves to `offset` from the start of the input, as `ffmpeg -ss` counts, so that the first
    /// picture shown is the one at `offset`: a container is moved to the sync sample at or before
    /// it (``MediaFileReader/seek(to:exactly:)`` at ``MediaFileReader/startTime`` + `offset`);
    /// a raw stream, which has no index, is decoded from its start with the pictures before
    /// `offset` hidden (``SampleAttachments/doNotDisplay``, by the time stamps it is given).
    ///
    /// - Throws: What ``MediaFileReader/seek(to:exactly:)`` throws.
    public func seek(toOffset offset: MediaTime) throws(VTError) {
        if let reader {
            try reader.seek(to: reader.startTime + offset)
        } else {
            annexB.withLock { $0?.hidePictures(before: offset) }
        }
    }

    /// For a raw Annex B stream, the duration its samples are time-stamped apart (its own frame
    /// rate, else ``assumedFrameRate``, else 25 frames per second); nil for a file the ``reader``
    /// reads.
    public var annexBFrameDuration: MediaTime? { annexB.withLock { $0?.frameDuration } }

    /// What the Annex B parser found wrong so far (raw streams; empty for a file the ``reader``
    /// reads, whose damage is in ``damagedSamples``).
    public var diagnostics: [VTError] { annexB.withLock { $0?.diagnostics ?? [] } }

    /// The damaged samples the reader met and went on past (``MediaFileReader/damagedSamples``;
    /// empty for a raw stream, whose damage shows in ``diagnostics`` and the decoder's statuses).
    public var damagedSamples: [DamagedSample] { reader?.damagedSamples ?? [] }

    /// How many damaged samples the reader met (``MediaFileReader/damagedSampleCount``).
    public var damagedSampleCount: Int { reader?.damagedSampleCount ?? 0 }

    /// How the file ends before its container says it should (``MediaFileReader/truncation``);
    /// nil for a raw stream, which states no length.
    public var truncation: MediaFileTruncation? { reader?.truncation }

    /// What libavformat says of the track read: the ``reader``'s track; for a raw stream file,
    /// the track libavformat's raw demuxer sees in it (the file is opened again for it, with
    /// ``assumedFrameRate``); nil for standard input and a raw stream libavformat cannot open.
    public func mediaTrack() -> MediaTrack? {
        if let reader { return reader.track }
        guard let path else { return nil }
        return try? MediaFileReader(path: path, frameRate: assumedFrameRate).track
    }
}
