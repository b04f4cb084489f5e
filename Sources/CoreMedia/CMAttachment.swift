// The rest of CMAttachment.h over sample buffers and image buffers (`CMSetAttachment` and
// `CMGetAttachment` are in CMSampleBuffer.swift). A sample buffer's attachments all propagate.

/// Removes an attachment — `CMRemoveAttachment`.
public func CMRemoveAttachment(_ target: CMAttachmentBearer, key: CFString) {
    if let sampleBuffer = target as? CMSampleBuffer {
        sampleBuffer.bufferAttachments.removeObject(forKey: key)
    } else if let imageBuffer = target as? CVBuffer {
        CVBufferRemoveAttachment(imageBuffer, key)
    }
}

/// Removes every attachment — `CMRemoveAllAttachments`.
public func CMRemoveAllAttachments(_ target: CMAttachmentBearer) {
    if let sampleBuffer = target as? CMSampleBuffer {
        sampleBuffer.bufferAttachments.removeAllObjects()
    } else if let imageBuffer = target as? CVBuffer {
        CVBufferRemoveAllAttachments(imageBuffer)
    }
}

/// A copy of the attachments of one mode, or nil when there are none —
/// `CMCopyDictionaryOfAttachments`.
public func CMCopyDictionaryOfAttachments(
    allocator: CFAllocator?, target: CMAttachmentBearer, attachmentMode: CMAttachmentMode
) -> CFDictionary? {
    if let sampleBuffer = target as? CMSampleBuffer {
        guard attachmentMode == kCMAttachmentMode_ShouldPropagate, sampleBuffer.bufferAttachments.count > 0 else {
            return nil
        }
        return sampleBuffer.bufferAttachments.copy() as? NSDictionary
    }
    if let imageBuffer = target as? CVBuffer {
        return CVBufferCopyAttachments(imageBuffer, CVAttachmentMode(rawValue: attachmentMode) ?? .shouldNotPropagate)
    }
    return nil
}

/// Sets every key of a dictionary as an attachment — `CMSetAttachments`.
public func CMSetAttachments(
    _ target: CMAttachmentBearer, attachments theAttachments: CFDictionary, attachmentMode: CMAttachmentMode
) {
    for case (let key as NSString, let value) in theAttachments {
        CMSetAttachment(target, key: key, value: value as AnyObject, attachmentMode: attachmentMode)
    }
}

/// Copies the propagating attachments of one bearer onto another — `CMPropagateAttachments`.
public func CMPropagateAttachments(_ source: CMAttachmentBearer, destination: CMAttachmentBearer) {
    guard
        let attachments = CMCopyDictionaryOfAttachments(
            allocator: nil, target: source, attachmentMode: kCMAttachmentMode_ShouldPropagate)
    else { return }
    CMSetAttachments(destination, attachments: attachments, attachmentMode: kCMAttachmentMode_ShouldPropagate)
}
