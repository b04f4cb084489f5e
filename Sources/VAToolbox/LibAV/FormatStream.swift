internal import CFFmpeg

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
        codecID = parameters.codec_id
        format = parameters.format
        colorRange = parameters.color_range
        colorSpace = parameters.color_space
        colorTransfer = parameters.color_trc
        colorPrimariesValue = parameters.color_primaries
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
