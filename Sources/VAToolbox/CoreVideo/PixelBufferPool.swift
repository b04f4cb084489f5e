internal import CFFmpeg
import Synchronization

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

    /// The FFmpeg pool; its buffers go back to it when unreferenced, and it frees itself once
    /// uninitialised and all buffers are back.
    private let pool: Pool
    /// Buffers allocated so far (shared with the C allocation callback).
    private let allocations: Allocations
    /// The size of one buffer.
    private let bufferSize: Int
    private let ffmpegFormat: AVPixelFormat

    /// The alignment of every row, in bytes.
    static let rowAlignment: Int32 = 64

    /// Creates a pool — `CVPixelBufferPoolCreate`.
    ///
    /// - Throws: ``VTError/parameter`` for a non-positive size or a format the pool cannot
    ///   allocate; ``VTError/allocationFailed`` when memory runs out.
    public init(pixelFormat: PixelFormat, width: Int, height: Int, minimumBufferCount: Int = 0) throws(VTError) {
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw VTError.parameter.with(
                "a pixel buffer pool needs a size between 1x1 and 16384x16384, not \(width)x\(height)")
        }
        guard let format = pixelFormat.ffmpeg else {
            throw VTError.parameter.with("pixel format \(pixelFormat) has no memory layout VAToolbox can allocate")
        }
        let size = av_image_get_buffer_size(format, Int32(width), Int32(height), Self.rowAlignment)
        guard size > 0 else {
            throw VTError.parameter.with("pixel format \(pixelFormat) at \(width)x\(height) has no valid layout")
        }
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.minimumBufferCount = max(0, minimumBufferCount)
        ffmpegFormat = format
        bufferSize = Int(size)
        allocations = Allocations()
        let opaque = Unmanaged.passUnretained(allocations).toOpaque()
        guard
            let pool = av_buffer_pool_init2(
                Int(size), opaque,
                { opaque, size in
                    // Counts the allocation, then allocates as FFmpeg's default pool would.
                    if let opaque {
                        Unmanaged<Allocations>.fromOpaque(opaque).takeUnretainedValue().count.add(1, ordering: .relaxed)
                    }
                    return av_buffer_alloc(size)
                }, nil)
        else { throw VTError.allocationFailed.with("creating a pixel buffer pool") }
        self.pool = Pool(pool)
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
        guard let frame = av_frame_alloc() else { throw VTError.allocationFailed.with("allocating a frame") }
        let owned = FrameReference(adopting: frame)
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.format = ffmpegFormat.rawValue
        guard let buffer = av_buffer_pool_get(pool.pointer) else {
            throw VTError.allocationFailed.with("allocating a \(width)x\(height) \(pixelFormat) buffer")
        }
        try FFmpegStatus.check(
            CFFmpeg_frame_fill(frame, buffer, Self.rowAlignment), "av_image_fill_arrays", "laying out a pooled buffer")
        return PixelBuffer(taking: owned, pixelFormat: pixelFormat)
    }

    /// How many buffers the pool has allocated since it was made.
    public var allocatedBufferCount: Int { allocations.count.load(ordering: .relaxed) }

    /// The allocation counter the C callback reaches through its opaque pointer.
    private final class Allocations: Sendable {
        let count = Atomic<Int>(0)
    }

    /// Owns the `AVBufferPool`.
    ///
    /// Unchecked `Sendable`: `av_buffer_pool_get` is thread-safe (FFmpeg documents the pool as
    /// usable from several threads) and the pointer never changes.
    private final class Pool: @unchecked Sendable {
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit {
            var pool: OpaquePointer? = pointer
            av_buffer_pool_uninit(&pool)
        }
    }
}
