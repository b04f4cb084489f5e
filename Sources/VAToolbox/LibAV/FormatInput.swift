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

        /// Copies the packet's data, time stamps, flags and new extradata.
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
