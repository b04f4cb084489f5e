/// The key of a decompression session property — the `kVTDecompressionPropertyKey_…` constants
/// that `VTSessionSetProperty` and `VTSessionCopyProperty` take.
///
/// The raw value is the string Apple's constant holds (`kVTDecompressionPropertyKey_RealTime` is
/// `"RealTime"`), so a key read from VideoToolbox code maps one to one:
/// `session.setProperty(DecompressionPropertyKey(rawValue: key), to: value)`. Any string is a
/// key; the session answers ``VTError/propertyNotSupported`` for those it does not know.
///
/// What each key does on a ``DecompressionSession``, and when it may change, is listed at
/// ``DecompressionSession/setProperty(_:to:)``.
public struct DecompressionPropertyKey: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The key's string, as Apple's constant holds it.
    public let rawValue: String

    /// Creates a key from its string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The key's string.
    public var description: String { rawValue }

    // MARK: - Pixel buffer pools

    /// `kVTDecompressionPropertyKey_PixelBufferPool`: the pool converted output comes from.
    /// Read-only; a ``PixelBufferPool``, nil while there is none.
    public static let pixelBufferPool = Self(rawValue: "PixelBufferPool")
    /// `kVTDecompressionPropertyKey_PixelBufferPoolIsShared`: whether the decoder and the
    /// application share one pool. Read-only; `false` (converted output has its own pool, native
    /// output none).
    public static let pixelBufferPoolIsShared = Self(rawValue: "PixelBufferPoolIsShared")
    /// `kVTDecompressionPropertyKey_OutputPoolRequestedMinimumBufferCount`: buffers the output
    /// pool keeps. Read/write, an `Int`; nil or 0 clears it.
    public static let outputPoolRequestedMinimumBufferCount = Self(rawValue: "OutputPoolRequestedMinimumBufferCount")

    // MARK: - Asynchronous state

    /// `kVTDecompressionPropertyKey_NumberOfFramesBeingDecoded`: frames accepted and not yet
    /// output. Read-only, an `Int`.
    public static let numberOfFramesBeingDecoded = Self(rawValue: "NumberOfFramesBeingDecoded")
    /// `kVTDecompressionPropertyKey_MinOutputPresentationTimeStampOfFramesBeingDecoded`.
    /// Read-only, a ``MediaTime`` (``MediaTime/invalid`` when no frame is being decoded).
    public static let minOutputPresentationTimeStampOfFramesBeingDecoded = Self(
        rawValue: "MinOutputPresentationTimeStampOfFramesBeingDecoded")
    /// `kVTDecompressionPropertyKey_MaxOutputPresentationTimeStampOfFramesBeingDecoded`.
    /// Read-only, a ``MediaTime`` (``MediaTime/invalid`` when no frame is being decoded).
    public static let maxOutputPresentationTimeStampOfFramesBeingDecoded = Self(
        rawValue: "MaxOutputPresentationTimeStampOfFramesBeingDecoded")

    // MARK: - Content and hardware

    /// `kVTDecompressionPropertyKey_ContentHasInterframeDependencies`: optional for decoders;
    /// not supported (libavcodec does not say).
    public static let contentHasInterframeDependencies = Self(rawValue: "ContentHasInterframeDependencies")
    /// `kVTDecompressionPropertyKey_UsingHardwareAcceleratedVideoDecoder`: whether the GPU
    /// decodes. Read-only, a `Bool`.
    public static let usingHardwareAcceleratedVideoDecoder = Self(rawValue: "UsingHardwareAcceleratedVideoDecoder")
    /// `kVTDecompressionPropertyKey_UsingGPURegistryID`: the removable GPU decoding. Read-only;
    /// always nil, as Apple's is for a built-in GPU or software decoding (a render node has no
    /// registry ID: see ``DecompressionSession/renderNode``).
    public static let usingGPURegistryID = Self(rawValue: "UsingGPURegistryID")

    // MARK: - Decoder behaviour

    /// `kVTDecompressionPropertyKey_RealTime`: decoding for real-time playback. Read/write, a
    /// `Bool`; nil means `true`, as Apple documents.
    public static let realTime = Self(rawValue: "RealTime")
    /// `kVTDecompressionPropertyKey_MaximizePowerEfficiency`: decode with as little power as
    /// possible. Read/write, a `Bool`; nil means `false`.
    public static let maximizePowerEfficiency = Self(rawValue: "MaximizePowerEfficiency")
    /// `kVTDecompressionPropertyKey_ThreadCount`: decoding threads. Read/write, an `Int`.
    public static let threadCount = Self(rawValue: "ThreadCount")
    /// `kVTDecompressionPropertyKey_FieldMode`: the handling of interlaced content. Read/write, a
    /// ``FieldMode`` `String`: both fields woven (the default), one field, or deinterlaced.
    public static let fieldMode = Self(rawValue: "FieldMode")
    /// `kVTDecompressionPropertyKey_DeinterlaceMode`: how ``FieldMode/deinterlaceFields``
    /// deinterlaces. Read/write, a ``DeinterlaceMode`` `String`: ``DeinterlaceMode/verticalFilter``
    /// (the default) or ``DeinterlaceMode/temporal``.
    public static let deinterlaceMode = Self(rawValue: "DeinterlaceMode")
    /// `kVTDecompressionPropertyKey_ReducedResolutionDecode`: not supported.
    public static let reducedResolutionDecode = Self(rawValue: "ReducedResolutionDecode")
    /// `kVTDecompressionPropertyKey_ReducedCoefficientDecode`: not supported.
    public static let reducedCoefficientDecode = Self(rawValue: "ReducedCoefficientDecode")
    /// `kVTDecompressionPropertyKey_ReducedFrameDelivery`: not supported.
    public static let reducedFrameDelivery = Self(rawValue: "ReducedFrameDelivery")
    /// `kVTDecompressionPropertyKey_OnlyTheseFrames`: not supported.
    public static let onlyTheseFrames = Self(rawValue: "OnlyTheseFrames")
    /// `kVTDecompressionProperty_TemporalLevelLimit`: not supported.
    public static let temporalLevelLimit = Self(rawValue: "TemporalLevelLimit")
    /// `kVTDecompressionPropertyKey_SuggestedQualityOfServiceTiers`: not supported.
    public static let suggestedQualityOfServiceTiers = Self(rawValue: "SuggestedQualityOfServiceTiers")
    /// `kVTDecompressionPropertyKey_SupportedPixelFormatsOrderedByQuality`: not supported.
    public static let supportedPixelFormatsOrderedByQuality = Self(rawValue: "SupportedPixelFormatsOrderedByQuality")
    /// `kVTDecompressionPropertyKey_SupportedPixelFormatsOrderedByPerformance`: not supported.
    public static let supportedPixelFormatsOrderedByPerformance = Self(
        rawValue: "SupportedPixelFormatsOrderedByPerformance")
    /// `kVTDecompressionPropertyKey_PixelFormatsWithReducedResolutionSupport`: not supported.
    public static let pixelFormatsWithReducedResolutionSupport = Self(
        rawValue: "PixelFormatsWithReducedResolutionSupport")
    /// `kVTDecompressionPropertyKey_AllowBitstreamToChangeFrameDimensions`: not supported.
    public static let allowBitstreamToChangeFrameDimensions = Self(rawValue: "AllowBitstreamToChangeFrameDimensions")

    // MARK: - Post-decompression processing

    /// `kVTDecompressionPropertyKey_PixelTransferProperties`: not supported (conversion follows
    /// the `ffmpeg` CLI's settings; see ``ImageBufferAttributes``).
    public static let pixelTransferProperties = Self(rawValue: "PixelTransferProperties")
    /// `kVTDecompressionPropertyKey_PropagatePerFrameHDRDisplayMetadata`: a `Bool`, off by
    /// default; on, each frame carries its sample's HDR10+ message
    /// (``DecompressionOutput/hdr10PlusPerFrameData``).
    public static let propagatePerFrameHDRDisplayMetadata = Self(rawValue: "PropagatePerFrameHDRDisplayMetadata")
    /// `kVTDecompressionPropertyKey_GeneratePerFrameHDRDisplayMetadata`: not supported.
    public static let generatePerFrameHDRDisplayMetadata = Self(rawValue: "GeneratePerFrameHDRDisplayMetadata")
    /// `kVTDecompressionPropertyKey_DecoderProducesRAWOutput`: not supported (no RAW decoders).
    public static let decoderProducesRAWOutput = Self(rawValue: "DecoderProducesRAWOutput")
    /// `kVTDecompressionPropertyKey_RequestRAWOutput`: not supported (no RAW decoders).
    public static let requestRAWOutput = Self(rawValue: "RequestRAWOutput")
    /// `kVTDecompressionPropertyKey_RequestedMVHEVCVideoLayerIDs`: not supported (the base
    /// layer is decoded).
    public static let requestedMVHEVCVideoLayerIDs = Self(rawValue: "RequestedMVHEVCVideoLayerIDs")

    /// Every key Apple documents for decompression sessions.
    public static let allDocumented: [Self] = [
        .pixelBufferPool, .pixelBufferPoolIsShared, .outputPoolRequestedMinimumBufferCount,
        .numberOfFramesBeingDecoded, .minOutputPresentationTimeStampOfFramesBeingDecoded,
        .maxOutputPresentationTimeStampOfFramesBeingDecoded, .contentHasInterframeDependencies,
        .usingHardwareAcceleratedVideoDecoder, .usingGPURegistryID, .realTime, .maximizePowerEfficiency,
        .threadCount, .fieldMode, .deinterlaceMode, .reducedResolutionDecode, .reducedCoefficientDecode,
        .reducedFrameDelivery, .onlyTheseFrames, .temporalLevelLimit, .suggestedQualityOfServiceTiers,
        .supportedPixelFormatsOrderedByQuality, .supportedPixelFormatsOrderedByPerformance,
        .pixelFormatsWithReducedResolutionSupport, .allowBitstreamToChangeFrameDimensions,
        .pixelTransferProperties, .propagatePerFrameHDRDisplayMetadata, .generatePerFrameHDRDisplayMetadata,
        .decoderProducesRAWOutput, .requestRAWOutput, .requestedMVHEVCVideoLayerIDs,
    ]

    /// What a session lets an application do with a key.
    public enum Access: Sendable, Hashable {
        /// The key can be read and set (`kVTPropertyReadWriteStatus_ReadWrite`).
        case readWrite
        /// The key can be read; setting it throws ``VTError/propertyReadOnly``
        /// (`kVTPropertyReadWriteStatus_ReadOnly`).
        case readOnly
        /// Reading or setting it throws ``VTError/propertyNotSupported``.
        case notSupported
    }

    /// What a ``DecompressionSession`` lets an application do with this key.
    public var access: Access {
        switch self {
        case .realTime, .maximizePowerEfficiency, .threadCount, .fieldMode, .deinterlaceMode,
            .outputPoolRequestedMinimumBufferCount, .propagatePerFrameHDRDisplayMetadata:
            .readWrite
        case .pixelBufferPool, .pixelBufferPoolIsShared, .numberOfFramesBeingDecoded,
            .minOutputPresentationTimeStampOfFramesBeingDecoded, .maxOutputPresentationTimeStampOfFramesBeingDecoded,
            .usingHardwareAcceleratedVideoDecoder, .usingGPURegistryID:
            .readOnly
        default:
            .notSupported
        }
    }
}

/// The values of ``DecompressionPropertyKey/fieldMode`` — `kVTDecompressionProperty_FieldMode_…`.
/// The session filters each picture on the CPU with libavfilter (a GPU surface is read back),
/// before the conversion the image buffer attributes ask for.
public enum FieldMode {
    /// `kVTDecompressionProperty_FieldMode_BothFields`: both fields, woven into frames, as
    /// decoded — the default.
    public static let bothFields = "BothFields"
    /// `kVTDecompressionProperty_FieldMode_TopFieldOnly`: every picture's top field (its even
    /// lines), half its height — the ffmpeg CLI's `-vf field=type=top`.
    public static let topFieldOnly = "TopFieldOnly"
    /// `kVTDecompressionProperty_FieldMode_BottomFieldOnly`: every picture's bottom field (its odd
    /// lines), half its height — `-vf field=type=bottom`.
    public static let bottomFieldOnly = "BottomFieldOnly"
    /// `kVTDecompressionProperty_FieldMode_SingleField`: one field of every picture, the session's
    /// choice: the top one (``topFieldOnly``).
    public static let singleField = "SingleField"
    /// `kVTDecompressionProperty_FieldMode_DeinterlaceFields`: each interlaced picture
    /// deinterlaced as ``DecompressionPropertyKey/deinterlaceMode`` says, one progressive picture
    /// per picture; progressive pictures go out as decoded.
    public static let deinterlaceFields = "DeinterlaceFields"

    /// Every field mode.
    static let all = [bothFields, topFieldOnly, bottomFieldOnly, singleField, deinterlaceFields]
}

/// The values of ``DecompressionPropertyKey/deinterlaceMode`` —
/// `kVTDecompressionProperty_DeinterlaceMode_…`.
public enum DeinterlaceMode {
    /// `kVTDecompressionProperty_DeinterlaceMode_VerticalFilter`: a (0.25, 0.5, 0.25) vertical
    /// filter on each interlaced picture, as Apple documents it — libpostproc's linear blend
    /// deinterlacer, the ffmpeg CLI's `-vf pp=lb`. The default.
    public static let verticalFilter = "VerticalFilter"
    /// `kVTDecompressionProperty_DeinterlaceMode_Temporal`: a temporal filter over the sequence of
    /// pictures, for the frames decoded with ``DecodeFrameFlags/enableTemporalProcessing`` (the
    /// others take the vertical filter, as Apple documents): libavfilter's bwdif on each
    /// interlaced picture with the pictures around it (on the GPU where the driver's
    /// motion-adaptive deinterlacing can, ``Deinterlacer``), one progressive picture per picture;
    /// each frame goes out a picture later, ``DecompressionSession/finishDelayedFrames()`` hands
    /// out the last.
    public static let temporal = "Temporal"
}
