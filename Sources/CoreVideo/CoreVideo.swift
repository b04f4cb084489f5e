// CoreVideo for Linux: Apple's C-style pixel-buffer API over VAToolbox's `PixelBuffer` and
// `PixelBufferPool`, so that VideoToolbox code compiles unchanged. `import CoreVideo` also
// brings in the Core Foundation vocabulary (`OSStatus`, `kCFAllocatorDefault`, …).

@_exported import CoreFoundationCompat
public import VAToolbox

/// A Core Video result code — `CVReturn`.
public typealias CVReturn = Int32
/// Core Video option flags — `CVOptionFlags`.
public typealias CVOptionFlags = UInt64
/// The flags of a base-address lock — `CVPixelBufferLockFlags` (``PixelBuffer/LockFlags``):
/// `.readOnly` or none.
public typealias CVPixelBufferLockFlags = PixelBuffer.LockFlags

/// Success — `kCVReturnSuccess`.
public let kCVReturnSuccess: CVReturn = 0
/// The first Core Video error code — `kCVReturnFirst`.
public let kCVReturnFirst: CVReturn = -6660
/// An otherwise undefined error — `kCVReturnError`.
public let kCVReturnError: CVReturn = VTError.pixelBufferError.status
/// An invalid argument — `kCVReturnInvalidArgument`.
public let kCVReturnInvalidArgument: CVReturn = VTError.pixelBufferInvalidArgument.status
/// An allocation failed — `kCVReturnAllocationFailed`.
public let kCVReturnAllocationFailed: CVReturn = VTError.pixelBufferAllocationFailed.status
/// The operation is not supported — `kCVReturnUnsupported`.
public let kCVReturnUnsupported: CVReturn = VTError.pixelBufferUnsupported.status
/// The pixel format is not supported — `kCVReturnInvalidPixelFormat`.
public let kCVReturnInvalidPixelFormat: CVReturn = VTError.invalidPixelFormat.status
/// The size is not supported — `kCVReturnInvalidSize`.
public let kCVReturnInvalidSize: CVReturn = VTError.invalidSize.status
/// A pixel buffer attribute is invalid — `kCVReturnInvalidPixelBufferAttributes`.
public let kCVReturnInvalidPixelBufferAttributes: CVReturn = VTError.invalidPixelBufferAttributes.status
/// The pool could not allocate a buffer — `kCVReturnPoolAllocationFailed`.
public let kCVReturnPoolAllocationFailed: CVReturn = VTError.poolAllocationFailed.status
/// A pool attribute is invalid — `kCVReturnInvalidPoolAttributes`.
public let kCVReturnInvalidPoolAttributes: CVReturn = VTError.invalidPoolAttributes.status
/// The last Core Video error code — `kCVReturnLast`.
public let kCVReturnLast: CVReturn = -6699
/// The buffer does not meet the OpenGL compatibility asked for —
/// `kCVReturnPixelBufferNotOpenGLCompatible`.
public let kCVReturnPixelBufferNotOpenGLCompatible: CVReturn = -6683
/// The buffer does not meet the Metal compatibility asked for —
/// `kCVReturnPixelBufferNotMetalCompatible`.
public let kCVReturnPixelBufferNotMetalCompatible: CVReturn = -6684
/// A pool allocation would pass `kCVPixelBufferPoolAllocationThresholdKey` —
/// `kCVReturnWouldExceedAllocationThreshold`.
public let kCVReturnWouldExceedAllocationThreshold: CVReturn = -6689
/// Try again later — `kCVReturnRetry`.
public let kCVReturnRetry: CVReturn = -6692
