public import VAToolbox

/// A recycling pool of pixel buffers — `CVPixelBufferPool`, a handle on ``PixelBufferPool``.
public final class CVPixelBufferPool {
    /// The VAToolbox pool this handle stands for.
    public let pool: PixelBufferPool
    /// The pixel buffer attributes the pool was made with.
    let pixelBufferAttributes: NSDictionary
    /// The pool attributes the pool was made with.
    let poolAttributes: NSDictionary

    /// Wraps a VAToolbox pool.
    public init(
        pool: PixelBufferPool, pixelBufferAttributes: NSDictionary = NSDictionary(),
        poolAttributes: NSDictionary = NSDictionary()
    ) {
        self.pool = pool
        self.pixelBufferAttributes = pixelBufferAttributes
        self.poolAttributes = poolAttributes
    }
}

/// Creates a pool — `CVPixelBufferPoolCreate`. The pixel buffer attributes must give the pixel
/// format, width and height.
///
/// - Returns: `kCVReturnSuccess`; `kCVReturnInvalidPixelBufferAttributes` when the format, width
///   or height is missing or not a number; `kCVReturnInvalidPixelFormat` for a format VAToolbox
///   cannot allocate; `kCVReturnInvalidSize` for a size outside 1…16384.
@discardableResult
public func CVPixelBufferPoolCreate(
    _ allocator: CFAllocator?, _ poolAttributes: CFDictionary?, _ pixelBufferAttributes: CFDictionary?,
    _ poolOut: UnsafeMutablePointer<CVPixelBufferPool?>
) -> CVReturn {
    let attributes: ImageBufferAttributes
    do throws(VTError) {
        attributes = try ImageBufferAttributes(dictionary: pixelBufferAttributes)
    } catch {
        return error.status
    }
    guard let format = attributes.pixelFormat, let width = attributes.width, let height = attributes.height else {
        return kCVReturnInvalidPixelBufferAttributes
    }
    guard (1...16384).contains(width), (1...16384).contains(height) else { return kCVReturnInvalidSize }
    let minimum =
        compatInteger(poolAttributes?.compatValue(forKey: kCVPixelBufferPoolMinimumBufferCountKey))
        ?? attributes.minimumBufferCount
    do throws(VTError) {
        let pool = try PixelBufferPool(
            pixelFormat: format, width: width, height: height, minimumBufferCount: max(0, minimum))
        poolOut.pointee = CVPixelBufferPool(
            pool: pool, pixelBufferAttributes: pixelBufferAttributes ?? NSDictionary(),
            poolAttributes: poolAttributes ?? NSDictionary())
        return kCVReturnSuccess
    } catch {
        return error == .allocationFailed ? kCVReturnAllocationFailed : kCVReturnInvalidPixelFormat
    }
}

/// A buffer from the pool — `CVPixelBufferPoolCreatePixelBuffer`.
///
/// - Returns: `kCVReturnSuccess`, or `kCVReturnPoolAllocationFailed`.
@discardableResult
public func CVPixelBufferPoolCreatePixelBuffer(
    _ allocator: CFAllocator?, _ pixelBufferPool: CVPixelBufferPool,
    _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>
) -> CVReturn {
    do throws(VTError) {
        pixelBufferOut.pointee = CVBuffer(pixelBuffer: try pixelBufferPool.pool.makePixelBuffer())
        return kCVReturnSuccess
    } catch {
        return kCVReturnPoolAllocationFailed
    }
}

/// The attributes of the pool's buffers — `CVPixelBufferPoolGetPixelBufferAttributes`.
public func CVPixelBufferPoolGetPixelBufferAttributes(_ pool: CVPixelBufferPool) -> CFDictionary? {
    pool.pixelBufferAttributes
}

/// The attributes the pool was made with (`kCVPixelBufferPoolMinimumBufferCountKey`, …) —
/// `CVPixelBufferPoolGetAttributes`.
public func CVPixelBufferPoolGetAttributes(_ pool: CVPixelBufferPool) -> CFDictionary? { pool.poolAttributes }

/// What `CVPixelBufferPoolFlush` frees — `CVPixelBufferPoolFlushFlags`.
public struct CVPixelBufferPoolFlushFlags: OptionSet, Sendable {
    /// The flags' bits.
    public let rawValue: CVOptionFlags
    /// Flags from their bits.
    public init(rawValue: CVOptionFlags) { self.rawValue = rawValue }
    /// Free the buffers beyond the minimum count too — `kCVPixelBufferPoolFlushExcessBuffers`.
    public static let excessBuffers = CVPixelBufferPoolFlushFlags(rawValue: 1)
}

/// Frees the pool's unused buffers — `CVPixelBufferPoolFlush`. Does nothing here: a pool's unused
/// buffers are kept until the pool goes away (libavutil's buffer pools free nothing earlier), and
/// the pool goes on handing out buffers.
public func CVPixelBufferPoolFlush(_ pool: CVPixelBufferPool, _ options: CVPixelBufferPoolFlushFlags) {}
