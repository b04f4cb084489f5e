extension FormatInput {
    /// Opens a media file for a reader or a stream list: reads its header, with what libavformat
    /// logs meanwhile claimed by `log`.
    ///
    /// - Parameter options: Demuxer options, as `ffmpeg` takes them before `-i` (`framerate`
    ///   for the raw video demuxers); options a demuxer does not have are ignored.
    ///
    /// - Throws: ``VTError/sampleBufferInvalidMediaFormat`` when libavformat knows no container
    ///   for it; ``VTError/sampleBufferDataFailed`` when it cannot be opened or read. Where
    ///   libavformat logged why, the reason quotes it (`"… is not a media file VAToolbox can
    ///   read: moov atom not found"`). The cause is `avformat_open_input`'s status and message
    ///   (the `errno` text for a file the system cannot open), and the hint says what to check
    ///   (see ``openFailure(_:path:)``). ``VTError/allocationFailed`` when memory runs out.
    convenience init(mediaFile path: String, log: LibavLogCapture, options: [String: String] = [:]) throws(VTError) {
        try self.init(path: path, log: log, options: options) { Self.openFailure($0, path: path) }
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
        switch OpenFailure(status: status) {
        case .invalidData:
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
        case .noSuchFile:
            return VTError.sampleBufferDataFailed.with(
                "cannot open \(path): there is no such file", cause: cause, hint: "check the path")
        case .permissionDenied:
            return VTError.sampleBufferDataFailed.with(
                "cannot open \(path): permission denied", cause: cause,
                hint: "check the file's permissions: this process may not read it")
        case .isDirectory:
            return VTError.sampleBufferDataFailed.with(
                "cannot open \(path): it is a directory", cause: cause, hint: "name a file, not a directory")
        case .other:
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
}
