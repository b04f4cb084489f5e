// The value the codecs make container descriptions from; Media reads it from libavformat
// (StreamParameters+Libavformat.swift), so that Codecs names nothing above it.

/// What a container says of a video stream, read from libavformat's `AVCodecParameters` after
/// it probed the stream (for codecs without a configuration record, libavformat's parsers read
/// those facts from the first frames): the codec's configuration record, sizes, profile and
/// level, sample format and colour.
struct StreamParameters: Sendable, Hashable {
    /// The configuration record (`extradata`): `avcC`, `hvcC`, `av1C`, an MPEG-2 sequence header;
    /// empty when the container has none.
    var configurationRecord: [UInt8]
    /// The coded picture size.
    var width: Int
    /// The coded picture height.
    var height: Int
    /// libavcodec's profile number (`FF_PROFILE_*`), or nil when unknown.
    var profile: Int?
    /// libavcodec's name of the profile (`avcodec_profile_name`), nil when it has none.
    var profileName: String?
    /// libavcodec's level number, or nil when unknown.
    var level: Int?
    /// `chroma_format_idc`: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4, and
    /// ``StreamProperties/chromaFormat440`` for 4:4:0; nil for a layout without one (4:1:1, RGB).
    var chromaFormatIdc: Int?
    /// The bit depth of the samples.
    var bitDepth: Int
    /// Whether samples use the full range.
    var fullRange: Bool
    /// ISO/IEC 23091-2 colour code points, nil when unspecified.
    var colorPrimaries: UInt8?
    /// The transfer characteristics code point, nil when unspecified.
    var transferCharacteristics: UInt8?
    /// The matrix coefficients code point, nil when unspecified.
    var matrixCoefficients: UInt8?
    /// The chroma sample location as H.264's `chroma_sample_loc_type` counts it, nil when unspecified.
    var chromaLocation: Int?
    /// Whether the stream may be interlaced (libavformat found a field order other than progressive).
    var mayBeInterlaced: Bool
    /// The pixel aspect ratio, nil when unspecified.
    var pixelAspectRatio: PixelAspectRatio?
    /// The frames the decoder holds back for reordering (`video_delay`).
    var reorderDepth: Int
    /// libavformat's name of the sample format, for messages (`"yuv420p10le"`).
    var pixelFormatName: String
    /// The container's FourCC of the stream (`codec_tag`: an AVI's `biCompression`, an MP4's
    /// sample entry type), 0 when it has none.
    var codecTag: UInt32 = 0
    /// The mastering display colour volume the container states (MP4 `mdcv`, Matroska
    /// `MasteringMetadata`), nil when it states none.
    var masteringDisplayColorVolume: MasteringDisplayColorVolume?
    /// The content light level the container states (MP4 `clli`, Matroska `MaxCLL`/`MaxFALL`).
    var contentLightLevel: ContentLightLevel?
    /// The Dolby Vision configuration record the container states (`dvcC`, `dvvC`, `dvwC`).
    var dolbyVisionConfiguration: DolbyVisionConfiguration?
    /// The ICC profile the container states (MP4 `colr` of type `prof`), nil when it states none.
    var iccProfile: [UInt8]?

    /// The profile's name for people: libavcodec's, else its number, else `"unknown"`.
    var profileDisplayName: String { profileName ?? profile.map { "\($0)" } ?? "unknown" }

    /// The format description extensions these parameters imply.
    var extensions: FormatDescriptionExtensions {
        var extensions = FormatDescriptionExtensions()
        extensions.fullRangeVideo = fullRange
        extensions.colorPrimaries = colorPrimaries.map(ColorPrimaries.init(rawValue:))
        extensions.transferFunction = transferCharacteristics.map(TransferFunction.init(rawValue:))
        extensions.yCbCrMatrix = matrixCoefficients.map(YCbCrMatrix.init(rawValue:))
        extensions.pixelAspectRatio = pixelAspectRatio
        extensions.chromaLocation = chromaLocation
        extensions.fieldCount = mayBeInterlaced ? 2 : 1
        extensions.decoderConfigurationRecord = configurationRecord
        extensions.masteringDisplayColorVolume = masteringDisplayColorVolume
        extensions.contentLightLevel = contentLightLevel
        extensions.dolbyVisionConfiguration = dolbyVisionConfiguration
        extensions.iccProfile = iccProfile
        return extensions
    }

    /// `format` with the colour and HDR metadata the container states (static metadata, the
    /// Dolby Vision configuration, the ICC profile), for a description made from the stream's own
    /// parameter sets (which carry none); what the description has stays.
    func addingContainerMetadata(to format: VideoFormatDescription) -> VideoFormatDescription {
        guard
            masteringDisplayColorVolume != nil || contentLightLevel != nil || dolbyVisionConfiguration != nil
                || iccProfile != nil
        else {
            return format
        }
        var format = format
        format.extensions.iccProfile = format.extensions.iccProfile ?? iccProfile
        format.extensions.dolbyVisionConfiguration =
            format.extensions.dolbyVisionConfiguration ?? dolbyVisionConfiguration
        format.extensions.masteringDisplayColorVolume =
            format.extensions.masteringDisplayColorVolume ?? masteringDisplayColorVolume
        format.extensions.contentLightLevel = format.extensions.contentLightLevel ?? contentLightLevel
        return format
    }
}
