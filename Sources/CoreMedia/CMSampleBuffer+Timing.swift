// The rest of CMSampleBuffer.h's getters: output times, per-sample timing and size arrays,
// readiness and invalidation, and the properties Apple's Swift overlay adds.

// MARK: - Output times

/// The presentation time stamp after trimming and edit attachments; with none of those
/// attachments (they are not supported here), the presentation time stamp —
/// `CMSampleBufferGetOutputPresentationTimeStamp`.
public func CMSampleBufferGetOutputPresentationTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime {
    CMSampleBufferGetPresentationTimeStamp(sbuf)
}

/// The decode time stamp after trimming and edit attachments; here the decode time stamp —
/// `CMSampleBufferGetOutputDecodeTimeStamp`.
public func CMSampleBufferGetOutputDecodeTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime {
    CMSampleBufferGetDecodeTimeStamp(sbuf)
}

/// The duration after trimming and edit attachments; here the duration —
/// `CMSampleBufferGetOutputDuration`.
public func CMSampleBufferGetOutputDuration(_ sbuf: CMSampleBuffer) -> CMTime { CMSampleBufferGetDuration(sbuf) }

// MARK: - Per-sample timing and sizes

/// One sample's timing — `CMSampleBufferGetSampleTimingInfo`.
///
/// - Returns: `noErr`; `kCMSampleBufferError_SampleIndexOutOfRange` for an index outside the
///   samples; `kCMSampleBufferError_BufferHasNoSampleTimingInfo` for a buffer made without timing.
@discardableResult
public func CMSampleBufferGetSampleTimingInfo(
    _ sbuf: CMSampleBuffer, at sampleIndex: CMItemIndex, timingInfoOut: UnsafeMutablePointer<CMSampleTimingInfo>
) -> OSStatus {
    guard (0..<sbuf.sampleCount).contains(sampleIndex) else { return kCMSampleBufferError_SampleIndexOutOfRange }
    guard !sbuf.timing.isEmpty else { return kCMSampleBufferError_BufferHasNoSampleTimingInfo }
    timingInfoOut.pointee = sbuf.timing(of: sampleIndex)
    return noErr
}

/// Copies `entries` into a caller's array, or says how many it needs.
private func copyEntries<Element>(
    _ entries: [Element], missing: OSStatus, capacity: CMItemCount, into array: UnsafeMutablePointer<Element>?,
    needed: UnsafeMutablePointer<CMItemCount>?
) -> OSStatus {
    guard !entries.isEmpty else { return missing }
    needed?.pointee = entries.count
    guard let array else { return noErr }
    guard capacity >= entries.count else { return kCMSampleBufferError_ArrayTooSmall }
    array.update(from: entries, count: entries.count)
    return noErr
}

/// The timing entries the buffer was made with: none, one for every sample, or one per sample —
/// `CMSampleBufferGetSampleTimingInfoArray`. Pass a nil array to learn the count.
///
/// - Returns: `noErr`; `kCMSampleBufferError_ArrayTooSmall` when `timingArrayEntries` is fewer
///   than the entries; `kCMSampleBufferError_BufferHasNoSampleTimingInfo` for a buffer made
///   without timing.
@discardableResult
public func CMSampleBufferGetSampleTimingInfoArray(
    _ sbuf: CMSampleBuffer, entryCount timingArrayEntries: CMItemCount,
    arrayToFill timingArrayOut: UnsafeMutablePointer<CMSampleTimingInfo>?,
    entriesNeededOut timingArrayEntriesNeededOut: UnsafeMutablePointer<CMItemCount>?
) -> OSStatus {
    copyEntries(
        sbuf.timing, missing: kCMSampleBufferError_BufferHasNoSampleTimingInfo, capacity: timingArrayEntries,
        into: timingArrayOut, needed: timingArrayEntriesNeededOut)
}

/// The size entries the buffer was made with: none, one for every sample, or one per sample —
/// `CMSampleBufferGetSampleSizeArray`. Pass a nil array to learn the count.
///
/// - Returns: `noErr`; `kCMSampleBufferError_ArrayTooSmall` when `sizeArrayEntries` is fewer than
///   the entries; `kCMSampleBufferError_BufferHasNoSampleSizes` for a buffer made without sizes.
@discardableResult
public func CMSampleBufferGetSampleSizeArray(
    _ sbuf: CMSampleBuffer, entryCount sizeArrayEntries: CMItemCount,
    arrayToFill sizeArrayOut: UnsafeMutablePointer<Int>?,
    entriesNeededOut sizeArrayEntriesNeededOut: UnsafeMutablePointer<CMItemCount>?
) -> OSStatus {
    copyEntries(
        sbuf.sizes, missing: kCMSampleBufferError_BufferHasNoSampleSizes, capacity: sizeArrayEntries,
        into: sizeArrayOut, needed: sizeArrayEntriesNeededOut)
}

// MARK: - Readiness and validity

/// Marks the data ready — `CMSampleBufferSetDataReady`.
@discardableResult
public func CMSampleBufferSetDataReady(_ sbuf: CMSampleBuffer) -> OSStatus {
    sbuf.dataReady = true
    return noErr
}

/// Makes the data ready by calling the buffer's make-data-ready callback, unless it is ready —
/// `CMSampleBufferMakeDataReady`.
///
/// - Returns: `noErr`; the callback's status when it fails; `kCMSampleBufferError_BufferNotReady`
///   when the data is not ready and there is no callback.
@discardableResult
public func CMSampleBufferMakeDataReady(_ sbuf: CMSampleBuffer) -> OSStatus {
    guard !sbuf.dataReady else { return noErr }
    guard let makeDataReady = sbuf.makeDataReady else { return kCMSampleBufferError_BufferNotReady }
    let status = makeDataReady(sbuf, sbuf.makeDataReadyRefcon)
    if status == noErr { sbuf.dataReady = true }
    return status
}

/// Invalidates the buffer: `CMSampleBufferIsValid` says false from now on, and decoding it gives
/// `kCMSampleBufferError_Invalidated` — `CMSampleBufferInvalidate`.
@discardableResult
public func CMSampleBufferInvalidate(_ sbuf: CMSampleBuffer) -> OSStatus {
    sbuf.invalidated = true
    return noErr
}

// MARK: - The properties of Apple's Swift overlay

extension CMSampleBuffer {
    /// ``CMSampleBufferGetPresentationTimeStamp(_:)``.
    public var presentationTimeStamp: CMTime { CMSampleBufferGetPresentationTimeStamp(self) }
    /// ``CMSampleBufferGetDecodeTimeStamp(_:)``.
    public var decodeTimeStamp: CMTime { CMSampleBufferGetDecodeTimeStamp(self) }
    /// ``CMSampleBufferGetDuration(_:)``.
    public var duration: CMTime { CMSampleBufferGetDuration(self) }
    /// ``CMSampleBufferGetOutputPresentationTimeStamp(_:)``.
    public var outputPresentationTimeStamp: CMTime { CMSampleBufferGetOutputPresentationTimeStamp(self) }
    /// ``CMSampleBufferGetOutputDecodeTimeStamp(_:)``.
    public var outputDecodeTimeStamp: CMTime { CMSampleBufferGetOutputDecodeTimeStamp(self) }
    /// ``CMSampleBufferGetOutputDuration(_:)``.
    public var outputDuration: CMTime { CMSampleBufferGetOutputDuration(self) }
    /// ``CMSampleBufferGetNumSamples(_:)``.
    public var numSamples: CMItemCount { sampleCount }
    /// ``CMSampleBufferGetTotalSampleSize(_:)``.
    public var totalSampleSize: Int { CMSampleBufferGetTotalSampleSize(self) }
    /// ``CMSampleBufferIsValid(_:)``.
    public var isValid: Bool { !invalidated }
}
