// The attachment functions of CVBuffer.h that work on whole dictionaries, and the key test.

/// The attachments of one mode, unretained, or nil when there are none — `CVBufferGetAttachments`
/// (deprecated by Apple for ``CVBufferCopyAttachments(_:_:)``).
///
/// The dictionary is the buffer's own: it lives as long as the buffer and shows later changes.
/// Do not change it; use ``CVBufferSetAttachment(_:_:_:_:)``.
public func CVBufferGetAttachments(_ buffer: CVBuffer, _ attachmentMode: CVAttachmentMode) -> Unmanaged<CFDictionary>? {
    let source = attachmentMode == .shouldPropagate ? buffer.propagated : buffer.notPropagated
    // The buffer keeps the dictionary alive.
    return source.count == 0 ? nil : Unmanaged.passUnretained(source)
}

/// Sets every key of a dictionary as an attachment of one mode — `CVBufferSetAttachments`.
public func CVBufferSetAttachments(
    _ buffer: CVBuffer, _ theAttachments: CFDictionary, _ attachmentMode: CVAttachmentMode
) {
    for case (let key as NSString, let value) in theAttachments {
        CVBufferSetAttachment(buffer, key, value as AnyObject, attachmentMode)
    }
}

/// Whether the buffer has an attachment for the key, in either mode — `CVBufferHasAttachment`.
public func CVBufferHasAttachment(_ buffer: CVBuffer, _ key: CFString) -> Bool {
    CVBufferCopyAttachment(buffer, key, nil) != nil
}
