public import VAToolbox

/// Media samples with their format, timing and attachments — `CMSampleBuffer`.
///
/// Holds compressed samples in a ``CMBlockBuffer`` (what `VTDecompressionSessionDecodeFrame`
/// takes) or one decoded image (`CMSampleBufferCreateForImageBuffer`). The data becomes a
/// VAToolbox ``SampleBuffer`` per sample when it is decoded (``sampleBuffers()``), which is
/// where its framing is checked.
public final class CMSampleBuffer {
    /// The compressed data, for a buffer of samples.
    public let dataBuffer: CMBlockBuffer?
    /// The image, for a buffer of one decoded picture.
    public let imageBuffer: CVImageBuffer?
    /// The format description.
    public let formatDescription: CMFormatDescription?
    /// The number of samples.
    public let sampleCount: Int
    /// Timing: none, one for every sample, or one per sample.
    let timing: [CMSampleTimingInfo]
    /// Sizes: none (one sample), one for every sample, or one per sample.
    let sizes: [Int]
    /// Whether the data is ready.
    var dataReady: Bool
    /// Makes the data ready, when it is not.
    let makeDataReady: CMSampleBufferMakeDataReadyCallback?
    /// The refcon for `makeDataReady`.
    let makeDataReadyRefcon: UnsafeMutableRawPointer?
    /// The per-sample attachment dictionaries, made on first request.
    var sampleAttachments: CFArray?
    /// The buffer-level attachments (`CMSetAttachment`).
    let bufferAttachments = NSMutableDictionary()
    /// Whether `CMSampleBufferInvalidate` was called.
    var invalidated = false

    init(
        dataBuffer: CMBlockBuffer?, imageBuffer: CVImageBuffer?, formatDescription: CMFormatDescription?,
        sampleCount: Int, timing: [CMSampleTimingInfo], sizes: [Int], dataReady: Bool,
        makeDataReady: CMSampleBufferMakeDataReadyCallback?, makeDataReadyRefcon: UnsafeMutableRawPointer?
    ) {
        self.dataBuffer = dataBuffer
        self.imageBuffer = imageBuffer
        self.formatDescription = formatDescription
        self.sampleCount = sampleCount
        self.timing = timing
        self.sizes = sizes
        self.dataReady = dataReady
        self.makeDataReady = makeDataReady
        self.makeDataReadyRefcon = makeDataReadyRefcon
    }

    /// The timing of sample `index`.
    func timing(of index: Int) -> CMSampleTimingInfo {
        timing.isEmpty ? .invalid : timing[timing.count == 1 ? 0 : index]
    }

    /// The size of sample `index`.
    func size(of index: Int) -> Int {
        if sizes.isEmpty { return dataBuffer?.dataLength ?? 0 }
        return sizes[sizes.count == 1 ? 0 : index]
    }

    /// The sample attachments of sample `index` as VAToolbox flags.
    func attachments(of index: Int) -> SampleAttachments {
        var flags: SampleAttachments = []
        if let array = sampleAttachments, array.elements.indices.contains(index),
            let dictionary = array.elements[index] as? NSDictionary
        {
            let table: [(CFString, SampleAttachments, Bool)] = [
                (kCMSampleAttachmentKey_NotSync, .notSync, true),
                (kCMSampleAttachmentKey_PartialSync, .partialSync, true),
                (kCMSampleAttachmentKey_DependsOnOthers, .dependsOnOthers, true),
                (kCMSampleAttachmentKey_IsDependedOnByOthers, .notDependedOnByOthers, false),
                (kCMSampleAttachmentKey_DoNotDisplay, .doNotDisplay, true),
            ]
            for (key, flag, whenTrue) in table {
                if let value = compatBoolean(dictionary.compatValue(forKey: key)), value == whenTrue {
                    flags.insert(flag)
                }
            }
        }
        if index == 0,
            compatBoolean(
                bufferAttachments.compatValue(forKey: kCMSampleBufferAttachmentKey_ResetDecoderBeforeDecoding)) == true
        {
            flags.insert(.resetDecoderBeforeDecoding)
        }
        if index == sampleCount - 1,
            compatBoolean(bufferAttachments.compatValue(forKey: kCMSampleBufferAttachmentKey_DrainAfterDecoding))
                == true
        {
            flags.insert(.drainAfterDecoding)
        }
        return flags
    }

    /// The HDR10+ message attached to sample `index` (`kCMSampleAttachmentKey_HDR10PlusPerFrameData`,
    /// `CFData`), nil when none.
    func hdr10PlusPerFrameData(of index: Int) -> [UInt8]? {
        guard let array = sampleAttachments, array.elements.indices.contains(index),
            let dictionary = array.elements[index] as? NSDictionary
        else { return nil }
        switch dictionary.compatValue(forKey: kCMSampleAttachmentKey_HDR10PlusPerFrameData) {
        case let data as Data: return [UInt8](data)
        case let data as NSData: return [UInt8](Data(referencing: data))
        default: return nil
        }
    }

    /// The samples as VAToolbox sample buffers, in order.
    ///
    /// - Throws: ``VTError/sampleBufferBufferNotReady`` when the data is not ready and cannot be
    ///   made ready; ``VTError/sampleBufferInvalidMediaFormat`` without a compressed format
    ///   description; ``VTError/sampleBufferInvalidSampleData`` when the sizes do not add up to
    ///   the data or a sample is not framed as its codec's are; ``VTError/sampleBufferInvalidated``
    ///   after `CMSampleBufferInvalidate`.
    public func sampleBuffers() throws(VTError) -> [SampleBuffer] {
        guard !invalidated else {
            throw VTError.sampleBufferInvalidated.with("the sample buffer was invalidated")
        }
        if !dataReady {
            guard let makeDataReady, makeDataReady(self, makeDataReadyRefcon) == noErr else {
                throw VTError.sampleBufferBufferNotReady.with("the sample buffer's data is not ready")
            }
            dataReady = true
        }
        guard let format = formatDescription?.videoFormatDescription else {
            throw VTError.sampleBufferInvalidMediaFormat.with(
                "the sample buffer has no compressed video format description")
        }
        guard let dataBuffer, sampleCount > 0 else {
            throw VTError.sampleBufferInvalidSampleData.with("the sample buffer holds no compressed samples")
        }
        let bytes = dataBuffer.bytes
        var offset = 0
        var samples: [SampleBuffer] = []
        for index in 0..<sampleCount {
            let size = sampleCount == 1 && sizes.isEmpty ? bytes.count : size(of: index)
            guard size >= 0, offset + size <= bytes.count else {
                throw VTError.sampleBufferInvalidSampleData.with(
                    "sample \(index) of \(size) bytes runs past the \(bytes.count) bytes of data")
            }
            var sample = try SampleBuffer(
                data: Array(bytes[offset..<offset + size]), formatDescription: format, timing: timing(of: index),
                attachments: attachments(of: index))
            sample.hdr10PlusPerFrameData = hdr10PlusPerFrameData(of: index)
            samples.append(sample)
            offset += size
        }
        return samples
    }
}

/// Makes a sample buffer's data ready — `CMSampleBufferMakeDataReadyCallback`.
///
/// A Swift function type, not `@convention(c)` as on macOS: a Swift class cannot cross a C
/// function pointer on Linux. A global function or a closure converts to it just the same.
public typealias CMSampleBufferMakeDataReadyCallback = (CMSampleBuffer, UnsafeMutableRawPointer?) -> OSStatus

// MARK: - Errors (CMSampleBuffer.h)

/// `kCMSampleBufferError_AllocationFailed` (-12730).
public let kCMSampleBufferError_AllocationFailed: OSStatus = VTError.sampleBufferAllocationFailed.status
/// `kCMSampleBufferError_RequiredParameterMissing` (-12731).
public let kCMSampleBufferError_RequiredParameterMissing: OSStatus = VTError.sampleBufferRequiredParameterMissing.status
/// `kCMSampleBufferError_AlreadyHasDataBuffer` (-12732).
public let kCMSampleBufferError_AlreadyHasDataBuffer: OSStatus = VTError.sampleBufferAlreadyHasDataBuffer.status
/// `kCMSampleBufferError_BufferNotReady` (-12733).
public let kCMSampleBufferError_BufferNotReady: OSStatus = VTError.sampleBufferBufferNotReady.status
/// `kCMSampleBufferError_SampleIndexOutOfRange` (-12734).
public let kCMSampleBufferError_SampleIndexOutOfRange: OSStatus = VTError.sampleBufferSampleIndexOutOfRange.status
/// `kCMSampleBufferError_BufferHasNoSampleSizes` (-12735).
public let kCMSampleBufferError_BufferHasNoSampleSizes: OSStatus = VTError.sampleBufferBufferHasNoSampleSizes.status
/// `kCMSampleBufferError_BufferHasNoSampleTimingInfo` (-12736).
public let kCMSampleBufferError_BufferHasNoSampleTimingInfo: OSStatus =
    VTError.sampleBufferBufferHasNoSampleTimingInfo.status
/// `kCMSampleBufferError_ArrayTooSmall` (-12737).
public let kCMSampleBufferError_ArrayTooSmall: OSStatus = VTError.sampleBufferArrayTooSmall.status
/// `kCMSampleBufferError_InvalidEntryCount` (-12738).
public let kCMSampleBufferError_InvalidEntryCount: OSStatus = VTError.sampleBufferInvalidEntryCount.status
/// `kCMSampleBufferError_CannotSubdivide` (-12739).
public let kCMSampleBufferError_CannotSubdivide: OSStatus = VTError.sampleBufferCannotSubdivide.status
/// `kCMSampleBufferError_SampleTimingInfoInvalid` (-12740).
public let kCMSampleBufferError_SampleTimingInfoInvalid: OSStatus = VTError.sampleBufferSampleTimingInfoInvalid.status
/// `kCMSampleBufferError_InvalidMediaTypeForOperation` (-12741).
public let kCMSampleBufferError_InvalidMediaTypeForOperation: OSStatus =
    VTError.sampleBufferInvalidMediaTypeForOperation.status
/// `kCMSampleBufferError_InvalidSampleData` (-12742).
public let kCMSampleBufferError_InvalidSampleData: OSStatus = VTError.sampleBufferInvalidSampleData.status
/// `kCMSampleBufferError_InvalidMediaFormat` (-12743).
public let kCMSampleBufferError_InvalidMediaFormat: OSStatus = VTError.sampleBufferInvalidMediaFormat.status
/// `kCMSampleBufferError_Invalidated` (-12744).
public let kCMSampleBufferError_Invalidated: OSStatus = VTError.sampleBufferInvalidated.status
/// `kCMSampleBufferError_DataFailed` (-16750).
public let kCMSampleBufferError_DataFailed: OSStatus = VTError.sampleBufferDataFailed.status
/// `kCMSampleBufferError_DataCanceled` (-16751).
public let kCMSampleBufferError_DataCanceled: OSStatus = VTError.sampleBufferDataCanceled.status

// MARK: - Attachment keys (CMSampleBuffer.h), with Apple's string values

/// Decoding cannot start at the sample — `kCMSampleAttachmentKey_NotSync`.
nonisolated(unsafe) public let kCMSampleAttachmentKey_NotSync: CFString = "NotSync"
/// A partial sync sample — `kCMSampleAttachmentKey_PartialSync`.
nonisolated(unsafe) public let kCMSampleAttachmentKey_PartialSync: CFString = "PartialSync"
/// The sample depends on others — `kCMSampleAttachmentKey_DependsOnOthers`.
nonisolated(unsafe) public let kCMSampleAttachmentKey_DependsOnOthers: CFString = "DependsOnOthers"
/// Other samples depend on this one — `kCMSampleAttachmentKey_IsDependedOnByOthers`.
nonisolated(unsafe) public let kCMSampleAttachmentKey_IsDependedOnByOthers: CFString = "IsDependedOnByOthers"
/// Show at once rather than at the time stamp — `kCMSampleAttachmentKey_DisplayImmediately`.
///
/// A request to a display pipeline (`AVSampleBufferDisplayLayer`). A decompression session,
/// Apple's and this one, decodes and outputs the sample the same with it or without it, so it
/// has no ``SampleAttachments`` member; the sample's attachment dictionary keeps it as CoreMedia
/// does.
nonisolated(unsafe) public let kCMSampleAttachmentKey_DisplayImmediately: CFString = "DisplayImmediately"
/// Decode, but do not output — `kCMSampleAttachmentKey_DoNotDisplay`.
nonisolated(unsafe) public let kCMSampleAttachmentKey_DoNotDisplay: CFString = "DoNotDisplay"
/// Reset the decoder before this buffer — `kCMSampleBufferAttachmentKey_ResetDecoderBeforeDecoding`.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_ResetDecoderBeforeDecoding: CFString =
    "ResetDecoderBeforeDecoding"
/// Hand out every held frame after this buffer — `kCMSampleBufferAttachmentKey_DrainAfterDecoding`.
nonisolated(unsafe) public let kCMSampleBufferAttachmentKey_DrainAfterDecoding: CFString = "DrainAfterDecoding"
/// HDR10+ dynamic metadata, `CFData` holding the ITU-T T.35 message from
/// `itu_t_t35_country_code` (0xB5) on — `kCMSampleAttachmentKey_HDR10PlusPerFrameData`. A
/// decompression session with `kVTDecompressionPropertyKey_PropagatePerFrameHDRDisplayMetadata`
/// on attaches it to each decoded image buffer whose sample carried one — in its data or as this
/// sample attachment (a WebM reader's, for VP9).
nonisolated(unsafe) public let kCMSampleAttachmentKey_HDR10PlusPerFrameData: CFString = "HDR10PlusPerFrameData"
/// A Dolby Vision RPU, `CFData` holding the HEVC NAL unit of type 62 as the sample carried it
/// (header included) — VAToolbox's own key: Apple's SDK names none. A decompression session with
/// `kVTDecompressionPropertyKey_PropagatePerFrameHDRDisplayMetadata` on attaches it to each
/// decoded image buffer whose sample carried one.
nonisolated(unsafe) public let kVAToolboxSampleAttachmentKey_DolbyVisionRPU: CFString = "VAToolboxDolbyVisionRPU"

// MARK: - Creation

/// Copies `count` entries of a C array.
private func entries<Element>(_ count: Int, _ array: UnsafePointer<Element>?) -> [Element]? {
    guard count > 0 else { return [] }
    guard let array else { return nil }
    return Array(UnsafeBufferPointer(start: array, count: count))
}

/// A sample buffer of compressed samples — `CMSampleBufferCreate`.
///
/// - Returns: `noErr`; `kCMSampleBufferError_InvalidEntryCount` when the timing or size entry
///   count is neither 0, 1 nor the sample count; `kCMSampleBufferError_RequiredParameterMissing`
///   when a count is given without its array, or data without a format description.
@discardableResult
public func CMSampleBufferCreate(
    allocator: CFAllocator?, dataBuffer: CMBlockBuffer?, dataReady: Bool,
    makeDataReadyCallback: CMSampleBufferMakeDataReadyCallback?, refcon makeDataReadyRefcon: UnsafeMutableRawPointer?,
    formatDescription: CMFormatDescription?, sampleCount numSamples: CMItemCount,
    sampleTimingEntryCount numSampleTimingEntries: CMItemCount, sampleTimingArray: UnsafePointer<CMSampleTimingInfo>?,
    sampleSizeEntryCount numSampleSizeEntries: CMItemCount, sampleSizeArray: UnsafePointer<Int>?,
    sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>
) -> OSStatus {
    guard numSamples >= 0 else { return kCMSampleBufferError_InvalidEntryCount }
    for count in [numSampleTimingEntries, numSampleSizeEntries] where count != 0 && count != 1 && count != numSamples {
        return kCMSampleBufferError_InvalidEntryCount
    }
    guard let timing = entries(numSampleTimingEntries, sampleTimingArray),
        let sizes = entries(numSampleSizeEntries, sampleSizeArray)
    else { return kCMSampleBufferError_RequiredParameterMissing }
    if dataBuffer != nil && formatDescription == nil { return kCMSampleBufferError_RequiredParameterMissing }
    sampleBufferOut.pointee = CMSampleBuffer(
        dataBuffer: dataBuffer, imageBuffer: nil, formatDescription: formatDescription, sampleCount: numSamples,
        timing: timing, sizes: sizes, dataReady: dataReady, makeDataReady: makeDataReadyCallback,
        makeDataReadyRefcon: makeDataReadyRefcon)
    return noErr
}

/// A sample buffer of compressed samples whose data is ready — `CMSampleBufferCreateReady`.
@discardableResult
public func CMSampleBufferCreateReady(
    allocator: CFAllocator?, dataBuffer: CMBlockBuffer?, formatDescription: CMFormatDescription?,
    sampleCount numSamples: CMItemCount, sampleTimingEntryCount numSampleTimingEntries: CMItemCount,
    sampleTimingArray: UnsafePointer<CMSampleTimingInfo>?, sampleSizeEntryCount numSampleSizeEntries: CMItemCount,
    sampleSizeArray: UnsafePointer<Int>?, sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>
) -> OSStatus {
    CMSampleBufferCreate(
        allocator: allocator, dataBuffer: dataBuffer, dataReady: true, makeDataReadyCallback: nil, refcon: nil,
        formatDescription: formatDescription, sampleCount: numSamples, sampleTimingEntryCount: numSampleTimingEntries,
        sampleTimingArray: sampleTimingArray, sampleSizeEntryCount: numSampleSizeEntries,
        sampleSizeArray: sampleSizeArray, sampleBufferOut: sampleBufferOut)
}

/// A sample buffer of one decoded image — `CMSampleBufferCreateForImageBuffer`.
@discardableResult
public func CMSampleBufferCreateForImageBuffer(
    allocator: CFAllocator?, imageBuffer: CVImageBuffer, dataReady: Bool,
    makeDataReadyCallback: CMSampleBufferMakeDataReadyCallback?, refcon makeDataReadyRefcon: UnsafeMutableRawPointer?,
    formatDescription: CMVideoFormatDescription, sampleTiming: UnsafePointer<CMSampleTimingInfo>,
    sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>
) -> OSStatus {
    guard CMVideoFormatDescriptionMatchesImageBuffer(formatDescription, imageBuffer: imageBuffer) else {
        return kCMSampleBufferError_InvalidMediaFormat
    }
    sampleBufferOut.pointee = CMSampleBuffer(
        dataBuffer: nil, imageBuffer: imageBuffer, formatDescription: formatDescription, sampleCount: 1,
        timing: [sampleTiming.pointee], sizes: [], dataReady: dataReady, makeDataReady: makeDataReadyCallback,
        makeDataReadyRefcon: makeDataReadyRefcon)
    return noErr
}

/// A ready sample buffer of one decoded image — `CMSampleBufferCreateReadyWithImageBuffer`.
@discardableResult
public func CMSampleBufferCreateReadyWithImageBuffer(
    allocator: CFAllocator?, imageBuffer: CVImageBuffer, formatDescription: CMVideoFormatDescription,
    sampleTiming: UnsafePointer<CMSampleTimingInfo>, sampleBufferOut: UnsafeMutablePointer<CMSampleBuffer?>
) -> OSStatus {
    CMSampleBufferCreateForImageBuffer(
        allocator: allocator, imageBuffer: imageBuffer, dataReady: true, makeDataReadyCallback: nil, refcon: nil,
        formatDescription: formatDescription, sampleTiming: sampleTiming, sampleBufferOut: sampleBufferOut)
}

// MARK: - Getters

/// The per-sample attachment dictionaries (one mutable dictionary per sample), made when
/// `createIfNecessary` — `CMSampleBufferGetSampleAttachmentsArray`. Get an element with
/// `CFArrayGetValueAtIndex` and change it in place, as on macOS.
public func CMSampleBufferGetSampleAttachmentsArray(_ sbuf: CMSampleBuffer, createIfNecessary: Bool) -> CFArray? {
    if sbuf.sampleAttachments == nil && createIfNecessary {
        sbuf.sampleAttachments = CFArray((0..<max(1, sbuf.sampleCount)).map { _ in NSMutableDictionary() })
    }
    return sbuf.sampleAttachments
}

/// The image of a decoded-image sample buffer — `CMSampleBufferGetImageBuffer`.
public func CMSampleBufferGetImageBuffer(_ sbuf: CMSampleBuffer) -> CVImageBuffer? { sbuf.imageBuffer }
/// The compressed data — `CMSampleBufferGetDataBuffer`.
public func CMSampleBufferGetDataBuffer(_ sbuf: CMSampleBuffer) -> CMBlockBuffer? { sbuf.dataBuffer }
/// The format description — `CMSampleBufferGetFormatDescription`.
public func CMSampleBufferGetFormatDescription(_ sbuf: CMSampleBuffer) -> CMFormatDescription? {
    sbuf.formatDescription
}
/// The number of samples — `CMSampleBufferGetNumSamples`.
public func CMSampleBufferGetNumSamples(_ sbuf: CMSampleBuffer) -> CMItemCount { sbuf.sampleCount }
/// The numerically earliest presentation time stamp of the samples (the first sample's when they
/// are in presentation order); invalid when a sample has none — `CMSampleBufferGetPresentationTimeStamp`.
public func CMSampleBufferGetPresentationTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime {
    let times = (0..<max(1, sbuf.sampleCount)).map { sbuf.timing(of: $0).presentationTimeStamp }
    guard times.allSatisfy(\.isValid) else { return .invalid }
    return times.min() ?? .invalid
}
/// The first sample's decode time stamp, the earliest as samples are in decode order —
/// `CMSampleBufferGetDecodeTimeStamp`.
public func CMSampleBufferGetDecodeTimeStamp(_ sbuf: CMSampleBuffer) -> CMTime { sbuf.timing(of: 0).decodeTimeStamp }
/// The total duration — `CMSampleBufferGetDuration`.
public func CMSampleBufferGetDuration(_ sbuf: CMSampleBuffer) -> CMTime {
    guard sbuf.sampleCount > 0, !sbuf.timing.isEmpty else { return .invalid }
    return (0..<sbuf.sampleCount).map { sbuf.timing(of: $0).duration }.reduce(.zero, +)
}
/// The total size of the samples' data — `CMSampleBufferGetTotalSampleSize`.
public func CMSampleBufferGetTotalSampleSize(_ sbuf: CMSampleBuffer) -> Int { sbuf.dataBuffer?.dataLength ?? 0 }
/// The size of one sample — `CMSampleBufferGetSampleSize`.
public func CMSampleBufferGetSampleSize(_ sbuf: CMSampleBuffer, at sampleIndex: CMItemIndex) -> Int {
    guard (0..<sbuf.sampleCount).contains(sampleIndex) else { return 0 }
    return sbuf.sampleCount == 1 && sbuf.sizes.isEmpty
        ? CMSampleBufferGetTotalSampleSize(sbuf) : sbuf.size(of: sampleIndex)
}
/// Whether the data is ready — `CMSampleBufferDataIsReady`.
public func CMSampleBufferDataIsReady(_ sbuf: CMSampleBuffer) -> Bool { sbuf.dataReady }
/// Whether the buffer is valid: not invalidated with `CMSampleBufferInvalidate` —
/// `CMSampleBufferIsValid`.
public func CMSampleBufferIsValid(_ sbuf: CMSampleBuffer) -> Bool { !sbuf.invalidated }

// MARK: - Buffer attachments (CMAttachment.h)

/// Something attachments can be set on — `CMAttachmentBearer`.
public typealias CMAttachmentBearer = CFTypeRef
/// Whether an attachment propagates — `CMAttachmentMode`.
public typealias CMAttachmentMode = UInt32
/// `kCMAttachmentMode_ShouldNotPropagate`.
public let kCMAttachmentMode_ShouldNotPropagate: CMAttachmentMode = 0
/// `kCMAttachmentMode_ShouldPropagate`.
public let kCMAttachmentMode_ShouldPropagate: CMAttachmentMode = 1

/// Sets an attachment on a sample buffer (`kCMSampleBufferAttachmentKey_…`) or an image buffer —
/// `CMSetAttachment`.
public func CMSetAttachment(
    _ target: CMAttachmentBearer, key: CFString, value: CFTypeRef?, attachmentMode: CMAttachmentMode
) {
    if let sampleBuffer = target as? CMSampleBuffer {
        sampleBuffer.bufferAttachments[key] = value
    } else if let imageBuffer = target as? CVBuffer, let value {
        CVBufferSetAttachment(imageBuffer, key, value, attachmentMode == 1 ? .shouldPropagate : .shouldNotPropagate)
    }
}

/// An attachment of a sample buffer or image buffer, or nil — `CMGetAttachment`.
public func CMGetAttachment(
    _ target: CMAttachmentBearer, key: CFString, attachmentModeOut: UnsafeMutablePointer<CMAttachmentMode>?
) -> CFTypeRef? {
    if let sampleBuffer = target as? CMSampleBuffer {
        attachmentModeOut?.pointee = kCMAttachmentMode_ShouldPropagate
        return sampleBuffer.bufferAttachments.compatValue(forKey: key) as AnyObject?
    }
    if let imageBuffer = target as? CVBuffer {
        var mode = CVAttachmentMode.shouldNotPropagate
        let value = CVBufferCopyAttachment(imageBuffer, key, &mode)
        attachmentModeOut?.pointee = mode.rawValue
        return value
    }
    return nil
}
