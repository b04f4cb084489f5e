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
    ///   read: moov atom not found"`).
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
            let error =
                status == CFFmpeg_AVERROR_INVALIDDATA()
                ? VTError.sampleBufferInvalidMediaFormat.with("\(path) is not a media file VAToolbox can read")
                : VTError.sampleBufferDataFailed.with("cannot open \(path): \(FFmpegStatus.message(status))")
            throw error.quoting(log.explanation(since: 0))
        }
        pointer = context
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
