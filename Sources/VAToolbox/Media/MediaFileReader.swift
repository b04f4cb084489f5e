import Synchronization

/// Reads a video track of a media file — MP4/MOV, Matroska/WebM, MPEG-TS, IVF, AV1 OBU
/// streams, raw H.264/HEVC Annex B and MPEG-2 elementary streams — as format descriptions and
/// sample buffers, through libavformat. The `AVAssetReader` of this library, for every codec it
/// decodes.
///
/// Samples come in decode order with the container's time stamps (in the track's time scale)
/// and sync flags. Containers that carry length-prefixed samples with an `avcC`/`hvcC` record
/// (MP4, Matroska) are handed through as they are; MPEG-TS, which carries H.264/HEVC as Annex B,
/// goes through an ``ElementaryStreamParser``, which also follows parameter set changes. Raw
/// H.264/HEVC streams are cut into access units as a ``SampleSource`` cuts them; they carry no
/// time stamps, so their samples get the ones the ffmpeg CLI gives their pictures, in the order
/// their picture order counts show them, one frame apart at the stream's own frame rate, else the
/// `frameRate` given, else 25 frames per second (see ``AnnexBTimeStamper``). AV1 temporal units, VP8/VP9 frames and MPEG-2 pictures come as libavformat
/// delimits them, described by the container's configuration record and codec parameters.
///
/// What real files do, the reader follows:
/// - **Edit lists**: samples outside an MP4 edit list are ``SampleAttachments/doNotDisplay``.
/// - **Configuration records without parameter sets** (an `avcC` without SPS/PPS, an `hvcC`
///   without VPS): the description is built from the first parameter sets in the samples.
/// - **Several sample descriptions**: a sample whose description changes (libavformat's
///   `AV_PKT_DATA_NEW_EXTRADATA`) carries the new ``SampleBuffer/formatDescription``.
/// - **Damaged samples** are not thrown: one with data comes out flagged
///   ``SampleAttachments/damaged``, one that cannot be read is skipped, and both are listed in
///   ``damagedSamples``.
/// - **Truncated files** (cut short) are read up to the cut, and ``truncation`` says so.
///
/// Thread-safe, and `Sendable`: the reading state (libavformat's input, the samples read ahead,
/// the seek position) sits behind a lock, so a reader can be handed to a task and read from
/// several threads. Calls run one at a time, each sample going to one caller: two threads
/// reading the same reader share its position, as two readers of one file descriptor do. The
/// reads block the calling thread on file input; ``samples`` runs them on a dispatch queue for
/// Swift concurrency, from where the reader stands.
public final class MediaFileReader: Sendable {
    /// The codec of the track read.
    public let codecType: VideoCodecType
    /// The format of the first samples (a sample's own ``SampleBuffer/formatDescription`` is the
    /// one in force for it).
    public let formatDescription: VideoFormatDescription
    /// The container's name as libavformat reports it, for example `"mov,mp4,m4a,3gp,3g2,mj2"`.
    public let containerName: String
    /// The track's time scale: time stamps are counted in 1/`timescale` seconds (for a raw
    /// H.264/HEVC stream, the time scale of its first frame duration: 25 at 25 frames per second,
    /// 30000 at 30000/1001).
    public let timescale: Int32
    /// The file's path, as given.
    public let path: String
    /// Every video track of the file, in stream order.
    public let videoTracks: [MediaTrack]
    /// The track read.
    public let track: MediaTrack
    /// The file's start time (libavformat's `start_time`: the earliest presentation time of its
    /// streams), which the ffmpeg CLI subtracts from every time stamp and adds to a `-ss` time;
    /// zero when libavformat knows none.
    public let startTime: MediaTime
    /// The frame rate given for raw streams that state none (the `frameRate` of
    /// ``init(path:track:frameRate:)``); ``track`` has the rate in force.
    public let assumedFrameRate: FrameRate?

    /// The reading state; every read, seek and look at the damage found runs under its lock.
    private let demuxer: Mutex<Demuxer>

    /// The damaged samples met so far, in order (the first 1000; ``damagedSampleCount`` counts
    /// them all).
    public var damagedSamples: [DamagedSample] { demuxer.withLock { $0.damagedSamples } }

    /// How many damaged samples the reader met so far.
    public var damagedSampleCount: Int { demuxer.withLock { $0.damagedSampleCount } }

    /// How the file ends before its container says it should (a download or copy cut short:
    /// ffmpeg's `partial file`); nil for a file that ends where its container says.
    ///
    /// Known when the reader opens where the container states its own extent: the sample table
    /// of an MP4/MOV track places samples past the end of the file (then it counts the samples
    /// wholly in the file), or a top-level element runs past it (a Matroska or WebM `Segment`, a
    /// fragmented MP4's boxes). Otherwise known once a read meets a sample the end of the file
    /// cuts through (an IVF frame, for example), which then comes out flagged
    /// ``SampleAttachments/damaged`` and listed in ``damagedSamples``. A file cut between samples
    /// whose container states no extent (MPEG-TS, IVF, a raw stream) shows nothing to tell by, and
    /// is read as a shorter file, as the ffmpeg CLI reads it.
    public var truncation: MediaFileTruncation? { demuxer.withLock { $0.truncation } }

    /// Opens a file and finds its video track.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - track: The stream index of the video track to read (see ``videoTracks``); nil reads
    ///     the one the ffmpeg CLI picks.
    ///   - frameRate: The frame rate of a raw stream that states none (`ffmpeg -framerate`): raw
    ///     H.264/HEVC without VUI timing, AV1 OBUs without timing information. A rate the stream
    ///     states wins, as in ffmpeg; nil assumes ffmpeg's 25 frames per second. Containers have
    ///     time stamps of their own and ignore it. ``track`` reports the rate in force.
    /// - Throws: ``VTError/sampleBufferDataFailed`` when the file cannot be opened or read (a
    ///   missing file, permission denied; the ``VTError/cause`` is `avformat_open_input`'s status
    ///   with the system's message, the ``VTError/hint`` what to check);
    ///   ``VTError/sampleBufferInvalidMediaFormat`` when it is not a container libavformat knows
    ///   (with the cause and a hint naming the containers VAToolbox reads) or has no video track;
    ///   ``VTError/parameter`` when `track` is not a video track of the file;
    ///   ``VTError/couldNotFindVideoDecoder`` when the video is in a codec VAToolbox does not
    ///   decode; ``VTError/formatDescriptionInvalidParameter`` when its decoder configuration is
    ///   malformed, or lacks parameter sets no sample carries.
    public init(path: String, track: Int? = nil, frameRate: FrameRate? = nil) throws(VTError) {
        let demuxer = try Demuxer(path: path, track: track, frameRate: frameRate)
        codecType = demuxer.codecType
        formatDescription = demuxer.formatDescription
        containerName = demuxer.containerName
        timescale = demuxer.timescale
        self.path = demuxer.path
        videoTracks = demuxer.videoTracks
        self.track = demuxer.track
        startTime = demuxer.startTime
        assumedFrameRate = demuxer.assumedFrameRate
        self.demuxer = Mutex(demuxer)
    }

    /// The next sample in decode order, or nil at the end of the track.
    ///
    /// Damaged samples do not throw (see ``damagedSamples``).
    ///
    /// - Throws: ``VTError/allocationFailed`` when memory runs out.
    public func nextSample() throws(VTError) -> SampleBuffer? {
        try demuxer.withLock { (demuxer: inout Demuxer) throws(VTError) in try demuxer.nextSample() }
    }

    /// Reads every remaining sample.
    ///
    /// - Throws: ``VTError/allocationFailed`` when memory runs out.
    public func readAllSamples() throws(VTError) -> [SampleBuffer] {
        try demuxer.withLock { (demuxer: inout Demuxer) throws(VTError) in try demuxer.readAllSamples() }
    }

    /// Moves to the sync sample at or before `time`, so that the next sample read is that sync
    /// sample and decoding can start there.
    ///
    /// The first sample after the move carries ``SampleAttachments/resetDecoderBeforeDecoding``
    /// (a session hands out what it holds and starts afresh there). With `exactly`, the samples
    /// presented before `time` are ``SampleAttachments/doNotDisplay``: decoded as references,
    /// not shown, so that the first picture out is the one at `time` — frame-accurate random
    /// access for the cost of decoding from the sync sample, as the ffmpeg CLI's `-ss` does.
    /// A raw H.264/HEVC stream, whose time stamps exist only as it is read in order, is read
    /// again from its start up to `time` (holding the samples from the last sync sample); so is a
    /// container where libavformat's seek leaves no sample to read, or lands on a sample that is
    /// not a sync sample (MPEG-TS, which has no index: libavformat finds the packet nearest the
    /// time, key frame or not).
    ///
    /// Out of range, the seek throws rather than leaving a reader that shows nothing:
    /// - **Before the start**: a negative time (earlier than ``startTime`` too, for a file whose
    ///   time line starts below zero) throws ``VTError/parameter``, and the reader stays where it
    ///   was. A time from zero up to the first sample's is not an error: the reader moves to the
    ///   first sync sample, as `ffmpeg -ss` does.
    /// - **Past the end**: a time at or after the end of the last sample presented (no sample is
    ///   presented at or after it, nor lasts past it) throws
    ///   ``VTError/sampleBufferSampleIndexOutOfRange``, with or without `exactly`. The reader
    ///   finds out by reading on from the sync sample, so it then stands at the end of the track
    ///   (``nextSample()`` returns nil); seek again to read on.
    ///
    /// Samples are read ahead, up to the first one presented at or after `time` (at most the
    /// group of pictures that holds it), and handed out by ``nextSample()`` as usual.
    ///
    /// - Parameters:
    ///   - time: A presentation time on the track's time line (add ``startTime`` to a time
    ///     counted from the start of the file, as `ffmpeg -ss` counts).
    ///   - exactly: Whether to hide the pictures before `time`.
    /// - Throws: ``VTError/parameter`` for a time that is not numeric, before the start, or past any
    ///   time stamp the file's time base can hold;
    ///   ``VTError/sampleBufferSampleIndexOutOfRange`` for a time past the end of the track;
    ///   ``VTError/sampleBufferDataFailed`` when libavformat cannot seek in the file;
    ///   ``VTError/allocationFailed`` when memory runs out.
    public func seek(to time: MediaTime, exactly: Bool = true) throws(VTError) {
        try demuxer.withLock { (demuxer: inout Demuxer) throws(VTError) in try demuxer.seek(to: time, exactly: exactly)
        }
    }
}
