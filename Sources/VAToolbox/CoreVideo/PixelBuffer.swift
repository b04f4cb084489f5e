internal import CFFmpeg
import Synchronization

/// A decoded picture — `CVPixelBuffer`.
///
/// A buffer from the software decoder references the decoder's own frame memory, and one from
/// the VA-API decoder is the GPU surface the picture was decoded into: nothing is copied to hand
/// it to you (``copiedByteCount`` is 0). A surface is read back only while it is locked, and can
/// be shared with a GPU API without a copy through ``exportDMABuf(separateLayers:)``. Its pixels are reached through
/// ``withLockedPlanes(_:)``, the equivalent of `CVPixelBufferLockBaseAddress` +
/// `CVPixelBufferGetBaseAddressOfPlane` + `CVPixelBufferUnlockBaseAddress`; the addresses are valid
/// only inside the closure. The picture is already cropped to the stream's cropping window
/// exactly, odd offsets included.
public final class PixelBuffer: Sendable, CustomStringConvertible {
    /// The displayed width in pixels (`CVPixelBufferGetWidth`).
    public let width: Int
    /// The displayed height in pixels (`CVPixelBufferGetHeight`).
    public let height: Int
    /// The pixel format (`CVPixelBufferGetPixelFormatType`).
    public let pixelFormat: PixelFormat
    /// Colour, range, field and aspect information (`CVBufferGetAttachments`).
    public var attachments: ImageBufferAttachments {
        frame.withLock { ImageBufferAttachments(frame: $0.pointer) }
    }
    /// The number of planes (`CVPixelBufferGetPlaneCount`; 1 for packed formats).
    public let planeCount: Int

    /// Whether the picture is a VA surface in GPU memory (decoded on VA-API): locking it reads it
    /// back (`vaGetImage`), and ``exportDMABuf(separateLayers:)`` shares it without a copy. False for pictures
    /// in CPU memory, and for a surface made writable (which copies it to CPU memory).
    public var isGPUSurface: Bool {
        frame.withLock { $0.pointer.pointee.format.pixelFormat == AV_PIX_FMT_VAAPI }
    }

    /// The frame, behind a lock: read-only locks share it, a read-write lock may replace it by a
    /// private copy first (`av_frame_make_writable`).
    private let frame: Mutex<FrameReference>
    /// Bytes copied to produce or to write to this buffer; 0 for a zero-copy decoder frame.
    private let copied = Atomic<Int>(0)

    /// Wraps a decoded frame, taking over its reference.
    ///
    /// - Parameters:
    ///   - frame: A frame whose buffers the new pixel buffer now owns (moved out of the caller's).
    ///   - pixelFormat: The format the frame's data has.
    ///   - copiedByteCount: Bytes copied to make the frame (0 when it is the decoder's own).
    init(taking frame: consuming FrameReference, pixelFormat: PixelFormat, copiedByteCount: Int = 0) {
        let pointer = frame.pointer
        width = Int(pointer.pointee.width)
        height = Int(pointer.pointee.height)
        self.pixelFormat = pixelFormat
        let isSurface = pointer.pointee.format.pixelFormat == AV_PIX_FMT_VAAPI
        let dataFormat = isSurface ? CFFmpeg_frame_hw_sw_format(pointer) : pointer.pointee.format.pixelFormat
        planeCount = Int(av_pix_fmt_count_planes(dataFormat))
        self.frame = Mutex(frame)
        copied.store(copiedByteCount, ordering: .relaxed)
    }

    /// One plane of a locked buffer.
    public struct Plane: @unchecked Sendable {
        // Unchecked: the address is valid only inside the `withLockedPlanes` closure that lends
        // the plane, which the documentation forbids escaping; the struct is otherwise plain data.
        /// The first byte of the plane (`CVPixelBufferGetBaseAddressOfPlane`).
        public let baseAddress: UnsafeMutableRawPointer
        /// The distance in bytes from one row to the next (`CVPixelBufferGetBytesPerRowOfPlane`).
        public let bytesPerRow: Int
        /// The plane's width in samples (`CVPixelBufferGetWidthOfPlane`); for an interleaved
        /// chroma plane, in sample pairs.
        public let width: Int
        /// The plane's height in rows (`CVPixelBufferGetHeightOfPlane`).
        public let height: Int
        /// The bytes of one row that carry pixels (width × bytes per sample × components).
        public let bytesPerRowOfPixels: Int

        /// The bytes of row `row`, without padding.
        public func row(_ row: Int) -> UnsafeRawBufferPointer {
            precondition((0..<height).contains(row), "row \(row) is outside the plane's \(height) rows")
            return UnsafeRawBufferPointer(start: baseAddress + row * bytesPerRow, count: bytesPerRowOfPixels)
        }
    }

    /// Lends the planes for reading, for the duration of `body` (`CVPixelBufferLockBaseAddress`
    /// with `kCVPixelBufferLock_ReadOnly` … `CVPixelBufferUnlockBaseAddress`). Costs nothing for
    /// a picture in CPU memory; a GPU surface (``isGPUSurface``) is read back into CPU memory for
    /// the lock (`vaGetImage`, one copy) and the read-back is released when `body` returns.
    ///
    /// - Parameter body: Reads the planes. Do not let the addresses escape it, and do not write
    ///   through them: the memory may be a reference picture of the decoder. For a GPU surface
    ///   that cannot be read back (the device was lost) it receives no planes.
    /// - Throws: Only what `body` throws.
    public func withLockedPlanes<Result, Failure: Error>(_ body: ([Plane]) throws(Failure) -> Result) throws(Failure)
        -> Result
    {
        try frame.withLock { (reference: inout FrameReference) throws(Failure) -> Result in
            guard reference.pointer.pointee.format.pixelFormat == AV_PIX_FMT_VAAPI else {
                return try body(Self.planes(of: reference.pointer))
            }
            // A surface is read back for the lock and the read-back freed at unlock. A surface
            // that cannot be read back (the GPU failed) lends no planes.
            guard let mapped = try? SurfaceMapping.map(reference.pointer) else { return try body([]) }
            return try body(Self.planes(of: mapped.pointer))
        }
    }

    /// Lends the planes for reading and writing (`CVPixelBufferLockBaseAddress` with no flags).
    ///
    /// A buffer that shares its memory with the decoder is copied first, so that writing cannot
    /// change a reference picture; the copy is counted in ``copiedByteCount``.
    ///
    /// - Throws: ``VTError/allocationFailed`` when the copy cannot be made, or what `body` throws.
    public func withLockedPlanesForWriting<Result>(_ body: ([Plane]) throws(VTError) -> Result) throws(VTError)
        -> Result
    {
        try frame.withLock { (reference: inout FrameReference) throws(VTError) -> Result in
            if reference.pointer.pointee.format.pixelFormat == AV_PIX_FMT_VAAPI {
                reference = try SurfaceMapping.download(reference.pointer)
                copied.add(Self.byteCount(reference.pointer), ordering: .relaxed)
            } else if av_frame_is_writable(reference.pointer) == 0 {
                try FFmpegStatus.check(
                    av_frame_make_writable(reference.pointer), "av_frame_make_writable",
                    "copying a shared frame to write to it")
                copied.add(Self.byteCount(reference.pointer), ordering: .relaxed)
            }
            return try body(Self.planes(of: reference.pointer))
        }
    }

    /// Bytes copied to produce this buffer or to make it writable: 0 for a decoder frame handed
    /// out as it is (zero copy).
    public var copiedByteCount: Int { copied.load(ordering: .relaxed) }

    /// `"PixelBuffer 320x240 'y420'"`.
    public var description: String { "PixelBuffer \(width)x\(height) \(pixelFormat)" }

    /// Runs `body` with the frame, read-only, for the library's converters.
    func withFrame<Result>(_ body: (UnsafePointer<AVFrame>) throws(VTError) -> Result) throws(VTError) -> Result {
        try frame.withLock { (reference: inout FrameReference) throws(VTError) -> Result in
            guard reference.pointer.pointee.format.pixelFormat == AV_PIX_FMT_VAAPI else {
                return try body(UnsafePointer(reference.pointer))
            }
            let mapped = try SurfaceMapping.map(reference.pointer)
            return try body(UnsafePointer(mapped.pointer))
        }
    }

    /// Runs `body` with the VA frame when the picture is a GPU surface, with nil otherwise.
    func withSurfaceFrame<Result>(_ body: (UnsafePointer<AVFrame>?) throws(VTError) -> Result) throws(VTError)
        -> Result
    {
        try frame.withLock { (reference: inout FrameReference) throws(VTError) -> Result in
            let isSurface = reference.pointer.pointee.format.pixelFormat == AV_PIX_FMT_VAAPI
            return try body(isSurface ? UnsafePointer(reference.pointer) : nil)
        }
    }

    /// Runs `body` with the frame for writing, for the library's converters filling a new buffer.
    func withFrameForWriting<Result>(_ body: (UnsafeMutablePointer<AVFrame>) throws(VTError) -> Result) throws(VTError)
        -> Result
    {
        try frame.withLock { (reference: inout FrameReference) throws(VTError) -> Result in try body(reference.pointer)
        }
    }

    /// Records bytes written into this buffer by a conversion.
    func addCopiedBytes(_ count: Int) {
        copied.add(count, ordering: .relaxed)
    }

    private static func planes(of frame: UnsafeMutablePointer<AVFrame>) -> [Plane] {
        let format = frame.pointee.format.pixelFormat
        guard let descriptor = av_pix_fmt_desc_get(format) else { return [] }
        let count = Int(av_pix_fmt_count_planes(format))
        var planes: [Plane] = []
        for index in 0..<count {
            guard let data = CFFmpeg_frame_data(frame, Int32(index)) else { continue }
            let isChroma = index == 1 || index == 2
            let shiftX = isChroma ? Int(descriptor.pointee.log2_chroma_w) : 0
            let shiftY = isChroma ? Int(descriptor.pointee.log2_chroma_h) : 0
            let width = (Int(frame.pointee.width) + (1 << shiftX) - 1) >> shiftX
            let height = (Int(frame.pointee.height) + (1 << shiftY) - 1) >> shiftY
            let pixelBytes = Int(av_image_get_linesize(format, frame.pointee.width, Int32(index)))
            let components = count == 2 && index == 1 ? 2 : 1
            planes.append(
                Plane(
                    baseAddress: UnsafeMutableRawPointer(data),
                    bytesPerRow: Int(CFFmpeg_frame_linesize(frame, Int32(index))),
                    width: components == 2
                        ? width
                        : (descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
                            ? Int(frame.pointee.width) : width),
                    height: height, bytesPerRowOfPixels: pixelBytes))
        }
        return planes
    }

    private static func byteCount(_ frame: UnsafeMutablePointer<AVFrame>) -> Int {
        planes(of: frame).reduce(0) { $0 + $1.bytesPerRowOfPixels * $1.height }
    }
}

/// An owned reference to an `AVFrame`, freed (`av_frame_free`) when it goes away.
///
/// Unchecked `Sendable`: the struct is non-copyable, so exactly one owner holds the frame at a
/// time; sending it to another thread moves that ownership, and FFmpeg frames carry no thread
/// affinity.
struct FrameReference: ~Copyable, @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVFrame>

    /// Moves the buffers of `source` into a new frame, leaving `source` empty
    /// (`av_frame_move_ref`).
    init?(movingFrom source: UnsafeMutablePointer<AVFrame>) {
        guard let frame = av_frame_alloc() else { return nil }
        av_frame_move_ref(frame, source)
        pointer = frame
    }

    /// Takes ownership of a frame the caller allocated.
    init(adopting frame: UnsafeMutablePointer<AVFrame>) {
        pointer = frame
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }
}

extension Int32 {
    /// An `AVFrame.format` value as a pixel format.
    var pixelFormat: AVPixelFormat { AVPixelFormat(rawValue: self) }
}
