/// One libavcodec decoder for one stream: the send/receive loop both back ends use
/// (``SoftwareBackend`` on the CPU, ``VAAPIBackend`` through libavcodec's VA-API hwaccel).
///
/// Not thread-safe: the session calls it from its own serial queue. Samples go in with
/// ``send(_:token:picture:)``; pictures come out in presentation order, each carrying the token
/// of its sample. libavcodec delays output by the stream's reorder depth (and, with frame
/// threads, by the thread count); ``drain(picture:)`` returns what it holds. The caller turns
/// each decoded frame into a picture (the `picture` closures): a back end decides there what its
/// frames mean.
final class LibavcodecContext {
    /// Turns a decoded frame (the decoder's receiving frame, lent for the call) into a picture,
    /// moving the frame's buffers out.
    typealias PictureMaker = (Frame) throws(VTError) -> DecodedPicture

    /// The description whose stream this decoder is set up for.
    private(set) var formatDescription: VideoFormatDescription
    /// The static HDR metadata the samples carried where libavcodec does not export it
    /// (``CodecSupport/staticHDRMetadata(in:format:)``), the latest of each kind.
    private var streamHDRMetadata = StaticHDRMetadata()

    /// The libavcodec calls.
    let context: DecoderContext
    /// What libavcodec logs for this decoder: quoted in its errors and damaged pictures.
    private let log: LibavLogCapture

    /// Opens a libavcodec decoder for the stream a format description describes.
    ///
    /// - Parameters:
    ///   - formatDescription: The stream.
    ///   - preferredDecoders: libavcodec decoders to try by name before the codec's native one
    ///     (``CodecSupport/preferredSoftwareDecoders`` on the CPU; none for the hwaccel, which
    ///     runs inside the native decoders).
    ///   - configure: Sets the decoder's options before it opens (threads, hwaccel).
    /// - Throws: ``VTError/couldNotFindVideoDecoder`` when libavcodec lacks the codec,
    ///   ``VTError/allocationFailed`` when memory runs out, ``VTError/couldNotCreateInstance`` when
    ///   `avcodec_open2` refuses the stream's configuration, or what `configure` throws.
    init(
        formatDescription: VideoFormatDescription, preferredDecoders: [String] = [],
        configure: (DecoderContext) throws(VTError) -> Void
    ) throws(VTError) {
        let log = LibavLogCapture(.decoder)
        self.log = log
        let support = formatDescription.codecSupport
        guard let decoder = DecoderContext.find(named: preferredDecoders, else: support.libavcodecID) else {
            throw VTError.couldNotFindVideoDecoder.with(
                "this libavcodec has no \(support.displayName) decoder",
                hint: "install Debian's libavcodec59 (full FFmpeg build)")
        }
        context = try DecoderContext(decoder, log: log)
        self.formatDescription = formatDescription
        // The configuration record (avcC, hvcC, av1C) tells libavcodec the parameter sets and the
        // framing; codecs whose streams configure themselves in band need none.
        let record = formatDescription.extensions.decoderConfigurationRecord
        if support.needsConfigurationRecord && record.isEmpty {
            throw VTError.couldNotCreateInstance.with(
                "the format description has no configuration record to configure the \(support.displayName) "
                    + "decoder with")
        }
        if !record.isEmpty && support.passesConfigurationRecordToDecoder {
            try context.setConfigurationRecord(record)
        }
        // What the ffmpeg CLI tells a decoder of a container's stream (avcodec_parameters_to_context):
        // the size, which the H.264 decoder crops its pictures to when it is a little smaller than
        // the SPS's ("crop to container"), and which starts an MPEG-2 stream without a sequence
        // header; and the container's FourCC, by which the MPEG-2 decoder knows such a stream (VCR2).
        // The reorder depth is the one the SPS states, or the DPB size it implies when it states
        // none. Left at 0, libavcodec guesses it from the pictures it sees and drops the pictures
        // that come out of order before the guess grows (the ffmpeg CLI avoids that by probing the
        // stream first; FRExt_MMCO4_Sony_B loses two pictures without it).
        context.describeStream(
            width: Int(formatDescription.dimensions.width), height: Int(formatDescription.dimensions.height),
            codecTag: formatDescription.containerCodecTag, reorderDepth: formatDescription.stream.maxNumReorderFrames)
        let extensions = formatDescription.extensions
        context.describeColour(
            primaries: extensions.colorPrimaries.map { Int($0.rawValue) },
            transfer: extensions.transferFunction.map { Int($0.rawValue) },
            matrix: extensions.yCbCrMatrix.map { Int($0.rawValue) }, chromaLocation: extensions.chromaLocation)
        try configure(context)
        let mark = log.mark
        let status = context.open()
        guard status >= 0 else {
            throw FFmpegStatus.error(status, "avcodec_open2", "opening the libavcodec \(support.displayName) decoder")
                .replacingStatus(with: .couldNotCreateInstance).quoting(log.explanation(since: mark))
        }
    }

    /// Runs once the decoder is closed, when libavcodec holds no picture any more: a back end
    /// frees there what only libavcodec's pictures needed (``DecoderSurfaces``).
    var afterClose: (() -> Void)? {
        get { context.afterClose }
        set { context.afterClose = newValue }
    }

    /// Decodes one sample's data.
    ///
    /// - Returns: The pictures that became ready, in presentation order, and the error when
    ///   libavcodec rejected the data (``VTError/videoDecoderBadData`` or another mapped status)
    ///   or a picture could not be received; the pictures that were ready are returned either way.
    func send(_ data: [UInt8], token: Int64, picture: PictureMaker) -> (pictures: [DecodedPicture], error: VTError?) {
        log.whileCalling { sendLogged(data, token: token, picture: picture) }
    }

    /// ``send(_:token:picture:)``, while this decoder's log is current.
    private func sendLogged(_ data: [UInt8], token: Int64, picture: PictureMaker) -> (
        pictures: [DecodedPicture], error: VTError?
    ) {
        var pictures: [DecodedPicture] = []
        do throws(VTError) {
            // The token comes back as the picture's `pts`, as the `pkt_dts` of the picture this
            // packet releases from the decoder's reorder buffer, and on what libavcodec logs while
            // decoding this sample, on any thread.
            if let found = formatDescription.codecSupport.staticHDRMetadata(in: data, format: formatDescription) {
                streamHDRMetadata = streamHDRMetadata.updated(by: found)
            }
            try context.loadPacket(data, token: token)
            defer { context.unloadPacket() }
            var status = context.sendPacket()
            if FFmpegStatus.isAgain(status) {
                // The decoder is full: take what it has ready, then the packet fits.
                try receiveAll(picture, into: &pictures)
                status = context.sendPacket()
            }
            if status < 0 && !FFmpegStatus.isAgain(status) {
                throw FFmpegStatus.error(
                    status, "avcodec_send_packet", "decoding a \(formatDescription.codecSupport.displayName) sample"
                )
            }
            try receiveAll(picture, into: &pictures)
            return (pictures, nil)
        } catch {
            // With frame threads, the error libavcodec returns now is a sample's sent up to a
            // thread count earlier: quote the last error of those samples.
            let threads = Int64(max(context.threadCount, 1))
            return (pictures, error.quoting(log.explanation(forTokens: (token - threads)...token)))
        }
    }

    /// Returns every picture the decoder still holds (end of stream), then makes it ready to
    /// decode again from the next sync sample with the same description.
    func drain(picture: PictureMaker) -> [DecodedPicture] {
        log.whileCalling { () -> [DecodedPicture] in
            context.sendEndOfStream()
            var pictures: [DecodedPicture] = []
            try? receiveAll(picture, into: &pictures)
            context.flush()
            return pictures
        }
    }

    /// Records that the stream continues with `newFormat`, whose configuration the caller sends in band.
    func adopt(_ newFormat: VideoFormatDescription) {
        formatDescription = newFormat
    }

    /// Receives every picture the decoder has ready, appending as it goes so that an error
    /// loses none already received.
    private func receiveAll(_ picture: PictureMaker, into pictures: inout [DecodedPicture]) throws(VTError) {
        while true {
            let status = context.receiveFrame()
            if FFmpegStatus.isAgain(status) || FFmpegStatus.isEndOfFile(status) { return }
            try FFmpegStatus.check(status, "avcodec_receive_frame", "receiving a decoded picture")
            let frame = context.receivedFrame
            // What the stream said last, else what its container says, where the decoder
            // attached nothing of its own.
            let extensions = formatDescription.extensions
            let mastering = streamHDRMetadata.masteringDisplay ?? extensions.masteringDisplayColorVolume
            let light = streamHDRMetadata.contentLightLevel ?? extensions.contentLightLevel
            if mastering != nil || light != nil {
                // The container's, where neither the decoder nor our reading of the stream had one:
                // marked so that a reader can tell it from the stream's (ffprobe shows it as the
                // stream's side data, not the frame's).
                let containerMastering = frame.masteringDisplay == nil && streamHDRMetadata.masteringDisplay == nil
                let containerLight = frame.contentLightLevel == nil && streamHDRMetadata.contentLightLevel == nil
                frame.attachStaticHDRMetadata(mastering?.libavCodes, light?.libavValues)
                frame.markStaticHDRMetadataFromContainer(
                    masteringDisplay: containerMastering && mastering != nil,
                    contentLightLevel: containerLight && light != nil)
            }
            if let ambient = streamHDRMetadata.ambientViewingEnvironment ?? extensions.ambientViewingEnvironment {
                frame.attachAmbientViewingEnvironment(
                    (ambient.illuminanceCode, ambient.light.xCode, ambient.light.yCode))
            }
            if let alternative = streamHDRMetadata.alternativeTransferCharacteristics
                ?? extensions.alternativeTransferCharacteristics
            {
                // Apple's kCVImageBufferTransferFunctionKey is the parameter sets' transfer; the
                // preferred one is stated apart.
                frame.separateAlternativeTransfer(
                    stated: extensions.transferFunction?.rawValue ?? TransferFunction.unspecified.rawValue,
                    alternative: alternative.rawValue)
            }
            if let profile = extensions.iccProfile { frame.attachContainerICCProfile(profile) }
            pictures.append(explained(try picture(frame)))
        }
    }

    /// A damaged picture's status with the decoder's last error while decoding its sample.
    private func explained(_ picture: DecodedPicture) -> DecodedPicture {
        guard let status = picture.status, let message = log.explanation(forToken: picture.token) else {
            return picture
        }
        var explained = picture
        explained.status = status.quoting(message)
        return explained
    }

    /// Wraps a decoded frame in CPU memory (or a surface frame, as a surface) as a picture,
    /// moving its buffers out; its status is what libavcodec says is wrong with it. A surface's
    /// picture reaches its pixels through `surfaceAccess` (its device).
    static func picture(of frame: Frame, surfaceAccess: (any SurfaceAccess)? = nil) throws(VTError) -> DecodedPicture {
        let token = frame.timeStamp
        let released = frame.releasingTimeStamp
        let damage = damage(of: frame)
        let layout = frame.sampleLayout
        guard let pixelFormat = PixelFormat.from(ffmpeg: layout, fullRange: frame.isFullRange) else {
            let name = layout.name ?? "\(layout.rawValue)"
            frame.unreference()
            throw VTError.videoDecoderUnsupportedDataFormat.with(
                "the decoder produced pixel format \(name), which VAToolbox cannot hand out")
        }
        guard let reference = FrameReference(movingFrom: frame) else {
            throw VTError.allocationFailed.with("allocating a frame")
        }
        return DecodedPicture(
            token: token,
            pixelBuffer: PixelBuffer(taking: reference, pixelFormat: pixelFormat, surfaceAccess: surfaceAccess),
            status: damage, releasedBy: released)
    }

    /// What libavcodec says is wrong with a decoded frame.
    private static func damage(of frame: Frame) -> VTError? {
        let errors = frame.decodeErrors
        if errors.contains(.missingReference) {
            return VTError.videoDecoderReferenceMissing.with(
                "the picture refers to a picture the decoder does not have")
        }
        let corrupt = frame.isMarkedCorrupt
        if !errors.isEmpty || corrupt {
            return VTError.videoDecoderBadData.with(
                "the picture's data is damaged; the decoder concealed the errors",
                cause: UnderlyingCause(
                    library: "libavcodec", function: "avcodec_receive_frame", code: errors.rawValue,
                    message: damageDescription(errors: errors, corrupt: corrupt)))
        }
        return nil
    }

    /// libavcodec's account of a damaged frame: its `decode_error_flags` and `AV_FRAME_FLAG_CORRUPT`.
    private static func damageDescription(errors: Frame.DecodeErrors, corrupt: Bool) -> String {
        let names: [(Frame.DecodeErrors, String)] = [
            (.invalidBitstream, "invalid bitstream"), (.missingReference, "missing reference"),
            (.concealmentActive, "concealment active"), (.slicesNotDecoded, "slices not decoded"),
        ]
        var parts = names.filter { errors.contains($0.0) }.map(\.1)
        if corrupt { parts.append("frame marked corrupt") }
        return "decode_error_flags: " + (parts.isEmpty ? "none" : parts.joined(separator: ", "))
    }
}

extension VTError {
    /// The same explanation under another status.
    func replacingStatus(with other: VTError) -> VTError {
        VTError(status: other.status, reason: reason, cause: cause, hint: hint)
    }
}
