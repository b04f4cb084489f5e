import Synchronization

/// A decoded picture — `CVPixelBuffer`.
///
/// A buffer from the VA-API decoder is the GPU surface the picture was decoded into, and one from
/// the software decoder references the decoder's own frame memory: nothing is copied to hand it
/// to you (``copiedByteCount`` is 0), except the chroma planes the CPU interleaves for its native
/// NV12 (and the whole P010 picture it writes from a 10-bit planar one). A surface is read back only while it is locked, and can
/// be shared with a GPU API without a copy through ``exportDMABuf(separateLayers:)``. Its pixels are reached in
/// two ways:
/// - scoped, through ``withLockedPlanes(_:)`` and ``withLockedPlanesForWriting(_:)``: the
///   addresses are valid only inside the closure;
/// - as a balanced pair, ``lockBaseAddress(_:)`` … ``unlockBaseAddress(_:)``
///   (`CVPixelBufferLockBaseAddress` … `CVPixelBufferUnlockBaseAddress`): ``lockedPlanes`` lends
///   the planes until the last unlock. A GPU surface is read back on the first lock and the
///   read-back released on the last unlock.
///
/// The picture is already cropped to the stream's cropping window exactly, odd offsets included.
public final class PixelBuffer: Sendable, CustomStringConvertible {
    /// The displayed width in pixels (`CVPixelBufferGetWidth`).
    public let width: Int
    /// The displayed height in pixels (`CVPixelBufferGetHeight`).
    public let height: Int
    /// The pixel format (`CVPixelBufferGetPixelFormatType`).
    public let pixelFormat: PixelFormat
    /// Colour, range, field and aspect information (`CVBufferGetAttachments`).
    public var attachments: ImageBufferAttachments {
        storage.withLock { ImageBufferAttachments(frame: $0.frame.frame) }
    }
    /// The number of planes (`CVPixelBufferGetPlaneCount`; 1 for packed formats).
    public let planeCount: Int

    /// Whether the picture is a VA surface in GPU memory (decoded on VA-API): locking it reads it
    /// back (`vaGetImage`), and ``exportDMABuf(separateLayers:)`` shares it without a copy. False for pictures
    /// in CPU memory, and for a surface made writable (which copies it to CPU memory).
    public var isGPUSurface: Bool {
        storage.withLock { $0.frame.isSurface }
    }

    /// The frame and the base-address locks, behind a mutex: read-only locks share the frame, a
    /// read-write lock may replace it by a private copy first (`av_frame_make_writable`).
    private let storage: Mutex<Storage>
    /// Bytes copied to produce or to write to this buffer; 0 for a zero-copy decoder frame.
    private let copied = Atomic<Int>(0)
    /// How a GPU surface's pixels are reached (its device, held while the buffer lives); nil for
    /// a picture made in CPU memory.
    private let surfaceAccess: (any SurfaceAccess)?

    /// Wraps a decoded frame, taking over its reference.
    ///
    /// - Parameters:
    ///   - frame: A frame whose buffers the new pixel buffer now owns (moved out of the caller's).
    ///   - pixelFormat: The format the frame's data has.
    ///   - copiedByteCount: Bytes copied to make the frame (0 when it is the decoder's own).
    ///   - surfaceAccess: For a VA frame, how its surface is read back and exported.
    init(
        taking frame: consuming FrameReference, pixelFormat: PixelFormat, copiedByteCount: Int = 0,
        surfaceAccess: (any SurfaceAccess)? = nil
    ) {
        self.surfaceAccess = surfaceAccess
        let lent = frame.frame
        let isSurface = lent.isSurface
        // libavcodec crops a VA frame on the right and bottom only, through its size; the left
        // and top crop stays in its crop fields, and the read-back (``SurfaceAccess``) applies
        // it. The displayed size is what is left of both.
        width = lent.width - (isSurface ? lent.cropLeft : 0)
        height = lent.height - (isSurface ? lent.cropTop : 0)
        self.pixelFormat = pixelFormat
        planeCount = lent.sampleLayout.planeCount
        self.storage = Mutex(Storage(frame: frame))
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
        try storage.withLock { (storage: inout Storage) throws(Failure) -> Result in
            // A pair lock's read-back (or the CPU frame) serves the scoped lock too.
            if let planes = storage.lockedPlanes { return try body(planes) }
            // A surface is read back for the lock and the read-back freed at unlock. A surface
            // that cannot be read back (the GPU failed) lends no planes.
            guard let mapped = try? readBack(storage.frame.frame) else { return try body([]) }
            return try body(Self.planes(of: mapped.frame))
        }
    }

    /// Lends the planes for reading, as ``withLockedPlanes(_:)`` does, but throws when a GPU
    /// surface cannot be read back instead of lending no planes.
    ///
    /// - Throws: What the read-back throws (``VTError/videoDecoderMalfunction`` when the GPU
    ///   cannot finish or read the picture, ``VTError/videoDecoderBadData`` when it reports
    ///   errors in its data), or what `body` throws.
    public func withReadablePlanes<Result>(_ body: ([Plane]) throws(VTError) -> Result) throws(VTError) -> Result {
        try storage.withLock { (storage: inout Storage) throws(VTError) -> Result in
            if let planes = storage.lockedPlanes { return try body(planes) }
            let mapped = try readBack(storage.frame.frame)
            return try body(Self.planes(of: mapped.frame))
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
        try storage.withLock { (storage: inout Storage) throws(VTError) -> Result in
            try makeWritable(&storage)
            return try body(Self.planes(of: storage.frame.frame))
        }
    }

    // MARK: - Lock and unlock as a pair

    /// How a base-address lock is taken — `CVPixelBufferLockFlags`.
    public struct LockFlags: OptionSet, Sendable, Hashable, CustomStringConvertible {
        /// The bit mask, with Apple's bit values.
        public let rawValue: UInt64
        /// Creates flags from a bit mask.
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        /// `kCVPixelBufferLock_ReadOnly`: the planes are only read while the lock is held. Pass it
        /// to the unlock too. Without it the lock is for reading and writing, and a picture that
        /// shares its memory with the decoder (or lives on the GPU) is copied first.
        public static let readOnly = Self(rawValue: 1)

        /// The flags by name: `[.readOnly]`, or `[]` for a read-write lock.
        public var description: String { describe(names: [(.readOnly, "readOnly")]) }
    }

    /// Locks the planes in CPU memory until the matching ``unlockBaseAddress(_:)`` —
    /// `CVPixelBufferLockBaseAddress`.
    ///
    /// Locks nest: every lock needs one unlock with the same flags, and ``lockedPlanes`` lends
    /// the planes while at least one lock is held. The first lock of a GPU surface reads it back
    /// (`vaGetImage`); the last unlock releases the read-back. A read-write lock (no flags) gives
    /// the buffer memory of its own first when it shares the decoder's or is a GPU surface (one
    /// copy, counted in ``copiedByteCount``), so writing never changes a reference picture.
    ///
    /// - Parameter flags: ``LockFlags/readOnly``, or no flags to read and write.
    /// - Throws: ``VTError/pixelBufferError`` (`kCVReturnError`) when a GPU surface cannot be
    ///   read back, or when a read-write lock would need a private copy while read-only locks
    ///   hold the shared memory (their addresses would go stale: unlock them first);
    ///   ``VTError/pixelBufferAllocationFailed`` when the copy cannot be made.
    public func lockBaseAddress(_ flags: LockFlags = []) throws(VTError) {
        try storage.withLock { (storage: inout Storage) throws(VTError) in
            if flags.contains(.readOnly) {
                if storage.lockCount == 0, storage.frame.isSurface {
                    do throws(VTError) {
                        storage.readBack = try readBack(storage.frame.frame)
                    } catch {
                        throw VTError.pixelBufferError.with(
                            "the GPU surface could not be read back for the lock: \(error.reason)", cause: error.cause)
                    }
                }
                storage.readOnlyLocks += 1
            } else {
                if storage.lockCount > 0 && !storage.isPrivatelyWritable {
                    throw VTError.pixelBufferError.with(
                        "a read-write lock needs a private copy of the picture, which cannot be made while "
                            + "\(storage.readOnlyLocks) read-only lock(s) lend the shared memory",
                        hint: "unlock the read-only locks first, or lock read-write from the start")
                }
                do throws(VTError) {
                    try makeWritable(&storage)
                } catch {
                    throw VTError.pixelBufferAllocationFailed.with(
                        "the picture could not be copied for writing: \(error.reason)", cause: error.cause)
                }
                storage.readWriteLocks += 1
            }
        }
    }

    /// Releases one lock taken by ``lockBaseAddress(_:)`` — `CVPixelBufferUnlockBaseAddress`.
    ///
    /// The flags must be those of the lock it releases, as Apple requires: "Pass `readOnly` if you
    /// locked the buffer for reading only, or pass no flags if you locked it for both reading and
    /// writing." The last unlock ends ``lockedPlanes`` and releases a GPU surface's read-back.
    ///
    /// - Parameter flags: The flags the lock was taken with.
    /// - Throws: ``VTError/pixelBufferError`` (`kCVReturnError`) when the buffer is not locked;
    ///   ``VTError/pixelBufferInvalidArgument`` (`kCVReturnInvalidArgument`) when it is locked,
    ///   but not with these flags (for example a read-only lock released as read-write). The
    ///   locks are left as they were.
    public func unlockBaseAddress(_ flags: LockFlags = []) throws(VTError) {
        try storage.withLock { (storage: inout Storage) throws(VTError) in
            let readOnly = flags.contains(.readOnly)
            guard storage.lockCount > 0 else {
                throw VTError.pixelBufferError.with("unlockBaseAddress was called on a buffer that is not locked")
            }
            guard (readOnly ? storage.readOnlyLocks : storage.readWriteLocks) > 0 else {
                throw VTError.pixelBufferInvalidArgument.with(
                    readOnly
                        ? "the buffer is locked for reading and writing, but the unlock says read-only"
                        : "the buffer is locked read-only, but the unlock does not pass .readOnly",
                    hint: "unlock with the flags the lock was taken with")
            }
            if readOnly { storage.readOnlyLocks -= 1 } else { storage.readWriteLocks -= 1 }
            if storage.lockCount == 0 { storage.readBack = nil }
        }
    }

    /// Whether the buffer holds a ``lockBaseAddress(_:)`` lock now.
    public var isBaseAddressLocked: Bool { storage.withLock { $0.lockCount > 0 } }

    /// The planes while the buffer is locked by ``lockBaseAddress(_:)``; nil while it is not
    /// (`CVPixelBufferGetBaseAddressOfPlane` returns NULL for an unlocked GPU buffer).
    ///
    /// The addresses are valid until the last ``unlockBaseAddress(_:)``. Write through them only
    /// under a read-write lock.
    public var lockedPlanes: [Plane]? {
        storage.withLock { $0.lockCount > 0 ? $0.lockedPlanes : nil }
    }

    /// Gives the buffer memory it may write to: a GPU surface is copied to CPU memory, a frame
    /// shared with the decoder copied (`av_frame_make_writable`); each copy is counted.
    private func makeWritable(_ storage: inout Storage) throws(VTError) {
        guard !storage.isPrivatelyWritable else { return }
        guard storage.lockCount == 0 else {
            throw VTError.pixelBufferError.with(
                "the picture is not the buffer's own memory and base-address locks lend it; it cannot be "
                    + "copied for writing until they are released")
        }
        if storage.frame.isSurface {
            storage.frame = try surface().download(storage.frame.frame)
            storage.readBack = nil
            copied.add(storage.frame.frame.pixelByteCount, ordering: .relaxed)
        } else {
            try storage.frame.frame.makeWritable()
            copied.add(storage.frame.frame.pixelByteCount, ordering: .relaxed)
        }
    }

    /// The frame, the locks held and a GPU surface's read-back while locked.
    ///
    /// Unchecked `Sendable`: it lives only inside the buffer's mutex, and its one lent frame is
    /// the frame of the read-back it sits beside, owned (as the frames are) by a
    /// ``FrameReference`` that is itself `Sendable`.
    private struct Storage: ~Copyable, @unchecked Sendable {
        var frame: FrameReference
        var readOnlyLocks = 0
        var readWriteLocks = 0
        /// A GPU surface read back into CPU memory while read-only locks are held.
        var readBack: FrameReference? {
            didSet { readBackFrame = readBack?.frame }
        }
        /// The read-back's frame (kept beside it so that reading it does not consume it).
        private(set) var readBackFrame: Frame?

        init(frame: consuming FrameReference) { self.frame = frame }

        var lockCount: Int { readOnlyLocks + readWriteLocks }

        /// Whether the frame's memory is the buffer's own, writable without a copy.
        var isPrivatelyWritable: Bool {
            !frame.isSurface && frame.frame.isWritable
        }

        /// The planes the pair lock lends: the read-back of a surface, else the frame's own;
        /// nil for a surface not read back.
        var lockedPlanes: [Plane]? {
            if let readBackFrame { return PixelBuffer.planes(of: readBackFrame) }
            return frame.isSurface ? nil : PixelBuffer.planes(of: frame.frame)
        }
    }

    /// Bytes copied to produce this buffer or to make it writable: 0 for a decoder frame handed
    /// out as it is (zero copy).
    public var copiedByteCount: Int { copied.load(ordering: .relaxed) }

    /// `"PixelBuffer 320x240 'y420'"`.
    public var description: String { "PixelBuffer \(width)x\(height) \(pixelFormat)" }

    /// Runs `body` with the frame in CPU memory, read-only, for the library's converters: a GPU
    /// surface's read-back (the pair lock's, or one made for `body`).
    func withFrame<Result>(_ body: (Frame) throws(VTError) -> Result) throws(VTError) -> Result {
        try storage.withLock { (storage: inout Storage) throws(VTError) -> Result in
            if let readBack = storage.readBackFrame { return try body(readBack) }
            guard storage.frame.isSurface else { return try body(storage.frame.frame) }
            let mapped = try readBack(storage.frame.frame)
            return try body(mapped.frame)
        }
    }

    /// Whether the picture is the buffer's own CPU memory, writable without a copy (what
    /// ``DecodeInfoFlags/imageBufferModifiable`` reports at hand-out).
    var isWritableWithoutCopy: Bool { storage.withLock { $0.isPrivatelyWritable } }

    /// The access to a surface frame's pixels.
    ///
    /// - Throws: ``VTError/pixelBufferError`` for a surface frame made without one (a library bug).
    private func surface() throws(VTError) -> any SurfaceAccess {
        guard let surfaceAccess else {
            throw VTError.pixelBufferError.with("the GPU surface has no device to read it back through")
        }
        return surfaceAccess
    }

    /// A read-back of a surface frame.
    private func readBack(_ frame: Frame) throws(VTError) -> FrameReference {
        try surface().readBack(frame)
    }

    /// A copy in CPU memory of a GPU surface picture, so that the surface can go back to its
    /// pool; nil for a picture in CPU memory already.
    func downloadedCopy() throws(VTError) -> PixelBuffer? {
        try storage.withLock { (storage: inout Storage) throws(VTError) -> PixelBuffer? in
            guard storage.frame.isSurface else { return nil }
            let copy = try surface().download(storage.frame.frame)
            return PixelBuffer(taking: copy, pixelFormat: pixelFormat)
        }
    }

    /// The GPU surface shared as DMA-BUF (``exportDMABuf(separateLayers:)``).
    func exportSurface(separateLayers: Bool) throws(VTError) -> DMABufDescriptor {
        try storage.withLock { (storage: inout Storage) throws(VTError) -> DMABufDescriptor in
            guard storage.frame.isSurface else {
                throw VTError.parameter.with(
                    "this pixel buffer is in CPU memory (decoded on the CPU, converted, or made writable); only a "
                        + "GPU surface decoded on VA-API can be exported as a DMA-BUF",
                    hint: "check PixelBuffer.isGPUSurface, or decode with hardware acceleration required")
            }
            return try surface().exportDMABuf(storage.frame.frame, separateLayers: separateLayers)
        }
    }

    /// The device of a GPU surface, which converts it on the GPU (``SurfaceAccess/makeProcessor()``);
    /// nil for a picture in CPU memory.
    var surfaceDevice: (any SurfaceAccess)? { isGPUSurface ? surfaceAccess : nil }

    /// Runs `body` with the VA frame when the picture is a GPU surface, with nil otherwise.
    func withSurface<Result>(_ body: (Frame?) throws(VTError) -> Result) throws(VTError) -> Result {
        try storage.withLock { (storage: inout Storage) throws(VTError) -> Result in
            try body(storage.frame.isSurface ? storage.frame.frame : nil)
        }
    }

    /// Runs `body` with the frame as it is, to write to, for the library's converters filling a
    /// new buffer.
    func withFrameToWrite<Result>(_ body: (Frame) throws(VTError) -> Result) throws(VTError) -> Result {
        try storage.withLock { (storage: inout Storage) throws(VTError) -> Result in try body(storage.frame.frame) }
    }

    /// Records bytes written into this buffer by a conversion.
    func addCopiedBytes(_ count: Int) {
        copied.add(count, ordering: .relaxed)
    }

    /// The planes of a frame in CPU memory.
    fileprivate static func planes(of frame: Frame) -> [Plane] {
        frame.planes { geometry in
            Plane(
                baseAddress: geometry.baseAddress, bytesPerRow: geometry.bytesPerRow, width: geometry.width,
                height: geometry.height, bytesPerRowOfPixels: geometry.bytesPerRowOfPixels)
        }
    }
}
