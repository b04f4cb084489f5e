extension HEVCCodecSupport {
    var sampleNoun: String { "access unit" }
    var statesTier: Bool { true }
    /// Left: libavcodec's HEVC decoder states it for every 4:2:0 stream without VUI siting.
    func inferredChromaSiting(for format: VideoFormatDescription) -> ChromaSiting { .left }
}
