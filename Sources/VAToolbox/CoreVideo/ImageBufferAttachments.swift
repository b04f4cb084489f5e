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
    }
}
