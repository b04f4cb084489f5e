internal import CFFmpeg

/// A libavcodec codec (`AVCodecID`), known by the name FFmpeg gives it (`"h264"`, `"hevc"`).
struct CodecID: Hashable, Sendable {
    fileprivate let id: AVCodecID

    /// Wraps an `AVCodecID`, for the C layers that read one.
    init(_ id: AVCodecID) { self.id = id }

    /// The codec FFmpeg names `name` (`avcodec_descriptor_get_by_name`); nil when this libavcodec
    /// knows no such codec.
    init?(name: String) {
        guard let descriptor = avcodec_descriptor_get_by_name(name) else { return nil }
        id = descriptor.pointee.id
    }

    /// FFmpeg's name for the codec (`avcodec_get_name`).
    var name: String? { avcodec_get_name(id).map { String(cString: $0) } }
}

/// The FFmpeg libraries loaded at run time, FFmpeg's order, with their versions as
/// `"major.minor.micro"` (each packed as `AV_VERSION_INT`: major << 16 | minor << 8 | micro).
enum LibavLibraries {
    static var versions: [(name: String, version: String)] {
        [
            ("libavcodec", dotted(avcodec_version())), ("libavformat", dotted(avformat_version())),
            ("libavutil", dotted(avutil_version())), ("libswscale", dotted(swscale_version())),
        ]
    }

    private static func dotted(_ packed: UInt32) -> String {
        "\(packed >> 16).\((packed >> 8) & 0xFF).\(packed & 0xFF)"
    }
}

/// The libavcodec linked at run time (`avcodec_version()`), and the workarounds that depend on it.
///
/// Each workaround of a libavcodec fault is keyed on a named predicate here, so that the version
/// range it applies to is written once, beside the evidence for it.
struct LibavcodecVersion: Comparable, Sendable, CustomStringConvertible {
    /// `LIBAVCODEC_VERSION_MAJOR` of the library.
    let major: Int
    /// The minor version.
    let minor: Int
    /// The micro version (100 and up for FFmpeg, as opposed to Libav).
    let micro: Int

    /// A version by its parts.
    init(major: Int, minor: Int = 0, micro: Int = 0) {
        self.major = major
        self.minor = minor
        self.micro = micro
    }

    /// The version loaded at run time (`avcodec_version()`).
    static let linked: LibavcodecVersion = {
        let packed = avcodec_version()  // AV_VERSION_INT: major << 16 | minor << 8 | micro
        return LibavcodecVersion(
            major: Int(packed >> 16), minor: Int((packed >> 8) & 0xFF), micro: Int(packed & 0xFF))
    }()

    /// FFmpeg 5.1's libavcodec (59.37.100, Debian 12's `libavcodec59`): the one the workarounds
    /// were measured on.
    static let ffmpeg5_1 = LibavcodecVersion(major: 59, minor: 37, micro: 100)

    /// FFmpeg 8.0's libavcodec (62.11.100).
    static let ffmpeg8_0 = LibavcodecVersion(major: 62, minor: 11, micro: 100)

    /// Whether decoding field pairs on frame threads can mark a frame
    /// `FF_DECODE_ERROR_CONCEALMENT_ACTIVE` although its pixels are exact (a race; on the H.264
    /// conformance stream HCAFF1_HHI one run in two), so that a stream that may code field
    /// pictures must decode on slice threads. Measured on libavcodec 59 (FFmpeg 5.x); no later
    /// release is known to be free of it, so it holds from 59 on until one is shown to be (the
    /// conformance suite decoding every vector with frame threads and no status).
    var racesOnFieldPairsWithFrameThreads: Bool { major >= Self.ffmpeg5_1.major }

    /// Whether the VP8 decoder keeps its hardware surfaces when a key frame makes the picture
    /// larger, so that the GPU back end must give such a key frame a decoder of its own.
    ///
    /// `vp8.c` `update_dimensions` sets `dim_reset` from `macroblocks_base` after
    /// `vp8_decode_flush_impl(avctx, 1)` has freed it, so `get_pixel_format` (whose `get_format`
    /// call sizes the hwaccel's surfaces) runs only while `pix_fmt` is still `AV_PIX_FMT_NONE`:
    /// for the first key frame. So in libavcodec 59; no later release is known to ask again, so it
    /// holds from 59 on until one is shown to.
    var keepsVP8SurfacesOnLargerKeyFrames: Bool { major >= Self.ffmpeg5_1.major }

    /// Whether the AV1 decoder keeps its hardware surfaces when a new sequence header allows
    /// larger frames, so that the GPU back end must give such a sample a decoder of its own.
    ///
    /// libavcodec 59's `av1dec.c` `av1_decode_frame` calls `get_pixel_format` (whose `get_format`
    /// call sizes the hwaccel's surfaces by the sequence header's largest frame) only while
    /// `pix_fmt` is `AV_PIX_FMT_NONE`: for the first sequence header. A later `av1dec.c`
    /// (`av1_receive_frame_internal`, from libavcodec 61's development) sets `pix_fmt` back to
    /// `AV_PIX_FMT_NONE` at every sequence header, so `get_current_frame` asks again. The first
    /// release with that is not pinned down; FFmpeg 8.0 (libavcodec 62) descends from that code,
    /// so this holds from 59 up to 62.
    var keepsAV1SurfacesOnNewSequences: Bool { major >= Self.ffmpeg5_1.major && self < Self.ffmpeg8_0 }

    /// Whether the HEVC decoder decodes, wrongly and without an error, streams of profiles beyond
    /// Main, Main 10, Main Still Picture and the format range extensions (high throughput, screen
    /// content coding, scalable, 3D), so that they must be refused before decoding.
    ///
    /// libavcodec 59's `hevc_ps.c` `ff_hevc_parse_sps` reads only the range extension of an SPS
    /// (it skips `sps_extension_7bits`: the SCC, multilayer and 3D extensions are not read), and
    /// `decode_profile_tier_level` only logs a profile it does not know. Later releases parse the
    /// SCC extension for the hwaccels, but the software decoder still does not decode it
    /// (`hevc/hevcdec.c` `decode_slice_data`: "SCC profile is not yet implemented in hevc native
    /// decoder"). No release is known to decode these profiles, so it holds from 59 on until
    /// one is shown to.
    var misdecodesHEVCProfilesBeyondRangeExtensions: Bool { major >= Self.ffmpeg5_1.major }

    /// Whether a failed `vaBeginPicture`, `vaRenderPicture`, `vaEndPicture` or `vaCreateBuffer`
    /// is mishandled for a caller that reports per frame, so that the driver table's hooks must
    /// record the failure against the picture's surface and let libavcodec go on
    /// (``DriverTableHooks``).
    ///
    /// `vaapi_decode.c` `ff_vaapi_decode_issue` turns the failure into `AVERROR(EIO)`, and the
    /// codec decoders take that as the packet's failure, not the picture's: libavcodec 59's HEVC
    /// decoder drops the picture, its H.264 decoder skips an innocent picture due for output and
    /// later outputs the failed one with stale pixels. In the newest `hevc/hevcdec.c` read
    /// (libavcodec 61, with MV-HEVC), `hevc_frame_end` still returns the hwaccel's error for the
    /// packet while the failed picture stays in the DPB to be output. No release is known to
    /// report the failed picture itself, so it holds from 59 on until one is shown to.
    var mishandlesFailedPictureSubmission: Bool { major >= Self.ffmpeg5_1.major }

    /// Whether the HEVC decoder abandons a damaged picture without destroying the VA parameter
    /// buffers made for it, so that the driver table's hooks must destroy a buffer still alive
    /// when the picture after the next one begins, and a context's leftovers with the context
    /// (``DriverTableHooks``).
    ///
    /// `hevcdec.c` `decode_nal_units` calls `hevc_frame_end` (and with it the hwaccel's
    /// `end_frame`, which issues or destroys the buffers) only when no NAL unit of the packet
    /// failed, and nothing on its error path cancels the started picture
    /// (`ff_vaapi_decode_cancel`). So in libavcodec 59 and in the newest `hevc/hevcdec.c` read
    /// (libavcodec 61, with MV-HEVC): it holds from 59 on until a release is shown free of it.
    var forgetsBuffersOfAbandonedPictures: Bool { major >= Self.ffmpeg5_1.major }

    /// `"59.37.100"`.
    var description: String { "\(major).\(minor).\(micro)" }

    static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.major, lhs.minor, lhs.micro) < (rhs.major, rhs.minor, rhs.micro)
    }
}

/// A libavcodec decoder (`AVCodecContext`) with the packet it sends and the frame it receives
/// into: the calls of the send/receive loop, and the settings made before it opens.
///
/// Every message libavcodec logs for it goes to its ``LibavLogCapture``: the context is claimed
/// when it is allocated, and freed while the capture is current. Not thread-safe: one caller
/// at a time.
final class DecoderContext {
    /// A decoder this libavcodec has (`AVCodec`).
    struct Decoder {
        fileprivate let codec: UnsafePointer<AVCodec>
    }

    /// The first of `names` this libavcodec has (`avcodec_find_decoder_by_name`), else its
    /// decoder of `codec` (`avcodec_find_decoder`); nil when it has neither.
    static func find(named names: [String], else codec: CodecID?) -> Decoder? {
        let named = names.lazy.compactMap { avcodec_find_decoder_by_name($0) }.first
        guard let found = named ?? codec.flatMap({ avcodec_find_decoder($0.id) }) else { return nil }
        return Decoder(codec: found)
    }

    /// The context, for the C layers that set a hwaccel up on it.
    let pointer: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    private let decoder: Decoder
    private let log: LibavLogCapture

    /// Runs once the context is freed, when libavcodec holds no picture any more.
    var afterClose: (() -> Void)?

    /// Allocates a context for `decoder` (`avcodec_alloc_context3`), its messages claimed by `log`.
    ///
    /// - Throws: ``VTError/allocationFailed`` when memory runs out.
    init(_ decoder: Decoder, log: LibavLogCapture) throws(VTError) {
        guard let context = avcodec_alloc_context3(decoder.codec), let packet = av_packet_alloc(),
            let frame = av_frame_alloc()
        else {
            throw VTError.allocationFailed.with("allocating a libavcodec decoder")
        }
        pointer = context
        self.packet = packet
        self.frame = frame
        self.decoder = decoder
        self.log = log
        log.claim(context)
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = pointer
        log.whileCalling { avcodec_free_context(&context) }
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&packet)
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&frame)
        afterClose?()
    }

    // MARK: - Before opening

    /// Gives the decoder a configuration record (avcC, hvcC, av1C) as its `extradata`, padded as
    /// libavcodec wants.
    ///
    /// - Throws: ``VTError/allocationFailed`` when memory runs out.
    func setConfigurationRecord(_ record: [UInt8]) throws(VTError) {
        guard let extradata = av_mallocz(record.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
            throw VTError.allocationFailed.with("allocating the decoder configuration record")
        }
        record.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { extradata.copyMemory(from: base, byteCount: bytes.count) }
        }
        pointer.pointee.extradata = extradata.assumingMemoryBound(to: UInt8.self)
        pointer.pointee.extradata_size = Int32(record.count)
    }

    /// Tells the decoder what a container says of the stream (as `avcodec_parameters_to_context`
    /// does for the ffmpeg CLI) and asks for exact cropping (`AV_CODEC_FLAG_UNALIGNED`: without
    /// it libavcodec rounds an odd left or top crop to keep data aligned).
    ///
    /// - Parameters:
    ///   - width: The coded width (`width`).
    ///   - height: The coded height (`height`).
    ///   - codecTag: The container's FourCC (`codec_tag`).
    ///   - reorderDepth: Pictures the stream may reorder (`has_b_frames`).
    func describeStream(width: Int, height: Int, codecTag: UInt32, reorderDepth: Int) {
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        pointer.pointee.codec_tag = codecTag
        pointer.pointee.flags |= Int32(AV_CODEC_FLAG_UNALIGNED)
        pointer.pointee.has_b_frames = Int32(reorderDepth)
    }

    /// Tells the decoder the colour a container states (as `avcodec_parameters_to_context` does
    /// for the ffmpeg CLI): H.273 code points, nil where the container states none. A decoder
    /// whose bitstream states its own replaces them; one whose bitstream cannot (VP9's primaries
    /// and transfer) keeps them, and its frames carry them.
    ///
    /// - Parameters:
    ///   - primaries: The colour primaries (`color_primaries`).
    ///   - transfer: The transfer characteristics (`color_trc`).
    ///   - matrix: The matrix coefficients (`colorspace`).
    ///   - chromaLocation: H.273's `chroma_sample_loc_type` (`chroma_sample_location`, which is it
    ///     plus one).
    func describeColour(primaries: Int?, transfer: Int?, matrix: Int?, chromaLocation: Int?) {
        if let primaries { pointer.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(primaries)) }
        if let transfer { pointer.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(transfer)) }
        if let matrix { pointer.pointee.colorspace = AVColorSpace(rawValue: UInt32(matrix)) }
        if let chromaLocation, (0...5).contains(chromaLocation) {
            pointer.pointee.chroma_sample_location = AVChromaLocation(rawValue: UInt32(chromaLocation + 1))
        }
    }

    /// How libavcodec spreads decoding over its threads (`thread_type`).
    enum Threading {
        /// `FF_THREAD_SLICE`: the slices of one picture at once.
        case slices
        /// `FF_THREAD_FRAME | FF_THREAD_SLICE`: several pictures at once, or slices.
        case framesAndSlices
    }

    /// Sets how the decoder runs, before it opens.
    ///
    /// - Parameters:
    ///   - threadCount: Decoding threads (`thread_count`); 0 lets libavcodec pick one per core.
    ///   - threading: What the threads share out (`thread_type`).
    ///   - maximumPixels: The most pixels a picture may have (`max_pixels`): libavcodec refuses
    ///     a larger picture before allocating it, a size changed in band included.
    ///   - lowDelay: `AV_CODEC_FLAG_LOW_DELAY`: each picture leaves the decoder with its own
    ///     packet where the stream allows it.
    func setThreads(_ threadCount: Int, _ threading: Threading, maximumPixels: Int, lowDelay: Bool) {
        pointer.pointee.thread_count = Int32(threadCount)
        pointer.pointee.max_pixels = Int64(maximumPixels)
        pointer.pointee.thread_type =
            threading == .slices ? Int32(FF_THREAD_SLICE) : Int32(FF_THREAD_FRAME | FF_THREAD_SLICE)
        if lowDelay { pointer.pointee.flags |= Int32(AV_CODEC_FLAG_LOW_DELAY) }
    }

    /// Opens the decoder (`avcodec_open2`), with this context's log current. Frame threads log
    /// with copies of the context that keep its `opaque`: that is claimed too (the hwaccel keeps
    /// its own value there, else the capture's key goes in).
    ///
    /// - Returns: `avcodec_open2`'s status.
    func open() -> Int32 {
        if pointer.pointee.opaque == nil { pointer.pointee.opaque = log.opaqueKey }
        log.claim(pointer.pointee.opaque)
        pointer.pointee.reordered_opaque = CFFmpeg_AV_NOPTS_VALUE()
        let context = pointer
        let codec = decoder.codec
        return log.whileCalling { avcodec_open2(context, codec, nil) }
    }

    // MARK: - The send/receive loop

    /// The threads libavcodec runs (`thread_count`: after opening, the count it chose for 0).
    var threadCount: Int { Int(pointer.pointee.thread_count) }

    /// Fills the packet with one sample's data, stamped with its token: the token comes back as
    /// the picture's `pts`, as the `pkt_dts` of the picture the packet releases from the
    /// decoder's reorder buffer, and on what libavcodec logs while decoding it
    /// (`reordered_opaque`).
    ///
    /// - Throws: ``VTError/allocationFailed`` when memory runs out.
    func loadPacket(_ data: [UInt8], token: Int64) throws(VTError) {
        av_packet_unref(packet)
        try FFmpegStatus.check(av_new_packet(packet, Int32(data.count)), "av_new_packet", "allocating a packet")
        data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            UnsafeMutableRawPointer(packet.pointee.data).copyMemory(from: base, byteCount: bytes.count)
        }
        packet.pointee.pts = token
        packet.pointee.dts = token
        pointer.pointee.reordered_opaque = token
    }

    /// Sends the loaded packet (`avcodec_send_packet`); returns its status: `AVERROR(EAGAIN)`
    /// while the decoder is full.
    func sendPacket() -> Int32 { avcodec_send_packet(pointer, packet) }

    /// Frees the packet's data (`av_packet_unref`).
    func unloadPacket() { av_packet_unref(packet) }

    /// Tells the decoder the stream ends (`avcodec_send_packet` with no packet): it then returns
    /// every picture it holds.
    func sendEndOfStream() { _ = avcodec_send_packet(pointer, nil) }

    /// Receives the next picture into ``receivedFrame`` (`avcodec_receive_frame`); returns the
    /// status: `AVERROR(EAGAIN)` when none is ready, `AVERROR_EOF` at the end of a drain.
    func receiveFrame() -> Int32 { avcodec_receive_frame(pointer, frame) }

    /// The frame the last ``receiveFrame()`` filled, lent until the next.
    var receivedFrame: Frame { Frame(frame) }

    /// Makes the decoder ready to decode again from a sync sample (`avcodec_flush_buffers`).
    func flush() { avcodec_flush_buffers(pointer) }
}

/// libavcodec's PNG encoder, one picture at a time.
enum PNGEncoder {
    /// Encodes an `rgb24` frame as a PNG file.
    ///
    /// - Throws: ``VTError/couldNotFindVideoEncoder`` when this libavcodec has no PNG encoder;
    ///   ``VTError/allocationFailed`` when memory runs out; ``VTError/videoEncoderMalfunction``
    ///   when the encoder fails.
    static func encode(_ frame: Frame) throws(VTError) -> [UInt8] {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG) else {
            throw VTError.couldNotFindVideoEncoder.with(
                "this libavcodec has no PNG encoder", hint: "install a libavcodec built with its PNG encoder")
        }
        var context = avcodec_alloc_context3(codec)
        var packet = av_packet_alloc()
        defer {
            avcodec_free_context(&context)
            av_packet_free(&packet)
        }
        guard let context, let packet else { throw VTError.allocationFailed.with("setting up the PNG encoder") }
        context.pointee.width = frame.pointer.pointee.width
        context.pointee.height = frame.pointer.pointee.height
        context.pointee.pix_fmt = AV_PIX_FMT_RGB24
        context.pointee.time_base = AVRational(num: 1, den: 25)
        try check(avcodec_open2(context, codec, nil), "avcodec_open2", "opening the PNG encoder")
        try check(avcodec_send_frame(context, frame.pointer), "avcodec_send_frame", "encoding a PNG")
        try check(avcodec_receive_packet(context, packet), "avcodec_receive_packet", "encoding a PNG")
        guard let data = packet.pointee.data, packet.pointee.size > 0 else {
            throw VTError.videoEncoderMalfunction.with("the PNG encoder returned no data")
        }
        return Array(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
    }

    /// An encoder status as an error: out of memory as itself, anything else as an encoder
    /// malfunction, with libavcodec's message as the cause.
    private static func check(_ status: Int32, _ function: StaticString, _ step: String) throws(VTError) {
        guard status < 0 else { return }
        let error = FFmpegStatus.error(status, function, step)
        throw error == VTError.allocationFailed
            ? error : VTError.videoEncoderMalfunction.with(step + " failed", cause: error.cause)
    }
}
