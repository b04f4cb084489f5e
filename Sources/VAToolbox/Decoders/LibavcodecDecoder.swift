internal import CFFmpeg

#if canImport(Glibc)
    import Glibc
#endif

/// A picture out of a decoder, with the token of the sample it came from.
struct DecodedPicture: Sendable {
    /// The token given with the sample (``LibavcodecDecoder/send(_:token:)``).
    let token: Int64
    /// The picture; nil when the decoder produced one that must not be handed out (the GPU failed
    /// to decode it).
    let pixelBuffer: PixelBuffer?
    /// Nil for a clean picture; otherwise why it is damaged (the decoder concealed errors, or a
    /// reference picture was missing) or missing.
    let damage: VTError?
}

/// H.264 / HEVC decoding through libavcodec, for one stream at a time: the send/receive loop
/// shared by ``SoftwareDecoder`` (CPU) and ``VAAPIDecoder`` (GPU through libavcodec's VA-API
/// hwaccel).
///
/// Not thread-safe: the session calls it from its own serial queue. Samples go in with
/// ``send(_:token:)``; pictures come out in presentation order, each carrying the token of its
/// sample. libavcodec delays output by the stream's reorder depth (and, with frame threads, by
/// the thread count); ``drain()`` returns what it holds.
class LibavcodecDecoder {
    /// The description whose stream this decoder is set up for.
    private(set) var formatDescription: VideoFormatDescription
    /// Whether pictures are decoded on the GPU.
    var isHardware: Bool { false }

    let context: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>

    /// Opens a libavcodec decoder for the stream a format description describes.
    ///
    /// - Parameters:
    ///   - formatDescription: The stream.
    ///   - configure: Sets the decoder's options before it opens (threads, hwaccel).
    /// - Throws: ``VTError/couldNotFindVideoDecoder`` when libavcodec lacks the codec,
    ///   ``VTError/allocationFailed`` when memory runs out, ``VTError/couldNotCreateInstance`` when
    ///   `avcodec_open2` refuses the stream's configuration, or what `configure` throws.
    init(
        formatDescription: VideoFormatDescription,
        configure: (UnsafeMutablePointer<AVCodecContext>) throws(VTError) -> Void
    ) throws(VTError) {
        Self.quietLibraryLogging
        let codecId = formatDescription.codecType == .hevc ? AV_CODEC_ID_HEVC : AV_CODEC_ID_H264
        guard let codec = avcodec_find_decoder(codecId) else {
            throw VTError.couldNotFindVideoDecoder.with(
                "this libavcodec has no \(formatDescription.codecType) decoder",
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
        // The avcC/hvcC record tells libavcodec the parameter sets and the NAL unit length size.
        let record = formatDescription.extensions.decoderConfigurationRecord
        guard !record.isEmpty else {
            throw VTError.couldNotCreateInstance.with(
                "the format description has no avcC/hvcC record to configure the decoder with")
        }
        guard let extradata = av_mallocz(record.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
            throw VTError.allocationFailed.with("allocating the decoder configuration record")
        }
        record.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { extradata.copyMemory(from: base, byteCount: bytes.count) }
        }
        context.pointee.extradata = extradata.assumingMemoryBound(to: UInt8.self)
        context.pointee.extradata_size = Int32(record.count)
        // Exact cropping: without this flag libavcodec rounds an odd left/top crop to keep data aligned.
        context.pointee.flags |= Int32(AV_CODEC_FLAG_UNALIGNED)
        // The reorder depth the SPS states, or the DPB size it implies when it states none. Left
        // at 0, libavcodec guesses it from the pictures it sees and drops the pictures that come
        // out of order before the guess grows (the ffmpeg CLI avoids that by probing the stream
        // first; FRExt_MMCO4_Sony_B loses two pictures without it).
        context.pointee.has_b_frames = Int32(formatDescription.stream.maxNumReorderFrames)
        try configure(context)
        let status = avcodec_open2(context, codec, nil)
        guard status >= 0 else {
            throw FFmpegStatus.error(
                status, "avcodec_open2", "opening the libavcodec \(formatDescription.codecType) decoder"
            )
            .replacingStatus(with: .couldNotCreateInstance)
        }
    }

    /// libavcodec logs every concealed error to standard error, which is not a library's place:
    /// its log is silenced once, unless `VATOOLBOX_FFMPEG_LOG` is set in the environment. The
    /// same facts reach the caller as per-frame statuses.
    private static let quietLibraryLogging: Void = {
        if getenv("VATOOLBOX_FFMPEG_LOG") == nil { av_log_set_level(AV_LOG_QUIET) }
    }()

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&context)
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&packet)
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&frame)
    }

    /// Decodes one sample's data (length-prefixed NAL units in the description's length size).
    ///
    /// - Returns: The pictures that became ready, in presentation order.
    /// - Throws: ``VTError/videoDecoderBadData`` (or another mapped status) when libavcodec
    ///   rejects the data; pictures already ready are not lost, the next call returns them.
    func send(_ data: [UInt8], token: Int64) throws(VTError) -> [DecodedPicture] {
        av_packet_unref(packet)
        try FFmpegStatus.check(av_new_packet(packet, Int32(data.count)), "av_new_packet", "allocating a packet")
        data.withUnsafeBytes {
            packet.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: data.count)
        }
        packet.pointee.pts = token
        packet.pointee.dts = CFFmpeg_AV_NOPTS_VALUE()
        var status = avcodec_send_packet(context, packet)
        var pictures: [DecodedPicture] = []
        if FFmpegStatus.isAgain(status) {
            // The decoder is full: take what it has ready, then the packet fits.
            pictures = try receiveAll()
            status = avcodec_send_packet(context, packet)
        }
        av_packet_unref(packet)
        if status < 0 && !FFmpegStatus.isAgain(status) {
            throw sendError(status)
        }
        return pictures + (try receiveAll())
    }

    /// The error for a failed `avcodec_send_packet`.
    func sendError(_ status: Int32) -> VTError {
        FFmpegStatus.error(status, "avcodec_send_packet", "decoding a \(formatDescription.codecType) sample")
    }

    /// Returns every picture the decoder still holds (end of stream), then makes it ready to
    /// decode again from the next sync sample with the same description.
    func drain() -> [DecodedPicture] {
        _ = avcodec_send_packet(context, nil)
        let pictures = (try? receiveAll()) ?? []
        avcodec_flush_buffers(context)
        return pictures
    }

    /// Records that the stream continues with `newFormat`, whose parameter sets the caller sends in band.
    func adopt(_ newFormat: VideoFormatDescription) {
        formatDescription = newFormat
    }

    private func receiveAll() throws(VTError) -> [DecodedPicture] {
        var pictures: [DecodedPicture] = []
        while true {
            let status = avcodec_receive_frame(context, frame)
            if FFmpegStatus.isAgain(status) || FFmpegStatus.isEndOfFile(status) { return pictures }
            try FFmpegStatus.check(status, "avcodec_receive_frame", "receiving a decoded picture")
            pictures.append(try picture(from: frame))
        }
    }

    /// Wraps a decoded frame (moving its buffers out) as a picture.
    func picture(from frame: UnsafeMutablePointer<AVFrame>) throws(VTError) -> DecodedPicture {
        let token = frame.pointee.pts
        let damage = Self.damage(of: frame)
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
            token: token, pixelBuffer: PixelBuffer(taking: reference, pixelFormat: pixelFormat), damage: damage)
    }

    /// What libavcodec says is wrong with a decoded frame.
    private static func damage(of frame: UnsafeMutablePointer<AVFrame>) -> VTError? {
        let errors = frame.pointee.decode_error_flags
        if errors & Int32(FF_DECODE_ERROR_MISSING_REFERENCE) != 0 {
            return VTError.videoDecoderReferenceMissing.with(
                "the picture refers to a picture the decoder does not have")
        }
        if errors != 0 || frame.pointee.flags & Int32(AV_FRAME_FLAG_CORRUPT) != 0 {
            return VTError.videoDecoderBadData.with("the picture's data is damaged; the decoder concealed the errors")
        }
        return nil
    }
}

extension VTError {
    /// The same explanation under another status.
    func replacingStatus(with other: VTError) -> VTError {
        VTError(status: other.status, reason: reason, cause: cause, hint: hint)
    }
}
