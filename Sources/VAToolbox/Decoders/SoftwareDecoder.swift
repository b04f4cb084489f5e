internal import CFFmpeg

#if canImport(Glibc)
    import Glibc
#endif

/// A picture out of a decoder, with the token of the sample it came from.
struct DecodedPicture: Sendable {
    /// The token given with the sample (``SoftwareDecoder/send(_:token:)``).
    let token: Int64
    /// The picture.
    let pixelBuffer: PixelBuffer
    /// Nil for a clean picture; otherwise why it is damaged (the decoder concealed errors, or a
    /// reference picture was missing).
    let damage: VTError?
}

/// H.264 / HEVC decoding on the CPU through libavcodec, for one stream at a time.
///
/// Not thread-safe: the session calls it from its own serial queue. Samples go in with
/// ``send(_:token:)``; pictures come out in presentation order, each carrying the token of its
/// sample. libavcodec delays output by the stream's reorder depth (and, with frame threads, by
/// the thread count); ``drain()`` returns what it holds.
final class SoftwareDecoder {
    /// How the decoder runs.
    struct Configuration: Sendable, Hashable {
        /// Decoding threads; 0 lets libavcodec pick one per core.
        var threadCount = 0
        /// Low delay: slice threads instead of frame threads, so that no picture waits for other
        /// threads (output order and reordering are unchanged).
        var realTime = false
    }

    /// The description whose stream this decoder is set up for.
    private(set) var formatDescription: VideoFormatDescription
    /// How many pictures frame threading may hold back beyond the stream's reorder depth.
    var threadDelay: Int { Int(max(0, context.pointee.thread_count - 1)) }

    private let context: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>

    /// Opens a libavcodec decoder for the stream a format description describes.
    ///
    /// - Throws: ``VTError/couldNotFindVideoDecoder`` when libavcodec lacks the codec,
    ///   ``VTError/allocationFailed`` when memory runs out, ``VTError/couldNotCreateInstance`` when
    ///   `avcodec_open2` refuses the stream's configuration.
    init(formatDescription: VideoFormatDescription, configuration: Configuration) throws(VTError) {
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
        context.pointee.thread_count = Int32(max(0, configuration.threadCount))
        context.pointee.thread_type =
            configuration.realTime ? Int32(FF_THREAD_SLICE) : Int32(FF_THREAD_FRAME | FF_THREAD_SLICE)
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
            throw FFmpegStatus.error(status, "avcodec_send_packet", "decoding a \(formatDescription.codecType) sample")
        }
        return pictures + (try receiveAll())
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

    private func picture(from frame: UnsafeMutablePointer<AVFrame>) throws(VTError) -> DecodedPicture {
        let token = frame.pointee.pts
        let fullRange = frame.pointee.color_range == AVCOL_RANGE_JPEG
        guard let format = PixelFormat.from(ffmpeg: frame.pointee.format.pixelFormat, fullRange: fullRange) else {
            let name =
                av_get_pix_fmt_name(frame.pointee.format.pixelFormat).map { String(cString: $0) }
                ?? "\(frame.pointee.format)"
            av_frame_unref(frame)
            throw VTError.videoDecoderUnsupportedDataFormat.with(
                "the decoder produced pixel format \(name), which VAToolbox cannot hand out")
        }
        let errors = frame.pointee.decode_error_flags
        var damage: VTError?
        if errors & Int32(FF_DECODE_ERROR_MISSING_REFERENCE) != 0 {
            damage = VTError.videoDecoderReferenceMissing.with(
                "the picture refers to a picture the decoder does not have")
        } else if errors != 0 || frame.pointee.flags & Int32(AV_FRAME_FLAG_CORRUPT) != 0 {
            damage = VTError.videoDecoderBadData.with("the picture's data is damaged; the decoder concealed the errors")
        }
        guard let reference = FrameReference(movingFrom: frame) else {
            throw VTError.allocationFailed.with("allocating a frame")
        }
        return DecodedPicture(
            token: token, pixelBuffer: PixelBuffer(taking: reference, pixelFormat: format), damage: damage)
    }
}

extension VTError {
    /// The same explanation under another status.
    func replacingStatus(with other: VTError) -> VTError {
        VTError(status: other.status, reason: reason, cause: cause, hint: hint)
    }
}
