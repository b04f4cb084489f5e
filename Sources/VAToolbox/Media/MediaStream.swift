/// One stream of a media file — video, audio, subtitles, data — as libavformat and libavcodec
/// describe it, the way `ffprobe -show_streams` reports it: what ``MediaFileReader/streams(inFile:frameRate:)``
/// lists.
///
/// Where ``MediaTrack`` is a video track the reader can read, a `MediaStream` is any stream of the
/// file, decodable or not. Its names are libav's own, read with the functions `ffprobe` prints them
/// with (`avcodec_profile_name`, `av_get_pix_fmt_name`, `av_color_range_name`, …), so that a
/// program can set them beside ffprobe's output and find them equal. A value the stream does not
/// state, or that does not apply to its media type, is nil (ffprobe leaves such a key out).
public struct MediaStream: Sendable, Hashable {
    /// A stream's kind of media (`AVMediaType`); its raw value is ffprobe's `codec_type`.
    public enum MediaType: String, Sendable, Hashable {
        /// Pictures (`AVMEDIA_TYPE_VIDEO`).
        case video
        /// Sound (`AVMEDIA_TYPE_AUDIO`).
        case audio
        /// Opaque data, such as timed metadata (`AVMEDIA_TYPE_DATA`).
        case data
        /// Subtitles (`AVMEDIA_TYPE_SUBTITLE`).
        case subtitle
        /// An attachment, such as a font in Matroska (`AVMEDIA_TYPE_ATTACHMENT`).
        case attachment
        /// A stream whose kind libavformat does not know (`AVMEDIA_TYPE_UNKNOWN`); ffprobe
        /// prints no `codec_type` for it.
        case unknown
    }

    /// The order of a video stream's fields (`AVFieldOrder`); its raw value is ffprobe's
    /// `field_order`.
    public enum FieldOrder: String, Sendable, Hashable {
        /// Whole frames (`AV_FIELD_PROGRESSIVE`).
        case progressive
        /// Interlaced, top field coded first and shown first (`AV_FIELD_TT`).
        case tt
        /// Interlaced, bottom field coded first and shown first (`AV_FIELD_BB`).
        case bb
        /// Interlaced, top field coded first, bottom field shown first (`AV_FIELD_TB`).
        case tb
        /// Interlaced, bottom field coded first, top field shown first (`AV_FIELD_BT`).
        case bt
    }

    /// The stream's index in the file (ffprobe's `index`, `Stream #0:1` is 1), as
    /// ``MediaFileReader/init(path:track:frameRate:)`` takes a video track's.
    public let index: Int
    /// The kind of media (ffprobe's `codec_type`).
    public let mediaType: MediaType
    /// libavcodec's name of the codec (ffprobe's `codec_name`: `"h264"`, `"aac"`, `"mov_text"`);
    /// nil when libavcodec has no descriptor for it.
    public let codecName: String?
    /// The video codec, when VAToolbox decodes it; nil for other codecs and other media.
    public let codecType: VideoCodecType?
    /// libavcodec's profile number (`AVCodecParameters.profile`), nil when unknown
    /// (`FF_PROFILE_UNKNOWN`).
    public let profile: Int?
    /// libavcodec's name of the profile (`avcodec_profile_name`: `"High"`, `"Main 10"`, `"LC"`),
    /// nil when it has none for the number. ffprobe prints this name, else ``profile``'s number.
    public let profileName: String?
    /// libavcodec's level number (`AVCodecParameters.level`) as ffprobe prints it: `41` for
    /// H.264 level 4.1, `120` for HEVC level 4 (30 × the level), `-99` (`FF_LEVEL_UNKNOWN`) when
    /// the stream states none. Nil for streams other than video.
    public let level: Int?
    /// The picture width the container or the codec states: every video stream has one (0 when
    /// unknown); a subtitle stream only when it is not 0 (a bitmap subtitle's canvas); nil
    /// otherwise.
    public let width: Int?
    /// The picture height, as ``width``.
    public let height: Int?
    /// The coded width libavcodec's decoder takes from the stream's parameters when it opens
    /// (ffprobe's `coded_width`): for most decoders the ``width``, 0 for a decoder that trusts
    /// only the bitstream (MPEG-1/2 video). Nil for streams other than video, and for codecs
    /// libavcodec has no decoder for.
    public let codedWidth: Int?
    /// The coded height, as ``codedWidth``.
    public let codedHeight: Int?
    /// libavutil's name of the video sample format (`av_get_pix_fmt_name`: `"yuv420p"`,
    /// `"yuvj420p"`, `"yuv420p10le"`); nil when unknown, and for streams other than video.
    public let pixelFormatName: String?
    /// libavutil's name of the colour range (`av_color_range_name`: `"tv"`, `"pc"`); nil when
    /// unspecified, and for streams other than video.
    public let colorRangeName: String?
    /// libavutil's name of the matrix coefficients (`av_color_space_name`: `"bt709"`,
    /// `"smpte170m"`); nil when unspecified, and for streams other than video.
    public let colorSpaceName: String?
    /// libavutil's name of the transfer characteristics (`av_color_transfer_name`: `"bt709"`,
    /// `"smpte2084"`); nil when unspecified, and for streams other than video.
    public let colorTransferName: String?
    /// libavutil's name of the colour primaries (`av_color_primaries_name`: `"bt709"`,
    /// `"bt2020"`); nil when unspecified, and for streams other than video.
    public let colorPrimariesName: String?
    /// The order of the fields, when libavformat found it; nil when unknown, and for streams
    /// other than video.
    public let fieldOrder: FieldOrder?
    /// libavutil's name of the audio sample format (`av_get_sample_fmt_name`: `"fltp"`,
    /// `"s16p"`); nil when unknown, and for streams other than audio.
    public let sampleFormatName: String?
    /// Audio samples per second; nil for streams other than audio.
    public let sampleRate: Int?
    /// The number of audio channels; nil for streams other than audio.
    public let channelCount: Int?
    /// libavformat's "real base frame rate" (`AVStream.r_frame_rate`, ffprobe's
    /// `r_frame_rate`); nil when it knows none (ffprobe prints `0/0`).
    public let realFrameRate: FrameRate?
    /// The average frame rate (`AVStream.avg_frame_rate`, ffprobe's `avg_frame_rate`); nil when
    /// libavformat could not tell (ffprobe prints `0/0`).
    public let averageFrameRate: FrameRate?
    /// The unit of the stream's time stamps (`AVStream.time_base`, ffprobe's `time_base`), as a
    /// fraction of a second: `value/timescale` seconds per tick.
    public let timeBase: MediaTime
    /// The stream's duration in ticks of ``timeBase`` (`AVStream.duration`, ffprobe's
    /// `duration_ts`); nil when the container states none and libavformat estimated none.
    public let durationTicks: Int64?
    /// The number of frames the container states (`AVStream.nb_frames`, ffprobe's `nb_frames`:
    /// MP4's sample count, for example); nil when it states none.
    public let frameCount: Int?
    /// Whether this is the video stream the ffmpeg CLI picks by default
    /// (`av_find_best_stream`), which ``MediaFileReader`` reads unless told otherwise.
    public let isDefault: Bool

    /// The stream's duration (``durationTicks`` ticks of ``timeBase``); nil when unknown.
    public var duration: MediaTime? {
        durationTicks.map {
            MediaTime(value: $0, timescale: timeBase.timescale).multiplied(by: Int32(clamping: timeBase.value))
        }
    }

    /// Whether VAToolbox decodes this stream: a video stream in a codec it has a decoder for.
    public var isDecodable: Bool { codecType != nil }
}
