public import VAToolbox

// The keys are `nonisolated(unsafe)`: Foundation on Linux does not mark `NSString` `Sendable`, but
// these are immutable string constants, never mutated after their one initialisation, and they
// must be stored (not computed) so that `Unmanaged.passUnretained(key)` points at a live object.

// The pixel formats of CoreVideo (CVPixelBuffer.h), as `OSType` FourCCs with Apple's values.

/// `'y420'`: I420, video range — `kCVPixelFormatType_420YpCbCr8Planar`.
public let kCVPixelFormatType_420YpCbCr8Planar: OSType = PixelFormat.yuv420Planar.rawValue
/// `'f420'`: I420, full range — `kCVPixelFormatType_420YpCbCr8PlanarFullRange`.
public let kCVPixelFormatType_420YpCbCr8PlanarFullRange: OSType = PixelFormat.yuv420PlanarFullRange.rawValue
/// `'420v'`: NV12, video range — `kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange`.
public let kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange: OSType = PixelFormat.nv12VideoRange.rawValue
/// `'420f'`: NV12, full range — `kCVPixelFormatType_420YpCbCr8BiPlanarFullRange`.
public let kCVPixelFormatType_420YpCbCr8BiPlanarFullRange: OSType = PixelFormat.nv12FullRange.rawValue
/// `'x420'`: P010, video range — `kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange`.
public let kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange: OSType = PixelFormat.p010VideoRange.rawValue
/// `'xf20'`: P010, full range — `kCVPixelFormatType_420YpCbCr10BiPlanarFullRange`.
public let kCVPixelFormatType_420YpCbCr10BiPlanarFullRange: OSType = PixelFormat.p010FullRange.rawValue
/// `'422v'`: NV16 — `kCVPixelFormatType_422YpCbCr8BiPlanarVideoRange`.
public let kCVPixelFormatType_422YpCbCr8BiPlanarVideoRange: OSType = PixelFormat.nv16VideoRange.rawValue
/// `'x422'`: P210 — `kCVPixelFormatType_422YpCbCr10BiPlanarVideoRange`.
public let kCVPixelFormatType_422YpCbCr10BiPlanarVideoRange: OSType = PixelFormat.p210VideoRange.rawValue
/// `'444v'`: NV24 — `kCVPixelFormatType_444YpCbCr8BiPlanarVideoRange`.
public let kCVPixelFormatType_444YpCbCr8BiPlanarVideoRange: OSType = PixelFormat.nv24VideoRange.rawValue
/// `'x444'`: P410 — `kCVPixelFormatType_444YpCbCr10BiPlanarVideoRange`.
public let kCVPixelFormatType_444YpCbCr10BiPlanarVideoRange: OSType = PixelFormat.p410VideoRange.rawValue
/// `'BGRA'`: packed B, G, R, A — `kCVPixelFormatType_32BGRA`.
public let kCVPixelFormatType_32BGRA: OSType = PixelFormat.bgra.rawValue
/// Packed R, G, B, 8 bits each — `kCVPixelFormatType_24RGB` (`0x00000018`).
public let kCVPixelFormatType_24RGB: OSType = PixelFormat.rgb24.rawValue

// Pixel buffer attribute keys (CVPixelBuffer.h), with Apple's string values.

/// The pixel format: an `OSType` number, or an array of them — `kCVPixelBufferPixelFormatTypeKey`.
nonisolated(unsafe) public let kCVPixelBufferPixelFormatTypeKey: CFString = "PixelFormatType"
/// The width in pixels — `kCVPixelBufferWidthKey`.
nonisolated(unsafe) public let kCVPixelBufferWidthKey: CFString = "Width"
/// The height in pixels — `kCVPixelBufferHeightKey`.
nonisolated(unsafe) public let kCVPixelBufferHeightKey: CFString = "Height"
/// Row alignment in bytes — `kCVPixelBufferBytesPerRowAlignmentKey`. Rows are aligned to 64
/// bytes here whatever is asked.
nonisolated(unsafe) public let kCVPixelBufferBytesPerRowAlignmentKey: CFString = "BytesPerRowAlignment"
/// OpenGL compatibility — `kCVPixelBufferOpenGLCompatibilityKey`. Every buffer here is plain
/// memory that OpenGL can upload, so the request is met as it stands.
nonisolated(unsafe) public let kCVPixelBufferOpenGLCompatibilityKey: CFString = "OpenGLCompatibility"
/// OpenGL ES compatibility — `kCVPixelBufferOpenGLESCompatibilityKey`; met as it stands (see
/// ``kCVPixelBufferOpenGLCompatibilityKey``).
nonisolated(unsafe) public let kCVPixelBufferOpenGLESCompatibilityKey: CFString = "OpenGLESCompatibility"
/// Metal compatibility — `kCVPixelBufferMetalCompatibilityKey`. There is no Metal on Linux: the
/// key is read and ignored, as Core Video ignores keys it does not apply.
nonisolated(unsafe) public let kCVPixelBufferMetalCompatibilityKey: CFString = "MetalCompatibility"
/// IOSurface properties — `kCVPixelBufferIOSurfacePropertiesKey`. There are no IOSurfaces on
/// Linux; GPU pictures are VA surfaces (`PixelBuffer.exportDMABuf()` shares them).
nonisolated(unsafe) public let kCVPixelBufferIOSurfacePropertiesKey: CFString = "IOSurfaceProperties"
/// Buffers a pool allocates up front — `kCVPixelBufferPoolMinimumBufferCountKey`.
nonisolated(unsafe) public let kCVPixelBufferPoolMinimumBufferCountKey: CFString = "MinimumBufferCount"
/// How long a pool keeps an unused buffer — `kCVPixelBufferPoolMaximumBufferAgeKey`. Read and
/// ignored: a pool keeps its unused buffers until it goes away.
nonisolated(unsafe) public let kCVPixelBufferPoolMaximumBufferAgeKey: CFString = "MaximumBufferAge"
/// Core Graphics image compatibility — `kCVPixelBufferCGImageCompatibilityKey`. Read and ignored:
/// there is no Core Graphics on Linux.
nonisolated(unsafe) public let kCVPixelBufferCGImageCompatibilityKey: CFString = "CGImageCompatibility"
/// Core Graphics bitmap context compatibility — `kCVPixelBufferCGBitmapContextCompatibilityKey`.
/// Read and ignored: there is no Core Graphics on Linux.
nonisolated(unsafe) public let kCVPixelBufferCGBitmapContextCompatibilityKey: CFString =
    "CGBitmapContextCompatibility"
/// Plane alignment in bytes — `kCVPixelBufferPlaneAlignmentKey`. Read and ignored: planes start
/// on 64-byte boundaries here.
nonisolated(unsafe) public let kCVPixelBufferPlaneAlignmentKey: CFString = "PlaneAlignment"
/// Padding columns on the left — `kCVPixelBufferExtendedPixelsLeftKey`. Read and ignored (see
/// `CVPixelBufferGetExtendedPixels`).
nonisolated(unsafe) public let kCVPixelBufferExtendedPixelsLeftKey: CFString = "ExtendedPixelsLeft"
/// Padding rows on the top — `kCVPixelBufferExtendedPixelsTopKey`. Read and ignored.
nonisolated(unsafe) public let kCVPixelBufferExtendedPixelsTopKey: CFString = "ExtendedPixelsTop"
/// Padding columns on the right — `kCVPixelBufferExtendedPixelsRightKey`. Read and ignored.
nonisolated(unsafe) public let kCVPixelBufferExtendedPixelsRightKey: CFString = "ExtendedPixelsRight"
/// Padding rows on the bottom — `kCVPixelBufferExtendedPixelsBottomKey`. Read and ignored.
nonisolated(unsafe) public let kCVPixelBufferExtendedPixelsBottomKey: CFString = "ExtendedPixelsBottom"

extension ImageBufferAttributes {
    /// Reads a `destinationImageBufferAttributes` / pixel buffer attributes dictionary: the
    /// pixel format (a number, or the first of an array that VAToolbox can produce), width,
    /// height and minimum buffer count. Other keys are ignored, as Core Video ignores keys that
    /// do not apply.
    ///
    /// - Throws: ``VTError/invalidPixelFormat`` for pixel formats none of which VAToolbox can
    ///   produce; ``VTError/invalidPixelBufferAttributes`` for a value of the wrong type.
    public init(dictionary: CFDictionary?) throws(VTError) {
        self.init()
        guard let dictionary else { return }
        if let value = dictionary.compatValue(forKey: kCVPixelBufferPixelFormatTypeKey) {
            let candidates: [Any] = (value as? NSArray).map { Array($0) } ?? (value as? [Any]) ?? [value]
            let formats = candidates.compactMap(compatInteger).map {
                PixelFormat(rawValue: UInt32(truncatingIfNeeded: $0))
            }
            guard !formats.isEmpty else {
                throw VTError.invalidPixelBufferAttributes.with("kCVPixelBufferPixelFormatTypeKey is not a number")
            }
            guard let format = formats.first(where: { $0.ffmpegName != nil }) else {
                throw VTError.invalidPixelFormat.with("VAToolbox cannot produce \(formats.map(\.description))")
            }
            pixelFormat = format
        }
        for (key, path) in [
            (kCVPixelBufferWidthKey, \ImageBufferAttributes.width), (kCVPixelBufferHeightKey, \.height),
        ] {
            guard let value = dictionary.compatValue(forKey: key) else { continue }
            guard let number = compatInteger(value) else {
                throw VTError.invalidPixelBufferAttributes.with("\(key) is not a number")
            }
            self[keyPath: path] = number
        }
        if let count = compatInteger(dictionary.compatValue(forKey: kCVPixelBufferPoolMinimumBufferCountKey)) {
            minimumBufferCount = count
        }
    }
}
