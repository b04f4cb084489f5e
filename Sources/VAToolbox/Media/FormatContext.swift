internal import CFFmpeg

/// An opened input file — libavformat's `AVFormatContext` from `avformat_open_input` — closed
/// (`avformat_close_input`) when the last reference goes, also when an initialiser that opened
/// it throws.
final class FormatContext {
    /// The context; valid for the object's lifetime.
    let pointer: UnsafeMutablePointer<AVFormatContext>

    /// Opens `path` and reads its header.
    ///
    /// - Throws: ``VTError/sampleBufferInvalidMediaFormat`` when libavformat knows no container
    ///   for it; ``VTError/sampleBufferDataFailed`` when it cannot be opened or read.
    init(path: String) throws(VTError) {
        var context: UnsafeMutablePointer<AVFormatContext>?
        let status = avformat_open_input(&context, path, nil, nil)
        guard status >= 0, let context else {
            if status == CFFmpeg_AVERROR_INVALIDDATA() {
                throw VTError.sampleBufferInvalidMediaFormat.with("\(path) is not a media file VAToolbox can read")
            }
            throw VTError.sampleBufferDataFailed.with("cannot open \(path): \(FFmpegStatus.message(status))")
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
