/// The codecs VAToolbox decodes, by codec type.
enum CodecRegistry {
    /// Every supported codec, in the order the tool lists them.
    static let all: [any CodecSupport] = [
        H264CodecSupport(), HEVCCodecSupport(), AV1CodecSupport(), VP9CodecSupport(), VP8CodecSupport(),
        MPEG2CodecSupport(),
    ]

    /// The support of a codec; nil for a codec VAToolbox does not decode.
    static func support(for codec: VideoCodecType) -> (any CodecSupport)? {
        all.first { $0.codecType == codec }
    }

    /// The support of the codec FFmpeg names so (`avcodec_get_name`: `"h264"`, `"mpeg2video"`).
    static func support(forFFmpegName name: String) -> (any CodecSupport)? {
        all.first { $0.ffmpegName == name }
    }

    /// `"H.264, HEVC, …"`, for messages that list what VAToolbox decodes.
    static var names: String { all.map(\.displayName).joined(separator: ", ") }
}

extension VideoFormatDescription {
    /// The support of the description's codec. A description exists only for a registered codec.
    var codecSupport: any CodecSupport {
        guard let support = CodecRegistry.support(for: codecType) else {
            preconditionFailure("no codec support registered for \(codecType)")
        }
        return support
    }
}
