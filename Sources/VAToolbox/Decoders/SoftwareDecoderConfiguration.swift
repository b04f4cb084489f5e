/// How a CPU back end (``SoftwareBackend``) runs libavcodec.
struct SoftwareDecoderConfiguration: Sendable, Hashable {
    /// Decoding threads; 0 lets libavcodec pick one per core.
    var threadCount = 0
    /// Low delay: slice threads instead of frame threads, so that no picture waits for other
    /// threads, and `AV_CODEC_FLAG_LOW_DELAY` for streams without reordering (output order and
    /// reordering are unchanged).
    var realTime = false
    /// The most pixels a picture may have (``PictureLimits``): libavcodec's `max_pixels`.
    var maximumPixels = 8192 * 8192
}
