// What the codec registry knows of a codec type: the value lives in CoreMedia, the knowledge here,
// so that CoreMedia names nothing above it (Docs/Architecture.md, "Layers").
extension VideoCodecType {
    /// The codec's name for people, `"H.264"`, `"HEVC"`, `"AV1"`, `"VP9"`, `"VP8"` or
    /// `"MPEG-2"`; the FourCC for a codec VAToolbox does not decode.
    public var name: String { CodecRegistry.support(for: self)?.displayName ?? fourCC }

    /// FFmpeg's name of the codec (`"h264"`, `"hevc"`, `"av1"`, `"vp9"`, `"vp8"`,
    /// `"mpeg2video"`), as `ffprobe` prints `codec_name`; nil for a codec VAToolbox does not decode.
    public var ffmpegName: String? { CodecRegistry.support(for: self)?.ffmpegName }

    /// Whether VAToolbox decodes the codec.
    public var isDecodable: Bool { CodecRegistry.support(for: self) != nil }

    /// Every codec VAToolbox decodes.
    public static var decodable: [VideoCodecType] { CodecRegistry.all.map(\.codecType) }
}
