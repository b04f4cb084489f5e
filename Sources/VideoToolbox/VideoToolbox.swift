// VideoToolbox for Linux: Apple's C-style decompression session API over VAToolbox's
// `DecompressionSession`, so that VideoToolbox code compiles unchanged. `import VideoToolbox`
// also brings in CoreMedia, CoreVideo and the Core Foundation vocabulary.

@_exported import CoreMedia
public import VAToolbox

/// How to decode one frame — `VTDecodeFrameFlags` (``DecodeFrameFlags``).
public typealias VTDecodeFrameFlags = DecodeFrameFlags
/// What happened to a frame — `VTDecodeInfoFlags` (``DecodeInfoFlags``): `.asynchronous`,
/// `.frameDropped`, `.imageBufferModifiable`.
public typealias VTDecodeInfoFlags = DecodeInfoFlags

extension DecodeFrameFlags {
    /// `kVTDecodeFrame_EnableAsynchronousDecompression`, under the name Swift gives it on macOS.
    public static var _EnableAsynchronousDecompression: Self { .enableAsynchronousDecompression }
    /// `kVTDecodeFrame_DoNotOutputFrame`, under the name Swift gives it on macOS.
    public static var _DoNotOutputFrame: Self { .doNotOutputFrame }
    /// `kVTDecodeFrame_1xRealTimePlayback`, under the name Swift gives it on macOS.
    public static var _1xRealTimePlayback: Self { .oneTimesRealTimePlayback }
    /// `kVTDecodeFrame_EnableTemporalProcessing`, under the name Swift gives it on macOS.
    public static var _EnableTemporalProcessing: Self { .enableTemporalProcessing }
}

/// Whether a GPU of this machine decodes the codec — `VTIsHardwareDecodeSupported`
/// (``isHardwareDecodeSupported(_:)``: a VA-API render node whose driver has the codec).
public func VTIsHardwareDecodeSupported(_ codecType: CMVideoCodecType) -> Bool {
    isHardwareDecodeSupported(VideoCodecType(rawValue: codecType))
}

// MARK: - Status codes (VTErrors.h), with Apple's values

/// `kVTPropertyNotSupportedErr` (-12900).
public let kVTPropertyNotSupportedErr: OSStatus = VTError.propertyNotSupported.status
/// `kVTPropertyReadOnlyErr` (-12901).
public let kVTPropertyReadOnlyErr: OSStatus = VTError.propertyReadOnly.status
/// `kVTParameterErr` (-12902).
public let kVTParameterErr: OSStatus = VTError.parameter.status
/// `kVTInvalidSessionErr` (-12903).
public let kVTInvalidSessionErr: OSStatus = VTError.invalidSession.status
/// `kVTAllocationFailedErr` (-12904).
public let kVTAllocationFailedErr: OSStatus = VTError.allocationFailed.status
/// `kVTPixelTransferNotSupportedErr` (-12905).
public let kVTPixelTransferNotSupportedErr: OSStatus = VTError.pixelTransferNotSupported.status
/// `kVTCouldNotFindVideoDecoderErr` (-12906).
public let kVTCouldNotFindVideoDecoderErr: OSStatus = VTError.couldNotFindVideoDecoder.status
/// `kVTCouldNotCreateInstanceErr` (-12907).
public let kVTCouldNotCreateInstanceErr: OSStatus = VTError.couldNotCreateInstance.status
/// `kVTVideoDecoderBadDataErr` (-12909).
public let kVTVideoDecoderBadDataErr: OSStatus = VTError.videoDecoderBadData.status
/// `kVTVideoDecoderUnsupportedDataFormatErr` (-12910).
public let kVTVideoDecoderUnsupportedDataFormatErr: OSStatus = VTError.videoDecoderUnsupportedDataFormat.status
/// `kVTVideoDecoderMalfunctionErr` (-12911).
public let kVTVideoDecoderMalfunctionErr: OSStatus = VTError.videoDecoderMalfunction.status
/// `kVTVideoDecoderNotAvailableNowErr` (-12913).
public let kVTVideoDecoderNotAvailableNowErr: OSStatus = VTError.videoDecoderNotAvailableNow.status
/// `kVTFormatDescriptionChangeNotSupportedErr` (-12916).
public let kVTFormatDescriptionChangeNotSupportedErr: OSStatus = VTError.formatDescriptionChangeNotSupported.status
/// `kVTVideoDecoderReferenceMissingErr` (-17694).
public let kVTVideoDecoderReferenceMissingErr: OSStatus = VTError.videoDecoderReferenceMissing.status
