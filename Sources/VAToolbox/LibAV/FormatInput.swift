internal import CFFmpeg

/// An opened media file: libavformat's `AVFormatContext` from `avformat_open_input`, with the one
/// `AVPacket` every read reuses. What it reads comes out as plain values (``FormatStream``,
/// ``Packet``), so that the layers above build their samples and tracks without C.
///
/// The context is closed (`avformat_close_input`) and the packet freed (`av_packet_free`) when
/// the last reference goes. Every libavformat call that can log runs inside the ``log``'s
/// ``LibavLogCapture/whileCalling(_:)`` where the reader made it so before; the context is claimed
/// by the log from its allocation on.
///
/// Not thread-safe: its owner serialises the calls (a reader's demuxer is behind a lock).
final class FormatInput {
    /// The context; valid for the object's lifetime.
    private let context: UnsafeMutablePointer<AVFormatContext>
    /// The packet reads fill; unreferenced before each read returns.
    private let packet: UnsafeMutablePointer<AVPacket>
    /// What libavformat logs for this file.
    let log: LibavLogCapture

    /// What a failed `avformat_open_input` status says, as far as the user can act on it.
    enum OpenFailure: Equatable {
        /// `AVERROR_INVALIDDATA`: no container libavformat knows, or a damaged one.
        case invalidData
        /// `AVERROR(ENOENT)`, `AVERROR(ENOTDIR)`: there is no such file.
        case noSuchFile
        /// `AVERROR(EACCES)`, `AVERROR(EPERM)`: the process may not read it.
        case permissionDenied
        /// `AVERROR(EISDIR)`: the path names a directory.
        case isDirectory
        /// Any other status.
        case other

        /// The failure a negative status of `avformat_open_input` stands for.
        init(status: Int32) {
            switch status {
            case CFFmpeg_AVERROR_INVALIDDATA(): self = .invalidData
            case CFFmpeg_AVERROR(ENOENT), CFFmpeg_AVERROR(ENOTDIR): self = .noSuchFile
            case CFFmpeg_AVERROR(EACCES), CFFmpeg_AVERROR(EPERM): self = .permissionDenied
            case CFFmpeg_AVERROR(EISDIR): self = .isDirectory
            default: self = .other
            }
        }
    }

    /// Opens `path` and reads its header (`avformat_open_input`), with what libavformat logs
    /// meanwhile claimed by `log`.
    ///
    /// - Parameters:
    ///   - options: Demuxer options, as `ffmpeg` takes them before `-i` (`framerate` for the raw
    ///     video demuxers, `scan_all_pmts` for MPEG-TS); options a demuxer does not have are
    ///     ignored.
    ///   - failure: The error for `avformat_open_input`'s negative status; what libavformat logged
    ///     while opening is quoted after its reason.
    /// - Throws: `failure`'s error when the file cannot be opened; ``VTError/allocationFailed`` when
    ///   the packet cannot be allocated.
    init(
        path: String, log: LibavLogCapture, options: [String: String] = [:], failure: (Int32) -> VTError
    ) throws(VTError) {
        // Allocated here, so that what libavformat logs while opening is claimed as the reader's.
        let allocated = avformat_alloc_context()
        log.claim(allocated)
        var opened = allocated
        var dictionary: OpaquePointer?
        for (key, value) in options { av_dict_set(&dictionary, key, value, 0) }
        defer { av_dict_free(&dictionary) }
        let status = log.whileCalling { avformat_open_input(&opened, path, nil, &dictionary) }
        guard status >= 0, let context = opened else {
            log.release(allocated)  // freed by avformat_open_input
            throw failure(status).quoting(log.explanation(since: 0))
        }
        guard let packet = av_packet_alloc() else {
            avformat_close_input(&opened)
            throw VTError.allocationFailed.with("allocating a packet")
        }
        self.context = context
        self.packet = packet
        self.log = log
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&packet)
        var context: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&context)
    }

    // MARK: - The file

    /// The demuxer's name (`AVInputFormat.name`), for example `"mov,mp4,m4a,3gp,3g2,mj2"`; nil
    /// when the context has none.
    var formatName: String? { context.pointee.iformat.map { String(cString: $0.pointee.name) } }

    /// The file's start time in microseconds (`AVFormatContext.start_time`, in `AV_TIME_BASE`
    /// units): the earliest presentation time of its streams; nil when libavformat knows none.
    var startTime: Int64? { Self.timestamp(context.pointee.start_time) }

    /// The file's duration in microseconds (`AVFormatContext.duration`); nil when libavformat
    /// knows none.
    var duration: Int64? { Self.timestamp(context.pointee.duration) }

    /// The file's size in bytes (`avio_size`: negative when the I/O cannot tell, a pipe); nil
    /// when the context has no I/O.
    var fileSize: Int64? { context.pointee.pb.map { avio_size($0) } }

    /// The I/O's position in the file (`avio_tell`); nil when the context has no I/O.
    var filePosition: Int64? { context.pointee.pb.map { avio_tell($0) } }

    /// Whether the last read met the end of the file (the I/O's `eof_reached`).
    var reachedEndOfFile: Bool { (context.pointee.pb?.pointee.eof_reached ?? 0) != 0 }

    // MARK: - Streams

    /// Probes the streams (`avformat_find_stream_info`, inside the log's capture): libavformat
    /// reads the first packets and decodes some to fill in what the header does not state.
    ///
    /// - Parameter maximumPixels: The largest picture the probing decoders may allocate (their
    ///   `max_pixels`), nil for libavcodec's default. A size a probing decoder refused is put
    ///   back as the container stated it (libavcodec's `ff_set_dimensions` zeroes it).
    /// - Returns: Whether libavformat could read the streams.
    func findStreamInfo(maximumPixels: Int? = nil) -> Bool {
        log.whileCalling {
            guard let maximumPixels else { return avformat_find_stream_info(context, nil) >= 0 }
            let streams = UnsafeBufferPointer(start: context.pointee.streams, count: Int(context.pointee.nb_streams))
            let stated = streams.map {
                $0.map { ($0.pointee.codecpar.pointee.width, $0.pointee.codecpar.pointee.height) }
            }
            var options = [OpaquePointer?](repeating: nil, count: streams.count)
            for index in options.indices { av_dict_set(&options[index], "max_pixels", "\(maximumPixels)", 0) }
            defer { for index in options.indices { av_dict_free(&options[index]) } }
            let status = options.withUnsafeMutableBufferPointer { avformat_find_stream_info(context, $0.baseAddress) }
            for (stream, size) in zip(streams, stated) {
                guard let parameters = stream?.pointee.codecpar, let size, parameters.pointee.width == 0 else {
                    continue
                }
                (parameters.pointee.width, parameters.pointee.height) = size
            }
            return status >= 0
        }
    }

    /// The index of the video stream the ffmpeg CLI picks (`av_find_best_stream`, inside the
    /// log's capture); nil when there is none.
    func bestVideoStream() -> Int? {
        let best = log.whileCalling { av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0) }
        return best >= 0 ? Int(best) : nil
    }

    /// What libavformat knows of each stream, in index order (read from the streams as they are
    /// now: after ``findStreamInfo(maximumPixels:)``, the probed values).
    var streams: [FormatStream] {
        (0..<Int(context.pointee.nb_streams)).compactMap { index in
            context.pointee.streams[index].map { FormatStream($0, in: context) }
        }
    }

    /// Makes reads return the packets of the stream at `index` only: every other stream is
    /// discarded (`AVDISCARD_ALL`), and libavformat skips what it can of them.
    func discardStreams(except index: Int) {
        for other in 0..<Int(context.pointee.nb_streams) where other != index {
            context.pointee.streams[other]?.pointee.discard = AVDISCARD_ALL
        }
    }

    /// How many entries libavformat's index of the stream at `stream` holds
    /// (`avformat_index_get_entries_count`): every sample of an MP4/MOV track, the key frames
    /// others list, or what was read so far.
    func indexEntryCount(ofStream stream: Int) -> Int {
        guard let pointer = context.pointee.streams[stream] else { return 0 }
        return Int(avformat_index_get_entries_count(pointer))
    }

    /// Where the `index`th entry of the stream's index lies in the file, in bytes
    /// (`avformat_index_get_entry`'s `pos` and `size`); nil when there is no such entry.
    func indexEntry(ofStream stream: Int, at index: Int) -> (position: Int64, size: Int)? {
        guard let pointer = context.pointee.streams[stream],
            let entry = avformat_index_get_entry(pointer, Int32(index))
        else { return nil }
        return (entry.pointee.pos, Int(entry.pointee.size))
    }

    /// Opens the stream's decoder on the stream's parameters and closes it again, for the coded
    /// size it takes from them, as ffprobe opens it (`avcodec_find_decoder`,
    /// `avcodec_parameters_to_context`, the stream's time base and average frame rate,
    /// `avcodec_open2`; inside the log's capture, the decoder claimed by the log). Nothing is
    /// decoded.
    ///
    /// - Returns: The decoder's `coded_width` and `coded_height`; nil for other media than video,
    ///   a codec libavcodec has no decoder for, or a decoder that does not open.
    func codedSize(ofStream index: Int) -> (width: Int, height: Int)? {
        guard let stream = context.pointee.streams[index] else { return nil }
        return log.whileCalling {
            guard let parameters = stream.pointee.codecpar, parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO,
                parameters.pointee.codec_id != AV_CODEC_ID_PROBE,
                let codec = avcodec_find_decoder(parameters.pointee.codec_id),
                let decoder = avcodec_alloc_context3(codec)
            else { return nil }
            log.claim(decoder)
            defer {
                log.release(decoder)
                var freed: UnsafeMutablePointer<AVCodecContext>? = decoder
                avcodec_free_context(&freed)
            }
            guard avcodec_parameters_to_context(decoder, parameters) >= 0 else { return nil }
            decoder.pointee.pkt_timebase = stream.pointee.time_base
            decoder.pointee.framerate = stream.pointee.avg_frame_rate
            guard avcodec_open2(decoder, codec, nil) >= 0 else { return nil }
            return (Int(decoder.pointee.coded_width), Int(decoder.pointee.coded_height))
        }
    }

    // MARK: - Packets

    /// One packet of a stream, copied out of libavformat's `AVPacket`.
    struct Packet {
        /// The packet's bytes; empty when it has none.
        let data: [UInt8]
        /// The presentation time stamp in the stream's time base (`pts`); nil when unknown.
        let presentationTimeStamp: Int64?
        /// The decode time stamp in the stream's time base (`dts`); nil when unknown.
        let decodeTimeStamp: Int64?
        /// The duration in the stream's time base; nil when unknown (libavformat's 0 or
        /// `AV_NOPTS_VALUE`).
        let duration: Int64?
        /// The byte position in the file (`pos`), -1 when unknown.
        let position: Int64
        /// Whether the packet is a key frame (`AV_PKT_FLAG_KEY`).
        let isKeyFrame: Bool
        /// Whether the packet lies outside the track's edit list (`AV_PKT_FLAG_DISCARD`): decoded
        /// for the pictures that refer to it, never shown.
        let isDiscarded: Bool
        /// Whether the container marks the packet corrupt (`AV_PKT_FLAG_CORRUPT`).
        let isCorrupt: Bool
        /// A new configuration record that takes effect from this packet on
        /// (`AV_PKT_DATA_NEW_EXTRADATA` side data: an MP4 track with several `stsd` entries); nil
        /// when the packet carries none.
        let newExtradata: [UInt8]?
        /// The Matroska `BlockAdditional` beside the packet's data
        /// (`AV_PKT_DATA_MATROSKA_BLOCKADDITIONAL`: its 8-byte big-endian BlockAddID, then the
        /// data); nil when the packet has none.
        let blockAdditional: (id: UInt64, data: [UInt8])?

        /// Copies the packet's data, time stamps, flags, new extradata and block additional.
        fileprivate init(_ packet: UnsafeMutablePointer<AVPacket>) {
            let fields = packet.pointee
            if fields.size > 0, let bytes = fields.data {
                data = Array(UnsafeBufferPointer(start: bytes, count: Int(fields.size)))
            } else {
                data = []
            }
            presentationTimeStamp = FormatInput.timestamp(fields.pts)
            decodeTimeStamp = FormatInput.timestamp(fields.dts)
            duration = fields.duration == 0 ? nil : FormatInput.timestamp(fields.duration)
            position = fields.pos
            isKeyFrame = fields.flags & AV_PKT_FLAG_KEY != 0
            isDiscarded = fields.flags & AV_PKT_FLAG_DISCARD != 0
            isCorrupt = fields.flags & AV_PKT_FLAG_CORRUPT != 0
            var size = 0
            if let extradata = av_packet_get_side_data(packet, AV_PKT_DATA_NEW_EXTRADATA, &size), size > 0 {
                newExtradata = Array(UnsafeBufferPointer(start: extradata, count: size))
            } else {
                newExtradata = nil
            }
            if let additional = av_packet_get_side_data(packet, AV_PKT_DATA_MATROSKA_BLOCKADDITIONAL, &size),
                size >= 8
            {
                let bytes = Array(UnsafeBufferPointer(start: additional, count: size))
                blockAdditional = (bytes[..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, Array(bytes[8...]))
            } else {
                blockAdditional = nil
            }
        }
    }

    /// What one read found.
    enum PacketRead {
        /// A packet of the stream asked for.
        case packet(Packet)
        /// The end of the file (`AVERROR_EOF`).
        case endOfFile
        /// Memory ran out (`AVERROR(ENOMEM)`).
        case outOfMemory
        /// Another failure: the status `av_read_frame` returned, and what libavformat logged
        /// during that read (the last error, else the last warning). Reading may go on past it
        /// (a sample past the end of a cut file).
        case failed(status: Int32, logged: LibavLog.Message?)
    }

    /// Reads the next packet of the stream at `stream` (`av_read_frame`, inside the log's
    /// capture), passing over other streams' packets.
    func readPacket(ofStream stream: Int) -> PacketRead {
        let wanted = Int32(stream)
        while true {
            let mark = log.mark
            let status = log.whileCalling { av_read_frame(context, packet) }
            if status == CFFmpeg_AVERROR_EOF() { return .endOfFile }
            if status == CFFmpeg_AVERROR(ENOMEM) { return .outOfMemory }
            guard status >= 0 else { return .failed(status: status, logged: log.explanation(since: mark)) }
            defer { av_packet_unref(packet) }
            if packet.pointee.stream_index == wanted { return .packet(Packet(packet)) }
        }
    }

    // MARK: - Seeking

    /// Moves to the key frame at or before `timestamp`, in the stream's time base
    /// (`av_seek_frame` with `AVSEEK_FLAG_BACKWARD`).
    ///
    /// - Returns: libavformat's status: negative when it could not seek.
    func seek(stream: Int, toKeyFrameAtOrBefore timestamp: Int64) -> Int32 {
        av_seek_frame(context, Int32(stream), timestamp, AVSEEK_FLAG_BACKWARD)
    }

    /// Moves back to the first byte of the file (`av_seek_frame` with `AVSEEK_FLAG_BYTE`), for
    /// a stream read again from its start.
    ///
    /// - Returns: libavformat's status: negative when it could not seek.
    func seekToStart(stream: Int) -> Int32 {
        av_seek_frame(context, Int32(stream), 0, AVSEEK_FLAG_BYTE)
    }

    /// A libav time stamp, nil for `AV_NOPTS_VALUE`.
    fileprivate static func timestamp(_ value: Int64) -> Int64? {
        value == CFFmpeg_AV_NOPTS_VALUE() ? nil : value
    }
}

/// A file opened a second time through libavformat's I/O (`avio_open2`: every path and protocol
/// libavformat opens), to read bytes at offsets without moving the demuxer's own context; closed
/// (`avio_closep`) with the object.
final class FileBytes {
    private var context: UnsafeMutablePointer<AVIOContext>?

    /// Opens `path` for reading; nil when it cannot be opened.
    init?(path: String) {
        guard avio_open2(&context, path, AVIO_FLAG_READ, nil, nil) >= 0, context != nil else { return nil }
    }

    deinit { avio_closep(&context) }

    /// The file's size in bytes (`avio_size`); negative when libavformat cannot tell (a pipe).
    var size: Int64 { context.map { avio_size($0) } ?? -1 }

    /// The bytes at `offset`, up to `count` (fewer at the end of the file); nil when the file
    /// cannot seek there or read.
    func read(at offset: Int64, count: Int) -> [UInt8]? {
        guard let context, count > 0, avio_seek(context, offset, SEEK_SET) == offset else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBufferPointer { avio_read(context, $0.baseAddress, Int32(count)) }
        guard read > 0 else { return nil }
        return Array(bytes.prefix(Int(read)))
    }
}

// MARK: - One stream of the input

/// What libavformat knows of one stream of an opened file (`AVStream` and its
/// `AVCodecParameters`), as plain values: what the layers above make tracks, stream lists and
/// codec descriptions from.
///
/// Numbers are copied when the value is made (``FormatInput/streams``); libav's names are looked
/// up when asked for (`avcodec_get_name`, `avcodec_profile_name`, `av_get_pix_fmt_name`, …), each
/// call as the caller makes it.
struct FormatStream {
    /// A fraction of two libav integers (`AVRational`), as libav states it: either part may be 0
    /// or negative where libav knows nothing.
    struct Ratio: Equatable {
        /// The numerator (`num`).
        let numerator: Int32
        /// The denominator (`den`).
        let denominator: Int32

        fileprivate init(_ rational: AVRational) {
            numerator = rational.num
            denominator = rational.den
        }
    }

    /// A stream's kind of media (`AVMediaType`).
    enum MediaKind: Equatable {
        /// `AVMEDIA_TYPE_VIDEO`.
        case video
        /// `AVMEDIA_TYPE_AUDIO`.
        case audio
        /// `AVMEDIA_TYPE_DATA`.
        case data
        /// `AVMEDIA_TYPE_SUBTITLE`.
        case subtitle
        /// `AVMEDIA_TYPE_ATTACHMENT`.
        case attachment
        /// `AVMEDIA_TYPE_UNKNOWN`, or a kind newer than this list.
        case unknown
    }

    /// The order of a video stream's fields (`AVFieldOrder`, less `AV_FIELD_UNKNOWN`).
    enum FieldOrder: Equatable {
        /// `AV_FIELD_PROGRESSIVE`: whole frames.
        case progressive
        /// `AV_FIELD_TT`: top field coded first and shown first.
        case tt
        /// `AV_FIELD_BB`: bottom field coded first and shown first.
        case bb
        /// `AV_FIELD_TB`: top field coded first, bottom field shown first.
        case tb
        /// `AV_FIELD_BT`: bottom field coded first, top field shown first.
        case bt
    }

    /// The layout of a pixel format (libavutil's `AVPixFmtDescriptor`).
    struct PixelLayout: Equatable {
        /// The bit depth of the first component (`comp[0].depth`).
        let bitDepth: Int
        /// Whether the format is RGB (`AV_PIX_FMT_FLAG_RGB`).
        let isRGB: Bool
        /// The number of components (`nb_components`).
        let componentCount: Int
        /// The chroma planes' horizontal subsampling as a power of two (`log2_chroma_w`).
        let log2ChromaWidth: Int
        /// The chroma planes' vertical subsampling as a power of two (`log2_chroma_h`).
        let log2ChromaHeight: Int
    }

    /// The stream's index in the file (`AVStream.index`).
    let index: Int
    /// The kind of media (`codec_type`).
    let mediaKind: MediaKind
    /// The codec's configuration record (`extradata`): `avcC`, `hvcC`, `av1C`, an MPEG-2 sequence
    /// header; empty when the container has none.
    let configurationRecord: [UInt8]
    /// The picture width the container or the probe states (`width`), 0 when unknown.
    let width: Int
    /// The picture height (`height`), 0 when unknown.
    let height: Int
    /// libavcodec's profile number (`profile`); nil when unknown (`FF_PROFILE_UNKNOWN`).
    let profile: Int?
    /// libavcodec's level number (`level`), `-99` (`FF_LEVEL_UNKNOWN`) when unknown.
    let level: Int
    /// Whether the samples use the full range: the colour range is `AVCOL_RANGE_JPEG`, or the
    /// pixel format is the full-range `yuvj420p`.
    let isFullRange: Bool
    /// The colour primaries (`color_primaries`): ISO/IEC 23091-2's code point, 2 when
    /// unspecified.
    let colorPrimaries: Int
    /// The transfer characteristics (`color_trc`): ISO/IEC 23091-2's code point, 2 when
    /// unspecified.
    let transferCharacteristics: Int
    /// The matrix coefficients (`color_space`): ISO/IEC 23091-2's code point, 2 when
    /// unspecified.
    let matrixCoefficients: Int
    /// The chroma sample location as H.264's `chroma_sample_loc_type` counts it (libav's
    /// `AVChromaLocation` counts from 1); nil when unspecified.
    let chromaSampleLocation: Int?
    /// The field order, nil when unknown (`AV_FIELD_UNKNOWN`).
    let fieldOrder: FieldOrder?
    /// The sample aspect ratio the codec states (`AVCodecParameters.sample_aspect_ratio`).
    let codecAspectRatio: Ratio
    /// The sample aspect ratio the container states (`AVStream.sample_aspect_ratio`: MP4 `pasp`,
    /// Matroska display size), 0/1 when it states none.
    let containerAspectRatio: Ratio
    /// The frames the decoder holds back for reordering (`video_delay`).
    let videoDelay: Int
    /// The container's FourCC of the stream (`codec_tag`), 0 when it has none.
    let codecTag: UInt32
    /// Audio samples per second (`sample_rate`).
    let sampleRate: Int
    /// The number of audio channels (`ch_layout.nb_channels`).
    let channelCount: Int
    /// The unit of the stream's time stamps (`AVStream.time_base`).
    let timeBase: Ratio
    /// libavformat's "real base frame rate" (`AVStream.r_frame_rate`).
    let realFrameRate: Ratio
    /// The average frame rate (`AVStream.avg_frame_rate`).
    let averageFrameRate: Ratio
    /// The frame rate the ffmpeg CLI assumes (`av_guess_frame_rate`: the container's or the
    /// codec's rate), 0/1 or 0/0 when libavformat knows none.
    let guessedFrameRate: Ratio
    /// The stream's duration in ticks of ``timeBase`` (`AVStream.duration`); nil when unknown
    /// (`AV_NOPTS_VALUE`).
    let duration: Int64?
    /// The number of frames the container states (`AVStream.nb_frames`), 0 when it states none.
    let frameCount: Int64
    /// The mastering display colour volume the container states (MP4 `mdcv`, Matroska
    /// `MasteringMetadata`: `AV_PKT_DATA_MASTERING_DISPLAY_METADATA` stream side data).
    let masteringDisplay: MasteringDisplayValues?
    /// The content light level the container states (MP4 `clli`, Matroska `MaxCLL`/`MaxFALL`:
    /// `AV_PKT_DATA_CONTENT_LIGHT_LEVEL`).
    let contentLightLevel: LightLevelValues?
    /// The Dolby Vision configuration record the container states (MP4 `dvcC`/`dvvC`/`dvwC`,
    /// Matroska `BlockAdditionMapping`: `AV_PKT_DATA_DOVI_CONF`).
    let dolbyVisionConfiguration: DolbyVisionValues?
    /// The ICC profile the container states (an MP4 or QuickTime `colr` box of type `prof` or
    /// `rICC`: `AV_PKT_DATA_ICC_PROFILE`), its bytes; nil when it states none.
    let iccProfile: [UInt8]?

    /// The codec (`codec_id`), for the name look-ups.
    private let codecID: AVCodecID
    /// The pixel or sample format (`format`), for the name look-ups.
    private let format: Int32
    /// The colour range, space, transfer and primaries, for the name look-ups.
    private let colorRange: AVColorRange
    private let colorSpace: AVColorSpace
    private let colorTransfer: AVColorTransferCharacteristic
    private let colorPrimariesValue: AVColorPrimaries

    /// Copies what libavformat knows of `stream`, an open stream of `context`.
    init(_ stream: UnsafeMutablePointer<AVStream>, in context: UnsafeMutablePointer<AVFormatContext>) {
        let parameters = stream.pointee.codecpar.pointee
        index = Int(stream.pointee.index)
        mediaKind = Self.mediaKind(parameters.codec_type)
        configurationRecord =
            parameters.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(parameters.extradata_size))) }
            ?? []
        width = Int(parameters.width)
        height = Int(parameters.height)
        profile = parameters.profile == FF_PROFILE_UNKNOWN ? nil : Int(parameters.profile)
        level = Int(parameters.level)
        isFullRange =
            parameters.color_range == AVCOL_RANGE_JPEG
            || AVPixelFormat(rawValue: parameters.format) == AV_PIX_FMT_YUVJ420P
        colorPrimaries = Int(parameters.color_primaries.rawValue)
        transferCharacteristics = Int(parameters.color_trc.rawValue)
        matrixCoefficients = Int(parameters.color_space.rawValue)
        let location = Int(parameters.chroma_location.rawValue)
        chromaSampleLocation = location > 0 ? location - 1 : nil
        fieldOrder = Self.fieldOrder(parameters.field_order)
        codecAspectRatio = Ratio(parameters.sample_aspect_ratio)
        containerAspectRatio = Ratio(stream.pointee.sample_aspect_ratio)
        videoDelay = Int(parameters.video_delay)
        codecTag = parameters.codec_tag
        sampleRate = Int(parameters.sample_rate)
        channelCount = Int(parameters.ch_layout.nb_channels)
        timeBase = Ratio(stream.pointee.time_base)
        realFrameRate = Ratio(stream.pointee.r_frame_rate)
        averageFrameRate = Ratio(stream.pointee.avg_frame_rate)
        guessedFrameRate = Ratio(av_guess_frame_rate(context, stream, nil))
        duration = stream.pointee.duration == CFFmpeg_AV_NOPTS_VALUE() ? nil : stream.pointee.duration
        frameCount = stream.pointee.nb_frames
        masteringDisplay = Self.sideData(
            of: stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, as: AVMasteringDisplayMetadata.self
        ).flatMap(MasteringDisplayValues.init)
        contentLightLevel = Self.sideData(of: stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, as: AVContentLightMetadata.self)
            .map(LightLevelValues.init)
        dolbyVisionConfiguration = Self.sideData(
            of: stream, AV_PKT_DATA_DOVI_CONF, as: AVDOVIDecoderConfigurationRecord.self
        ).map(DolbyVisionValues.init)
        iccProfile = Self.sideDataBytes(of: stream, AV_PKT_DATA_ICC_PROFILE)
        codecID = parameters.codec_id
        format = parameters.format
        colorRange = parameters.color_range
        colorSpace = parameters.color_space
        colorTransfer = parameters.color_trc
        colorPrimariesValue = parameters.color_primaries
    }

    /// The stream's side data of `type` (`av_stream_get_side_data`), read as a `Value`; nil when
    /// absent or too small.
    private static func sideData<Value>(
        of stream: UnsafeMutablePointer<AVStream>, _ type: AVPacketSideDataType, as: Value.Type
    ) -> Value? {
        var size = 0
        guard let data = av_stream_get_side_data(stream, type, &size), size >= MemoryLayout<Value>.size else {
            return nil
        }
        return UnsafeRawPointer(data).loadUnaligned(as: Value.self)
    }

    /// The stream's side data of `type` as bytes; nil when absent or empty.
    private static func sideDataBytes(of stream: UnsafeMutablePointer<AVStream>, _ type: AVPacketSideDataType)
        -> [UInt8]?
    {
        var size = 0
        guard let data = av_stream_get_side_data(stream, type, &size), size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    // MARK: - libav's names

    /// libavcodec's name of the codec (`avcodec_get_name`: `"h264"`, `"hevc"`, `"mpeg4"`;
    /// `"unknown"` when it has none): the name FFmpeg's decoders and ``CodecSupport`` go by.
    var codecName: String { avcodec_get_name(codecID).map { String(cString: $0) } ?? "unknown" }

    /// The name of libavcodec's descriptor of the codec (`avcodec_descriptor_get`, ffprobe's
    /// `codec_name`); nil when libavcodec has no descriptor for it.
    var codecDescriptorName: String? { avcodec_descriptor_get(codecID).map { String(cString: $0.pointee.name) } }

    /// libavcodec's name of the profile (`avcodec_profile_name`: `"High"`, `"Main 10"`, `"LC"`);
    /// nil when it has none for the number.
    var profileName: String? {
        avcodec_profile_name(codecID, Int32(profile ?? Int(FF_PROFILE_UNKNOWN))).map { String(cString: $0) }
    }

    /// libavutil's name of the video sample format (`av_get_pix_fmt_name`: `"yuv420p"`,
    /// `"yuv420p10le"`); nil when unknown.
    var pixelFormatName: String? { av_get_pix_fmt_name(AVPixelFormat(rawValue: format)).map { String(cString: $0) } }

    /// The layout of the video sample format (`av_pix_fmt_desc_get`); nil when unknown.
    var pixelLayout: PixelLayout? {
        guard let descriptor = av_pix_fmt_desc_get(AVPixelFormat(rawValue: format)) else { return nil }
        let layout = descriptor.pointee
        return PixelLayout(
            bitDepth: Int(layout.comp.0.depth), isRGB: layout.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0,
            componentCount: Int(layout.nb_components), log2ChromaWidth: Int(layout.log2_chroma_w),
            log2ChromaHeight: Int(layout.log2_chroma_h))
    }

    /// libavutil's name of the audio sample format (`av_get_sample_fmt_name`: `"fltp"`, `"s16p"`);
    /// nil when unknown.
    var sampleFormatName: String? {
        av_get_sample_fmt_name(AVSampleFormat(rawValue: format)).map { String(cString: $0) }
    }

    /// libavutil's name of the colour range (`av_color_range_name`: `"tv"`, `"pc"`); nil when
    /// unspecified.
    var colorRangeName: String? {
        colorRange == AVCOL_RANGE_UNSPECIFIED ? nil : av_color_range_name(colorRange).map { String(cString: $0) }
    }

    /// libavutil's name of the matrix coefficients (`av_color_space_name`: `"bt709"`); nil when
    /// unspecified.
    var colorSpaceName: String? {
        colorSpace == AVCOL_SPC_UNSPECIFIED ? nil : av_color_space_name(colorSpace).map { String(cString: $0) }
    }

    /// libavutil's name of the transfer characteristics (`av_color_transfer_name`: `"smpte2084"`);
    /// nil when unspecified.
    var colorTransferName: String? {
        colorTransfer == AVCOL_TRC_UNSPECIFIED
            ? nil : av_color_transfer_name(colorTransfer).map { String(cString: $0) }
    }

    /// libavutil's name of the colour primaries (`av_color_primaries_name`: `"bt2020"`); nil when
    /// unspecified.
    var colorPrimariesName: String? {
        colorPrimariesValue == AVCOL_PRI_UNSPECIFIED
            ? nil : av_color_primaries_name(colorPrimariesValue).map { String(cString: $0) }
    }

    // MARK: - libav's enumerations

    private static func mediaKind(_ type: AVMediaType) -> MediaKind {
        switch type {
        case AVMEDIA_TYPE_VIDEO: .video
        case AVMEDIA_TYPE_AUDIO: .audio
        case AVMEDIA_TYPE_DATA: .data
        case AVMEDIA_TYPE_SUBTITLE: .subtitle
        case AVMEDIA_TYPE_ATTACHMENT: .attachment
        default: .unknown
        }
    }

    private static func fieldOrder(_ order: AVFieldOrder) -> FieldOrder? {
        switch order {
        case AV_FIELD_PROGRESSIVE: .progressive
        case AV_FIELD_TT: .tt
        case AV_FIELD_BB: .bb
        case AV_FIELD_TB: .tb
        case AV_FIELD_BT: .bt
        default: nil
        }
    }
}

/// libavutil's Dolby Vision configuration record (`AVDOVIDecoderConfigurationRecord`), field for
/// field.
struct DolbyVisionValues: Sendable, Hashable {
    /// `dv_version_major`, `dv_version_minor`.
    let versionMajor: UInt8, versionMinor: UInt8
    /// `dv_profile`, `dv_level`.
    let profile: UInt8, level: UInt8
    /// `rpu_present_flag`, `el_present_flag`, `bl_present_flag`.
    let rpuPresent: Bool, enhancementLayerPresent: Bool, baseLayerPresent: Bool
    /// `dv_bl_signal_compatibility_id`.
    let baseLayerCompatibilityID: UInt8

    init(_ record: AVDOVIDecoderConfigurationRecord) {
        versionMajor = record.dv_version_major
        versionMinor = record.dv_version_minor
        profile = record.dv_profile
        level = record.dv_level
        rpuPresent = record.rpu_present_flag != 0
        enhancementLayerPresent = record.el_present_flag != 0
        baseLayerPresent = record.bl_present_flag != 0
        baseLayerCompatibilityID = record.dv_bl_signal_compatibility_id
    }
}
