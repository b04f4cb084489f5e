/// A recycling pool of pixel buffers of one format and size — `CVPixelBufferPool`.
///
/// Buffers come back to the pool when the last ``PixelBuffer`` using one goes away, and the next
/// ``makePixelBuffer()`` reuses them, so a steady stream of frames allocates only as many buffers
/// as are alive at once. ``allocatedBufferCount`` says how many that was.
public final class PixelBufferPool: Sendable {
    /// The format of the pool's buffers.
    public let pixelFormat: PixelFormat
    /// The width of the pool's buffers.
    public let width: Int
    /// The height of the pool's buffers.
    public let height: Int
    /// Buffers allocated when the pool is made (`kCVPixelBufferPoolMinimumBufferCountKey`).
    public let minimumBufferCount: Int

    /// The frames, from one FFmpeg buffer pool; its buffers go back to it when unreferenced, and
    /// it frees itself once released and all buffers are back.
    private let pool: FramePool

    /// The alignment of every row, in bytes.
    static let rowAlignment = 64

    /// Creates a pool — `CVPixelBufferPoolCreate`.
    ///
    /// - Throws: ``VTError/parameter`` for a non-positive size or a format the pool cannot
    ///   allocate; ``VTError/allocationFailed`` when memory runs out.
    public init(pixelFormat: PixelFormat, width: Int, height: Int, minimumBufferCount: Int = 0) throws(VTError) {
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw VTError.parameter.with(
                "a pixel buffer pool needs a size between 1x1 and 16384x16384, not \(width)x\(height)")
        }
        guard let layout = pixelFormat.ffmpeg else {
            throw VTError.parameter.with("pixel format \(pixelFormat) has no memory layout VAToolbox can allocate")
        }
        guard layout.bufferSize(width: width, height: height, alignment: Self.rowAlignment) != nil else {
            throw VTError.parameter.with("pixel format \(pixelFormat) at \(width)x\(height) has no valid layout")
        }
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.minimumBufferCount = max(0, minimumBufferCount)
        guard let pool = FramePool(layout: layout, width: width, height: height, rowAlignment: Self.rowAlignment)
        else { throw VTError.allocationFailed.with("creating a pixel buffer pool") }
        self.pool = pool
        // Pre-allocate: take the minimum number of buffers and give them straight back.
        var warm: [PixelBuffer] = []
        for _ in 0..<self.minimumBufferCount { warm.append(try makePixelBuffer()) }
        warm.removeAll()
    }

    /// A buffer from the pool — `CVPixelBufferPoolCreatePixelBuffer`. Its contents are
    /// undefined until written.
    ///
    /// - Throws: ``VTError/allocationFailed`` when memory runs out.
    public func makePixelBuffer() throws(VTError) -> PixelBuffer {
        let frame = try pool.makeFrame(buffer: "\(width)x\(height) \(pixelFormat) buffer")
        return PixelBuffer(taking: frame, pixelFormat: pixelFormat)
    }

    /// How many buffers the pool has allocated since it was made.
    public var allocatedBufferCount: Int { pool.allocatedCount }
}
