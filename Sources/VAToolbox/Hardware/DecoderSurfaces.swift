internal import CFFmpeg
import Synchronization

/// The VA surfaces of one decoder's frames context, created and owned here rather than by
/// libavutil, so that they can be freed as soon as the decoder is gone.
///
/// libavutil's own pool lives as long as its frames context, and every decoded frame holds the
/// frames context: one picture the application keeps after ``DecompressionSession/invalidate()``
/// would keep the whole pool (21 surfaces for a 1080p H.264 stream) alive. This pool is the
/// frames context's caller-supplied `AVHWFramesContext.pool` (its surfaces listed in
/// `AVVAAPIFramesContext.surface_ids` for libavcodec's `vaCreateContext`), and
/// ``releaseIdleSurfaces()`` — called once libavcodec has let go of its pictures — destroys every
/// surface no picture holds at once; a kept picture's surface is destroyed when its last frame goes.
///
/// Unchecked `Sendable`: `device` and `surfaces` are immutable; the pool pointer and the count of
/// surfaces handed to it are behind their mutexes. libavutil's pool calls its callbacks under its
/// own lock, from whichever thread releases a frame.
final class DecoderSurfaces: @unchecked Sendable {
    /// Keeps the display alive until the last surface is destroyed.
    private let device: VADevice
    private let surfaces: [Display.SurfaceID]
    /// How many of `surfaces` the pool has taken (it takes each once, when it first runs dry).
    private let taken = Mutex(0)
    /// The pool's address (`AVBufferPool *`, as a bit pattern: a pointer is not `Sendable`); 0
    /// before it is made and once it is released.
    private let pool = Mutex<UInt>(0)

    /// Surfaces of the formats VA-API decodes to, by the software format libavcodec asks for
    /// (`hwcontext_vaapi.c`'s `vaapi_format_map`).
    private static let formats: [Int32: SurfaceFormat] = [
        AV_PIX_FMT_NV12.rawValue: .nv12,
        AV_PIX_FMT_P010LE.rawValue: .p010,
    ]

    /// Creates the frames context's surfaces (`initial_pool_size` of its size and software
    /// format) and makes them its pool. Call before `av_hwframe_ctx_init`; the frames context
    /// releases the pool when it goes, if nobody did before.
    ///
    /// - Returns: Nil for a software format this type does not know: libavutil then makes its
    ///   own pool, as before.
    /// - Throws: ``VTError/couldNotFindVideoDecoder`` when the driver cannot create the surfaces;
    ///   ``VTError/allocationFailed`` when memory runs out.
    static func install(
        on frames: UnsafeMutablePointer<AVHWFramesContext>, device: VADevice
    ) throws(VTError) -> DecoderSurfaces? {
        guard let format = formats[frames.pointee.sw_format.rawValue], frames.pointee.initial_pool_size > 0 else {
            return nil
        }
        let count = Int(frames.pointee.initial_pool_size)
        let (width, height) = (frames.pointee.width, frames.pointee.height)
        let surfaces = try device.display.createSurfaces(
            format, width: Int(width), height: Int(height), count: count, fixingPixelFormat: true
        ).get(
            as: .couldNotFindVideoDecoder,
            "the driver cannot create \(count) \(width)x\(height) surfaces for the decoder")
        let owner = DecoderSurfaces(device: device, surfaces: surfaces)
        try owner.attach(to: frames)
        return owner
    }

    private init(device: VADevice, surfaces: [Display.SurfaceID]) {
        self.device = device
        self.surfaces = surfaces
    }

    /// Makes the surfaces the frames context's pool. On failure, destroys them.
    private func attach(to frames: UnsafeMutablePointer<AVHWFramesContext>) throws(VTError) {
        let status = surfaces.withUnsafeBufferPointer { ids in
            CFFmpeg_vaapi_frames_set_surfaces(frames, ids.baseAddress, Int32(ids.count))
        }
        // The pool holds one reference to this object until libavutil frees the pool struct,
        // after its last surface.
        let poolOwner = Unmanaged.passRetained(self)
        guard status >= 0,
            let created = av_buffer_pool_init2(
                MemoryLayout<Display.SurfaceID>.size, poolOwner.toOpaque(),
                { opaque, _ in
                    guard let opaque else { return nil }
                    return Unmanaged<DecoderSurfaces>.fromOpaque(opaque).takeUnretainedValue().nextSurface()
                },
                { opaque in
                    if let opaque { Unmanaged<DecoderSurfaces>.fromOpaque(opaque).release() }
                })
        else {
            poolOwner.release()
            device.display.destroySurfaces(surfaces)
            throw VTError.allocationFailed.with("allocating the decoder's surface pool")
        }
        pool.withLock { $0 = UInt(bitPattern: created) }
        frames.pointee.pool = created
        // The frames context holds another reference, released with it: by then no frame holds
        // a surface, so releasing the pool destroys them all.
        frames.pointee.user_opaque = Unmanaged.passRetained(self).toOpaque()
        frames.pointee.free = { frames in
            guard let frames, let opaque = frames.pointee.user_opaque else { return }
            frames.pointee.user_opaque = nil
            let owner = Unmanaged<DecoderSurfaces>.fromOpaque(opaque)
            owner.takeUnretainedValue().releaseIdleSurfaces()
            owner.release()
        }
    }

    /// The pool's allocator: each surface once, as a buffer whose data is the surface ID (what
    /// `hwcontext_vaapi.h` asks of a caller's pool) and whose release destroys the surface.
    private func nextSurface() -> UnsafeMutablePointer<AVBufferRef>? {
        let index = taken.withLock { taken -> Int? in
            guard taken < surfaces.count else { return nil }
            defer { taken += 1 }
            return taken
        }
        guard let index else { return nil }
        return av_buffer_create(
            UnsafeMutablePointer(bitPattern: UInt(surfaces[index])), MemoryLayout<Display.SurfaceID>.size,
            { opaque, data in
                guard let opaque else { return }
                // Unretained: the pool's own reference outlives every surface it holds.
                let owner = Unmanaged<DecoderSurfaces>.fromOpaque(opaque).takeUnretainedValue()
                owner.device.display.destroySurfaces([Display.SurfaceID(UInt(bitPattern: data))])
            }, Unmanaged.passUnretained(self).toOpaque(), Int32(AV_BUFFER_FLAG_READONLY))
    }

    /// Destroys every surface no frame holds now (`av_buffer_pool_uninit`); each surface still
    /// held is destroyed when its last frame goes. The frames context must never allocate from
    /// the pool again: call this once libavcodec is closed. Calling it again does nothing.
    func releaseIdleSurfaces() {
        let address = pool.withLock { pool in
            defer { pool = 0 }
            return pool
        }
        var released = OpaquePointer(bitPattern: address)
        guard released != nil else { return }
        av_buffer_pool_uninit(&released)
    }
}
