// CoreMedia for Linux: Apple's C-style format description, block buffer, sample buffer and time
// API over VAToolbox's `VideoFormatDescription`, `SampleBuffer` and `MediaTime`, so that
// VideoToolbox code compiles unchanged. `import CoreMedia` also brings in CoreVideo.

@_exported import CoreVideo
public import VAToolbox

// The keys and the CF-typed constants below are `nonisolated(unsafe)`: Foundation on Linux does
// not mark `NSString` `Sendable`, but these are immutable constants, never mutated after their one
// initialisation, and stored so that `Unmanaged.passUnretained(key)` points at a live object.

/// A count of items — `CMItemCount`.
public typealias CMItemCount = Int
/// An index of an item — `CMItemIndex`.
public typealias CMItemIndex = Int
/// A media type FourCC — `CMMediaType`.
public typealias CMMediaType = FourCharCode
/// A video codec FourCC — `CMVideoCodecType`.
public typealias CMVideoCodecType = FourCharCode
/// A pixel format FourCC — `CMPixelFormatType`.
public typealias CMPixelFormatType = FourCharCode
/// The width and height of a video format — `CMVideoDimensions` (``VideoDimensions``).
public typealias CMVideoDimensions = VideoDimensions
/// The timing of one sample — `CMSampleTimingInfo` (``SampleTimingInfo``).
public typealias CMSampleTimingInfo = SampleTimingInfo

/// Video — `kCMMediaType_Video` (`'vide'`).
public let kCMMediaType_Video: CMMediaType = 0x7669_6465
/// H.264 — `kCMVideoCodecType_H264` (`'avc1'`).
public let kCMVideoCodecType_H264: CMVideoCodecType = VideoCodecType.h264.rawValue
/// HEVC — `kCMVideoCodecType_HEVC` (`'hvc1'`).
public let kCMVideoCodecType_HEVC: CMVideoCodecType = VideoCodecType.hevc.rawValue
/// AV1 — `kCMVideoCodecType_AV1` (`'av01'`).
public let kCMVideoCodecType_AV1: CMVideoCodecType = VideoCodecType.av1.rawValue
/// VP9 — `kCMVideoCodecType_VP9` (`'vp09'`).
public let kCMVideoCodecType_VP9: CMVideoCodecType = VideoCodecType.vp9.rawValue
/// MPEG-2 video — `kCMVideoCodecType_MPEG2Video` (`'mp2v'`).
public let kCMVideoCodecType_MPEG2Video: CMVideoCodecType = VideoCodecType.mpeg2Video.rawValue
/// `'BGRA'` — `kCMPixelFormat_32BGRA`.
public let kCMPixelFormat_32BGRA: CMPixelFormatType = kCVPixelFormatType_32BGRA

/// Timing with every time invalid — `kCMTimingInfoInvalid`.
public let kCMTimingInfoInvalid = CMSampleTimingInfo.invalid

// MARK: - Format description errors (CMFormatDescription.h)

/// `kCMFormatDescriptionError_InvalidParameter` (-12710).
public let kCMFormatDescriptionError_InvalidParameter: OSStatus = VTError.formatDescriptionInvalidParameter.status
/// `kCMFormatDescriptionError_AllocationFailed` (-12711).
public let kCMFormatDescriptionError_AllocationFailed: OSStatus = VTError.formatDescriptionAllocationFailed.status
/// `kCMFormatDescriptionError_ValueNotAvailable` (-12718).
public let kCMFormatDescriptionError_ValueNotAvailable: OSStatus = VTError.formatDescriptionValueNotAvailable.status
