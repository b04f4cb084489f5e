public import VAToolbox

// The CVPixelBuffer functions (CVPixelBuffer.h) over `PixelBuffer`.

/// Locks the base address for CPU access — `CVPixelBufferLockBaseAddress`
/// (``PixelBuffer/lockBaseAddress(_:)``).
///
/// - Returns: `kCVReturnSuccess`, or `kCVReturnError` when a GPU surface cannot be read back or
///   a read-write lock would move memory that read-only locks lend.
@discardableResult
public func CVPixelBufferLockBaseAddress(_ pixelBuffer: CVPixelBuffer, _ lockFlags: CVPixelBufferLockFlags) -> CVReturn
{
    do throws(VTError) {
        try pixelBuffer.pixelBuffer.lockBaseAddress(lockFlags)
        return kCVReturnSuccess
    } catch {
        return error.status
    }
}

/// Releases a lock — `CVPixelBufferUnlockBaseAddress` (``PixelBuffer/unlockBaseAddress(_:)``).
///
/// - Returns: `kCVReturnSuccess`; `kCVReturnError` when the buffer is not locked;
///   `kCVReturnInvalidArgument` when the flags are not the lock's.
@discardableResult
public func CVPixelBufferUnlockBaseAddress(_ pixelBuffer: CVPixelBuffer, _ unlockFlags: CVPixelBufferLockFlags)
    -> CVReturn
{
    do throws(VTError) {
        try pixelBuffer.pixelBuffer.unlockBaseAddress(unlockFlags)
        return kCVReturnSuccess
    } catch {
        return error.status
    }
}

/// The width in pixels — `CVPixelBufferGetWidth`.
public func CVPixelBufferGetWidth(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.pixelBuffer.width }
/// The height in pixels — `CVPixelBufferGetHeight`.
public func CVPixelBufferGetHeight(_ pixelBuffer: CVPixelBuffer) -> Int { pixelBuffer.pixelBuffer.height }
/// The pixel format FourCC — `CVPixelBufferGetPixelFormatType`.
public func CVPixelBufferGetPixelFormatType(_ pixelBuffer: CVPixelBuffer) -> OSType {
    pixelBuffer.pixelBuffer.pixelFormat.rawValue
}
/// Whether the pixels are in separate planes — `CVPixelBufferIsPlanar`.
public func CVPixelBufferIsPlanar(_ pixelBuffer: CVPixelBuffer) -> Bool { pixelBuffer.pixelBuffer.planeCount > 1 }
/// The number of planes; 0 for a packed (non-planar) buffer, as Core Video says —
/// `CVPixelBufferGetPlaneCount`.
public func CVPixelBufferGetPlaneCount(_ pixelBuffer: CVPixelBuffer) -> Int {
    pixelBuffer.pixelBuffer.planeCount > 1 ? pixelBuffer.pixelBuffer.planeCount : 0
}

/// A plane's geometry, from the lock when one is held, else from a scoped read-only lock.
private func plane(_ pixelBuffer: CVPixelBuffer, _ index: Int) -> PixelBuffer.Plane? {
    let planes = pixelBuffer.pixelBuffer.lockedPlanes ?? pixelBuffer.pixelBuffer.withLockedPlanes { $0 }
    return planes.indices.contains(index) ? planes[index] : nil
}

/// A plane's width in samples (sample pairs for interleaved chroma) — `CVPixelBufferGetWidthOfPlane`.
public func CVPixelBufferGetWidthOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
    plane(pixelBuffer, planeIndex)?.width ?? 0
}
/// A plane's height in rows — `CVPixelBufferGetHeightOfPlane`.
public func CVPixelBufferGetHeightOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
    plane(pixelBuffer, planeIndex)?.height ?? 0
}
/// A plane's row stride in bytes — `CVPixelBufferGetBytesPerRowOfPlane`.
public func CVPixelBufferGetBytesPerRowOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
    plane(pixelBuffer, planeIndex)?.bytesPerRow ?? 0
}
/// A plane's first byte while the buffer is locked; nil while it is not —
/// `CVPixelBufferGetBaseAddressOfPlane`.
public func CVPixelBufferGetBaseAddressOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int)
    -> UnsafeMutableRawPointer?
{
    guard let planes = pixelBuffer.pixelBuffer.lockedPlanes, planes.indices.contains(planeIndex) else { return nil }
    return planes[planeIndex].baseAddress
}
/// The first byte of a packed buffer (or of the first plane) while locked —
/// `CVPixelBufferGetBaseAddress`.
public func CVPixelBufferGetBaseAddress(_ pixelBuffer: CVPixelBuffer) -> UnsafeMutableRawPointer? {
    CVPixelBufferGetBaseAddressOfPlane(pixelBuffer, 0)
}
/// The row stride of a packed buffer (or of the first plane) — `CVPixelBufferGetBytesPerRow`.
public func CVPixelBufferGetBytesPerRow(_ pixelBuffer: CVPixelBuffer) -> Int {
    CVPixelBufferGetBytesPerRowOfPlane(pixelBuffer, 0)
}
/// The bytes of every plane, strides included — `CVPixelBufferGetDataSize`.
public func CVPixelBufferGetDataSize(_ pixelBuffer: CVPixelBuffer) -> Int {
    let planes = pixelBuffer.pixelBuffer.lockedPlanes ?? pixelBuffer.pixelBuffer.withLockedPlanes { $0 }
    return planes.reduce(0) { $0 + $1.bytesPerRow * $1.height }
}

/// Creates a pixel buffer of its own memory — `CVPixelBufferCreate`.
///
/// - Returns: `kCVReturnSuccess`; `kCVReturnInvalidPixelFormat` for a format VAToolbox cannot
///   allocate; `kCVReturnInvalidSize` for a size outside 1…16384.
@discardableResult
public func CVPixelBufferCreate(
    _ allocator: CFAllocator?, _ width: Int, _ height: Int, _ pixelFormatType: OSType,
    _ pixelBufferAttributes: CFDictionary?, _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>
) -> CVReturn {
    let format = PixelFormat(rawValue: pixelFormatType)
    guard format.ffmpegName != nil else { return kCVReturnInvalidPixelFormat }
    guard (1...16384).contains(width), (1...16384).contains(height) else { return kCVReturnInvalidSize }
    do throws(VTError) {
        let pool = try PixelBufferPool(pixelFormat: format, width: width, height: height)
        pixelBufferOut.pointee = CVBuffer(pixelBuffer: try pool.makePixelBuffer())
        return kCVReturnSuccess
    } catch {
        return kCVReturnAllocationFailed
    }
}

/// The IOSurface behind a buffer — `CVPixelBufferGetIOSurface`. Linux has no IOSurface.
@available(
    *, unavailable,
    message:
        "there is no IOSurface on Linux: share a GPU picture with pixelBuffer.exportDMABuf() (a DMA-BUF for EGL/Vulkan), or lock the buffer and read its planes"
)
public func CVPixelBufferGetIOSurface(_ pixelBuffer: CVPixelBuffer?) -> Unmanaged<AnyObject>? { nil }

/// The padding around the picture that `kCVPixelBufferExtendedPixels…Key` asked for; always none
/// here (the keys are read and ignored) — `CVPixelBufferGetExtendedPixels`.
public func CVPixelBufferGetExtendedPixels(
    _ pixelBuffer: CVPixelBuffer, _ extraColumnsOnLeft: UnsafeMutablePointer<Int>?,
    _ extraColumnsOnRight: UnsafeMutablePointer<Int>?, _ extraRowsOnTop: UnsafeMutablePointer<Int>?,
    _ extraRowsOnBottom: UnsafeMutablePointer<Int>?
) {
    for out in [extraColumnsOnLeft, extraColumnsOnRight, extraRowsOnTop, extraRowsOnBottom] { out?.pointee = 0 }
}

/// Fills the extended pixels by replicating the edges — `CVPixelBufferFillExtendedPixels`. There
/// are none here (see ``CVPixelBufferGetExtendedPixels(_:_:_:_:_:)``), so there is nothing to fill.
///
/// - Returns: `kCVReturnSuccess`.
@discardableResult
public func CVPixelBufferFillExtendedPixels(_ pixelBuffer: CVPixelBuffer) -> CVReturn { kCVReturnSuccess }

/// Called when a buffer made over the caller's memory goes away —
/// `CVPixelBufferReleaseBytesCallback`.
public typealias CVPixelBufferReleaseBytesCallback = (UnsafeMutableRawPointer?, UnsafeRawPointer?) -> Void

/// A pixel buffer over the caller's memory — `CVPixelBufferCreateWithBytes`. Not supported.
@available(
    *, unavailable,
    message:
        "VAToolbox's pixel buffers own their memory: make one with CVPixelBufferCreate and copy your rows into CVPixelBufferGetBaseAddress while it is locked"
)
public func CVPixelBufferCreateWithBytes(
    _ allocator: CFAllocator?, _ width: Int, _ height: Int, _ pixelFormatType: OSType,
    _ baseAddress: UnsafeMutableRawPointer, _ bytesPerRow: Int, _ releaseCallback: CVPixelBufferReleaseBytesCallback?,
    _ releaseRefCon: UnsafeMutableRawPointer?, _ pixelBufferAttributes: CFDictionary?,
    _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>
) -> CVReturn { kCVReturnUnsupported }
