// The geometry of an image buffer (CVImageBuffer.h): its encoded size, clean aperture and display
// size, read from the buffer's attachments as Core Video reads them.

// The keys are `nonisolated(unsafe)`: Foundation on Linux does not mark `NSString` `Sendable`, but
// these are immutable string constants, never mutated after their one initialisation, and they
// must be stored (not computed) so that `Unmanaged.passUnretained(key)` points at a live object.

/// The clean aperture, a dictionary of width, height and the offsets of its centre from the
/// buffer's centre — `kCVImageBufferCleanApertureKey`.
nonisolated(unsafe) public let kCVImageBufferCleanApertureKey: CFString = "CVCleanAperture"
/// The clean aperture's width — `kCVImageBufferCleanApertureWidthKey`.
nonisolated(unsafe) public let kCVImageBufferCleanApertureWidthKey: CFString = "Width"
/// The clean aperture's height — `kCVImageBufferCleanApertureHeightKey`.
nonisolated(unsafe) public let kCVImageBufferCleanApertureHeightKey: CFString = "Height"
/// How far right of the buffer's centre the clean aperture's centre lies —
/// `kCVImageBufferCleanApertureHorizontalOffsetKey`.
nonisolated(unsafe) public let kCVImageBufferCleanApertureHorizontalOffsetKey: CFString = "HorizontalOffset"
/// How far below the buffer's centre the clean aperture's centre lies —
/// `kCVImageBufferCleanApertureVerticalOffsetKey`.
nonisolated(unsafe) public let kCVImageBufferCleanApertureVerticalOffsetKey: CFString = "VerticalOffset"
/// The clean aperture an application prefers to the encoded one —
/// `kCVImageBufferPreferredCleanApertureKey`.
nonisolated(unsafe) public let kCVImageBufferPreferredCleanApertureKey: CFString = "CVPreferredCleanAperture"
/// The size to display the picture at, a dictionary of width and height —
/// `kCVImageBufferDisplayDimensionsKey`.
nonisolated(unsafe) public let kCVImageBufferDisplayDimensionsKey: CFString = "CVDisplayDimensions"
/// The display width — `kCVImageBufferDisplayWidthKey`.
nonisolated(unsafe) public let kCVImageBufferDisplayWidthKey: CFString = "Width"
/// The display height — `kCVImageBufferDisplayHeightKey`.
nonisolated(unsafe) public let kCVImageBufferDisplayHeightKey: CFString = "Height"

/// A number in an attachment dictionary, as a `Double`.
private func number(_ dictionary: NSDictionary, _ key: CFString) -> Double? {
    switch dictionary.compatValue(forKey: key) {
    case let number as NSNumber: return number.doubleValue
    case let double as Double: return double
    case let int as Int: return Double(int)
    default: return nil
    }
}

/// An attachment dictionary of the buffer, whichever its mode.
private func dictionaryAttachment(_ imageBuffer: CVImageBuffer, _ key: CFString) -> NSDictionary? {
    CVBufferCopyAttachment(imageBuffer, key, nil) as? NSDictionary
}

/// The full size of the buffer in pixels, `CVPixelBufferGetWidth` by `CVPixelBufferGetHeight` —
/// `CVImageBufferGetEncodedSize`.
public func CVImageBufferGetEncodedSize(_ imageBuffer: CVImageBuffer) -> CGSize {
    CGSize(width: Double(CVPixelBufferGetWidth(imageBuffer)), height: Double(CVPixelBufferGetHeight(imageBuffer)))
}

/// The clean aperture in encoded pixels, with its origin at the lower left as in Quartz and Core
/// Image — `CVImageBufferGetCleanRect`.
///
/// From the `kCVImageBufferCleanApertureKey` attachment: the aperture's width and height, centred
/// on the buffer and moved by its offsets (the vertical one counted downwards, so a positive
/// offset lowers the origin). Without the attachment, the whole buffer. A decoded picture comes
/// cropped to the stream's clean aperture already (libavcodec applies the H.264/HEVC crop), so
/// its clean rect is the whole buffer unless the application attaches one.
public func CVImageBufferGetCleanRect(_ imageBuffer: CVImageBuffer) -> CGRect {
    let encoded = CVImageBufferGetEncodedSize(imageBuffer)
    guard let aperture = dictionaryAttachment(imageBuffer, kCVImageBufferCleanApertureKey),
        let width = number(aperture, kCVImageBufferCleanApertureWidthKey),
        let height = number(aperture, kCVImageBufferCleanApertureHeightKey)
    else { return CGRect(origin: .zero, size: encoded) }
    let horizontalOffset = number(aperture, kCVImageBufferCleanApertureHorizontalOffsetKey) ?? 0
    let verticalOffset = number(aperture, kCVImageBufferCleanApertureVerticalOffsetKey) ?? 0
    return CGRect(
        x: (encoded.width - width) / 2 + horizontalOffset, y: (encoded.height - height) / 2 - verticalOffset,
        width: width, height: height)
}

/// The size to display the picture at, in square pixels — `CVImageBufferGetDisplaySize`.
///
/// The `kCVImageBufferDisplayDimensionsKey` attachment when there is one; otherwise the clean
/// rect's size with its width stretched by the pixel aspect ratio
/// (`kCVImageBufferPixelAspectRatioKey`, horizontal over vertical spacing): 704 × 480 NTSC
/// pixels of aspect 10:11 display at 640 × 480. Without a pixel aspect ratio, the clean rect's
/// size.
public func CVImageBufferGetDisplaySize(_ imageBuffer: CVImageBuffer) -> CGSize {
    if let dimensions = dictionaryAttachment(imageBuffer, kCVImageBufferDisplayDimensionsKey),
        let width = number(dimensions, kCVImageBufferDisplayWidthKey),
        let height = number(dimensions, kCVImageBufferDisplayHeightKey)
    {
        return CGSize(width: width, height: height)
    }
    var size = CVImageBufferGetCleanRect(imageBuffer).size
    if let ratio = dictionaryAttachment(imageBuffer, kCVImageBufferPixelAspectRatioKey),
        let horizontal = number(ratio, kCVImageBufferPixelAspectRatioHorizontalSpacingKey),
        let vertical = number(ratio, kCVImageBufferPixelAspectRatioVerticalSpacingKey), horizontal > 0, vertical > 0
    {
        size.width = size.width * horizontal / vertical
    }
    return size
}

/// Whether the picture is stored bottom row first — `CVImageBufferIsFlipped`. Never: every pixel
/// buffer here starts with its top row.
public func CVImageBufferIsFlipped(_ imageBuffer: CVImageBuffer) -> Bool { false }

/// The buffer's Core Graphics colour space — `CVImageBufferGetColorSpace`. Linux has no Core
/// Graphics.
@available(
    *, unavailable,
    message:
        "there is no Core Graphics on Linux: read kCVImageBufferColorPrimariesKey, kCVImageBufferTransferFunctionKey and kCVImageBufferYCbCrMatrixKey with CVBufferCopyAttachment"
)
public func CVImageBufferGetColorSpace(_ imageBuffer: CVImageBuffer) -> Unmanaged<AnyObject>? { nil }

/// A Core Graphics colour space made from colour attachments —
/// `CVImageBufferCreateColorSpaceFromAttachments`. Linux has no Core Graphics.
@available(
    *, unavailable,
    message:
        "there is no Core Graphics on Linux: the attachments' kCVImageBufferColorPrimariesKey, kCVImageBufferTransferFunctionKey and kCVImageBufferYCbCrMatrixKey name the colour space"
)
public func CVImageBufferCreateColorSpaceFromAttachments(_ attachments: CFDictionary) -> Unmanaged<AnyObject>? {
    nil
}
