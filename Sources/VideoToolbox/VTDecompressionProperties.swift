// The decompression property keys and values of VTDecompressionProperties.h that Keys.swift does
// not declare, with Apple's string values; the session's table (`DecompressionPropertyKey.access`)
// says which it implements, and `VTSessionSetProperty` answers `kVTPropertyNotSupportedErr` for the
// others. `nonisolated(unsafe)`: Foundation on Linux does not mark `NSString` `Sendable`, but these
// are immutable constants, stored so that `Unmanaged.passUnretained(key)` points at a live object.

/// Whether the output pool is shared with the decoder, read-only (false here) —
/// `kVTDecompressionPropertyKey_PixelBufferPoolIsShared`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_PixelBufferPoolIsShared: CFString = "PixelBufferPoolIsShared"
/// The earliest output time of the frames in flight, read-only (a `CMTimeCopyAsDictionary` dictionary) —
/// `kVTDecompressionPropertyKey_MinOutputPresentationTimeStampOfFramesBeingDecoded`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_MinOutputPresentationTimeStampOfFramesBeingDecoded:
    CFString =
        "MinOutputPresentationTimeStampOfFramesBeingDecoded"
/// The latest output time of the frames in flight, read-only (a `CMTimeCopyAsDictionary` dictionary) —
/// `kVTDecompressionPropertyKey_MaxOutputPresentationTimeStampOfFramesBeingDecoded`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_MaxOutputPresentationTimeStampOfFramesBeingDecoded:
    CFString =
        "MaxOutputPresentationTimeStampOfFramesBeingDecoded"
/// Whether frames refer to others; not supported — `kVTDecompressionPropertyKey_ContentHasInterframeDependencies`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_ContentHasInterframeDependencies: CFString =
    "ContentHasInterframeDependencies"
/// The GPU's registry ID, read-only (nil: Linux has no registry; see `DecompressionSession.renderNode`) —
/// `kVTDecompressionPropertyKey_UsingGPURegistryID`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_UsingGPURegistryID: CFString = "UsingGPURegistryID"
/// How `kVTDecompressionProperty_FieldMode_DeinterlaceFields` deinterlaces — `kVTDecompressionPropertyKey_DeinterlaceMode`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_DeinterlaceMode: CFString = "DeinterlaceMode"
/// Decoding at a reduced resolution; not supported — `kVTDecompressionPropertyKey_ReducedResolutionDecode`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_ReducedResolutionDecode: CFString = "ReducedResolutionDecode"
/// Decoding fewer coefficients; not supported — `kVTDecompressionPropertyKey_ReducedCoefficientDecode`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_ReducedCoefficientDecode: CFString =
    "ReducedCoefficientDecode"
/// Delivering a fraction of the frames; not supported — `kVTDecompressionPropertyKey_ReducedFrameDelivery`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_ReducedFrameDelivery: CFString = "ReducedFrameDelivery"
/// Decoding only some kinds of frame; not supported — `kVTDecompressionPropertyKey_OnlyTheseFrames`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_OnlyTheseFrames: CFString = "OnlyTheseFrames"
/// Decoding only the lower temporal layers; not supported — `kVTDecompressionProperty_TemporalLevelLimit`.
nonisolated(unsafe) public let kVTDecompressionProperty_TemporalLevelLimit: CFString = "TemporalLevelLimit"
/// Quality of service tiers; not supported — `kVTDecompressionPropertyKey_SuggestedQualityOfServiceTiers`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_SuggestedQualityOfServiceTiers: CFString =
    "SuggestedQualityOfServiceTiers"
/// Output formats by quality; not supported — `kVTDecompressionPropertyKey_SupportedPixelFormatsOrderedByQuality`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_SupportedPixelFormatsOrderedByQuality: CFString =
    "SupportedPixelFormatsOrderedByQuality"
/// Output formats by speed; not supported — `kVTDecompressionPropertyKey_SupportedPixelFormatsOrderedByPerformance`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_SupportedPixelFormatsOrderedByPerformance: CFString =
    "SupportedPixelFormatsOrderedByPerformance"
/// Formats that can be decoded at reduced resolution; not supported —
/// `kVTDecompressionPropertyKey_PixelFormatsWithReducedResolutionSupport`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_PixelFormatsWithReducedResolutionSupport: CFString =
    "PixelFormatsWithReducedResolutionSupport"
/// Settings of the output conversion; not supported (the conversion is the `ffmpeg` CLI's) —
/// `kVTDecompressionPropertyKey_PixelTransferProperties`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_PixelTransferProperties: CFString = "PixelTransferProperties"
/// The top field only (half height), a `kVTDecompressionPropertyKey_FieldMode` value —
/// `kVTDecompressionProperty_FieldMode_TopFieldOnly`.
nonisolated(unsafe) public let kVTDecompressionProperty_FieldMode_TopFieldOnly: CFString = "TopFieldOnly"
/// The bottom field only (half height), a `kVTDecompressionPropertyKey_FieldMode` value —
/// `kVTDecompressionProperty_FieldMode_BottomFieldOnly`.
nonisolated(unsafe) public let kVTDecompressionProperty_FieldMode_BottomFieldOnly: CFString = "BottomFieldOnly"
/// One field (the top one, half height), a `kVTDecompressionPropertyKey_FieldMode` value —
/// `kVTDecompressionProperty_FieldMode_SingleField`.
nonisolated(unsafe) public let kVTDecompressionProperty_FieldMode_SingleField: CFString = "SingleField"
/// Deinterlaced pictures (as `kVTDecompressionPropertyKey_DeinterlaceMode` says), a `kVTDecompressionPropertyKey_FieldMode` value —
/// `kVTDecompressionProperty_FieldMode_DeinterlaceFields`.
nonisolated(unsafe) public let kVTDecompressionProperty_FieldMode_DeinterlaceFields: CFString = "DeinterlaceFields"
/// A (0.25, 0.5, 0.25) vertical filter on each interlaced picture, the default
/// `kVTDecompressionPropertyKey_DeinterlaceMode` — `kVTDecompressionProperty_DeinterlaceMode_VerticalFilter`.
nonisolated(unsafe) public let kVTDecompressionProperty_DeinterlaceMode_VerticalFilter: CFString = "VerticalFilter"
/// A temporal filter (bwdif over the pictures around each), a `kVTDecompressionPropertyKey_DeinterlaceMode`
/// value for the frames decoded with `kVTDecodeFrame_EnableTemporalProcessing`, each output a frame
/// later — `kVTDecompressionProperty_DeinterlaceMode_Temporal`.
nonisolated(unsafe) public let kVTDecompressionProperty_DeinterlaceMode_Temporal: CFString = "Temporal"
/// Every frame, a `kVTDecompressionPropertyKey_OnlyTheseFrames` value —
/// `kVTDecompressionProperty_OnlyTheseFrames_AllFrames`.
nonisolated(unsafe) public let kVTDecompressionProperty_OnlyTheseFrames_AllFrames: CFString = "AllFrames"
/// Frames others refer to, a `kVTDecompressionPropertyKey_OnlyTheseFrames` value —
/// `kVTDecompressionProperty_OnlyTheseFrames_NonDroppableFrames`.
nonisolated(unsafe) public let kVTDecompressionProperty_OnlyTheseFrames_NonDroppableFrames: CFString =
    "NonDroppableFrames"
/// Intra frames, a `kVTDecompressionPropertyKey_OnlyTheseFrames` value —
/// `kVTDecompressionProperty_OnlyTheseFrames_IntraOnly`.
nonisolated(unsafe) public let kVTDecompressionProperty_OnlyTheseFrames_IntraOnly: CFString = "IntraOnly"
/// Key frames, a `kVTDecompressionPropertyKey_OnlyTheseFrames` value —
/// `kVTDecompressionProperty_OnlyTheseFrames_KeyFrames`.
nonisolated(unsafe) public let kVTDecompressionProperty_OnlyTheseFrames_KeyFrames: CFString = "KeyFrames"
