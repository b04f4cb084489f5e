extension MPEG2CodecSupport {
    var sampleNoun: String { "access unit" }
    /// Left: `mpeg12dec` states it for 4:2:0.
    func inferredChromaSiting(for format: VideoFormatDescription) -> ChromaSiting { .left }
}
