internal import CFFmpeg

/// An opened input file — libavformat's `AVFormatContext` from `avformat_open_input` — closed
/// (`avformat_close_input`) when the last reference goes, also when an initialiser that opened
/// it throws.
final class FormatContext {
    /// The context; valid for the object's lifetime.
    let pointer: UnsafeMutablePointer<AVFormatContext>

    /// Opens `path` and reads its header, with what libavformat logs meanwhile claimed by `log`.
    ///
    /// - Parameter options: Demuxer options, as `ffmpeg` takes them before `-i` (`framerate`
    ///   for the raw video demuxers); options a demuxer does not have are ignored.
    ///
    /// - Throws: ``VTError/sampleBufferInvalidMediaFormat`` when libavformat knows no container
    ///   for it; ``VTError/sampleBufferDataFailed`` when it cannot be opened or read. Where
    ///   libavformat logged why, the reason quotes it (`"… is not a media file VAToolbox can
    ///   read: moov atom not found"`). The cause is `avformat_open_input`'s status and message
    ///   (the `errno` text for a file the system cannot open), and the hint says what to check
    ///   (see ``openFailure(_:path:)``).
    init(path: String, log: LibavLogCapture, options: [String: String] = [:]) throws(VTError) {
        // Allocated here, so that what libavformat logs while opening is claimed as the reader's.
        let allocated = avformat_alloc_context()
        log.claim(allocated)
        var context = allocated
        var dictionary: OpaquePointer?
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        defer { av_dict_free(&dictionary) }
        let status = log.whileCalling { avformat_open_input(&context, path, nil, &dictionary) }
        guard status >= 0, let context else {
            log.release(allocated)  // freed by avformat_open_input
            throw Self.openFailure(status, path: path).quoting(log.explanation(since: 0))
        }
        pointer = context
    }

    /// The error for `avformat_open_input`'s negative `status` on `path`: the status and its
    /// message as the cause, and a hint for the failures a user can do something about.
    ///
    /// | status | error | hint |
    /// |---|---|---|
    /// | `AVERROR_INVALIDDATA`, an MP4/MOV cut short | ``VTError/sampleBufferInvalidMediaFormat`` | the file is truncated |
    /// | `AVERROR_INVALIDDATA` | ``VTError/sampleBufferInvalidMediaFormat`` | the containers VAToolbox reads |
    /// | `AVERROR(ENOENT)`, `AVERROR(ENOTDIR)` | ``VTError/sampleBufferDataFailed`` | check the path |
    /// | `AVERROR(EACCES)`, `AVERROR(EPERM)` | ``VTError/sampleBufferDataFailed`` | check the permissions |
    /// | `AVERROR(EISDIR)` | ``VTError/sampleBufferDataFailed`` | name a file |
    /// | any other | ``VTError/sampleBufferDataFailed`` | none |
    static func openFailure(_ status: Int32, path: String) -> VTError {
        let cause = FFmpegStatus.formatCause(status, "avformat_open_input")
        switch status {
        case CFFmpeg_AVERROR_INVALIDDATA():
            if let cut = cutISOBaseMediaFile(path) {
                return VTError.sampleBufferInvalidMediaFormat.with(
                    "\(path) is truncated: \(cut)", cause: cause,
                    hint: "the file was cut short (a download or a copy that stopped), and its moov box, which "
                        + "indexes its samples, went with its end: read the whole file")
            }
            return VTError.sampleBufferInvalidMediaFormat.with(
                "\(path) is not a media file VAToolbox can read", cause: cause,
                hint: "the file is not a video container VAToolbox reads (MP4/MOV, Matroska/WebM, MPEG-TS, IVF, "
                    + "AV1 OBU, or a raw H.264, HEVC or MPEG-2 stream)")
        case CFFmpeg_AVERROR(ENOENT), CFFmpeg_AVERROR(ENOTDIR):
            return VTError.sampleBufferDataFailed.with(
                "cannot open \(path): there is no such file", cause: cause, hint: "check the path")
        case CFFmpeg_AVERROR(EACCES), CFFmpeg_AVERROR(EPERM):
            return VTError.sampleBufferDataFailed.with(
                "cannot open \(path): permission denied", cause: cause,
                hint: "check the file's permissions: this process may not read it")
        case CFFmpeg_AVERROR(EISDIR):
            return VTError.sampleBufferDataFailed.with(
                "cannot open \(path): it is a directory", cause: cause, hint: "name a file, not a directory")
        default:
            return VTError.sampleBufferDataFailed.with("cannot open \(path)", cause: cause)
        }
    }

    /// What is known of an ISO base media file (MP4, MOV: it starts with an `ftyp` box) whose
    /// top-level boxes run past its end: an MP4 cut short, which libavformat cannot open when its
    /// `moov` box came after the cut; nil for any other file.
    static func cutISOBaseMediaFile(_ path: String) -> MediaFileTruncation? {
        guard let file = FileBytes(path: path), file.size > 0, file.read(at: 4, count: 4) == Array("ftyp".utf8),
            let overrun = ContainerExtent.overrun(.isoBaseMedia, fileSize: file.size, read: file.read)
        else { return nil }
        return MediaFileTruncation(
            fileSize: file.size, expectedSize: overrun.end, element: overrun.element, expectedSampleCount: nil,
            completeSampleCount: nil, firstIncompleteSampleOffset: nil)
    }

    deinit {
        var context: UnsafeMutablePointer<AVFormatContext>? = pointer
        avformat_close_input(&context)
    }
}

/// One `AVPacket` reused for every read, freed (`av_packet_free`) with the object.
final class PacketBuffer {
    /// The packet; valid for the object's lifetime.
    let pointer: UnsafeMutablePointer<AVPacket>

    /// - Throws: ``VTError/allocationFailed`` when libavcodec cannot allocate it.
    init() throws(VTError) {
        guard let packet = av_packet_alloc() else { throw VTError.allocationFailed.with("allocating a packet") }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }
}

/// A file opened a second time through libavformat's I/O (`avio_open2`: every path and protocol
/// libavformat opens), to read bytes at offsets without moving the demuxer's own context; closed
/// (`avio_closep`) with the object.
final class FileBytes {
    private var context: UnsafeMutablePointer<AVIOContext>?

    /// Opens `path` for reading; nil when it cannot be opened.
    init?(path: String) {
        guard avio_open2(&context, path, AVIO_FLAG_READ, nil, nil) >= 0, context != nil else { return nil }
    }

    deinit { avio_closep(&context) }

    /// The file's size in bytes (`avio_size`); negative when libavformat cannot tell (a pipe).
    var size: Int64 { context.map { avio_size($0) } ?? -1 }

    /// The bytes at `offset`, up to `count` (fewer at the end of the file); nil when the file
    /// cannot seek there or read.
    func read(at offset: Int64, count: Int) -> [UInt8]? {
        guard let context, count > 0, avio_seek(context, offset, SEEK_SET) == offset else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBufferPointer { avio_read(context, $0.baseAddress, Int32(count)) }
        guard read > 0 else { return nil }
        return Array(bytes.prefix(Int(read)))
    }
}
