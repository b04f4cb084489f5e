/// Decoding on the CPU through libavcodec, with frame threads (slice threads in real-time mode
/// and, where the linked libavcodec needs it, for streams that may code fields).
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
        self.configuration = configuration
        // Frame threads, except in real-time mode, and for streams that may code field pictures
        // where libavcodec races on field pairs (``LibavcodecVersion/racesOnFieldPairsWithFrameThreads``):
        // it would report damage that is not there.
        let sliceThreadsOnly =
            configuration.realTime
            || (formatDescription.stream.mayBeInterlaced && LibavcodecVersion.linked.racesOnFieldPairsWithFrameThreads)
        decoder = try LibavcodecContext(
            formatDescription: formatDescription,
            preferredDecoders: formatDescription.codecSupport.preferredSoftwareDecoders
        ) { (context: DecoderContext) throws(VTError) in
            // libavcodec refuses a picture past the pixel limit before allocating it
            // (`ff_set_dimensions`, `ff_get_buffer`: `av_image_check_size2`), a size changed in
            // band included. Real time on a stream that never reorders: each picture leaves the
            // decoder with its own packet (libdav1d otherwise keeps a frame delay of its own).
            context.setThreads(
                max(0, configuration.threadCount), sliceThreadsOnly ? .slices : .framesAndSlices,
                maximumPixels: configuration.maximumPixels,
                lowDelay: configuration.realTime && formatDescription.stream.maxNumReorderFrames == 0)
        }
    }

    /// Whether the linked libavcodec decodes a stream on the CPU and VAToolbox can hand out its
    /// pictures: the codec's own check, and a refusal of the streams the codec says would meet a
    /// fault of libavcodec where the linked one has it (``CodecSupport/softwareDecoderFault(for:)``).
    ///
    /// - Throws: ``VTError/couldNotFindVideoDecoder`` naming what is not supported.
    static func checkDecodable(_ format: VideoFormatDescription) throws(VTError) {
        let support = format.codecSupport
        try support.checkSoftwareDecodable(format)
        if let (fault, refusal) = support.softwareDecoderFault(for: format), LibavcodecVersion.linked.has(fault) {
            throw refusal
        }
    }

    func decode(_ data: [UInt8], token: Int64) -> DecodeStep {
        let (pictures, error) = decoder.send(data, token: token, picture: Self.picture(of:))
        return DecodeStep(pictures: pictures, failure: error.map { .sample($0, isDeviceFault: false) })
    }

    func drain() -> [DecodedPicture] {
        decoder.drain(picture: Self.picture(of:))
    }

    /// A decoded CPU frame as a picture.
    private static func picture(of frame: Frame) throws(VTError) -> DecodedPicture {
        try LibavcodecContext.picture(of: frame)
    }

    func reconfigure(for format: VideoFormatDescription) {
        decoder.adopt(format)
    }

    func needsReopening(for configuration: SoftwareDecoderConfiguration) -> Bool {
        configuration != self.configuration
    }

    /// The threads libavcodec runs: the count asked for, or the one it chose for 0.
    var decodingThreads: Int { max(1, decoder.context.threadCount) }
}
