internal import CFFmpeg
internal import CVAAPI
import Synchronization

/// Decoding on the GPU: libavcodec's VA-API hwaccel, running on the session's own VA display (an
/// `AVHWDeviceContext` wrapping a ``VADevice``), into a surface pool sized here.
///
/// Pictures come out as VA surfaces wrapped in pixel buffers: nothing is copied until a buffer is
/// locked (then the surface is read back as its driver reads fastest, ``SurfaceMapping``) or
/// exported as a DMA-BUF.
///
/// Each back end decodes on a display of its own (``VADevice/openSeparate(like:)``), so that the
/// fault records of its driver table are its own: another session's failed picture never flags
/// this session's frames.
///
/// A picture is synchronised (`vaSyncSurface`) when it is needed, not as libavcodec returns it,
/// so that the GPU works ahead of the session as it does for `ffmpeg -hwaccel_output_format
/// vaapi`, which never synchronises:
/// - on drivers that report no decode errors there (Mesa, nvidia, i965), only when it is locked,
///   exported or copied;
/// - on drivers that do (iHD), before it is handed out, since VideoToolbox reports a frame's
///   status with the frame. Pictures wait for that in presentation order: each goes out as soon
///   as `vaQuerySurfaceStatus` says the GPU has finished it, and is waited for only when more
///   than ``synchronisationDepth`` are waiting (or at a drain). The decode queue never waits for
///   the picture it has just submitted, and output runs at most that many pictures behind the GPU
///   (none in real-time mode, where every picture is synchronised as libavcodec returns it). The
///   surfaces of the waiting pictures are added to the pool.
///
/// Failures, each reported with what it concerns:
/// - libavcodec sets the hwaccel up at the first picture (its `get_format` call); when that fails
///   (`vaCreateContext`, surface allocation, a pool the driver's surface limit cannot hold), the
///   sample's step says the back end cannot continue, so that the session can start again on the
///   CPU.
/// - A picture the driver failed to decode (`vaEndPicture` failing, or `vaSyncSurface` failing
///   with anything but a decode error) comes out without an image, as a device fault with
///   ``VTError/videoDecoderMalfunction``; the step in which the driver failed it says so, for the
///   frames decoded after it.
/// - A picture the driver decoded with errors in its data (`vaSyncSurface` returning
///   `VA_STATUS_ERROR_DECODING_ERROR`, as iHD does for macroblock errors) comes out without an
///   image as ``VTError/videoDecoderBadData``: damaged input, not a device fault, so it never
///   counts toward leaving the GPU.
final class VAAPIBackend: DecoderBackend {
    /// The device decoding.
    let device: VADevice
    /// The VA profile in use.
    let profile: HardwareDecodeProfile

    let hardware: HardwareDecoding?

    /// libavcodec with the hwaccel; replaced by a new one where the codec's decoder would not ask
    /// for larger surfaces (``CodecSupport/hardwareSurfaceSize(startedBy:)``).
    private var decoder: LibavcodecContext
    /// Sets a new libavcodec context up for this device: the hwaccel, its `get_format` answer.
    private let configure: (UnsafeMutablePointer<AVCodecContext>) throws(VTError) -> Void
    private let support: any CodecSupport
    private let negotiation: FormatNegotiation
    private let allowance: SurfaceAllowance
    /// Pictures libavcodec has returned, in presentation order, that wait for the GPU to finish
    /// them before they are handed out (on drivers that report decode errors at sync).
    private var waiting: [DecodedPicture] = []
    /// How many pictures may wait for the GPU before the oldest is waited for; 0 synchronises
    /// each picture as libavcodec returns it.
    let synchronisationDepth: Int

    /// Pictures that may wait for the GPU outside real-time mode (``SurfacePool``'s default).
    static let defaultSynchronisationDepth = SurfacePool.defaultSynchronisationDepth

    /// Opens libavcodec with the VA-API hwaccel on `device`.
    ///
    /// - Parameters:
    ///   - formatDescription: The stream.
    ///   - device: The display to decode on.
    ///   - profile: The VA profile the stream maps to (``HardwareCapabilities``); when it is not the
    ///     stream's own profile (a containing one), libavcodec is told to accept the mismatch.
    ///   - extraSurfaces: Surfaces beyond what libavcodec needs for its reference pictures: the
    ///     pictures the application may hold at once.
    ///   - realTime: Whether each picture is to be handed out as soon as libavcodec returns it
    ///     (``DecoderSpecification/realTime``): no picture then waits for the GPU in the back end.
    ///   - maximumPixels: The most pixels libavcodec may allocate a picture of (`max_pixels`):
    ///     a size changed in band past it fails before anything is allocated.
    /// - Throws: ``VTError/couldNotCreateInstance`` when libavutil refuses the display, or what
    ///   opening libavcodec throws.
    init(
        formatDescription: VideoFormatDescription, device: VADevice, profile: HardwareDecodeProfile,
        extraSurfaces: Int, realTime: Bool = false, maximumPixels: Int = 8192 * 8192
    ) throws(VTError) {
        // A display of its own (see the type's discussion); the shared one if the node cannot be
        // opened again.
        let device = (try? VADevice.openSeparate(like: device)) ?? device
        self.device = device
        self.profile = profile
        hardware = HardwareDecoding(
            renderNode: device.renderNode, capabilities: device.capabilities, decisions: device.decisions)
        let allowance = SurfaceAllowance(spareSurfaces: max(1, extraSurfaces))
        self.allowance = allowance
        let depth = device.quirks.reportsDecodeErrorsAtSync && !realTime ? Self.defaultSynchronisationDepth : 0
        synchronisationDepth = depth
        let negotiation = FormatNegotiation(
            extraSurfaces: extraSurfaces, waitingSurfaces: depth, renderTargetLimit: device.quirks.renderTargetLimit,
            allowance: allowance, device: device, decisions: device.decisions)
        self.negotiation = negotiation
        let support = formatDescription.codecSupport
        self.support = support
        let isExact = VAProfileMap.isExact(VAProfile(rawValue: profile.vaProfile), for: formatDescription)
        configure = { context throws(VTError) in
            var status: Int32 = 0
            // The device context keeps the VADevice alive until libavutil lets go of it, after
            // the last surface of the last frames context is gone.
            let owner = Unmanaged.passRetained(device).toOpaque()
            guard
                let hardware = CFFmpeg_vaapi_device_create(
                    UnsafeMutableRawPointer(device.display),
                    { opaque in if let opaque { Unmanaged<VADevice>.fromOpaque(opaque).release() } }, owner, &status)
            else {
                Unmanaged<VADevice>.fromOpaque(owner).release()
                throw FFmpegStatus.error(status, "av_hwdevice_ctx_init", "wrapping the VA display for libavcodec")
                    .replacingStatus(with: .couldNotCreateInstance)
            }
            context.pointee.hw_device_ctx = hardware
            context.pointee.opaque = Unmanaged.passUnretained(negotiation).toOpaque()
            context.pointee.get_format = { context, formats in
                guard let context, let formats, let opaque = context.pointee.opaque else { return AV_PIX_FMT_NONE }
                return Unmanaged<FormatNegotiation>.fromOpaque(opaque).takeUnretainedValue().choose(context, formats)
            }
            // The GPU does the work; one thread keeps every driver call on the session's queue.
            context.pointee.thread_count = 1
            context.pointee.max_pixels = Int64(maximumPixels)
            if !isExact {
                context.pointee.hwaccel_flags |= Int32(AV_HWACCEL_FLAG_ALLOW_PROFILE_MISMATCH)
            }
        }
        decoder = try Self.openDecoder(formatDescription, support: support, negotiation: negotiation, configure)
    }

    /// A libavcodec decoder with the hwaccel; once closed, it frees every surface no handed-out
    /// picture holds.
    private static func openDecoder(
        _ format: VideoFormatDescription, support: any CodecSupport, negotiation: FormatNegotiation,
        _ configure: (UnsafeMutablePointer<AVCodecContext>) throws(VTError) -> Void
    ) throws(VTError) -> LibavcodecContext {
        let decoder = try LibavcodecContext(
            formatDescription: format, preferredDecoders: support.hardwareDecoderName.map { [$0] } ?? [],
            configure: configure)
        decoder.afterClose = { negotiation.releaseIdleSurfaces() }
        return decoder
    }

    func decode(_ data: [UInt8], token: Int64) -> DecodeStep {
        let before = device.faults?.failureCount ?? 0
        var held: [DecodedPicture] = []
        if let size = support.hardwareSurfaceSize(startedBy: data), let surfaces = negotiation.surfaceSize,
            size.width > surfaces.width || size.height > surfaces.height
        {
            // The sample starts pictures larger than the surfaces, and libavcodec would decode
            // them into those (see the codec's `hardwareSurfaceSize`): the pictures before it
            // come out, and a new decoder sizes its surfaces from the sample.
            held = decoder.drain(picture: picture(from:))
            do throws(VTError) {
                decoder = try Self.openDecoder(
                    decoder.formatDescription, support: support, negotiation: negotiation, configure)
            } catch {
                return DecodeStep(pictures: settle(held, draining: true), failure: .backEndCannotContinue(error))
            }
        }
        let (pictures, error) = decoder.send(data, token: token, picture: picture(from:))
        var step = DecodeStep(
            pictures: settle(held + pictures, draining: false),
            deviceFaulted: (device.faults?.failureCount ?? 0) > before)
        if let error {
            if let failure = negotiation.failure {
                step.failure = .backEndCannotContinue(failure)
            } else {
                // Damaged data is -12909 on the GPU too; a hwaccel error such as `AVERROR(EIO)`
                // maps to -12911, a device fault.
                step.failure = .sample(error, isDeviceFault: error == VTError.videoDecoderMalfunction)
            }
        }
        return step
    }

    func needsReopening(for configuration: SoftwareDecoderConfiguration) -> Bool { false }

    func drain() -> [DecodedPicture] {
        settle(decoder.drain(picture: picture(from:)), draining: true)
    }

    func reconfigure(for format: VideoFormatDescription) {
        decoder.adopt(format)
    }

    /// A surface picture, or the device fault the driver reported at `vaEndPicture`; every
    /// picture of this back end is handed out under the surface allowance.
    private func picture(from frame: UnsafeMutablePointer<AVFrame>) throws(VTError) -> DecodedPicture {
        guard frame.pointee.format.pixelFormat == AV_PIX_FMT_VAAPI else {
            return try LibavcodecContext.picture(from: frame)
        }
        let surface = VASurfaceID(CFFmpeg_frame_vaapi_surface(frame))
        var surfaceWidth: Int32 = 0
        var surfaceHeight: Int32 = 0
        CFFmpeg_frame_hw_size(frame, &surfaceWidth, &surfaceHeight)
        if frame.pointee.width > surfaceWidth || frame.pointee.height > surfaceHeight {
            // A picture larger than its surface: libavcodec decoded a new size into surfaces it
            // did not renew. Never handed out (its planes would run past the surface); a device
            // fault, so that the session can decode again on the CPU.
            let token = frame.pointee.pts
            let size = "\(frame.pointee.width)x\(frame.pointee.height)"
            av_frame_unref(frame)
            return DecodedPicture(
                token: token, pixelBuffer: nil,
                status: VTError.videoDecoderMalfunction.with(
                    "the \(size) picture was decoded into a \(surfaceWidth)x\(surfaceHeight) surface"),
                isDeviceFault: true)
        }
        if let fault = device.faults?.fault(of: surface) {
            let token = frame.pointee.pts
            av_frame_unref(frame)
            return DecodedPicture(token: token, pixelBuffer: nil, status: fault, isDeviceFault: true)
        }
        var picture = try LibavcodecContext.picture(from: frame, surfaceAccess: device)
        picture.handOut = .surface(allowance)
        return picture
    }

    /// Adds `pictures` to those waiting for the GPU and returns, in presentation order, those
    /// whose status is now known: the front pictures the GPU has finished, then, while more than
    /// ``synchronisationDepth`` wait (or all, when `draining`), the oldest after waiting for it.
    private func settle(_ pictures: [DecodedPicture], draining: Bool) -> [DecodedPicture] {
        waiting.append(contentsOf: pictures)
        var settled: [DecodedPicture] = []
        var index = 0
        while index < waiting.count {
            let picture = waiting[index]
            if let surface = surfaceToSynchronise(picture) {
                let mustWait = draining || waiting.count - index > synchronisationDepth
                guard mustWait || SurfaceMapping.isFinished(device.display, surface) else { break }
                settled.append(synchronised(picture, surface))
            } else {
                settled.append(picture)
            }
            index += 1
        }
        waiting.removeFirst(index)
        return settled
    }

    /// The surface to synchronise before `picture` goes out: on drivers that report decode
    /// errors at sync, a surface picture of a sample the session hands out (replayed samples,
    /// with negative tokens, are not).
    private func surfaceToSynchronise(_ picture: DecodedPicture) -> VASurfaceID? {
        guard device.quirks.reportsDecodeErrorsAtSync, picture.token >= 0, let image = picture.pixelBuffer else {
            return nil
        }
        let surface = try? image.withSurfaceFrame { (frame) throws(VTError) -> VASurfaceID? in
            frame.map { VASurfaceID(CFFmpeg_frame_vaapi_surface($0)) }
        }
        return surface ?? nil
    }

    /// `picture` once the GPU has finished it, or without its image and with the error the driver
    /// reported at sync: ``VTError/videoDecoderBadData`` for a picture decoded with errors,
    /// ``VTError/videoDecoderMalfunction`` (a device fault) otherwise.
    private func synchronised(_ picture: DecodedPicture, _ surface: VASurfaceID) -> DecodedPicture {
        do throws(VTError) {
            try SurfaceMapping.synchronize(device.display, surface)
            return picture
        } catch {
            return DecodedPicture(
                token: picture.token, pixelBuffer: nil, status: error,
                isDeviceFault: error != VTError.videoDecoderBadData, releasedBy: picture.releasedBy)
        }
    }
}

/// The surfaces a GPU back end lets the application hold: its pool has `spareSurfaces` surfaces
/// beyond libavcodec's own needs. While the application holds fewer pictures than that, the
/// surface itself is handed out (and counted until the pixel buffer goes); beyond, the picture is
/// copied to CPU memory so that its surface goes back to the pool: decoding never runs out of
/// surfaces. Decided at hand-out, not when libavcodec returns the picture, so that a batch of
/// pictures out of one drain does not count as held.
final class SurfaceAllowance: Sendable {
    private let spares: Atomic<Int>
    private let heldSurfaces = SurfaceCounter()

    init(spareSurfaces: Int) {
        spares = Atomic(spareSurfaces)
    }

    /// The surfaces the application may hold: set again when the pool is made, where a driver's
    /// surface limit can leave fewer than asked (0: every picture is handed out as a CPU copy).
    var spareSurfaces: Int {
        get { spares.load(ordering: .acquiring) }
        set { spares.store(newValue, ordering: .releasing) }
    }

    /// The surface picture itself, counted, or a CPU copy of it.
    func handOut(_ image: PixelBuffer) -> PixelBuffer {
        guard image.isGPUSurface else { return image }
        if heldSurfaces.count < spareSurfaces {
            try? image.withFrameForWriting { (frame) throws(VTError) in heldSurfaces.track(frame) }
            return image
        }
        guard let copied = (try? image.downloadedCopy()) ?? nil else { return image }
        copied.addCopiedBytes(copied.rawVideoByteCount)
        return copied
    }
}

/// Answers libavcodec's `get_format` call: VA-API surfaces from a pool sized for the stream.
///
/// It lives on the session's queue with its decoder: libavcodec calls it from inside
/// `avcodec_send_packet`, on that queue.
final class FormatNegotiation {
    private let extraSurfaces: Int
    private let waitingSurfaces: Int
    private let renderTargetLimit: Int?
    private let allowance: SurfaceAllowance
    private let device: VADevice
    /// The surfaces of every frames context made so far (a new stream configuration makes another).
    private var surfaceSets: [DecoderSurfaces] = []
    /// Why the hwaccel could not start; nil while it works.
    private(set) var failure: VTError?
    /// The pool made at the last `get_format` call, for diagnostics.
    private(set) var pool: SurfacePool?
    /// The size of the surfaces made at the last `get_format` call; nil before the first.
    private(set) var surfaceSize: VideoDimensions?
    /// Where the pool is recorded for ``DecompressionSession/hardwareDecisions``.
    private let decisions: HardwareDecisionRecord?

    /// - Parameters:
    ///   - extraSurfaces: Surfaces for the pictures the application may hold.
    ///   - waitingSurfaces: Surfaces for the pictures the back end keeps until the GPU has
    ///     finished them (``VAAPIBackend/synchronisationDepth``).
    ///   - renderTargetLimit: The driver's surface limit, if it has one.
    ///   - allowance: Told how many surfaces the application may hold.
    ///   - device: The display the surfaces are made on.
    ///   - decisions: Where the pool is recorded for diagnostics.
    init(
        extraSurfaces: Int, waitingSurfaces: Int, renderTargetLimit: Int?, allowance: SurfaceAllowance,
        device: VADevice, decisions: HardwareDecisionRecord? = nil
    ) {
        self.extraSurfaces = extraSurfaces
        self.waitingSurfaces = waitingSurfaces
        self.renderTargetLimit = renderTargetLimit
        self.allowance = allowance
        self.decisions = decisions
        self.device = device
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
    func choose(
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
        decisions?.record(pool)
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
}

/// Counts the surfaces handed out in pixel buffers that are still alive: each tracked frame
/// carries a reference (`opaque_ref`) whose release, when the frame goes, counts it out.
final class SurfaceCounter: Sendable {
    private let alive = Atomic<Int>(0)

    /// Surfaces held outside the decoder now.
    var count: Int { alive.load(ordering: .acquiring) }

    /// Counts `frame` in until it is freed.
    func track(_ frame: UnsafeMutablePointer<AVFrame>) {
        let owner = Unmanaged.passRetained(self)
        guard
            let marker = av_buffer_create(
                nil, 0,
                { opaque, _ in
                    guard let opaque else { return }
                    let counter = Unmanaged<SurfaceCounter>.fromOpaque(opaque)
                    counter.takeUnretainedValue().alive.subtract(1, ordering: .releasing)
                    counter.release()
                }, owner.toOpaque(), 0)
        else {
            owner.release()
            return
        }
        alive.add(1, ordering: .releasing)
        av_buffer_unref(&frame.pointee.opaque_ref)
        frame.pointee.opaque_ref = marker
    }
}
