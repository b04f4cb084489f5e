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

    /// A buffer of `width` × `height` in NV12.
    static func buffer(_ width: Int, _ height: Int) throws -> CVPixelBuffer {
        var created: CVPixelBuffer?
        #expect(
            CVPixelBufferCreate(
                kCFAllocatorDefault, width, height, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, nil, &created)
                == kCVReturnSuccess)
        return try #require(created)
    }

    /// Sets a clean aperture attachment as Core Video code does.
    static func attachCleanAperture(
        _ buffer: CVPixelBuffer, width: Int, height: Int, horizontalOffset: Int, verticalOffset: Int
    ) {
        let aperture: [NSString: Any] = [
            kCVImageBufferCleanApertureWidthKey: width, kCVImageBufferCleanApertureHeightKey: height,
            kCVImageBufferCleanApertureHorizontalOffsetKey: horizontalOffset,
            kCVImageBufferCleanApertureVerticalOffsetKey: verticalOffset,
        ]
        CVBufferSetAttachment(buffer, kCVImageBufferCleanApertureKey, aperture as CFDictionary, .shouldPropagate)
    }

    @Test func geometryKeysHaveApplesStringValues() {
        let keys: [(CFString, String)] = [
            (kCVImageBufferCleanApertureKey, "CVCleanAperture"), (kCVImageBufferCleanApertureWidthKey, "Width"),
            (kCVImageBufferCleanApertureHeightKey, "Height"),
            (kCVImageBufferCleanApertureHorizontalOffsetKey, "HorizontalOffset"),
            (kCVImageBufferCleanApertureVerticalOffsetKey, "VerticalOffset"),
            (kCVImageBufferPreferredCleanApertureKey, "CVPreferredCleanAperture"),
            (kCVImageBufferDisplayDimensionsKey, "CVDisplayDimensions"), (kCVImageBufferDisplayWidthKey, "Width"),
            (kCVImageBufferDisplayHeightKey, "Height"),
        ]
        for (key, value) in keys { #expect(key == value as NSString, "\(value)") }
    }

    @Test func aBufferWithoutAttachmentsIsAllCleanAndSquare() throws {
        let buffer = try Self.buffer(720, 480)
        #expect(CVImageBufferGetEncodedSize(buffer) == CGSize(width: 720, height: 480))
        #expect(CVImageBufferGetCleanRect(buffer) == CGRect(x: 0, y: 0, width: 720, height: 480))
        #expect(CVImageBufferGetDisplaySize(buffer) == CGSize(width: 720, height: 480))
        #expect(!CVImageBufferIsFlipped(buffer))
    }

    /// Apple's example: "for an NTSC DV frame, [CVImageBufferGetCleanRect] returns a CGRect with an
    /// origin of (8,0) and a size of 704 x 480", and CVImageBufferGetDisplaySize "a size of 640 x 480".
    @Test func anNTSCDVFrameHasApplesDocumentedCleanRectAndDisplaySize() throws {
        let buffer = try Self.buffer(720, 480)
        Self.attachCleanAperture(buffer, width: 704, height: 480, horizontalOffset: 0, verticalOffset: 0)
        let ratio: [NSString: Any] = [
            kCVImageBufferPixelAspectRatioHorizontalSpacingKey: 10,
            kCVImageBufferPixelAspectRatioVerticalSpacingKey: 11,
        ]
        CVBufferSetAttachment(buffer, kCVImageBufferPixelAspectRatioKey, ratio as CFDictionary, .shouldPropagate)
        #expect(CVImageBufferGetCleanRect(buffer) == CGRect(x: 8, y: 0, width: 704, height: 480))
        #expect(CVImageBufferGetDisplaySize(buffer) == CGSize(width: 640, height: 480))
        #expect(CVImageBufferGetEncodedSize(buffer) == CGSize(width: 720, height: 480))
    }

    /// The offsets move the aperture's centre from the buffer's; the rect's origin is at the lower
    /// left, so an aperture moved down (a positive vertical offset) starts lower.
    @Test func cleanApertureOffsetsMoveTheRect() throws {
        let buffer = try Self.buffer(720, 490)
        Self.attachCleanAperture(buffer, width: 700, height: 480, horizontalOffset: -4, verticalOffset: 2)
        #expect(CVImageBufferGetCleanRect(buffer) == CGRect(x: 6, y: 3, width: 700, height: 480))
        #expect(CVImageBufferGetDisplaySize(buffer) == CGSize(width: 700, height: 480))
        let dimensions: [NSString: Any] = [kCVImageBufferDisplayWidthKey: 853, kCVImageBufferDisplayHeightKey: 480]
        CVBufferSetAttachment(buffer, kCVImageBufferDisplayDimensionsKey, dimensions as CFDictionary, .shouldPropagate)
        #expect(CVImageBufferGetDisplaySize(buffer) == CGSize(width: 853, height: 480), "the display dimensions win")
    }

    /// A decoded picture of `h264-cropped-642x362.264` (coded 656x368, SAR 16:11): cropped to the
    /// SPS's clean aperture, displayed 16/11 wider.
    @Test func aDecodedPictureIsCroppedAndCarriesItsPixelAspectRatio() throws {
        let samples = try CompatibilityAPITests.samples("h264-cropped-642x362.264", codec: .h264)
        let format = try CompatibilityAPITests.formatDescription(samples[0].formatDescription)
        var created: VTDecompressionSession?
        #expect(
            VTDecompressionSessionCreate(
                allocator: nil, formatDescription: format, decoderSpecification: nil, imageBufferAttributes: nil,
                outputCallback: nil, decompressionSessionOut: &created) == noErr)
        let session = try #require(created)
        final class Images: @unchecked Sendable {
            // Unchecked: written by the session's queue, read after the finish.
            var list: [CVImageBuffer] = []
        }
        let images = Images()
        let sampleBuffer = try CompatibilityAPITests.sampleBuffer(samples[0].data, format: format)
        #expect(
            VTDecompressionSessionDecodeFrame(session, sampleBuffer: sampleBuffer, flags: [], infoFlagsOut: nil) {
                _, _, image, _, _ in
                if let image { images.list.append(image) }
            } == noErr)
        #expect(VTDecompressionSessionFinishDelayedFrames(session) == noErr)
        VTDecompressionSessionInvalidate(session)
        let image = try #require(images.list.first)
        #expect(CVImageBufferGetEncodedSize(image) == CGSize(width: 642, height: 362))
        #expect(CVImageBufferGetCleanRect(image) == CGRect(x: 0, y: 0, width: 642, height: 362))
        #expect(CVImageBufferGetDisplaySize(image) == CGSize(width: 642.0 * 16 / 11, height: 362))
        let ratio = CVBufferCopyAttachment(image, kCVImageBufferPixelAspectRatioKey, nil) as? NSDictionary
        #expect(ratio?[kCVImageBufferPixelAspectRatioHorizontalSpacingKey] as? NSNumber == 16)
        #expect(ratio?[kCVImageBufferPixelAspectRatioVerticalSpacingKey] as? NSNumber == 11)
    }

    @Test func attachmentsAreSetReadRemovedAndPropagatedAsCoreVideoDoes() throws {
        let source = try Self.buffer(16, 16)
        let destination = try Self.buffer(16, 16)
        let note: CFString = "com.example.note"
        let colors: [NSString: Any] = [
            kCVImageBufferColorPrimariesKey: kCVImageBufferColorPrimaries_ITU_R_2020,
            kCVImageBufferTransferFunctionKey: kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ,
        ]
        CVBufferSetAttachments(source, colors as CFDictionary, .shouldPropagate)
        CVBufferSetAttachment(source, note, "kept here" as NSString, .shouldNotPropagate)
        #expect(CVBufferHasAttachment(source, kCVImageBufferTransferFunctionKey))
        #expect(CVBufferHasAttachment(source, note))
        #expect(!CVBufferHasAttachment(source, kCVImageBufferYCbCrMatrixKey))

        let propagating = try #require(CVBufferGetAttachments(source, .shouldPropagate)).takeUnretainedValue()
        #expect(propagating[kCVImageBufferColorPrimariesKey] as? NSString == kCVImageBufferColorPrimaries_ITU_R_2020)
        var mode = CVAttachmentMode.shouldPropagate
        let unretained = CVBufferGetAttachment(source, note, &mode)?.takeUnretainedValue() as? NSString
        #expect(unretained == "kept here" && mode == .shouldNotPropagate)
        #expect(CVBufferCopyAttachments(source, .shouldNotPropagate)?[note] as? NSString == "kept here")

        CVBufferPropagateAttachments(source, destination)
        #expect(
            CVBufferCopyAttachment(destination, kCVImageBufferTransferFunctionKey, nil) as? NSString
                == kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ)
        #expect(!CVBufferHasAttachment(destination, note), "a non-propagating attachment stays")

        CVBufferRemoveAttachment(source, kCVImageBufferColorPrimariesKey)
        #expect(!CVBufferHasAttachment(source, kCVImageBufferColorPrimariesKey))
        CVBufferRemoveAllAttachments(source)
        #expect(CVBufferGetAttachments(source, .shouldPropagate) == nil)
        #expect(CVBufferCopyAttachments(source, .shouldNotPropagate) == nil)
    }
}
