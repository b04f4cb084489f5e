// Core Video's retain and release functions: Swift manages Core Video objects itself, and marks
// these unavailable on Apple's platforms too.

/// Retains a buffer — `CVBufferRetain`. Swift manages Core Video objects itself.
@available(*, unavailable, message: "Core Foundation objects are automatically memory managed")
public func CVBufferRetain(_ buffer: CVBuffer?) -> CVBuffer? { buffer }
/// Releases a buffer — `CVBufferRelease`. Swift manages Core Video objects itself.
@available(*, unavailable, message: "Core Foundation objects are automatically memory managed")
public func CVBufferRelease(_ buffer: CVBuffer?) {}
/// Retains a pixel buffer — `CVPixelBufferRetain`. Swift manages Core Video objects itself.
@available(*, unavailable, message: "Core Foundation objects are automatically memory managed")
public func CVPixelBufferRetain(_ texture: CVPixelBuffer?) -> CVPixelBuffer? { texture }
/// Releases a pixel buffer — `CVPixelBufferRelease`. Swift manages Core Video objects itself.
@available(*, unavailable, message: "Core Foundation objects are automatically memory managed")
public func CVPixelBufferRelease(_ texture: CVPixelBuffer?) {}
/// Retains a pool — `CVPixelBufferPoolRetain`. Swift manages Core Video objects itself.
@available(*, unavailable, message: "Core Foundation objects are automatically memory managed")
public func CVPixelBufferPoolRetain(_ pixelBufferPool: CVPixelBufferPool?) -> CVPixelBufferPool? { pixelBufferPool }
/// Releases a pool — `CVPixelBufferPoolRelease`. Swift manages Core Video objects itself.
@available(*, unavailable, message: "Core Foundation objects are automatically memory managed")
public func CVPixelBufferPoolRelease(_ pixelBufferPool: CVPixelBufferPool?) {}
