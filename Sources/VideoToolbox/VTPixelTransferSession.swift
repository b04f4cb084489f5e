public import VAToolbox

/// A session that converts and scales pixel buffers — `VTPixelTransferSession`, a handle on a
/// VAToolbox ``PixelTransferSession`` (``pixelTransferSession``).
///
/// The conversion is the one ``PixelTransferSession`` documents: libswscale with the `ffmpeg`
/// CLI's settings. Its properties (`kVTPixelTransferPropertyKey_…`) are not supported:
/// `VTSessionSetProperty` on it gives `kVTPropertyNotSupportedErr`.
public final class VTPixelTransferSession {
    /// The VAToolbox session this handle stands for.
    public let pixelTransferSession = PixelTransferSession()
    /// Whether `VTPixelTransferSessionInvalidate` was called.
    var invalidated = false

    init() {}
}

/// Creates a session — `VTPixelTransferSessionCreate`.
///
/// - Returns: `noErr`.
@discardableResult
public func VTPixelTransferSessionCreate(
    allocator: CFAllocator?, pixelTransferSessionOut: UnsafeMutablePointer<VTPixelTransferSession?>
) -> OSStatus {
    pixelTransferSessionOut.pointee = VTPixelTransferSession()
    return noErr
}

/// Converts and scales the source into the destination, whose format and size say what to make —
/// `VTPixelTransferSessionTransferImage` (``PixelTransferSession/transferImage(_:to:)``).
///
/// The destination's propagating attachments are replaced by the source's, as Apple's session
/// copies the colour attachments it does not convert.
///
/// - Returns: `noErr`; `kVTPixelTransferNotSupportedErr` when the formats cannot be converted;
///   `kVTAllocationFailedErr` when memory runs out; `kVTInvalidSessionErr` after
///   `VTPixelTransferSessionInvalidate`.
@discardableResult
public func VTPixelTransferSessionTransferImage(
    _ session: VTPixelTransferSession, from sourceBuffer: CVPixelBuffer, to destinationBuffer: CVPixelBuffer
) -> OSStatus {
    guard !session.invalidated else { return kVTInvalidSessionErr }
    do throws(VTError) {
        try session.pixelTransferSession.transferImage(sourceBuffer.pixelBuffer, to: destinationBuffer.pixelBuffer)
        CVBufferPropagateAttachments(sourceBuffer, destinationBuffer)
        return noErr
    } catch {
        return error.status
    }
}

/// Ends the session: later transfers give `kVTInvalidSessionErr` — `VTPixelTransferSessionInvalidate`.
public func VTPixelTransferSessionInvalidate(_ session: VTPixelTransferSession) {
    session.invalidated = true
}
