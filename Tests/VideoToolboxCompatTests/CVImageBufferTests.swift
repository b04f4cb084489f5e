import Foundation
import Testing
import VideoToolbox

/// CVImageBuffer.h and CVBuffer.h as Core Video code calls them: the attachment keys with Apple's
/// string values (what `CVBufferCopyAttachments` prints on macOS), the geometry read from the
/// attachments, and the attachment functions.
@Suite struct CVImageBufferTests {
    /// The values Apple's frameworks print, e.g. a decoded frame's attachments on macOS:
    /// `CVImageBufferColorPrimaries = "ITU_R_709_2"; CVPixelAspectRatio = {HorizontalSpacing = 1; …}`.
    @Test func attachmentKeysHaveApplesStringValues() {
        let keys: [(CFString, String)] = [
            (kCVImageBufferColorPrimariesKey, "CVImageBufferColorPrimaries"),
            (kCVImageBufferTransferFunctionKey, "CVImageBufferTransferFunction"),
            (kCVImageBufferYCbCrMatrixKey, "CVImageBufferYCbCrMatrix"),
            (kCVImageBufferFieldCountKey, "CVFieldCount"),
            (kCVImageBufferFieldDetailKey, "CVFieldDetail"),
            (kCVImageBufferPixelAspectRatioKey, "CVPixelAspectRatio"),
            (kCVImageBufferPixelAspectRatioHorizontalSpacingKey, "HorizontalSpacing"),
            (kCVImageBufferPixelAspectRatioVerticalSpacingKey, "VerticalSpacing"),
            (kCVImageBufferColorPrimaries_ITU_R_709_2, "ITU_R_709_2"),
            (kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ, "SMPTE_ST_2084_PQ"),
            (kCVImageBufferYCbCrMatrix_ITU_R_601_4, "ITU_R_601_4"),
            (kCMFormatDescriptionExtension_ColorPrimaries, "CVImageBufferColorPrimaries"),
            (kCMFormatDescriptionExtension_PixelAspectRatio, "CVPixelAspectRatio"),
            (kCMFormatDescriptionExtension_FieldCount, "CVFieldCount"),
        ]
        for (key, value) in keys { #expect(key == value as NSString, "\(value)") }
    }
}
