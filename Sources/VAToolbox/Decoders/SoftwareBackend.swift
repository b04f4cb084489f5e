internal import CFFmpeg

/// Decoding on the CPU through libavcodec, with frame threads (slice threads in real-time mode
/// and for streams that may code fields).
final class SoftwareBackend: DecoderBackend {
    var hardware: HardwareDecoding? { nil }

    private let decoder: LibavcodecContext
    /// How the decoder runs, as it was opened.
    private let configuration: SoftwareDecoderConfiguration

    /// Opens a libavcodec software decoder for the stream a format description describes: the
    /// codec's preferred decoder (libdav1d for AV1) when this libavcodec has it, else the native one.
    ///
    /// - Throws: See ``LibavcodecContext/init(formatDescription:preferredDecoders:configure:)``.
    init(formatDescription: VideoFormatDescription, configuration: SoftwareDecoderConfiguration) throws(VTError) {
        // Frame threads, except in real-time mode and for streams that may code field pictures:
        // libavcodec 5.1 decoding field pairs on frame threads marks an occasional frame
        // FF_DECODE_ERROR_CONCEALMENT_ACTIVE although its pixels are exact (a race; on
        // HCAFF1_HHI one run in two), which would be reported as damage that is not there.
        self.configuration = configuration
        let sliceThreadsOnly = configuration.realTime || formatDescription.stream.mayBeInterlaced
        decoder = try LibavcodecContext(
            formatDescription: formatDescription,
            preferredDecoders: formatDescription.codecSupport.preferredSoftwareDecoders
        ) { context in
            context.pointee.thread_count = Int32(max(0, configuration.threadCount))
            // libavcodec refuses a picture past the limit before allocating it (`ff_set_dimensions`,
            // `ff_get_buffer`: `av_image_check_size2`), a size changed in band included.
            context.pointee.max_pixels = Int64(configuration.maximumPixels)
            context.pointee.thread_type =
                sliceThreadsOnly ? Int32(FF_THREAD_SLICE) : Int32(FF_THREAD_FRAME | FF_THREAD_SLICE)
            // Real time on a stream that never reorders: each picture leaves the decoder with its
            // own packet (libdav1d otherwise keeps a frame delay of its own).
            if configuration.realTime && formatDescription.stream.maxNumReorderFrames == 0 {
                context.pointee.flags |= Int32(AV_CODEC_FLAG_LOW_DELAY)
            }
        }
    }

    func decode(_ data: [UInt8], token: Int64) -> DecodeStep {
        let (pictures, error) = decoder.send(data, token: token, picture: LibavcodecContext.picture)
        return DecodeStep(pictures: pictures, failure: error.map { .sample($0, isDeviceFault: false) })
    }

    func drain() -> [DecodedPicture] {
        decoder.drain(picture: LibavcodecContext.picture)
    }

    func reconfigure(for format: VideoFormatDescription) {
        decoder.adopt(format)
    }

    func needsReopening(for configuration: SoftwareDecoderConfiguration) -> Bool {
        configuration != self.configuration
    }

    /// The threads libavcodec runs: the count asked for, or the one it chose for 0.
    var decodingThreads: Int { max(1, Int(decoder.context.pointee.thread_count)) }
}
