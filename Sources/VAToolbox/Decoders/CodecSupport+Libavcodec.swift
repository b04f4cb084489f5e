internal import CFFmpeg

extension CodecSupport {
    /// The libavcodec codec the stream is, as libavformat reports it and the VA-API hwaccel
    /// decodes: the codec FFmpeg names ``ffmpegName``.
    var libavcodecID: AVCodecID {
        avcodec_descriptor_get_by_name(ffmpegName)?.pointee.id ?? AV_CODEC_ID_NONE
    }
}

extension CodecRegistry {
    /// The support of the codec libavformat reports for a stream.
    static func support(forLibavcodecID id: AVCodecID) -> (any CodecSupport)? {
        avcodec_get_name(id).flatMap { support(forFFmpegName: String(cString: $0)) }
    }
}
