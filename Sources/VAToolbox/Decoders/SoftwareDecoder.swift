internal import CFFmpeg

/// H.264 / HEVC decoding on the CPU through libavcodec, with frame threads (or slice threads in
/// real-time mode).
final class SoftwareDecoder: LibavcodecDecoder {
    /// How the decoder runs.
    struct Configuration: Sendable, Hashable {
        /// Decoding threads; 0 lets libavcodec pick one per core.
        var threadCount = 0
        /// Low delay: slice threads instead of frame threads, so that no picture waits for other
        /// threads (output order and reordering are unchanged).
        var realTime = false
    }

    /// Opens a libavcodec software decoder for the stream a format description describes.
    ///
    /// - Throws: See ``LibavcodecDecoder/init(formatDescription:configure:)``.
    init(formatDescription: VideoFormatDescription, configuration: Configuration) throws(VTError) {
        try super.init(formatDescription: formatDescription) { context in
            context.pointee.thread_count = Int32(max(0, configuration.threadCount))
            context.pointee.thread_type =
                configuration.realTime ? Int32(FF_THREAD_SLICE) : Int32(FF_THREAD_FRAME | FF_THREAD_SLICE)
        }
    }
}
