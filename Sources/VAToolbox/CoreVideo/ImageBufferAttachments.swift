internal import CFFmpeg

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

    /// Reads the attachments of a decoded frame.
    init(frame: UnsafePointer<AVFrame>) {
        let frame = frame.pointee
        let primaries = UInt8(truncatingIfNeeded: frame.color_primaries.rawValue)
        let transfer = UInt8(truncatingIfNeeded: frame.color_trc.rawValue)
        let matrix = UInt8(truncatingIfNeeded: frame.colorspace.rawValue)
        colorPrimaries = primaries == 2 ? nil : ColorPrimaries(rawValue: primaries)
        transferFunction = transfer == 2 ? nil : TransferFunction(rawValue: transfer)
        yCbCrMatrix = matrix == 2 ? nil : YCbCrMatrix(rawValue: matrix)
        fullRange = frame.color_range == AVCOL_RANGE_JPEG
        let sar = frame.sample_aspect_ratio
        pixelAspectRatio =
            sar.num > 0 && sar.den > 0
            ? PixelAspectRatio(horizontalSpacing: Int(sar.num), verticalSpacing: Int(sar.den)) : nil
        fieldCount = frame.interlaced_frame != 0 ? 2 : 1
        topFieldFirst = frame.top_field_first != 0
    }
}
