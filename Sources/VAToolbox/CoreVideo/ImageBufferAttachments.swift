/// What a decoded picture says about itself — the `kCVImageBuffer…` attachments.
public struct ImageBufferAttachments: Sendable, Hashable {
    /// `kCVImageBufferColorPrimariesKey`, nil when the stream does not say.
    public var colorPrimaries: ColorPrimaries?
    /// `kCVImageBufferTransferFunctionKey`, nil when the stream does not say.
    public var transferFunction: TransferFunction?
    /// `kCVImageBufferYCbCrMatrixKey`, nil when the stream does not say.
    public var yCbCrMatrix: YCbCrMatrix?
    /// Whether samples use the full range (`kCVImageBufferColorRangeKey`-like; CoreVideo encodes
    /// it in the pixel format, `'420f'` versus `'420v'`).
    public var fullRange: Bool
    /// `kCVImageBufferPixelAspectRatioKey`, nil when unknown.
    public var pixelAspectRatio: PixelAspectRatio?
    /// `kCVImageBufferFieldCountKey`: 2 when the picture is interlaced.
    public var fieldCount: Int
    /// `kCVImageBufferFieldDetailKey`: whether the top field comes first, for interlaced pictures.
    public var topFieldFirst: Bool
    /// `kCVImageBufferMasteringDisplayColorVolumeKey`: the display the picture was mastered on,
    /// as its stream says (an HEVC or H.264 SEI message, an AV1 metadata OBU) or else as its
    /// container says (the format description's
    /// ``FormatDescriptionExtensions/masteringDisplayColorVolume``); nil when neither says.
    public var masteringDisplayColorVolume: MasteringDisplayColorVolume?
    /// `kCVImageBufferContentLightLevelInfoKey`: the content light level, from the stream or
    /// else the container, as ``masteringDisplayColorVolume``; nil when neither says.
    public var contentLightLevel: ContentLightLevel?
    /// `kCVImageBufferAmbientViewingEnvironmentKey`: the viewing environment the picture was
    /// graded for, from the stream's latest `ambient_viewing_environment` SEI message (H.264,
    /// HEVC; read by VAToolbox on both paths) or else the format description's
    /// ``FormatDescriptionExtensions/ambientViewingEnvironment``; nil when neither says.
    public var ambientViewingEnvironment: AmbientViewingEnvironment?
    /// The transfer the stream prefers to ``transferFunction`` (its latest
    /// `alternative_transfer_characteristics` SEI message, H.264 or HEVC, read by VAToolbox on
    /// both paths), or else the format description's
    /// ``FormatDescriptionExtensions/alternativeTransferCharacteristics``; nil when neither says.
    /// Apple keeps it in the format description only
    /// (`kCMFormatDescriptionExtension_AlternativeTransferCharacteristics`); ``transferFunction``
    /// stays the video usability information's, as on Apple's platforms (libavcodec and ffprobe
    /// put the preferred one in its place: ffprobe's `color_transfer` is this value when set).
    public var alternativeTransferCharacteristics: TransferFunction?
    /// `kCVImageBufferICCProfileKey`: the ICC colour profile of the picture, its bytes as they
    /// are: the format description's ``FormatDescriptionExtensions/iccProfile`` (a container's
    /// `colr` box), or one the decoder attached; nil when neither has one.
    public var iccProfile: [UInt8]?
    /// VAToolbox's own, not Apple's: whether ``masteringDisplayColorVolume`` is the container's
    /// (the format description's), attached because the stream carries none for this picture;
    /// false when it is the stream's own or absent. ffprobe lists the container's as stream side
    /// data, the stream's as frame side data.
    public var masteringDisplayIsFromContainer: Bool
    /// VAToolbox's own: whether ``contentLightLevel`` is the container's, as
    /// ``masteringDisplayIsFromContainer``.
    public var contentLightLevelIsFromContainer: Bool
    /// VAToolbox's own: whether ``iccProfile`` is the container's (the format description's)
    /// rather than one the decoder attached, as ``masteringDisplayIsFromContainer``.
    public var iccProfileIsFromContainer: Bool
    /// VAToolbox's own: whether the decoder states the colour range (from the stream's video
    /// usability information or sequence header); ``fullRange`` is false when it does not.
    public var statesColorRange: Bool
    /// `kCVImageBufferChromaLocationTopFieldKey` as H.273's `chroma_sample_loc_type` (0 left,
    /// 1 center, 2 top left, 3 top, 4 bottom left, 5 bottom), as the decoder reports it; nil
    /// when it states none.
    public var chromaLocation: Int?
    /// VAToolbox's own, not Apple's: how the picture was coded, as the decoder reports it
    /// (`AVFrame.pict_type`, ffprobe's `pict_type`); nil when it states none.
    public var pictureType: PictureType?
    /// VAToolbox's own, not Apple's: whether the decoder marks the picture a key frame
    /// (`AVFrame.key_frame`, ffprobe's `key_frame`): an IDR or other random-access picture.
    public var isKeyFrame: Bool

    /// Reads the attachments of a decoded frame.
    init(frame: Frame) {
        // The frame's code points are H.273's; 2 is "unspecified".
        let primaries = UInt8(truncatingIfNeeded: frame.colourPrimaries)
        let transfer = UInt8(truncatingIfNeeded: frame.transferCharacteristics)
        let matrix = UInt8(truncatingIfNeeded: frame.matrixCoefficients)
        colorPrimaries = primaries == 2 ? nil : ColorPrimaries(rawValue: primaries)
        transferFunction = transfer == 2 ? nil : TransferFunction(rawValue: transfer)
        yCbCrMatrix = matrix == 2 ? nil : YCbCrMatrix(rawValue: matrix)
        fullRange = frame.isFullRange
        let sar = frame.sampleAspectRatio
        pixelAspectRatio =
            sar.numerator > 0 && sar.denominator > 0
            ? PixelAspectRatio(horizontalSpacing: sar.numerator, verticalSpacing: sar.denominator) : nil
        fieldCount = frame.isInterlaced ? 2 : 1
        topFieldFirst = frame.isTopFieldFirst
        masteringDisplayColorVolume = frame.masteringDisplay.flatMap(MasteringDisplayColorVolume.init(libav:))
        contentLightLevel = frame.contentLightLevel.map(ContentLightLevel.init(libav:))
        ambientViewingEnvironment = frame.ambientViewingEnvironment.map {
            AmbientViewingEnvironment(
                illuminanceCode: $0.illuminance,
                light: MasteringDisplayColorVolume.Chromaticity(xCode: $0.x, yCode: $0.y))
        }
        alternativeTransferCharacteristics = frame.alternativeTransferCharacteristics.map(TransferFunction.init)
        iccProfile = frame.iccProfile
        masteringDisplayIsFromContainer = frame.masteringDisplayIsFromContainer
        contentLightLevelIsFromContainer = frame.contentLightLevelIsFromContainer
        iccProfileIsFromContainer = frame.iccProfileIsFromContainer
        statesColorRange = frame.statesColorRange
        chromaLocation = frame.chromaLocation > 0 ? frame.chromaLocation - 1 : nil
        pictureType = PictureType(ffmpegLetter: frame.pictureTypeLetter)
        isKeyFrame = frame.isKeyFrame
    }
}
