import Foundation
import Testing
import VideoToolbox

/// CVPixelBuffer.h and CVPixelBufferPool.h as Core Video code calls them: the packed getters,
/// extended pixels, pool attributes and flushing, the attribute keys and result codes.
@Suite struct CVPixelBufferTests {
    @Test func packedBufferGetters() throws {
        var created: CVPixelBuffer?
        #expect(
            CVPixelBufferCreate(kCFAllocatorDefault, 16, 8, kCVPixelFormatType_32BGRA, nil, &created)
                == kCVReturnSuccess)
        let buffer = try #require(created)
        #expect(!CVPixelBufferIsPlanar(buffer))
        #expect(CVPixelBufferGetBaseAddress(buffer) == nil, "no address before the lock")
        #expect(CVPixelBufferLockBaseAddress(buffer, .readOnly) == kCVReturnSuccess)
        #expect(CVPixelBufferGetBaseAddress(buffer) != nil)
        let bytesPerRow = CVPixelBufferGetBytesPerRow(buffer)
        #expect(bytesPerRow >= 16 * 4 && bytesPerRow % 64 == 0)
        #expect(CVPixelBufferGetDataSize(buffer) == bytesPerRow * 8)
        #expect(CVPixelBufferUnlockBaseAddress(buffer, .readOnly) == kCVReturnSuccess)

        var left = -1
        var right = -1
        var top = -1
        var bottom = -1
        CVPixelBufferGetExtendedPixels(buffer, &left, &right, &top, &bottom)
        #expect(left == 0 && right == 0 && top == 0 && bottom == 0)
        #expect(CVPixelBufferFillExtendedPixels(buffer) == kCVReturnSuccess)
    }

    @Test func poolsKeepTheirAttributesAndGoOnAfterAFlush() throws {
        let poolAttributes = [kCVPixelBufferPoolMinimumBufferCountKey: 2] as CFDictionary
        let bufferAttributes: [NSString: Any] = [
            kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
            kCVPixelBufferWidthKey: 32, kCVPixelBufferHeightKey: 16,
            kCVPixelBufferCGImageCompatibilityKey: true, kCVPixelBufferExtendedPixelsBottomKey: 8,
        ]
        var created: CVPixelBufferPool?
        #expect(
            CVPixelBufferPoolCreate(kCFAllocatorDefault, poolAttributes, bufferAttributes as CFDictionary, &created)
                == kCVReturnSuccess)
        let pool = try #require(created)
        #expect(
            (CVPixelBufferPoolGetAttributes(pool)?[kCVPixelBufferPoolMinimumBufferCountKey] as? NSNumber)?.intValue == 2
        )
        #expect(
            (CVPixelBufferPoolGetPixelBufferAttributes(pool)?[kCVPixelBufferWidthKey] as? NSNumber)?.intValue == 32)
        CVPixelBufferPoolFlush(pool, .excessBuffers)
        var buffer: CVPixelBuffer?
        #expect(CVPixelBufferPoolCreatePixelBuffer(kCFAllocatorDefault, pool, &buffer) == kCVReturnSuccess)
        #expect(buffer.map(CVPixelBufferGetPixelFormatType) == kCVPixelFormatType_420YpCbCr8BiPlanarFullRange)
        #expect(pool.pool.allocatedBufferCount == 2, "the two minimum buffers serve")
    }

    @Test func keysFormatsAndResultCodesHaveApplesValues() {
        let keys: [(CFString, String)] = [
            (kCVPixelBufferPixelFormatTypeKey, "PixelFormatType"), (kCVPixelBufferWidthKey, "Width"),
            (kCVPixelBufferHeightKey, "Height"), (kCVPixelBufferPoolMinimumBufferCountKey, "MinimumBufferCount"),
            (kCVPixelBufferPoolMaximumBufferAgeKey, "MaximumBufferAge"),
            (kCVPixelBufferCGImageCompatibilityKey, "CGImageCompatibility"),
            (kCVPixelBufferCGBitmapContextCompatibilityKey, "CGBitmapContextCompatibility"),
            (kCVPixelBufferPlaneAlignmentKey, "PlaneAlignment"),
            (kCVPixelBufferExtendedPixelsLeftKey, "ExtendedPixelsLeft"),
            (kCVPixelBufferExtendedPixelsTopKey, "ExtendedPixelsTop"),
            (kCVPixelBufferExtendedPixelsRightKey, "ExtendedPixelsRight"),
            (kCVPixelBufferExtendedPixelsBottomKey, "ExtendedPixelsBottom"),
            (kCVPixelBufferOpenGLESCompatibilityKey, "OpenGLESCompatibility"),
            (kCVPixelBufferIOSurfacePropertiesKey, "IOSurfaceProperties"),
        ]
        for (key, value) in keys { #expect(key == value as NSString, "\(value)") }
        #expect(kCVPixelFormatType_24RGB == 0x18)
        #expect(kCVReturnPixelBufferNotOpenGLCompatible == -6683)
        #expect(kCVReturnPixelBufferNotMetalCompatible == -6684)
        #expect(kCVReturnWouldExceedAllocationThreshold == -6689)
        #expect(kCVReturnRetry == -6692)
        #expect(kCVReturnInvalidPixelFormat == -6680 && kCVReturnInvalidSize == -6681)
        #expect(kCVReturnInvalidPixelBufferAttributes == -6682)
        #expect(kCVReturnPoolAllocationFailed == -6690 && kCVReturnInvalidPoolAttributes == -6691)
        #expect(kCVReturnAllocationFailed == -6662 && kCVReturnUnsupported == -6663)
    }
}
