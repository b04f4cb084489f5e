extension VideoFormatDescription {
    /// The chroma siting libavcodec reports for the stream's pictures: the one the stream states
    /// (H.264/HEVC VUI `chroma_sample_loc_type_top_field`, AV1 `chroma_sample_position`), else the
    /// one the codec's decoder infers — left for HEVC, MPEG-2 and H.264 with VUI, none otherwise.
    public var decodedChromaSiting: ChromaSiting {
        if let location = extensions.chromaLocation {
            return location == 0 ? .left : location == 2 ? .topLeft : .other
        }
        return codecSupport.inferredChromaSiting(for: self)
    }

    /// Whether libavcodec states the colour range of the stream's pictures: always, but for an
    /// H.264 stream whose VUI does not send `video_signal_type_present_flag`.
    public var decoderStatesColorRange: Bool {
        codecSupport.statesColorRange(for: self)
    }
}
