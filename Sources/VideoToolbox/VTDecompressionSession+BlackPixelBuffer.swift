internal import VAToolbox

/// A black picture in the format and size the session hands out — the destination image buffer
/// attributes' pixel format and size, or the decoder's native format at the stream's size —
/// `VTDecompressionSessionCopyBlackPixelBuffer`.
///
/// - Returns: `noErr`; `kVTInvalidSessionErr` after invalidation; `kVTAllocationFailedErr` or
///   `kVTPixelTransferNotSupportedErr` when the picture cannot be made in that format.
@discardableResult
public func VTDecompressionSessionCopyBlackPixelBuffer(
    _ session: VTDecompressionSession, pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>
) -> OSStatus {
    let native = session.decompressionSession
    do throws(VTError) {
        _ = try native.property(.realTime)  // kVTInvalidSessionErr after invalidation
    } catch {
        return error.status
    }
    let attributes = session.imageBufferAttributes
    let format = attributes?.pixelFormat ?? native.nativePixelFormat
    let width = attributes?.width ?? Int(native.formatDescription.dimensions.width)
    let height = attributes?.height ?? Int(native.formatDescription.dimensions.height)
    do throws(VTError) {
        let black = try blackPicture(width: width, height: height)
        let picture =
            format == black.pixelFormat
            ? black : try PixelTransferSession().transferImage(black, pixelFormat: format, width: width, height: height)
        pixelBufferOut.pointee = CVBuffer(pixelBuffer: picture)
        return noErr
    } catch {
        return error.status
    }
}

/// A black video-range 8-bit 4:2:0 planar picture (Y 16, Cb and Cr 128), which the pixel
/// transfer turns into black of any other format.
private func blackPicture(width: Int, height: Int) throws(VTError) -> PixelBuffer {
    let picture = try PixelBufferPool(pixelFormat: .yuv420Planar, width: width, height: height).makePixelBuffer()
    try picture.withLockedPlanesForWriting { (planes: [PixelBuffer.Plane]) throws(VTError) in
        for (index, plane) in planes.enumerated() {
            plane.baseAddress.initializeMemory(
                as: UInt8.self, repeating: index == 0 ? 16 : 128, count: plane.bytesPerRow * plane.height)
        }
    }
    return picture
}
