public import VAToolbox

/// The callback that receives each decoded frame — `VTDecompressionOutputCallback`: the record's
/// refcon, the frame's refcon, the status, the info flags, the image (nil on error or drop), the
/// presentation time stamp and duration.
///
/// A Swift function type rather than `@convention(c)` as on macOS: a Swift class (the image
/// buffer) cannot cross a C function pointer on Linux. A global function or a closure converts to
/// it just the same.
public typealias VTDecompressionOutputCallback = (
    UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, OSStatus, VTDecodeInfoFlags, CVImageBuffer?, CMTime, CMTime
) -> Void

/// The block form of the output callback — `VTDecompressionOutputHandler`.
public typealias VTDecompressionOutputHandler = (OSStatus, VTDecodeInfoFlags, CVImageBuffer?, CMTime, CMTime) -> Void

/// The output callback and its refcon — `VTDecompressionOutputCallbackRecord`.
public struct VTDecompressionOutputCallbackRecord {
    /// The callback.
    public var decompressionOutputCallback: VTDecompressionOutputCallback?
    /// Handed to every call of the callback, untouched (the caller keeps what it points at alive).
    public var decompressionOutputRefCon: UnsafeMutableRawPointer?

    /// An empty record.
    public init() {}

    /// A record of a callback and its refcon.
    public init(
        decompressionOutputCallback: VTDecompressionOutputCallback?, decompressionOutputRefCon: UnsafeMutableRawPointer?
    ) {
        self.decompressionOutputCallback = decompressionOutputCallback
        self.decompressionOutputRefCon = decompressionOutputRefCon
    }
}

/// Any VideoToolbox session, for `VTSessionSetProperty` — `VTSession`.
public typealias VTSession = CFTypeRef

/// Where one frame's output goes: the session's callback with the frame's refcon, or the frame's
/// own handler.
///
/// Unchecked `Sendable`: the raw pointers are the caller's, handed back untouched as VideoToolbox
/// does, and the closures are called only on the session's queue, one call at a time (the
/// native session's guarantee); sharing them is what the C API asks of its caller.
struct OutputRoute: @unchecked Sendable {
    let callback: VTDecompressionOutputCallback?
    let callbackRefcon: UnsafeMutableRawPointer?
    let sourceFrameRefcon: UnsafeMutableRawPointer?
    let handler: VTDecompressionOutputHandler?

    /// Delivers one output.
    func deliver(_ output: DecompressionOutput) {
        let status = output.status?.status ?? noErr
        let image = output.imageBuffer.map(CVBuffer.init(pixelBuffer:))
        if let image, let payload = output.hdr10PlusPerFrameData {
            CVBufferSetAttachment(
                image, kCMSampleAttachmentKey_HDR10PlusPerFrameData, NSData(bytes: payload, length: payload.count),
                .shouldPropagate)
        }
        if let image, let rpu = output.dolbyVisionRPU {
            CVBufferSetAttachment(
                image, kVAToolboxSampleAttachmentKey_DolbyVisionRPU, NSData(bytes: rpu, length: rpu.count),
                .shouldPropagate)
        }
        if let handler {
            handler(status, output.infoFlags, image, output.presentationTimeStamp, output.presentationDuration)
        } else {
            callback?(
                callbackRefcon, sourceFrameRefcon, status, output.infoFlags, image, output.presentationTimeStamp,
                output.presentationDuration)
        }
    }
}

/// A decompression session — `VTDecompressionSession`, a handle on a VAToolbox
/// ``DecompressionSession`` (``decompressionSession``).
public final class VTDecompressionSession {
    /// The VAToolbox session this handle stands for.
    public let decompressionSession: DecompressionSession
    /// The record given at creation; nil for a session used with output handlers.
    let record: VTDecompressionOutputCallbackRecord?
    /// The destination image buffer attributes given at creation.
    let imageBufferAttributes: ImageBufferAttributes?

    init(
        format: VideoFormatDescription, specification: DecoderSpecification, attributes: ImageBufferAttributes?,
        record: VTDecompressionOutputCallbackRecord?
    ) throws(VTError) {
        self.record = record
        imageBufferAttributes = attributes
        decompressionSession = try DecompressionSession(
            formatDescription: format, decoderSpecification: specification, imageBufferAttributes: attributes
        ) { output in
            (output.frameRefcon as? OutputRoute)?.deliver(output)
        }
    }

    deinit {
        decompressionSession.invalidate()
    }

    /// Decodes the samples of a sample buffer, each routed to `route`.
    func decode(_ sampleBuffer: CMSampleBuffer, flags: VTDecodeFrameFlags, route: OutputRoute) throws(VTError)
        -> VTDecodeInfoFlags
    {
        var info: VTDecodeInfoFlags = []
        for sample in try sampleBuffer.sampleBuffers() {
            info = try decompressionSession.decodeFrame(sample, flags: flags, frameRefcon: route)
        }
        return info
    }
}

// MARK: - The C API

/// Creates a session — `VTDecompressionSessionCreate`.
///
/// - Parameters:
///   - videoDecoderSpecification: `kVTVideoDecoderSpecification_EnableHardwareAcceleratedVideoDecoder`
///     (false: CPU only) and `…RequireHardwareAcceleratedVideoDecoder` (true: GPU or fail); nil
///     uses the GPU when one can decode the stream.
///   - destinationImageBufferAttributes: `kCVPixelBufferPixelFormatTypeKey`, `…WidthKey`,
///     `…HeightKey`; nil hands out the decoder's own pictures without a copy.
///   - outputCallback: The callback record, or nil to decode with output handlers.
/// - Returns: `noErr`; `kVTCouldNotFindVideoDecoderErr` when the GPU is required and none can
///   decode the stream, or the stream is not decodable; `kVTParameterErr` for a format
///   description that is not compressed video; `kCVReturnInvalidPixelFormat` for an output format
///   VAToolbox cannot produce.
@discardableResult
public func VTDecompressionSessionCreate(
    allocator: CFAllocator?, formatDescription videoFormatDescription: CMVideoFormatDescription,
    decoderSpecification videoDecoderSpecification: CFDictionary?,
    imageBufferAttributes destinationImageBufferAttributes: CFDictionary?,
    outputCallback: UnsafePointer<VTDecompressionOutputCallbackRecord>?,
    decompressionSessionOut: UnsafeMutablePointer<VTDecompressionSession?>
) -> OSStatus {
    guard let format = videoFormatDescription.videoFormatDescription else { return kVTParameterErr }
    var specification = DecoderSpecification()
    if let dictionary = videoDecoderSpecification {
        if compatBoolean(
            dictionary.compatValue(forKey: kVTVideoDecoderSpecification_EnableHardwareAcceleratedVideoDecoder))
            == false
        {
            specification.hardwareAcceleration = .disabled
        }
        if compatBoolean(
            dictionary.compatValue(forKey: kVTVideoDecoderSpecification_RequireHardwareAcceleratedVideoDecoder))
            == true
        {
            specification.hardwareAcceleration = .required
        }
    }
    do throws(VTError) {
        let attributes =
            destinationImageBufferAttributes == nil
            ? nil : try ImageBufferAttributes(dictionary: destinationImageBufferAttributes)
        decompressionSessionOut.pointee = try VTDecompressionSession(
            format: format, specification: specification, attributes: attributes, record: outputCallback?.pointee)
        return noErr
    } catch {
        return error.status
    }
}

/// Decodes a sample buffer, the output going to the session's callback with `sourceFrameRefCon` —
/// `VTDecompressionSessionDecodeFrame`.
///
/// The sample data is copied before this returns, so its memory may be freed at once.
///
/// - Returns: `noErr`; `kVTInvalidSessionErr` after `VTDecompressionSessionInvalidate`;
///   `kVTParameterErr` for a session created without a callback record;
///   `kVTFormatDescriptionChangeNotSupportedErr` for a format the session cannot take;
///   `kCMSampleBufferError_InvalidSampleData` for data not framed as the codec's samples are.
@discardableResult
public func VTDecompressionSessionDecodeFrame(
    _ session: VTDecompressionSession, sampleBuffer: CMSampleBuffer, flags decodeFlags: VTDecodeFrameFlags,
    frameRefcon sourceFrameRefCon: UnsafeMutableRawPointer?, infoFlagsOut: UnsafeMutablePointer<VTDecodeInfoFlags>?
) -> OSStatus {
    guard let record = session.record, record.decompressionOutputCallback != nil else { return kVTParameterErr }
    let route = OutputRoute(
        callback: record.decompressionOutputCallback, callbackRefcon: record.decompressionOutputRefCon,
        sourceFrameRefcon: sourceFrameRefCon, handler: nil)
    return decodeFrame(session, sampleBuffer, flags: decodeFlags, route: route, infoFlagsOut: infoFlagsOut)
}

/// Decodes a sample buffer, the output going to `outputHandler` —
/// `VTDecompressionSessionDecodeFrameWithOutputHandler`.
///
/// - Returns: as the callback form; `kVTParameterErr` for a session created with a callback record.
@discardableResult
public func VTDecompressionSessionDecodeFrame(
    _ session: VTDecompressionSession, sampleBuffer: CMSampleBuffer, flags decodeFlags: VTDecodeFrameFlags,
    infoFlagsOut: UnsafeMutablePointer<VTDecodeInfoFlags>?, outputHandler: @escaping VTDecompressionOutputHandler
) -> OSStatus {
    guard session.record?.decompressionOutputCallback == nil else { return kVTParameterErr }
    let route = OutputRoute(callback: nil, callbackRefcon: nil, sourceFrameRefcon: nil, handler: outputHandler)
    return decodeFrame(session, sampleBuffer, flags: decodeFlags, route: route, infoFlagsOut: infoFlagsOut)
}

/// The body both `VTDecompressionSessionDecodeFrame` forms share: decodes the sample with its
/// output going to `route`, stores the info flags, and turns a thrown error into its status.
private func decodeFrame(
    _ session: VTDecompressionSession, _ sampleBuffer: CMSampleBuffer, flags decodeFlags: VTDecodeFrameFlags,
    route: OutputRoute, infoFlagsOut: UnsafeMutablePointer<VTDecodeInfoFlags>?
) -> OSStatus {
    do throws(VTError) {
        let info = try session.decode(sampleBuffer, flags: decodeFlags, route: route)
        infoFlagsOut?.pointee = info
        return noErr
    } catch {
        return error.status
    }
}

/// Waits for every asynchronous frame — `VTDecompressionSessionWaitForAsynchronousFrames`.
///
/// - Returns: `noErr`, or `kVTInvalidSessionErr` after invalidation.
@discardableResult
public func VTDecompressionSessionWaitForAsynchronousFrames(_ session: VTDecompressionSession) -> OSStatus {
    do throws(VTError) {
        try session.decompressionSession.waitForAsynchronousFrames()
        return noErr
    } catch {
        return error.status
    }
}

/// Hands out every frame held for reordering — `VTDecompressionSessionFinishDelayedFrames`.
///
/// - Returns: `noErr`, or `kVTInvalidSessionErr` after invalidation.
@discardableResult
public func VTDecompressionSessionFinishDelayedFrames(_ session: VTDecompressionSession) -> OSStatus {
    do throws(VTError) {
        try session.decompressionSession.finishDelayedFrames()
        return noErr
    } catch {
        return error.status
    }
}

/// Whether the session can decode samples of another format description —
/// `VTDecompressionSessionCanAcceptFormatDescription`.
public func VTDecompressionSessionCanAcceptFormatDescription(
    _ session: VTDecompressionSession, formatDescription newFormatDesc: CMFormatDescription
) -> Bool {
    guard let format = newFormatDesc.videoFormatDescription else { return false }
    return session.decompressionSession.canAcceptFormatDescription(format)
}

/// Ends the session; frames still waiting come out as dropped before it returns —
/// `VTDecompressionSessionInvalidate`.
public func VTDecompressionSessionInvalidate(_ session: VTDecompressionSession) {
    session.decompressionSession.invalidate()
}

/// Sets a property — `VTSessionSetProperty` (``DecompressionSession/setProperty(_:to:)``, whose
/// table says what may change and when).
///
/// Numbers and Booleans (`kCFBooleanTrue`, `NSNumber`, Swift values) and strings are taken as
/// the key needs them; nil restores the default.
///
/// - Returns: `noErr`; `kVTPropertyNotSupportedErr` for a key the session does not implement;
///   `kVTPropertyReadOnlyErr` for a key that can only be read; `kVTParameterErr` for a value of
///   the wrong type; `kVTInvalidSessionErr` after invalidation.
@discardableResult
public func VTSessionSetProperty(_ session: VTSession, key propertyKey: CFString, value propertyValue: CFTypeRef?)
    -> OSStatus
{
    guard let session = session as? VTDecompressionSession else {
        return session is VTPixelTransferSession ? kVTPropertyNotSupportedErr : kVTParameterErr
    }
    let key = DecompressionPropertyKey(rawValue: String(describing: propertyKey))
    let value: (any Sendable)?
    switch propertyValue {
    case nil: value = nil
    case let string as NSString: value = String(describing: string)
    case let number as NSNumber: value = PropertyValues.booleanKeys.contains(key) ? number.boolValue : number.intValue
    default: return kVTParameterErr
    }
    do throws(VTError) {
        try session.decompressionSession.setProperty(key, to: value)
        return noErr
    } catch {
        return error.status
    }
}

/// Sets several properties — `VTSessionSetProperties`; stops at the first failure.
@discardableResult
public func VTSessionSetProperties(_ session: VTSession, propertyDictionary dictionary: CFDictionary) -> OSStatus {
    for (key, value) in dictionary {
        guard let key = key as? NSString else { return kVTParameterErr }
        let status = VTSessionSetProperty(session, key: key, value: value as AnyObject)
        if status != noErr { return status }
    }
    return noErr
}

/// Reads a property into `propertyValueOut` (a `CFTypeRef?` variable, passed as `&value`) —
/// `VTSessionCopyProperty` (``DecompressionSession/property(_:)``): Booleans and integers as
/// `NSNumber`, strings as `NSString`, times as `CMTimeCopyAsDictionary` makes them, the pool as
/// a `CVPixelBufferPool`.
///
/// - Returns: `noErr`; `kVTPropertyNotSupportedErr` for a key the session does not implement;
///   `kVTInvalidSessionErr` after invalidation.
@discardableResult
public func VTSessionCopyProperty(
    _ session: VTSession, key propertyKey: CFString, allocator: CFAllocator?,
    valueOut propertyValueOut: UnsafeMutableRawPointer
) -> OSStatus {
    guard let session = session as? VTDecompressionSession else {
        return session is VTPixelTransferSession ? kVTPropertyNotSupportedErr : kVTParameterErr
    }
    let key = DecompressionPropertyKey(rawValue: String(describing: propertyKey))
    do throws(VTError) {
        let value = try session.decompressionSession.property(key)
        propertyValueOut.assumingMemoryBound(to: Optional<AnyObject>.self).pointee = PropertyValues.object(value)
        return noErr
    } catch {
        return error.status
    }
}

/// Conversions between property values and Core Foundation objects.
enum PropertyValues {
    /// The keys whose values are Booleans.
    static let booleanKeys: Set<DecompressionPropertyKey> = [
        .realTime, .maximizePowerEfficiency, .usingHardwareAcceleratedVideoDecoder, .pixelBufferPoolIsShared,
        .contentHasInterframeDependencies, .allowBitstreamToChangeFrameDimensions, .reducedFrameDelivery,
        .propagatePerFrameHDRDisplayMetadata, .generatePerFrameHDRDisplayMetadata, .requestRAWOutput,
        .decoderProducesRAWOutput,
    ]

    /// A property value as the object Core Foundation code expects.
    static func object(_ value: (any Sendable)?) -> AnyObject? {
        switch value {
        case nil: return nil
        case let bool as Bool: return NSNumber(value: bool)
        case let integer as Int: return NSNumber(value: integer)
        case let string as String: return NSString(string: string)
        case let time as MediaTime: return CMTimeCopyAsDictionary(time, allocator: nil)
        case let pool as PixelBufferPool: return CVPixelBufferPool(pool: pool)
        default: return nil
        }
    }
}
