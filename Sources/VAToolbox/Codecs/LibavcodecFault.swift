/// A known fault of libavcodec's decoder for one codec, as the codec's support names it where a
/// stream or a sample would meet it.
///
/// A codec knows the bitstream fact (the size a key frame starts, the profile a stream states);
/// whether the linked libavcodec has the fault is decided by the decoders, which know its
/// version (`LibavcodecVersion`, one named predicate per case), and they act only where it does.
enum LibavcodecFault: Sendable, Hashable {
    /// The VP8 decoder keeps its hardware surfaces when a key frame makes the picture larger.
    case vp8KeepsSurfacesOnLargerKeyFrames
    /// The AV1 decoder keeps its hardware surfaces when a new sequence header allows larger
    /// frames.
    case av1KeepsSurfacesOnNewSequences
    /// The HEVC decoder decodes streams of profiles beyond Main, Main 10, Main Still Picture and
    /// the format range extensions wrongly, without an error.
    case hevcMisdecodesProfilesBeyondRangeExtensions
}
