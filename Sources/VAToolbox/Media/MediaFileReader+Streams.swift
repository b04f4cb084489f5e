internal import CFFmpeg

extension MediaFileReader {
    /// Every stream of a media file — video, audio, subtitles, data — as `ffprobe -show_streams`
    /// lists them, whether VAToolbox decodes them or not.
    ///
    /// The file is opened on its own (not through a reader), as ffprobe opens it: libavformat
    /// reads its header and probes its streams (`avformat_find_stream_info`), and for each stream
    /// whose codec libavcodec has a decoder for, that decoder is opened on the stream's
    /// parameters and closed again, for the coded size it takes from them (ffprobe's
    /// `coded_width`, `coded_height`). Nothing is decoded. What libav logs meanwhile is kept by
    /// the call, not printed.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - frameRate: The frame rate of a raw stream that states none, as for
    ///     ``init(path:track:frameRate:)`` (`ffprobe -framerate`); nil for libavformat's 25.
    /// - Returns: The streams in index order.
    /// - Throws: ``VTError/sampleBufferDataFailed`` when the file cannot be opened or read;
    ///   ``VTError/sampleBufferInvalidMediaFormat`` when it is not a container libavformat knows, or
    ///   libavformat cannot read its streams.
    public static func streams(inFile path: String, frameRate: FrameRate? = nil) throws(VTError) -> [MediaStream] {
        let log = LibavLogCapture(.mediaFileReader, defaultLabel: path)
        // ffprobe scans every program map table of an MPEG-TS file (`scan_all_pmts`), as the
        // ffmpeg CLI does; other demuxers ignore the option.
        var options = ["scan_all_pmts": "1"]
        if let frameRate { options["framerate"] = frameRate.description }
        let input = try FormatContext(path: path, log: log, options: options)
        let context = input.pointer
        guard log.whileCalling({ avformat_find_stream_info(context, nil) }) >= 0 else {
            throw VTError.sampleBufferInvalidMediaFormat.with("\(path): libavformat could not read its streams")
                .quoting(log.explanation(since: 0))
        }
        let best = log.whileCalling { av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0) }
        var streams: [MediaStream] = []
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[index] else { continue }
            let coded = log.whileCalling { codedSize(of: stream, log: log) }
            streams.append(MediaStream(stream: stream, isDefault: index == Int(best), codedSize: coded))
        }
        return streams
    }

    /// The coded size a video stream's decoder takes from its parameters when it opens, as
    /// ffprobe opens it (`avcodec_find_decoder`, `avcodec_parameters_to_context`, the stream's
    /// time base and average frame rate, `avcodec_open2`); nil for other media, a codec
    /// libavcodec has no decoder for, or a decoder that does not open.
    private static func codedSize(
        of stream: UnsafeMutablePointer<AVStream>, log: LibavLogCapture
    ) -> (width: Int, height: Int)? {
        guard let parameters = stream.pointee.codecpar, parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO,
            parameters.pointee.codec_id != AV_CODEC_ID_PROBE,
            let codec = avcodec_find_decoder(parameters.pointee.codec_id),
            let context = avcodec_alloc_context3(codec)
        else { return nil }
        log.claim(context)
        defer {
            log.release(context)
            var freed: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&freed)
        }
        guard avcodec_parameters_to_context(context, parameters) >= 0 else { return nil }
        context.pointee.pkt_timebase = stream.pointee.time_base
        context.pointee.framerate = stream.pointee.avg_frame_rate
        guard avcodec_open2(context, codec, nil) >= 0 else { return nil }
        return (Int(context.pointee.coded_width), Int(context.pointee.coded_height))
    }
}

extension MediaStream {
    /// Reads what libavformat found for a stream of an opened file.
    ///
    /// - Parameters:
    ///   - stream: The stream, after `avformat_find_stream_info`.
    ///   - isDefault: Whether `av_find_best_stream` picked it among the video streams.
    ///   - codedSize: Its decoder's coded size (``MediaFileReader/streams(inFile:frameRate:)``).
    init(stream: UnsafeMutablePointer<AVStream>, isDefault: Bool, codedSize: (width: Int, height: Int)?) {
        let parameters = stream.pointee.codecpar.pointee
        let type = parameters.codec_type
        index = Int(stream.pointee.index)
        mediaType = Self.mediaType(type)
        codecName = avcodec_descriptor_get(parameters.codec_id).map { String(cString: $0.pointee.name) }
        codecType =
            type == AVMEDIA_TYPE_VIDEO ? CodecRegistry.support(forLibavcodecID: parameters.codec_id)?.codecType : nil
        profile = parameters.profile == FF_PROFILE_UNKNOWN ? nil : Int(parameters.profile)
        profileName = avcodec_profile_name(parameters.codec_id, parameters.profile).map { String(cString: $0) }
        let isVideo = type == AVMEDIA_TYPE_VIDEO
        let isAudio = type == AVMEDIA_TYPE_AUDIO
        level = isVideo ? Int(parameters.level) : nil
        if isVideo || (type == AVMEDIA_TYPE_SUBTITLE && parameters.width != 0) {
            width = Int(parameters.width)
        } else {
            width = nil
        }
        if isVideo || (type == AVMEDIA_TYPE_SUBTITLE && parameters.height != 0) {
            height = Int(parameters.height)
        } else {
            height = nil
        }
        codedWidth = isVideo ? codedSize?.width : nil
        codedHeight = isVideo ? codedSize?.height : nil
        pixelFormatName =
            isVideo ? av_get_pix_fmt_name(AVPixelFormat(rawValue: parameters.format)).map { String(cString: $0) } : nil
        colorRangeName =
            isVideo && parameters.color_range != AVCOL_RANGE_UNSPECIFIED
            ? av_color_range_name(parameters.color_range).map { String(cString: $0) } : nil
        colorSpaceName =
            isVideo && parameters.color_space != AVCOL_SPC_UNSPECIFIED
            ? av_color_space_name(parameters.color_space).map { String(cString: $0) } : nil
        colorTransferName =
            isVideo && parameters.color_trc != AVCOL_TRC_UNSPECIFIED
            ? av_color_transfer_name(parameters.color_trc).map { String(cString: $0) } : nil
        colorPrimariesName =
            isVideo && parameters.color_primaries != AVCOL_PRI_UNSPECIFIED
            ? av_color_primaries_name(parameters.color_primaries).map { String(cString: $0) } : nil
        fieldOrder = isVideo ? Self.fieldOrder(parameters.field_order) : nil
        sampleFormatName =
            isAudio
            ? av_get_sample_fmt_name(AVSampleFormat(rawValue: parameters.format)).map { String(cString: $0) } : nil
        sampleRate = isAudio ? Int(parameters.sample_rate) : nil
        channelCount = isAudio ? Int(parameters.ch_layout.nb_channels) : nil
        realFrameRate = FrameRate(
            numerator: stream.pointee.r_frame_rate.num, denominator: stream.pointee.r_frame_rate.den)
        averageFrameRate = FrameRate(
            numerator: stream.pointee.avg_frame_rate.num, denominator: stream.pointee.avg_frame_rate.den)
        let base = stream.pointee.time_base
        timeBase = MediaTime(value: Int64(base.num), timescale: base.den)
        durationTicks = stream.pointee.duration == CFFmpeg_AV_NOPTS_VALUE() ? nil : stream.pointee.duration
        frameCount = stream.pointee.nb_frames != 0 ? Int(stream.pointee.nb_frames) : nil
        self.isDefault = isDefault
    }

    /// The media type of libavformat's `AVMediaType`.
    private static func mediaType(_ type: AVMediaType) -> MediaType {
        switch type {
        case AVMEDIA_TYPE_VIDEO: .video
        case AVMEDIA_TYPE_AUDIO: .audio
        case AVMEDIA_TYPE_DATA: .data
        case AVMEDIA_TYPE_SUBTITLE: .subtitle
        case AVMEDIA_TYPE_ATTACHMENT: .attachment
        default: .unknown
        }
    }

    /// The field order of libavformat's `AVFieldOrder`; nil for `AV_FIELD_UNKNOWN`.
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
