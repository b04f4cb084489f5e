// The OSStatus values VideoToolbox and CoreMedia return, with Apple's names (VTErrors.h,
// CMFormatDescription.h, CMBlockBuffer.h, CMSampleBuffer.h).

extension VTError {
    /// A status value's Apple name and a general summary of its meaning.
    struct CatalogueEntry: Sendable {
        let name: String
        let summary: String
    }

    // MARK: VideoToolbox

    /// `kVTPropertyNotSupportedErr` (-12900): the property is not supported by this session.
    public static let propertyNotSupported = VTError(status: -12900)
    /// `kVTPropertyReadOnlyErr` (-12901): the property cannot be set.
    public static let propertyReadOnly = VTError(status: -12901)
    /// `kVTParameterErr` (-12902): a parameter is invalid.
    public static let parameter = VTError(status: -12902)
    /// `kVTInvalidSessionErr` (-12903): the session has been invalidated.
    public static let invalidSession = VTError(status: -12903)
    /// `kVTAllocationFailedErr` (-12904): memory or a resource could not be allocated.
    public static let allocationFailed = VTError(status: -12904)
    /// `kVTPixelTransferNotSupportedErr` (-12905): the requested pixel conversion is not supported.
    public static let pixelTransferNotSupported = VTError(status: -12905)
    /// `kVTCouldNotFindVideoDecoderErr` (-12906): no decoder for this codec, profile or device.
    public static let couldNotFindVideoDecoder = VTError(status: -12906)
    /// `kVTCouldNotCreateInstanceErr` (-12907): the decoder could not be created.
    public static let couldNotCreateInstance = VTError(status: -12907)
    /// `kVTCouldNotFindVideoEncoderErr` (-12908): no encoder for this codec.
    public static let couldNotFindVideoEncoder = VTError(status: -12908)
    /// `kVTVideoDecoderBadDataErr` (-12909): the compressed data is corrupt or truncated.
    public static let videoDecoderBadData = VTError(status: -12909)
    /// `kVTVideoDecoderUnsupportedDataFormatErr` (-12910): the data uses a feature the decoder lacks.
    public static let videoDecoderUnsupportedDataFormat = VTError(status: -12910)
    /// `kVTVideoDecoderMalfunctionErr` (-12911): the decoder (or the GPU under it) failed.
    public static let videoDecoderMalfunction = VTError(status: -12911)
    /// `kVTVideoEncoderMalfunctionErr` (-12912): the encoder failed.
    public static let videoEncoderMalfunction = VTError(status: -12912)
    /// `kVTVideoDecoderNotAvailableNowErr` (-12913): the decoder is busy or temporarily unusable.
    public static let videoDecoderNotAvailableNow = VTError(status: -12913)
    /// `kVTImageRotationNotSupportedErr` (-12914): the requested rotation is not supported.
    public static let imageRotationNotSupported = VTError(status: -12914)
    /// `kVTVideoEncoderNotAvailableNowErr` (-12915): the encoder is busy or temporarily unusable.
    public static let videoEncoderNotAvailableNow = VTError(status: -12915)
    /// `kVTFormatDescriptionChangeNotSupportedErr` (-12916): the session cannot take this format change.
    public static let formatDescriptionChangeNotSupported = VTError(status: -12916)
    /// `kVTInsufficientSourceColorDataErr` (-12917): colour information is missing for a conversion.
    public static let insufficientSourceColorData = VTError(status: -12917)
    /// `kVTCouldNotCreateColorCorrectionDataErr` (-12918): colour correction data could not be made.
    public static let couldNotCreateColorCorrectionData = VTError(status: -12918)
    /// `kVTColorSyncTransformConvertFailedErr` (-12919): a colour transform failed.
    public static let colorSyncTransformConvertFailed = VTError(status: -12919)
    /// `kVTVideoDecoderAuthorizationErr` (-12210): the decoder is not authorised for this content.
    public static let videoDecoderAuthorization = VTError(status: -12210)
    /// `kVTVideoEncoderAuthorizationErr` (-12211): the encoder is not authorised.
    public static let videoEncoderAuthorization = VTError(status: -12211)
    /// `kVTColorCorrectionPixelTransferFailedErr` (-12212): a colour-corrected transfer failed.
    public static let colorCorrectionPixelTransferFailed = VTError(status: -12212)
    /// `kVTMultiPassStorageIdentifierMismatchErr` (-12213): multi-pass storage belongs to another session.
    public static let multiPassStorageIdentifierMismatch = VTError(status: -12213)
    /// `kVTMultiPassStorageInvalidErr` (-12214): multi-pass storage is invalid.
    public static let multiPassStorageInvalid = VTError(status: -12214)
    /// `kVTFrameSiloInvalidTimeStampErr` (-12215): a time stamp is out of order or invalid.
    public static let frameSiloInvalidTimeStamp = VTError(status: -12215)
    /// `kVTFrameSiloInvalidTimeRangeErr` (-12216): a time range is invalid.
    public static let frameSiloInvalidTimeRange = VTError(status: -12216)
    /// `kVTCouldNotFindTemporalFilterErr` (-12217): no temporal filter is available.
    public static let couldNotFindTemporalFilter = VTError(status: -12217)
    /// `kVTPixelTransferNotPermittedErr` (-12218): the pixel transfer is not permitted.
    public static let pixelTransferNotPermitted = VTError(status: -12218)
    /// `kVTVideoDecoderReferenceMissingErr` (-17694): a reference picture the frame needs is missing.
    public static let videoDecoderReferenceMissing = VTError(status: -17694)

    // MARK: CoreMedia format descriptions

    /// `kCMFormatDescriptionError_InvalidParameter` (-12710): a parameter set or field is invalid.
    public static let formatDescriptionInvalidParameter = VTError(status: -12710)
    /// `kCMFormatDescriptionError_AllocationFailed` (-12711): allocation failed.
    public static let formatDescriptionAllocationFailed = VTError(status: -12711)
    /// `kCMFormatDescriptionError_ValueNotAvailable` (-12718): the requested value is not present.
    public static let formatDescriptionValueNotAvailable = VTError(status: -12718)

    // MARK: CoreMedia block buffers

    /// `kCMBlockBufferStructureAllocationFailedErr` (-12700).
    public static let blockBufferStructureAllocationFailed = VTError(status: -12700)
    /// `kCMBlockBufferBlockAllocationFailedErr` (-12701).
    public static let blockBufferBlockAllocationFailed = VTError(status: -12701)
    /// `kCMBlockBufferBadCustomBlockSourceErr` (-12702).
    public static let blockBufferBadCustomBlockSource = VTError(status: -12702)
    /// `kCMBlockBufferBadOffsetParameterErr` (-12703): an offset is out of range.
    public static let blockBufferBadOffsetParameter = VTError(status: -12703)
    /// `kCMBlockBufferBadLengthParameterErr` (-12704): a length is out of range.
    public static let blockBufferBadLengthParameter = VTError(status: -12704)
    /// `kCMBlockBufferBadPointerParameterErr` (-12705): a pointer is invalid.
    public static let blockBufferBadPointerParameter = VTError(status: -12705)
    /// `kCMBlockBufferEmptyBBufErr` (-12706): the buffer is empty.
    public static let blockBufferEmpty = VTError(status: -12706)
    /// `kCMBlockBufferUnallocatedBlockErr` (-12707): a block is not allocated.
    public static let blockBufferUnallocatedBlock = VTError(status: -12707)
    /// `kCMBlockBufferInsufficientSpaceErr` (-12708): the buffer is too small.
    public static let blockBufferInsufficientSpace = VTError(status: -12708)

    // MARK: CoreMedia sample buffers

    /// `kCMSampleBufferError_AllocationFailed` (-12730).
    public static let sampleBufferAllocationFailed = VTError(status: -12730)
    /// `kCMSampleBufferError_RequiredParameterMissing` (-12731).
    public static let sampleBufferRequiredParameterMissing = VTError(status: -12731)
    /// `kCMSampleBufferError_AlreadyHasDataBuffer` (-12732).
    public static let sampleBufferAlreadyHasDataBuffer = VTError(status: -12732)
    /// `kCMSampleBufferError_BufferNotReady` (-12733).
    public static let sampleBufferBufferNotReady = VTError(status: -12733)
    /// `kCMSampleBufferError_SampleIndexOutOfRange` (-12734).
    public static let sampleBufferSampleIndexOutOfRange = VTError(status: -12734)
    /// `kCMSampleBufferError_BufferHasNoSampleSizes` (-12735).
    public static let sampleBufferBufferHasNoSampleSizes = VTError(status: -12735)
    /// `kCMSampleBufferError_BufferHasNoSampleTimingInfo` (-12736).
    public static let sampleBufferBufferHasNoSampleTimingInfo = VTError(status: -12736)
    /// `kCMSampleBufferError_ArrayTooSmall` (-12737).
    public static let sampleBufferArrayTooSmall = VTError(status: -12737)
    /// `kCMSampleBufferError_InvalidEntryCount` (-12738).
    public static let sampleBufferInvalidEntryCount = VTError(status: -12738)
    /// `kCMSampleBufferError_CannotSubdivide` (-12739).
    public static let sampleBufferCannotSubdivide = VTError(status: -12739)
    /// `kCMSampleBufferError_SampleTimingInfoInvalid` (-12740).
    public static let sampleBufferSampleTimingInfoInvalid = VTError(status: -12740)
    /// `kCMSampleBufferError_InvalidMediaTypeForOperation` (-12741).
    public static let sampleBufferInvalidMediaTypeForOperation = VTError(status: -12741)
    /// `kCMSampleBufferError_InvalidSampleData` (-12742): the sample's data is malformed.
    public static let sampleBufferInvalidSampleData = VTError(status: -12742)
    /// `kCMSampleBufferError_InvalidMediaFormat` (-12743).
    public static let sampleBufferInvalidMediaFormat = VTError(status: -12743)
    /// `kCMSampleBufferError_Invalidated` (-12744).
    public static let sampleBufferInvalidated = VTError(status: -12744)
    /// `kCMSampleBufferError_DataFailed` (-16750).
    public static let sampleBufferDataFailed = VTError(status: -16750)
    /// `kCMSampleBufferError_DataCanceled` (-16751).
    public static let sampleBufferDataCanceled = VTError(status: -16751)

    // MARK: CoreVideo (CVReturn.h)

    /// `kCVReturnError` (-6660): an otherwise undefined error, for example an unlock of a pixel
    /// buffer that is not locked.
    public static let pixelBufferError = VTError(status: -6660)
    /// `kCVReturnInvalidArgument` (-6661): an invalid argument, for example unlock flags that
    /// differ from the lock's.
    public static let pixelBufferInvalidArgument = VTError(status: -6661)
    /// `kCVReturnAllocationFailed` (-6662): memory could not be allocated.
    public static let pixelBufferAllocationFailed = VTError(status: -6662)
    /// `kCVReturnUnsupported` (-6663): the operation is not supported.
    public static let pixelBufferUnsupported = VTError(status: -6663)
    /// `kCVReturnInvalidPixelFormat` (-6680): the pixel format is not supported.
    public static let invalidPixelFormat = VTError(status: -6680)
    /// `kCVReturnInvalidSize` (-6681): the width or height is not supported.
    public static let invalidSize = VTError(status: -6681)
    /// `kCVReturnInvalidPixelBufferAttributes` (-6682): a pixel buffer attribute is invalid.
    public static let invalidPixelBufferAttributes = VTError(status: -6682)
    /// `kCVReturnPoolAllocationFailed` (-6690): the pool could not allocate a buffer.
    public static let poolAllocationFailed = VTError(status: -6690)
    /// `kCVReturnInvalidPoolAttributes` (-6691): a pool attribute is invalid.
    public static let invalidPoolAttributes = VTError(status: -6691)

    /// Every status this library knows: value → Apple name and summary.
    static let catalogue: [Int32: CatalogueEntry] = Dictionary(
        uniqueKeysWithValues: catalogueRows.map { ($0.0, CatalogueEntry(name: $0.1, summary: $0.2)) })

    /// The table behind ``catalogue``, in the order of Apple's headers.
    static let catalogueRows: [(Int32, String, String)] = [
        (-12900, "kVTPropertyNotSupportedErr", "the property is not supported"),
        (-12901, "kVTPropertyReadOnlyErr", "the property is read-only"),
        (-12902, "kVTParameterErr", "a parameter is invalid"),
        (-12903, "kVTInvalidSessionErr", "the session is invalid (it was invalidated)"),
        (-12904, "kVTAllocationFailedErr", "an allocation failed"),
        (-12905, "kVTPixelTransferNotSupportedErr", "the pixel transfer is not supported"),
        (-12906, "kVTCouldNotFindVideoDecoderErr", "no suitable video decoder was found"),
        (-12907, "kVTCouldNotCreateInstanceErr", "the decoder instance could not be created"),
        (-12908, "kVTCouldNotFindVideoEncoderErr", "no suitable video encoder was found"),
        (-12909, "kVTVideoDecoderBadDataErr", "the compressed data is corrupt or truncated"),
        (-12910, "kVTVideoDecoderUnsupportedDataFormatErr", "the data format is not supported by the decoder"),
        (-12911, "kVTVideoDecoderMalfunctionErr", "the video decoder malfunctioned"),
        (-12912, "kVTVideoEncoderMalfunctionErr", "the video encoder malfunctioned"),
        (-12913, "kVTVideoDecoderNotAvailableNowErr", "the video decoder is not available now"),
        (-12914, "kVTImageRotationNotSupportedErr", "image rotation is not supported"),
        (-12915, "kVTVideoEncoderNotAvailableNowErr", "the video encoder is not available now"),
        (-12916, "kVTFormatDescriptionChangeNotSupportedErr", "the format description change is not supported"),
        (-12917, "kVTInsufficientSourceColorDataErr", "the source colour data is insufficient"),
        (-12918, "kVTCouldNotCreateColorCorrectionDataErr", "colour correction data could not be created"),
        (-12919, "kVTColorSyncTransformConvertFailedErr", "the colour transform failed"),
        (-12210, "kVTVideoDecoderAuthorizationErr", "the video decoder is not authorised"),
        (-12211, "kVTVideoEncoderAuthorizationErr", "the video encoder is not authorised"),
        (-12212, "kVTColorCorrectionPixelTransferFailedErr", "the colour-corrected pixel transfer failed"),
        (-12213, "kVTMultiPassStorageIdentifierMismatchErr", "the multi-pass storage identifier does not match"),
        (-12214, "kVTMultiPassStorageInvalidErr", "the multi-pass storage is invalid"),
        (-12215, "kVTFrameSiloInvalidTimeStampErr", "a time stamp is invalid"),
        (-12216, "kVTFrameSiloInvalidTimeRangeErr", "a time range is invalid"),
        (-12217, "kVTCouldNotFindTemporalFilterErr", "no temporal filter was found"),
        (-12218, "kVTPixelTransferNotPermittedErr", "the pixel transfer is not permitted"),
        (-17694, "kVTVideoDecoderReferenceMissingErr", "a reference picture is missing"),
        (-12710, "kCMFormatDescriptionError_InvalidParameter", "a format description parameter is invalid"),
        (-12711, "kCMFormatDescriptionError_AllocationFailed", "the format description could not be allocated"),
        (-12718, "kCMFormatDescriptionError_ValueNotAvailable", "the value is not available"),
        (0, "kCMBlockBufferNoErr", "no error"),
        (-12700, "kCMBlockBufferStructureAllocationFailedErr", "the block buffer structure could not be allocated"),
        (-12701, "kCMBlockBufferBlockAllocationFailedErr", "the block could not be allocated"),
        (-12702, "kCMBlockBufferBadCustomBlockSourceErr", "the custom block source is invalid"),
        (-12703, "kCMBlockBufferBadOffsetParameterErr", "an offset is out of range"),
        (-12704, "kCMBlockBufferBadLengthParameterErr", "a length is out of range"),
        (-12705, "kCMBlockBufferBadPointerParameterErr", "a pointer is invalid"),
        (-12706, "kCMBlockBufferEmptyBBufErr", "the block buffer is empty"),
        (-12707, "kCMBlockBufferUnallocatedBlockErr", "a block is not allocated"),
        (-12708, "kCMBlockBufferInsufficientSpaceErr", "the block buffer is too small"),
        (-12730, "kCMSampleBufferError_AllocationFailed", "the sample buffer could not be allocated"),
        (-12731, "kCMSampleBufferError_RequiredParameterMissing", "a required parameter is missing"),
        (-12732, "kCMSampleBufferError_AlreadyHasDataBuffer", "the sample buffer already has data"),
        (-12733, "kCMSampleBufferError_BufferNotReady", "the sample buffer is not ready"),
        (-12734, "kCMSampleBufferError_SampleIndexOutOfRange", "the sample index is out of range"),
        (-12735, "kCMSampleBufferError_BufferHasNoSampleSizes", "the sample buffer has no sample sizes"),
        (-12736, "kCMSampleBufferError_BufferHasNoSampleTimingInfo", "the sample buffer has no timing"),
        (-12737, "kCMSampleBufferError_ArrayTooSmall", "the array is too small"),
        (-12738, "kCMSampleBufferError_InvalidEntryCount", "the entry count is invalid"),
        (-12739, "kCMSampleBufferError_CannotSubdivide", "the sample buffer cannot be subdivided"),
        (-12740, "kCMSampleBufferError_SampleTimingInfoInvalid", "the sample timing is invalid"),
        (-12741, "kCMSampleBufferError_InvalidMediaTypeForOperation", "the media type is wrong for this operation"),
        (-12742, "kCMSampleBufferError_InvalidSampleData", "the sample data is invalid"),
        (-12743, "kCMSampleBufferError_InvalidMediaFormat", "the media format is invalid"),
        (-12744, "kCMSampleBufferError_Invalidated", "the sample buffer was invalidated"),
        (-16750, "kCMSampleBufferError_DataFailed", "the sample data failed to load"),
        (-16751, "kCMSampleBufferError_DataCanceled", "loading the sample data was cancelled"),
        (-6660, "kCVReturnError", "the pixel buffer operation failed"),
        (-6661, "kCVReturnInvalidArgument", "an argument is invalid"),
        (-6662, "kCVReturnAllocationFailed", "memory could not be allocated"),
        (-6663, "kCVReturnUnsupported", "the operation is not supported"),
        (-6680, "kCVReturnInvalidPixelFormat", "the pixel format is invalid"),
        (-6681, "kCVReturnInvalidSize", "the size is invalid"),
        (-6682, "kCVReturnInvalidPixelBufferAttributes", "a pixel buffer attribute is invalid"),
        (-6690, "kCVReturnPoolAllocationFailed", "the pool could not allocate a buffer"),
        (-6691, "kCVReturnInvalidPoolAttributes", "a pool attribute is invalid"),
    ]
}
