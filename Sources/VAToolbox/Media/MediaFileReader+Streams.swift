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
        let input = try FormatInput(mediaFile: path, log: log, options: options)
        guard input.findStreamInfo() else {
            throw VTError.sampleBufferInvalidMediaFormat.with("\(path): libavformat could not read its streams")
                .quoting(log.explanation(since: 0))
        }
        let best = input.bestVideoStream()
        return input.streams.map { stream in
            MediaStream(stream, isDefault: stream.index == best, codedSize: input.codedSize(ofStream: stream.index))
        }
    }
}

extension MediaStream {
    /// Reads what libavformat found for a stream of an opened file.
    ///
    /// - Parameters:
    ///   - stream: The stream, after `avformat_find_stream_info`.
    ///   - isDefault: Whether `av_find_best_stream` picked it among the video streams.
    ///   - codedSize: Its decoder's coded size (``MediaFileReader/streams(inFile:frameRate:)``).
    init(_ stream: FormatStream, isDefault: Bool, codedSize: (width: Int, height: Int)?) {
        let kind = stream.mediaKind
        index = stream.index
        mediaType = Self.mediaType(kind)
        codecName = stream.codecDescriptorName
        codecType = kind == .video ? CodecRegistry.support(forFFmpegName: stream.codecName)?.codecType : nil
        profile = stream.profile
        profileName = stream.profileName
        let isVideo = kind == .video
        let isAudio = kind == .audio
        level = isVideo ? stream.level : nil
        width = isVideo || (kind == .subtitle && stream.width != 0) ? stream.width : nil
        height = isVideo || (kind == .subtitle && stream.height != 0) ? stream.height : nil
        codedWidth = isVideo ? codedSize?.width : nil
        codedHeight = isVideo ? codedSize?.height : nil
        pixelFormatName = isVideo ? stream.pixelFormatName : nil
        colorRangeName = isVideo ? stream.colorRangeName : nil
        colorSpaceName = isVideo ? stream.colorSpaceName : nil
        colorTransferName = isVideo ? stream.colorTransferName : nil
        colorPrimariesName = isVideo ? stream.colorPrimariesName : nil
        fieldOrder = isVideo ? stream.fieldOrder.map(Self.fieldOrder) : nil
        sampleFormatName = isAudio ? stream.sampleFormatName : nil
        sampleRate = isAudio ? stream.sampleRate : nil
        channelCount = isAudio ? stream.channelCount : nil
        realFrameRate = FrameRate(
            numerator: stream.realFrameRate.numerator, denominator: stream.realFrameRate.denominator)
        averageFrameRate = FrameRate(
            numerator: stream.averageFrameRate.numerator, denominator: stream.averageFrameRate.denominator)
        timeBase = MediaTime(value: Int64(stream.timeBase.numerator), timescale: stream.timeBase.denominator)
        durationTicks = stream.duration
        frameCount = stream.frameCount != 0 ? Int(stream.frameCount) : nil
        self.isDefault = isDefault
    }

    /// The media type of libavformat's kind of stream.
    private static func mediaType(_ kind: FormatStream.MediaKind) -> MediaType {
        switch kind {
        case .video: .video
        case .audio: .audio
        case .data: .data
        case .subtitle: .subtitle
        case .attachment: .attachment
        case .unknown: .unknown
        }
    }

    /// The field order of libavformat's.
    private static func fieldOrder(_ order: FormatStream.FieldOrder) -> FieldOrder {
        switch order {
        case .progressive: .progressive
        case .tt: .tt
        case .bb: .bb
        case .tb: .tb
        case .bt: .bt
        }
    }
}
