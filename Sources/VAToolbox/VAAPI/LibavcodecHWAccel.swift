internal import CFFmpeg
import Synchronization

/// libavcodec's VA-API hwaccel on a ``VADevice``: the bridge between libavcodec's decoder and our
/// display, so that the back end above speaks Swift.
///
/// - ``configure(_:)`` sets a libavcodec context up before it opens: an `AVHWDeviceContext`
///   wrapping the device's own display (libavutil does not own it; the device context's free
///   hook releases the ``VADevice``, so the display is terminated only after the last surface of
///   the last frames context is gone), this object as the `get_format` answer, one thread.
/// - At the first picture, and at each new stream configuration, libavcodec asks `get_format`:
///   the answer is VA-API surfaces from a pool sized here (``SurfacePool``: libavcodec's
///   references, its reorder depth, the application's pictures and those waiting for the GPU,
///   within the driver's surface limit), created and owned by ``DecoderSurfaces``.
/// - ``examine(_:)`` says what a decoded frame holds: a surface to hand out, or a picture the
///   driver failed.
///
/// Not thread-safe: it lives on the session's queue with its decoder, and libavcodec calls
/// `get_format` from inside `avcodec_send_packet`, on that queue.
final class LibavcodecHWAccel {
    private let device: VADevice
    private let extraSurfaces: Int
    private let waitingSurfaces: Int
    private let allowance: SurfaceAllowance
    private let maximumPixels: Int
    private let allowsProfileMismatch: Bool
    /// The surfaces of every frames context made so far (a new stream configuration makes another).
    private var surfaceSets: [DecoderSurfaces] = []
    /// Why the hwaccel could not start; nil while it works.
    private(set) var failure: VTError?
    /// The pool made at the last `get_format` call, for diagnostics.
    private(set) var pool: SurfacePool?
    /// The size of the surfaces made at the last `get_format` call; nil before the first.
    private(set) var surfaceSize: VideoDimensions?

    /// - Parameters:
    ///   - device: The display to decode on; its driver's surface limit bounds the pool, and the
    ///     pool is recorded in its ``HardwareDecisionRecord``.
    ///   - extraSurfaces: Surfaces for the pictures the application may hold.
    ///   - waitingSurfaces: Surfaces for the pictures the back end keeps until the GPU has
    ///     finished them.
    ///   - allowance: Told how many surfaces the application may hold once the pool is made.
    ///   - maximumPixels: The most pixels libavcodec may allocate a picture of (`max_pixels`).
    ///   - allowsProfileMismatch: Whether the VA profile contains the stream's rather than being
    ///     it (`AV_HWACCEL_FLAG_ALLOW_PROFILE_MISMATCH`).
    init(
        device: VADevice, extraSurfaces: Int, waitingSurfaces: Int, allowance: SurfaceAllowance, maximumPixels: Int,
        allowsProfileMismatch: Bool
    ) {
        self.device = device
        self.extraSurfaces = extraSurfaces
        self.waitingSurfaces = waitingSurfaces
        self.allowance = allowance
        self.maximumPixels = maximumPixels
        self.allowsProfileMismatch = allowsProfileMismatch
    }

    /// Sets a libavcodec context up for the hwaccel on this device, before it opens.
    ///
    /// - Throws: ``VTError/couldNotCreateInstance`` when libavutil refuses the display.
    func configure(_ decoder: DecoderContext) throws(VTError) {
        let context = decoder.pointer
        var status: Int32 = 0
        // The device context keeps the VADevice alive until libavutil lets go of it, after the
        // last surface of the last frames context is gone.
        let owner = Unmanaged.passRetained(device).toOpaque()
        guard
            let hardware = CFFmpeg_vaapi_device_create(
                device.display.handle,
                { opaque in if let opaque { Unmanaged<VADevice>.fromOpaque(opaque).release() } }, owner, &status)
        else {
            Unmanaged<VADevice>.fromOpaque(owner).release()
            throw FFmpegStatus.error(status, "av_hwdevice_ctx_init", "wrapping the VA display for libavcodec")
                .replacingStatus(with: .couldNotCreateInstance)
        }
        context.pointee.hw_device_ctx = hardware
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
        context.pointee.get_format = { context, formats in
            guard let context, let formats, let opaque = context.pointee.opaque else { return AV_PIX_FMT_NONE }
            return Unmanaged<LibavcodecHWAccel>.fromOpaque(opaque).takeUnretainedValue().choose(context, formats)
        }
        // The GPU does the work; one thread keeps every driver call on the session's queue.
        context.pointee.thread_count = 1
        context.pointee.max_pixels = Int64(maximumPixels)
        if allowsProfileMismatch {
            context.pointee.hwaccel_flags |= Int32(AV_HWACCEL_FLAG_ALLOW_PROFILE_MISMATCH)
        }
    }

    /// Frees every surface no picture holds any more (``DecoderSurfaces/releaseIdleSurfaces()``):
    /// call once libavcodec is closed.
    func releaseIdleSurfaces() {
        for surfaces in surfaceSets { surfaces.releaseIdleSurfaces() }
        surfaceSets.removeAll()
    }

    /// Picks `AV_PIX_FMT_VAAPI` and installs a frames context with room for libavcodec's
    /// references plus the application's pictures; `AV_PIX_FMT_NONE` when libavcodec no longer
    /// offers VA-API (its hwaccel failed to start) or the pool cannot be made.
    private func choose(
        _ context: UnsafeMutablePointer<AVCodecContext>, _ formats: UnsafePointer<AVPixelFormat>
    ) -> AVPixelFormat {
        var offered: [AVPixelFormat] = []
        var cursor = formats
        while cursor.pointee != AV_PIX_FMT_NONE {
            offered.append(cursor.pointee)
            cursor += 1
        }
        guard offered.contains(AV_PIX_FMT_VAAPI) else {
            failure = VTError.couldNotFindVideoDecoder.with(
                "libavcodec's VA-API hwaccel could not start for this stream (the driver refused the decode "
                    + "configuration or context)")
            return AV_PIX_FMT_NONE
        }
        var frames: UnsafeMutablePointer<AVBufferRef>?
        var status = avcodec_get_hw_frames_parameters(context, context.pointee.hw_device_ctx, AV_PIX_FMT_VAAPI, &frames)
        guard status >= 0, let frames else {
            failure = FFmpegStatus.error(
                status, "avcodec_get_hw_frames_parameters", "the driver cannot decode this stream's size or profile"
            )
            .replacingStatus(with: .couldNotFindVideoDecoder)
            return AV_PIX_FMT_NONE
        }
        let parameters = UnsafeMutableRawPointer(frames.pointee.data).assumingMemoryBound(to: AVHWFramesContext.self)
        let renderTargetLimit = device.quirks.renderTargetLimit
        guard
            let pool = SurfacePool(
                libavcodecSurfaces: Int(parameters.pointee.initial_pool_size),
                references: Int(context.pointee.refs), reorderDepth: Int(context.pointee.has_b_frames),
                spares: extraSurfaces + waitingSurfaces, limit: renderTargetLimit)
        else {
            var unwanted: UnsafeMutablePointer<AVBufferRef>? = frames
            av_buffer_unref(&unwanted)
            failure = VTError.couldNotFindVideoDecoder.with(
                "the stream needs more surfaces (\(1 + Int(context.pointee.refs) + Int(context.pointee.has_b_frames))) "
                    + "than the VA driver lets a decoder use (\(renderTargetLimit ?? 0))")
            return AV_PIX_FMT_NONE
        }
        parameters.pointee.initial_pool_size = Int32(pool.size)
        allowance.spareSurfaces = max(0, pool.spares - waitingSurfaces)
        self.pool = pool
        device.decisions.record(pool)
        do throws(VTError) {
            if let surfaces = try DecoderSurfaces.install(on: parameters, device: device) {
                surfaceSets.append(surfaces)
            }
        } catch {
            var unwanted: UnsafeMutablePointer<AVBufferRef>? = frames
            av_buffer_unref(&unwanted)
            failure = error
            return AV_PIX_FMT_NONE
        }
        status = av_hwframe_ctx_init(frames)
        guard status >= 0 else {
            var unwanted: UnsafeMutablePointer<AVBufferRef>? = frames
            av_buffer_unref(&unwanted)
            failure = FFmpegStatus.error(status, "av_hwframe_ctx_init", "allocating the VA surface pool")
                .replacingStatus(with: .couldNotFindVideoDecoder)
            return AV_PIX_FMT_NONE
        }
        av_buffer_unref(&context.pointee.hw_frames_ctx)
        context.pointee.hw_frames_ctx = frames
        surfaceSize = VideoDimensions(width: parameters.pointee.width, height: parameters.pointee.height)
        failure = nil
        return AV_PIX_FMT_VAAPI
    }

    /// What a decoded frame holds: a picture in CPU memory (libavcodec decoded it without the
    /// hwaccel), a surface to hand out, or a picture that cannot be handed out.
    enum DecodedFrame {
        /// A picture in CPU memory.
        case software
        /// A decoded surface.
        case surface
        /// A picture the device failed, `error` (a device fault); the frame has been unreferenced.
        case failed(token: Int64, error: VTError)
    }

    /// What the frame `lent`, just returned by libavcodec, holds. A surface picture is failed when it is
    /// larger than its surface (libavcodec decoded a new size into surfaces it did not renew:
    /// its planes would run past the surface) or when the driver failed its decode
    /// (``DriverTableHooks``).
    func examine(_ lent: Frame) -> DecodedFrame {
        let frame = lent.pointer
        guard lent.isSurface else { return .software }
        let surface = SurfaceFrame.surface(of: frame)
        var surfaceWidth: Int32 = 0
        var surfaceHeight: Int32 = 0
        CFFmpeg_frame_hw_size(frame, &surfaceWidth, &surfaceHeight)
        if frame.pointee.width > surfaceWidth || frame.pointee.height > surfaceHeight {
            let token = frame.pointee.pts
            let size = "\(frame.pointee.width)x\(frame.pointee.height)"
            av_frame_unref(frame)
            return .failed(
                token: token,
                error: VTError.videoDecoderMalfunction.with(
                    "the \(size) picture was decoded into a \(surfaceWidth)x\(surfaceHeight) surface"))
        }
        if let fault = device.faults?.fault(of: surface) {
            let token = frame.pointee.pts
            av_frame_unref(frame)
            return .failed(token: token, error: fault)
        }
        return .surface
    }
}

// MARK: - The surfaces of a frames context

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
        AV_PIX_FMT_BGRA.rawValue: .bgra,
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

// MARK: - Surfaces for processed pictures

/// VA frames of surfaces made on a device outside any decoder: the output pool of a
/// ``VideoProcessor``. A frame from it is what a decoded surface is — an `AV_PIX_FMT_VAAPI` frame
/// of a frames context on the device — so a pixel buffer of it reads back (`vaDeriveImage` or
/// `vaGetImage`), exports and is counted as a decoded one is.
///
/// The surfaces are ``DecoderSurfaces``: each is destroyed when the pool is gone and no picture
/// holds it. Not thread-safe: its processor's caller uses it one picture at a time.
final class ProcessedFramePool {
    /// The frames context (`AVHWFramesContext`), which every frame made from it holds too.
    private var frames: UnsafeMutablePointer<AVBufferRef>?
    private let surfaces: DecoderSurfaces
    /// The surfaces' format and size.
    let format: SurfaceFormat
    let width: Int
    let height: Int

    /// Makes `count` surfaces of `format` and that size on `device`.
    ///
    /// - Throws: ``VTError/pixelTransferNotSupported`` when the driver cannot make them;
    ///   ``VTError/allocationFailed`` when memory runs out.
    init(device: VADevice, format: SurfaceFormat, width: Int, height: Int, count: Int) throws(VTError) {
        self.format = format
        self.width = width
        self.height = height
        var status: Int32 = 0
        // The device context keeps the VADevice alive until the last frame is gone, as the
        // decoder's does (``LibavcodecHWAccel/configure(_:)``).
        let owner = Unmanaged.passRetained(device).toOpaque()
        var hardware = CFFmpeg_vaapi_device_create(
            device.display.handle,
            { opaque in if let opaque { Unmanaged<VADevice>.fromOpaque(opaque).release() } }, owner, &status)
        guard hardware != nil else {
            Unmanaged<VADevice>.fromOpaque(owner).release()
            throw FFmpegStatus.error(status, "av_hwdevice_ctx_init", "wrapping the VA display for video processing")
                .replacingStatus(with: .pixelTransferNotSupported)
        }
        defer { av_buffer_unref(&hardware) }
        var frames = av_hwframe_ctx_alloc(hardware)
        guard let created = frames else {
            throw VTError.allocationFailed.with("allocating a frames context for video processing")
        }
        let parameters = UnsafeMutableRawPointer(created.pointee.data).assumingMemoryBound(to: AVHWFramesContext.self)
        parameters.pointee.format = AV_PIX_FMT_VAAPI
        parameters.pointee.sw_format =
            switch format {
            case .nv12: AV_PIX_FMT_NV12
            case .p010: AV_PIX_FMT_P010LE
            case .bgra: AV_PIX_FMT_BGRA
            }
        parameters.pointee.width = Int32(width)
        parameters.pointee.height = Int32(height)
        parameters.pointee.initial_pool_size = Int32(count)
        let installed: DecoderSurfaces?
        do throws(VTError) {
            installed = try DecoderSurfaces.install(on: parameters, device: device)
        } catch {
            av_buffer_unref(&frames)
            throw VTError.pixelTransferNotSupported.with(error.reason, cause: error.cause)
        }
        guard let installed else {
            av_buffer_unref(&frames)
            throw VTError.pixelTransferNotSupported.with("VAToolbox cannot make \(format) surfaces")
        }
        status = av_hwframe_ctx_init(frames)
        guard status >= 0 else {
            av_buffer_unref(&frames)
            installed.releaseIdleSurfaces()
            throw FFmpegStatus.error(status, "av_hwframe_ctx_init", "making the video processing's surfaces")
                .replacingStatus(with: .pixelTransferNotSupported)
        }
        self.frames = frames
        self.surfaces = installed
    }

    deinit {
        av_buffer_unref(&frames)
        surfaces.releaseIdleSurfaces()
    }

    /// A frame of a free surface, with `source`'s properties (time, colour, aspect) and no crop,
    /// in the range asked for, to process `source` into; nil when every surface is held (by
    /// pictures the application keeps).
    ///
    /// - Throws: ``VTError/allocationFailed`` when memory runs out.
    func nextFrame(like source: Frame, fullRange: Bool) throws(VTError) -> FrameReference? {
        let output = try FrameReference.allocate("allocating a processed frame")
        let status = av_hwframe_get_buffer(frames, output.pointer, 0)
        guard status >= 0 else { return nil }
        let frame = output.pointer
        av_frame_copy_props(frame, source.pointer)
        // The source's surface counter marker (``SurfaceCounter``) stays with the source.
        av_buffer_unref(&frame.pointee.opaque_ref)
        frame.pointee.crop_left = 0
        frame.pointee.crop_top = 0
        frame.pointee.crop_right = 0
        frame.pointee.crop_bottom = 0
        frame.pointee.color_range = fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        // The displayed shape stays, as libswscale's conversion keeps it (``Scaler``, from the
        // ffmpeg CLI's vf_scale.c config_props): a known aspect ratio times (input width × output
        // height) / (input height × output width), the input being the visible picture.
        let aspect = source.pointer.pointee.sample_aspect_ratio
        let visibleWidth = source.pointer.pointee.width - Int32(source.cropLeft)
        let visibleHeight = source.pointer.pointee.height - Int32(source.cropTop)
        if aspect.num > 0, aspect.den > 0, visibleWidth > 0, visibleHeight > 0 {
            frame.pointee.sample_aspect_ratio = av_mul_q(
                AVRational(num: Int32(height) * visibleWidth, den: Int32(width) * visibleHeight), aspect)
        }
        return output
    }
}
