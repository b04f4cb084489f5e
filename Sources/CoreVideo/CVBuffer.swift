public import VAToolbox

/// A buffer of image data — `CVBuffer`, `CVImageBuffer` and `CVPixelBuffer` (one type, as the
/// three are on Apple's platforms in Swift).
///
/// A thin handle on a VAToolbox ``PixelBuffer`` (``pixelBuffer``) plus the buffer's attachment
/// dictionaries. The pixels are reached with `CVPixelBufferLockBaseAddress`, the plane getters
/// and `CVPixelBufferUnlockBaseAddress`, which are ``PixelBuffer/lockBaseAddress(_:)``,
/// ``PixelBuffer/lockedPlanes`` and ``PixelBuffer/unlockBaseAddress(_:)``.
public final class CVBuffer {
    /// The VAToolbox pixel buffer this handle stands for.
    public let pixelBuffer: PixelBuffer
    /// Attachments that travel with the buffer's pixels into derived buffers
    /// (`kCVAttachmentMode_ShouldPropagate`): the picture's colour, field and aspect keys.
    let propagated: NSMutableDictionary
    /// Attachments that stay on this buffer (`kCVAttachmentMode_ShouldNotPropagate`).
    let notPropagated = NSMutableDictionary()
    /// The objects `CVBufferGetAttachment` lent, by key: Linux's `NSDictionary` hands a string
    /// value out as a new bridged object on every read, which must live as long as the buffer.
    var lentAttachments: [String: AnyObject] = [:]

    /// Wraps a VAToolbox pixel buffer, with its colour, field and aspect information as
    /// `kCVImageBuffer…` attachments.
    public init(pixelBuffer: PixelBuffer) {
        self.pixelBuffer = pixelBuffer
        propagated = CVImageBufferAttachmentKeys.dictionary(for: pixelBuffer.attachments)
    }
}

/// An image buffer — `CVImageBuffer`.
public typealias CVImageBuffer = CVBuffer
/// A pixel buffer — `CVPixelBuffer`.
public typealias CVPixelBuffer = CVBuffer

/// Whether an attachment travels into buffers derived from this one — `CVAttachmentMode`.
public enum CVAttachmentMode: UInt32, Sendable {
    /// `kCVAttachmentMode_ShouldNotPropagate`.
    case shouldNotPropagate = 0
    /// `kCVAttachmentMode_ShouldPropagate`.
    case shouldPropagate = 1
}

/// Sets an attachment — `CVBufferSetAttachment`.
public func CVBufferSetAttachment(
    _ buffer: CVBuffer, _ key: CFString, _ value: CFTypeRef, _ attachmentMode: CVAttachmentMode
) {
    (attachmentMode == .shouldPropagate ? buffer.notPropagated : buffer.propagated).removeObject(forKey: key)
    (attachmentMode == .shouldPropagate ? buffer.propagated : buffer.notPropagated)[key] = value
}

/// An attachment and its mode, or nil — `CVBufferCopyAttachment`.
public func CVBufferCopyAttachment(
    _ buffer: CVBuffer, _ key: CFString, _ attachmentMode: UnsafeMutablePointer<CVAttachmentMode>?
) -> CFTypeRef? {
    if let value = buffer.propagated.compatValue(forKey: key) {
        attachmentMode?.pointee = .shouldPropagate
        return value as AnyObject
    }
    if let value = buffer.notPropagated.compatValue(forKey: key) {
        attachmentMode?.pointee = .shouldNotPropagate
        return value as AnyObject
    }
    return nil
}

/// An attachment, unretained — `CVBufferGetAttachment` (deprecated by Apple for
/// ``CVBufferCopyAttachment(_:_:_:)``).
public func CVBufferGetAttachment(
    _ buffer: CVBuffer, _ key: CFString, _ attachmentMode: UnsafeMutablePointer<CVAttachmentMode>?
) -> Unmanaged<CFTypeRef>? {
    guard let value = buffer.propagated.compatValue(forKey: key) ?? buffer.notPropagated.compatValue(forKey: key)
    else { return nil }
    attachmentMode?.pointee = buffer.propagated.compatValue(forKey: key) != nil ? .shouldPropagate : .shouldNotPropagate
    // The buffer keeps the object it lends alive.
    let object = value as AnyObject
    buffer.lentAttachments[key as String] = object
    return Unmanaged.passUnretained(object)
}

/// The attachments of one mode, or nil when there are none — `CVBufferCopyAttachments`.
public func CVBufferCopyAttachments(_ buffer: CVBuffer, _ attachmentMode: CVAttachmentMode) -> CFDictionary? {
    let source = attachmentMode == .shouldPropagate ? buffer.propagated : buffer.notPropagated
    return source.count == 0 ? nil : source.copy() as? NSDictionary
}

/// Removes an attachment — `CVBufferRemoveAttachment`.
public func CVBufferRemoveAttachment(_ buffer: CVBuffer, _ key: CFString) {
    buffer.propagated.removeObject(forKey: key)
    buffer.notPropagated.removeObject(forKey: key)
}

/// Removes every attachment — `CVBufferRemoveAllAttachments`.
public func CVBufferRemoveAllAttachments(_ buffer: CVBuffer) {
    buffer.propagated.removeAllObjects()
    buffer.notPropagated.removeAllObjects()
}

/// Copies the propagating attachments of one buffer onto another — `CVBufferPropagateAttachments`.
public func CVBufferPropagateAttachments(_ sourceBuffer: CVBuffer, _ destinationBuffer: CVBuffer) {
    for (key, value) in sourceBuffer.propagated {
        if let key = key as? AnyHashable { destinationBuffer.propagated.setObject(value, forKey: key) }
    }
}
