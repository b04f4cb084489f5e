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
/// `kVTCouldNotFindVideoEncoderErr` (-12908).
public let kVTCouldNotFindVideoEncoderErr: OSStatus = VTError.couldNotFindVideoEncoder.status
/// `kVTVideoDecoderBadDataErr` (-12909).
public let kVTVideoDecoderBadDataErr: OSStatus = VTError.videoDecoderBadData.status
/// `kVTVideoDecoderUnsupportedDataFormatErr` (-12910).
public let kVTVideoDecoderUnsupportedDataFormatErr: OSStatus = VTError.videoDecoderUnsupportedDataFormat.status
/// `kVTVideoDecoderMalfunctionErr` (-12911).
public let kVTVideoDecoderMalfunctionErr: OSStatus = VTError.videoDecoderMalfunction.status
/// `kVTVideoEncoderMalfunctionErr` (-12912).
public let kVTVideoEncoderMalfunctionErr: OSStatus = VTError.videoEncoderMalfunction.status
/// `kVTVideoDecoderNotAvailableNowErr` (-12913).
public let kVTVideoDecoderNotAvailableNowErr: OSStatus = VTError.videoDecoderNotAvailableNow.status
/// `kVTImageRotationNotSupportedErr` (-12914).
public let kVTImageRotationNotSupportedErr: OSStatus = VTError.imageRotationNotSupported.status
/// `kVTVideoEncoderNotAvailableNowErr` (-12915).
public let kVTVideoEncoderNotAvailableNowErr: OSStatus = VTError.videoEncoderNotAvailableNow.status
/// `kVTFormatDescriptionChangeNotSupportedErr` (-12916).
public let kVTFormatDescriptionChangeNotSupportedErr: OSStatus = VTError.formatDescriptionChangeNotSupported.status
/// `kVTInsufficientSourceColorDataErr` (-12917).
public let kVTInsufficientSourceColorDataErr: OSStatus = VTError.insufficientSourceColorData.status
/// `kVTCouldNotCreateColorCorrectionDataErr` (-12918).
public let kVTCouldNotCreateColorCorrectionDataErr: OSStatus = VTError.couldNotCreateColorCorrectionData.status
/// `kVTColorSyncTransformConvertFailedErr` (-12919).
public let kVTColorSyncTransformConvertFailedErr: OSStatus = VTError.colorSyncTransformConvertFailed.status
/// `kVTVideoDecoderAuthorizationErr` (-12210).
public let kVTVideoDecoderAuthorizationErr: OSStatus = VTError.videoDecoderAuthorization.status
/// `kVTVideoEncoderAuthorizationErr` (-12211).
public let kVTVideoEncoderAuthorizationErr: OSStatus = VTError.videoEncoderAuthorization.status
/// `kVTColorCorrectionPixelTransferFailedErr` (-12212).
public let kVTColorCorrectionPixelTransferFailedErr: OSStatus = VTError.colorCorrectionPixelTransferFailed.status
/// `kVTMultiPassStorageIdentifierMismatchErr` (-12213).
public let kVTMultiPassStorageIdentifierMismatchErr: OSStatus = VTError.multiPassStorageIdentifierMismatch.status
/// `kVTMultiPassStorageInvalidErr` (-12214).
public let kVTMultiPassStorageInvalidErr: OSStatus = VTError.multiPassStorageInvalid.status
/// `kVTFrameSiloInvalidTimeStampErr` (-12215).
public let kVTFrameSiloInvalidTimeStampErr: OSStatus = VTError.frameSiloInvalidTimeStamp.status
/// `kVTFrameSiloInvalidTimeRangeErr` (-12216).
public let kVTFrameSiloInvalidTimeRangeErr: OSStatus = VTError.frameSiloInvalidTimeRange.status
/// `kVTCouldNotFindTemporalFilterErr` (-12217).
public let kVTCouldNotFindTemporalFilterErr: OSStatus = VTError.couldNotFindTemporalFilter.status
/// `kVTPixelTransferNotPermittedErr` (-12218).
public let kVTPixelTransferNotPermittedErr: OSStatus = VTError.pixelTransferNotPermitted.status
/// `kVTVideoDecoderReferenceMissingErr` (-17694).
public let kVTVideoDecoderReferenceMissingErr: OSStatus = VTError.videoDecoderReferenceMissing.status

/// A Core Graphics image of a pixel buffer — `VTCreateCGImageFromCVPixelBuffer`. Linux has no Core
/// Graphics.
@available(
    *, unavailable,
    message:
        "there is no Core Graphics on Linux: convert with VTPixelTransferSessionTransferImage to kCVPixelFormatType_32BGRA and read the locked buffer, or call imageBuffer.pixelBuffer.pngData()"
)
public func VTCreateCGImageFromCVPixelBuffer(
    _ pixelBuffer: CVPixelBuffer, options: CFDictionary?, imageOut: UnsafeMutablePointer<AnyObject?>
) -> OSStatus { kVTParameterErr }
