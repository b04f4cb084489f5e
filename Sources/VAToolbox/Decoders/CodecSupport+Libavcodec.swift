extension CodecSupport {
    /// The libavcodec codec the stream is, as libavformat reports it and the VA-API hwaccel
    /// decodes: the codec FFmpeg names ``ffmpegName``; nil when this libavcodec knows no such codec.
    var libavcodecID: CodecID? { CodecID(name: ffmpegName) }
}
