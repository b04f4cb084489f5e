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

    /// The codec's word for one sample: "access unit" (H.264, HEVC, MPEG-2), "temporal unit"
    /// (AV1), "sample" (VP8 and VP9, whose sample is one IVF frame or container block, maybe a
    /// superframe, and for a codec VAToolbox does not decode).
    public var sampleNoun: String { CodecRegistry.support(for: self)?.sampleNoun ?? "sample" }

    /// Whether the codec's streams state a level: H.264, HEVC, AV1 and MPEG-2 do; VP8 has no
    /// levels, and VP9's are not in its bitstream.
    public var statesLevel: Bool { CodecRegistry.support(for: self)?.statesLevel ?? false }

    /// Whether the codec's streams state a tier (HEVC's main or high).
    public var statesTier: Bool { CodecRegistry.support(for: self)?.statesTier ?? false }
}
