internal import CFFmpeg

#if canImport(Glibc)
    import Glibc
#endif

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
    /// Turns a decoded frame into a picture, moving the frame's buffers out.
    typealias PictureMaker = (UnsafeMutablePointer<AVFrame>) throws(VTError) -> DecodedPicture

    /// The description whose stream this decoder is set up for.
    private(set) var formatDescription: VideoFormatDescription

    let context: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    /// What libavcodec logs for this decoder: quoted in its errors and damaged pictures.
    private let log = LibavLogCapture(.decoder)

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
        configure: (UnsafeMutablePointer<AVCodecContext>) throws(VTError) -> Void
    ) throws(VTError) {
        let support = formatDescription.codecSupport
        let preferred = preferredDecoders.lazy.compactMap { avcodec_find_decoder_by_name($0) }.first
        guard let codec = preferred ?? avcodec_find_decoder(support.libavcodecID) else {
            throw VTError.couldNotFindVideoDecoder.with(
                "this libavcodec has no \(support.displayName) decoder",
                hint: "install Debian's libavcodec59 (full FFmpeg build)")
        }
        guard let context = avcodec_alloc_context3(codec), let packet = av_packet_alloc(), let frame = av_frame_alloc()
        else {
            throw VTError.allocationFailed.with("allocating a libavcodec decoder")
        }
        self.context = context
        self.packet = packet
        self.frame = frame
        self.formatDescription = formatDescription
        log.claim(context)
        // The configuration record (avcC, hvcC, av1C) tells libavcodec the parameter sets and the
        // framing; codecs whose streams configure themselves in band need none.
        let record = formatDescription.extensions.decoderConfigurationRecord
        if support.needsConfigurationRecord && record.isEmpty {
            throw VTError.couldNotCreateInstance.with(
                "the format description has no configuration record to configure the \(support.displayName) "
                    + "decoder with")
        }
        if !record.isEmpty && support.passesConfigurationRecordToDecoder {
            try Self.setExtradata(record, on: context)
        }
        // What the ffmpeg CLI tells a decoder of a container's stream (avcodec_parameters_to_context):
        // the size, which the H.264 decoder crops its pictures to when it is a little smaller than
        // the SPS's ("crop to container"), and which starts an MPEG-2 stream without a sequence
        // header; and the container's FourCC, by which the MPEG-2 decoder knows such a stream (VCR2).
        context.pointee.width = formatDescription.dimensions.width
        context.pointee.height = formatDescription.dimensions.height
        context.pointee.codec_tag = formatDescription.containerCodecTag
        // Exact cropping: without this flag libavcodec rounds an odd left/top crop to keep data aligned.
        context.pointee.flags |= Int32(AV_CODEC_FLAG_UNALIGNED)
        // The reorder depth the SPS states, or the DPB size it implies when it states none. Left
        // at 0, libavcodec guesses it from the pictures it sees and drops the pictures that come
        // out of order before the guess grows (the ffmpeg CLI avoids that by probing the stream
        // first; FRExt_MMCO4_Sony_B loses two pictures without it).
        context.pointee.has_b_frames = Int32(formatDescription.stream.maxNumReorderFrames)
        try configure(context)
        // Frame threads log with copies of this context that keep its `opaque`: claim that too
        // (the hwaccel keeps its own value there).
        if context.pointee.opaque == nil { context.pointee.opaque = log.opaqueKey }
        log.claim(context.pointee.opaque)
        context.pointee.reordered_opaque = CFFmpeg_AV_NOPTS_VALUE()
        let mark = log.mark
        let status = log.whileCalling { avcodec_open2(context, codec, nil) }
        guard status >= 0 else {
            throw FFmpegStatus.error(status, "avcodec_open2", "opening the libavcodec \(support.displayName) decoder")
                .replacingStatus(with: .couldNotCreateInstance).quoting(log.explanation(since: mark))
        }
    }

    /// Copies a configuration record into the context's `extradata`, padded as libavcodec wants.
    private static func setExtradata(
        _ record: [UInt8], on context: UnsafeMutablePointer<AVCodecContext>
    ) throws(VTError) {
        guard let extradata = av_mallocz(record.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
            throw VTError.allocationFailed.with("allocating the decoder configuration record")
        }
        record.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { extradata.copyMemory(from: base, byteCount: bytes.count) }
        }
        context.pointee.extradata = extradata.assumingMemoryBound(to: UInt8.self)
        context.pointee.extradata_size = Int32(record.count)
    }

    /// Runs once the decoder is closed, when libavcodec holds no picture any more: a back end
    /// frees there what only libavcodec's pictures needed (``DecoderSurfaces``).
    var afterClose: (() -> Void)?

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        log.whileCalling { avcodec_free_context(&context) }
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&packet)
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&frame)
        afterClose?()
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
            av_packet_unref(packet)
            try FFmpegStatus.check(av_new_packet(packet, Int32(data.count)), "av_new_packet", "allocating a packet")
            data.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                UnsafeMutableRawPointer(packet.pointee.data).copyMemory(from: base, byteCount: bytes.count)
            }
            // The token comes back as the picture's `pts`, and as the `pkt_dts` of the picture
            // this packet releases from the decoder's reorder buffer.
            packet.pointee.pts = token
            packet.pointee.dts = token
            // What libavcodec logs while decoding this sample, on any thread, carries its token.
            context.pointee.reordered_opaque = token
            defer { av_packet_unref(packet) }
            var status = avcodec_send_packet(context, packet)
            if FFmpegStatus.isAgain(status) {
                // The decoder is full: take what it has ready, then the packet fits.
                try receiveAll(picture, into: &pictures)
                status = avcodec_send_packet(context, packet)
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
            let threads = Int64(max(context.pointee.thread_count, 1))
            return (pictures, error.quoting(log.explanation(forTokens: (token - threads)...token)))
        }
    }

    /// Returns every picture the decoder still holds (end of stream), then makes it ready to
    /// decode again from the next sync sample with the same description.
    func drain(picture: PictureMaker) -> [DecodedPicture] {
        log.whileCalling { () -> [DecodedPicture] in
            _ = avcodec_send_packet(context, nil)
            var pictures: [DecodedPicture] = []
            try? receiveAll(picture, into: &pictures)
            avcodec_flush_buffers(context)
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
            let status = avcodec_receive_frame(context, frame)
            if FFmpegStatus.isAgain(status) || FFmpegStatus.isEndOfFile(status) { return }
            try FFmpegStatus.check(status, "avcodec_receive_frame", "receiving a decoded picture")
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

    /// Wraps a decoded frame in CPU memory as a picture, moving its buffers out; its status is
    /// what libavcodec says is wrong with it.
    static func picture(from frame: UnsafeMutablePointer<AVFrame>) throws(VTError) -> DecodedPicture {
        try picture(from: frame, surfaceAccess: nil)
    }

    /// Wraps a decoded frame in CPU memory (or a surface frame, as a surface) as a picture,
    /// moving its buffers out; its status is what libavcodec says is wrong with it. A surface's
    /// picture reaches its pixels through `surfaceAccess` (its device).
    static func picture(
        from frame: UnsafeMutablePointer<AVFrame>, surfaceAccess: (any SurfaceAccess)?
    ) throws(VTError) -> DecodedPicture {
        let token = frame.pointee.pts
        let released = frame.pointee.pkt_dts
        let damage = damage(of: frame)
        let fullRange = frame.pointee.color_range == AVCOL_RANGE_JPEG
        let format = frame.pointee.format.pixelFormat
        let dataFormat = format == AV_PIX_FMT_VAAPI ? CFFmpeg_frame_hw_sw_format(frame) : format
        guard let pixelFormat = PixelFormat.from(ffmpeg: dataFormat, fullRange: fullRange) else {
            let name = av_get_pix_fmt_name(dataFormat).map { String(cString: $0) } ?? "\(dataFormat)"
            av_frame_unref(frame)
            throw VTError.videoDecoderUnsupportedDataFormat.with(
                "the decoder produced pixel format \(name), which VAToolbox cannot hand out")
        }
        guard let reference = FrameReference(movingFrom: frame) else {
            throw VTError.allocationFailed.with("allocating a frame")
        }
        return DecodedPicture(
            token: token,
            pixelBuffer: PixelBuffer(taking: reference, pixelFormat: pixelFormat, surfaceAccess: surfaceAccess),
            status: damage, releasedBy: released == CFFmpeg_AV_NOPTS_VALUE() ? nil : released)
    }

    /// What libavcodec says is wrong with a decoded frame.
    private static func damage(of frame: UnsafeMutablePointer<AVFrame>) -> VTError? {
        let errors = frame.pointee.decode_error_flags
        if errors & Int32(FF_DECODE_ERROR_MISSING_REFERENCE) != 0 {
            return VTError.videoDecoderReferenceMissing.with(
                "the picture refers to a picture the decoder does not have")
        }
        let corrupt = frame.pointee.flags & Int32(AV_FRAME_FLAG_CORRUPT) != 0
        if errors != 0 || corrupt {
            return VTError.videoDecoderBadData.with(
                "the picture's data is damaged; the decoder concealed the errors",
                cause: UnderlyingCause(
                    library: "libavcodec", function: "avcodec_receive_frame", code: errors,
                    message: damageDescription(errors: errors, corrupt: corrupt)))
        }
        return nil
    }

    /// libavcodec's account of a damaged frame: its `decode_error_flags` and `AV_FRAME_FLAG_CORRUPT`.
    private static func damageDescription(errors: Int32, corrupt: Bool) -> String {
        let names: [(Int32, String)] = [
            (Int32(FF_DECODE_ERROR_INVALID_BITSTREAM), "invalid bitstream"),
            (Int32(FF_DECODE_ERROR_MISSING_REFERENCE), "missing reference"),
            (Int32(FF_DECODE_ERROR_CONCEALMENT_ACTIVE), "concealment active"),
            (Int32(FF_DECODE_ERROR_DECODE_SLICES), "slices not decoded"),
        ]
        var parts = names.filter { errors & $0.0 != 0 }.map(\.1)
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
