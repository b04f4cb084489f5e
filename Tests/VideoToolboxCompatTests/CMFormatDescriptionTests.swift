import Foundation
import Testing
import VideoToolbox

/// CMFormatDescription.h as decoding and display code calls it, checked against the fixtures'
/// ffprobe oracles.
@Suite struct CMFormatDescriptionTests {
    static func description(_ name: String) throws -> CMVideoFormatDescription {
        let samples = try CompatibilityAPITests.samples(name, codec: .h264)
        return try CompatibilityAPITests.formatDescription(samples[0].formatDescription)
    }

    /// `h264-cropped-642x362.264`: ffprobe's width/height 642x362, SAR 16:11.
    @Test func presentationDimensionsAndCleanAperture() throws {
        let format = try Self.description("h264-cropped-642x362.264")
        let probe = try CompatibilityAPITests.probe("h264-cropped-642x362.264")
        #expect(probe["sample_aspect_ratio"] as? String == "16:11")
        #expect(CMVideoFormatDescriptionGetDimensions(format) == CMVideoDimensions(width: 642, height: 362))
        #expect(
            CMVideoFormatDescriptionGetPresentationDimensions(format, usePixelAspectRatio: true, useCleanAperture: true)
                == CGSize(width: 642.0 * 16 / 11, height: 362))
        #expect(
            CMVideoFormatDescriptionGetPresentationDimensions(
                format, usePixelAspectRatio: false, useCleanAperture: true)
                == CGSize(width: 642, height: 362))
        #expect(
            CMVideoFormatDescriptionGetCleanAperture(format, originIsAtTopLeft: true)
                == CGRect(x: 0, y: 0, width: 642, height: 362))
        let ratio = CMFormatDescriptionGetExtension(
            format, extensionKey: kCMFormatDescriptionExtension_PixelAspectRatio)
        #expect((ratio as? NSDictionary)?[kCVImageBufferPixelAspectRatioHorizontalSpacingKey] as? NSNumber == 16)
        let extensions = try #require(CMFormatDescriptionGetExtensions(format))
        #expect((extensions[kCMFormatDescriptionExtension_FieldCount] as? NSNumber)?.intValue == 1)
        #expect(extensions[kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms] is NSDictionary)
        #expect(CMFormatDescriptionGetMediaType(format) == kCMMediaType_Video)
    }

    /// The baseline and Main fixtures are both 320x240 H.264; they differ in their colour and
    /// range extensions and their avcC.
    @Test func equalityIgnoringExtensionKeys() throws {
        let baseline = try Self.description("h264-baseline-cavlc.264")
        let main = try Self.description("h264-main-cabac.264")
        let again = try Self.description("h264-baseline-cavlc.264")
        #expect(CMFormatDescriptionEqual(baseline, otherFormatDescription: again))
        #expect(!CMFormatDescriptionEqual(baseline, otherFormatDescription: main))
        #expect(
            CMFormatDescriptionEqualIgnoringExtensionKeys(
                baseline, otherFormatDescription: again, extensionKeysToIgnore: nil,
                sampleDescriptionExtensionAtomKeysToIgnore: nil))
        let colourKeys =
            [
                kCMFormatDescriptionExtension_FullRangeVideo, kCMFormatDescriptionExtension_ColorPrimaries,
                kCMFormatDescriptionExtension_TransferFunction, kCMFormatDescriptionExtension_YCbCrMatrix,
            ] as NSArray
        #expect(
            !CMFormatDescriptionEqualIgnoringExtensionKeys(
                baseline, otherFormatDescription: main, extensionKeysToIgnore: colourKeys,
                sampleDescriptionExtensionAtomKeysToIgnore: nil), "the avcC atoms still differ")
        #expect(
            CMFormatDescriptionEqualIgnoringExtensionKeys(
                baseline, otherFormatDescription: main, extensionKeysToIgnore: colourKeys,
                sampleDescriptionExtensionAtomKeysToIgnore: "avcC" as NSString))
        let cropped = try Self.description("h264-cropped-642x362.264")
        #expect(
            !CMFormatDescriptionEqualIgnoringExtensionKeys(
                baseline, otherFormatDescription: cropped, extensionKeysToIgnore: colourKeys,
                sampleDescriptionExtensionAtomKeysToIgnore: "avcC" as NSString), "the dimensions differ")
    }

    @Test func imageBufferDescriptions() throws {
        let image = try CVImageBufferTests.buffer(64, 48)
        var made: CMFormatDescription?
        #expect(
            CMVideoFormatDescriptionCreateForImageBuffer(
                allocator: nil, imageBuffer: image, formatDescriptionOut: &made)
                == noErr)
        let format = try #require(made)
        #expect(CMVideoFormatDescriptionGetDimensions(format) == CMVideoDimensions(width: 64, height: 48))
        #expect(CMFormatDescriptionGetMediaSubType(format) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        #expect(CMVideoFormatDescriptionMatchesImageBuffer(format, imageBuffer: image))
        #expect(!CMVideoFormatDescriptionMatchesImageBuffer(format, imageBuffer: try CVImageBufferTests.buffer(64, 32)))
    }
}
