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
    /// Whether the linked libavcodec keeps the codec's surfaces when its pictures grow
    /// (``CodecSupport/hardwareSurfaceFault``), so that each sample's size is looked at.
    private let keepsSurfacesWhenPicturesGrow: Bool
    /// Sets each libavcodec context up for this device, answers its `get_format`, and says what
    /// its frames hold.
    private let hwaccel: LibavcodecHWAccel
    private let support: any CodecSupport
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
        // opened again, or when VATOOLBOX_SHARED_VA_DISPLAY asks for it.
        let device =
            EnvironmentVariable.sharedVADisplay.isOn ? device : (try? VADevice.openSeparate(like: device)) ?? device
        self.device = device
        self.profile = profile
        hardware = HardwareDecoding(
            renderNode: device.renderNode, capabilities: device.capabilities, decisions: device.decisions)
        let allowance = SurfaceAllowance(spareSurfaces: max(1, extraSurfaces))
        self.allowance = allowance
        let depth = device.quirks.reportsDecodeErrorsAtSync && !realTime ? Self.defaultSynchronisationDepth : 0
        synchronisationDepth = depth
        let support = formatDescription.codecSupport
        self.support = support
        keepsSurfacesWhenPicturesGrow = support.hardwareSurfaceFault.map(LibavcodecVersion.linked.has) ?? false
        let hwaccel = LibavcodecHWAccel(
            device: device, extraSurfaces: extraSurfaces, waitingSurfaces: depth, allowance: allowance,
            maximumPixels: maximumPixels,
            allowsProfileMismatch: !VAProfileMap.isExact(profile.profile, for: formatDescription))
        self.hwaccel = hwaccel
        decoder = try Self.openDecoder(formatDescription, support: support, hwaccel: hwaccel)
    }

    /// A libavcodec decoder with the hwaccel; once closed, it frees every surface no handed-out
    /// picture holds.
    private static func openDecoder(
        _ format: VideoFormatDescription, support: any CodecSupport, hwaccel: LibavcodecHWAccel
    ) throws(VTError) -> LibavcodecContext {
        let decoder = try LibavcodecContext(
            formatDescription: format, preferredDecoders: support.hardwareDecoderName.map { [$0] } ?? [],
            configure: hwaccel.configure)
        decoder.afterClose = { hwaccel.releaseIdleSurfaces() }
        return decoder
    }

    func decode(_ data: [UInt8], token: Int64) -> DecodeStep {
        let before = device.faults?.failureCount ?? 0
        var held: [DecodedPicture] = []
        if keepsSurfacesWhenPicturesGrow, let size = support.hardwareSurfaceSize(startedBy: data),
            let surfaces = hwaccel.surfaceSize, size.width > surfaces.width || size.height > surfaces.height
        {
            // The sample starts pictures larger than the surfaces, and libavcodec would decode
            // them into those (the codec's `hardwareSurfaceFault`): the pictures before it come
            // out, and a new decoder sizes its surfaces from the sample.
            held = decoder.drain(picture: picture)
            do throws(VTError) {
                decoder = try Self.openDecoder(decoder.formatDescription, support: support, hwaccel: hwaccel)
            } catch {
                return DecodeStep(pictures: settle(held, draining: true), failure: .backEndCannotContinue(error))
            }
        }
        let (pictures, error) = decoder.send(data, token: token, picture: picture)
        var step = DecodeStep(
            pictures: settle(held + pictures, draining: false),
            deviceFaulted: (device.faults?.failureCount ?? 0) > before)
        if let error {
            if let failure = hwaccel.failure {
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
        settle(decoder.drain(picture: picture), draining: true)
    }

    func reconfigure(for format: VideoFormatDescription) {
        decoder.adopt(format)
    }

    /// Turns libavcodec's frames into pictures: a surface picture, or the device fault the driver
    /// reported for it (``LibavcodecHWAccel/examine(_:)``); every surface picture of this back end
    /// is handed out under the surface allowance.
    private var picture: LibavcodecContext.PictureMaker {
        { [device, hwaccel, allowance] frame throws(VTError) in
            switch hwaccel.examine(frame) {
            case .software:
                return try LibavcodecContext.picture(of: frame)
            case .failed(let token, let error):
                return DecodedPicture(token: token, pixelBuffer: nil, status: error, isDeviceFault: true)
            case .surface:
                var picture = try LibavcodecContext.picture(of: frame, surfaceAccess: device)
                picture.handOut = .surface(allowance)
                return picture
            }
        }
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
    private func surfaceToSynchronise(_ picture: DecodedPicture) -> Display.SurfaceID? {
        guard device.quirks.reportsDecodeErrorsAtSync, picture.token >= 0 else { return nil }
        return picture.pixelBuffer?.vaSurface
    }

    /// `picture` once the GPU has finished it, or without its image and with the error the driver
    /// reported at sync: ``VTError/videoDecoderBadData`` for a picture decoded with errors,
    /// ``VTError/videoDecoderMalfunction`` (a device fault) otherwise.
    private func synchronised(_ picture: DecodedPicture, _ surface: Display.SurfaceID) -> DecodedPicture {
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
