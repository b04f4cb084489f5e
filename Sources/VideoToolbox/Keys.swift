// Decoder specification and session property keys (VTVideoDecoderList.h, VTDecompressionProperties.h).
// `nonisolated(unsafe)`: Foundation on Linux does not mark `NSString` `Sendable`, but these are
// immutable constants, stored so that `Unmanaged.passUnretained(key)` points at a live object.

/// Allow the GPU (the default) or, with false, decode on the CPU —
/// `kVTVideoDecoderSpecification_EnableHardwareAcceleratedVideoDecoder`.
nonisolated(unsafe) public let kVTVideoDecoderSpecification_EnableHardwareAcceleratedVideoDecoder: CFString =
    "EnableHardwareAcceleratedVideoDecoder"
/// Decode on the GPU or fail with `kVTCouldNotFindVideoDecoderErr` —
/// `kVTVideoDecoderSpecification_RequireHardwareAcceleratedVideoDecoder`.
nonisolated(unsafe) public let kVTVideoDecoderSpecification_RequireHardwareAcceleratedVideoDecoder: CFString =
    "RequireHardwareAcceleratedVideoDecoder"
/// Low-latency decoding, a Boolean — `kVTDecompressionPropertyKey_RealTime`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_RealTime: CFString = "RealTime"
/// Decoding threads, a number (0: one per core) — `kVTDecompressionPropertyKey_ThreadCount`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_ThreadCount: CFString = "ThreadCount"
/// Whether the GPU decodes, read-only — `kVTDecompressionPropertyKey_UsingHardwareAcceleratedVideoDecoder`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_UsingHardwareAcceleratedVideoDecoder: CFString =
    "UsingHardwareAcceleratedVideoDecoder"
/// Decode with as little power as possible — `kVTDecompressionPropertyKey_MaximizePowerEfficiency`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_MaximizePowerEfficiency: CFString =
    "MaximizePowerEfficiency"
/// Buffers the output pool keeps — `kVTDecompressionPropertyKey_OutputPoolRequestedMinimumBufferCount`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_OutputPoolRequestedMinimumBufferCount: CFString =
    "OutputPoolRequestedMinimumBufferCount"
/// Frames in flight, read-only — `kVTDecompressionPropertyKey_NumberOfFramesBeingDecoded`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_NumberOfFramesBeingDecoded: CFString =
    "NumberOfFramesBeingDecoded"
/// The output pool, read-only — `kVTDecompressionPropertyKey_PixelBufferPool`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_PixelBufferPool: CFString = "PixelBufferPool"
/// Attach each frame's HDR10+ message (`kCMSampleAttachmentKey_HDR10PlusPerFrameData`) to its
/// image buffer, a Boolean (off by default) —
/// `kVTDecompressionPropertyKey_PropagatePerFrameHDRDisplayMetadata`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_PropagatePerFrameHDRDisplayMetadata: CFString =
    "PropagatePerFrameHDRDisplayMetadata"
/// Field handling — `kVTDecompressionPropertyKey_FieldMode`.
nonisolated(unsafe) public let kVTDecompressionPropertyKey_FieldMode: CFString = "FieldMode"
/// Both fields, woven into frames — `kVTDecompressionProperty_FieldMode_BothFields`.
nonisolated(unsafe) public let kVTDecompressionProperty_FieldMode_BothFields: CFString = "BothFields"
