internal import CVAAPI

/// A VA display (`VADisplay`) and every libva call the library makes on it.
///
/// The rest of the VA layer speaks Swift through this: IDs are integers, formats and profiles are
/// Swift enums, and each call that can fail returns a `Result` whose failure names the libva
/// function and its status (``VAFailure``; ``VAStatusCheck`` is the one place a status is
/// compared). The display's lifetime is its owner's (``VADevice``): this is only a handle.
///
/// Unchecked `Sendable`: the handle is immutable and only handed to libva, whose display
/// functions are thread-safe.
struct Display: @unchecked Sendable {
    /// A surface's ID (`VASurfaceID`).
    typealias SurfaceID = UInt32
    /// A decode configuration's ID (`VAConfigID`).
    typealias ConfigID = UInt32
    /// A decoding context's ID (`VAContextID`).
    typealias ContextID = UInt32

    /// The `VADisplay`.
    let handle: UnsafeMutableRawPointer

    /// The version of the libva headers the package was built against, `"major.minor.micro"`
    /// (libva has no run-time query without a display).
    static let headerVersion = "\(CVAAPI_MAJOR_VERSION).\(CVAAPI_MINOR_VERSION).\(CVAAPI_MICRO_VERSION)"

    /// The display at `handle` (one libavutil's device context wraps, for example).
    init(handle: UnsafeMutableRawPointer) {
        self.handle = handle
    }

    /// A display on a DRM render node's file descriptor (`vaGetDisplayDRM`), not yet
    /// initialised; nil when libva does not take the descriptor.
    static func open(drm fd: Int32) -> Display? {
        vaGetDisplayDRM(fd).map(Display.init(handle:))
    }

    /// Chooses the driver libva will load (`vaSetDriverName`), before ``initialize()``.
    func setDriverName(_ name: String) {
        _ = name.withCString { vaSetDriverName(handle, UnsafeMutablePointer(mutating: $0)) }
    }

    /// Loads the driver (`vaInitialize`): the VA-API version libva speaks.
    func initialize() -> Result<(major: Int32, minor: Int32), VAFailure> {
        var major: Int32 = 0
        var minor: Int32 = 0
        // Recorded in flight by hand: the driver table's hooks exist only once it is loaded.
        let status = DriverCallsInFlight.during("vaInitialize") { vaInitialize(handle, &major, &minor) }
        return VAStatusCheck.result(status, "vaInitialize") { (major, minor) }
    }

    /// Closes the display and unloads its driver (`vaTerminate`).
    func terminate() {
        vaTerminate(handle)
    }

    /// The driver's vendor string (`vaQueryVendorString`).
    var vendor: String? {
        vaQueryVendorString(handle).map { String(cString: $0) }
    }

    /// Sends libva's error messages for this display to `log` (`vaSetErrorCallback`) and drops
    /// its informational ones (`vaSetInfoCallback`) unless `keepingInfo`, which leaves libva
    /// printing them.
    func routeMessages(to log: VAMessageLog, keepingInfo: Bool) {
        let context = Unmanaged.passUnretained(log).toOpaque()
        vaSetErrorCallback(
            handle,
            { context, message in
                guard let context, let message else { return }
                Unmanaged<VAMessageLog>.fromOpaque(context).takeUnretainedValue().append(String(cString: message))
            }, context)
        if !keepingInfo {
            vaSetInfoCallback(handle, nil, nil)
        }
    }
}

// MARK: - Capabilities

extension Display {
    /// The profiles of ``HardwareProfile`` the driver lists (`vaQueryConfigProfiles`); nil when
    /// the driver cannot say.
    func listedProfiles() -> Set<HardwareProfile>? {
        var profiles = [VAProfile](repeating: VAProfileNone, count: Int(max(1, vaMaxNumProfiles(handle))))
        var count: Int32 = 0
        guard VAStatusCheck.succeeded(vaQueryConfigProfiles(handle, &profiles, &count)) else { return nil }
        return Set(profiles.prefix(Int(count)).compactMap(HardwareProfile.init(libva:)))
    }

    /// Whether the profile has the VLD (bitstream decoding) entry point (`vaQueryConfigEntrypoints`).
    func decodes(_ profile: HardwareProfile) -> Bool {
        var entrypoints = [VAEntrypoint](repeating: VAEntrypoint(0), count: Int(max(1, vaMaxNumEntrypoints(handle))))
        var count: Int32 = 0
        guard VAStatusCheck.succeeded(vaQueryConfigEntrypoints(handle, profile.libva, &entrypoints, &count)) else {
            return false
        }
        return entrypoints.prefix(Int(count)).contains(VAEntrypointVLD)
    }

    /// libva's name for the profile without its prefix (`vaProfileStr`): `"H264High"`.
    func name(of profile: HardwareProfile) -> String {
        vaProfileStr(profile.libva).map { String(String(cString: $0).dropFirst("VAProfile".count)) } ?? "?"
    }

    /// What the driver says of decoding in `profile` (`vaGetConfigAttributes`): the render-target
    /// formats and the largest picture, each nil where it does not say.
    func decodeAttributes(
        _ profile: HardwareProfile
    ) -> (formats: RenderTargetFormats?, maximumWidth: Int?, maximumHeight: Int?) {
        var attributes = [VAConfigAttribRTFormat, VAConfigAttribMaxPictureWidth, VAConfigAttribMaxPictureHeight].map {
            VAConfigAttrib(type: $0, value: CVAAPI_ATTRIB_NOT_SUPPORTED)
        }
        _ = vaGetConfigAttributes(handle, profile.libva, VAEntrypointVLD, &attributes, Int32(attributes.count))
        let known = { (value: UInt32) -> UInt32? in value == CVAAPI_ATTRIB_NOT_SUPPORTED ? nil : value }
        return (
            known(attributes[0].value).map(RenderTargetFormats.init(rawValue:)),
            known(attributes[1].value).map(Int.init),
            known(attributes[2].value).map(Int.init)
        )
    }

    /// A decode configuration for `profile` (`vaCreateConfig`, VLD entry point, no attributes).
    func createConfig(_ profile: HardwareProfile) -> Result<ConfigID, VAFailure> {
        var config = ConfigID(CVAAPI_INVALID_ID)
        let status = vaCreateConfig(handle, profile.libva, VAEntrypointVLD, nil, 0, &config)
        return VAStatusCheck.result(status, "vaCreateConfig") { config }
    }

    /// Destroys a decode configuration (`vaDestroyConfig`).
    func destroyConfig(_ config: ConfigID) {
        vaDestroyConfig(handle, config)
    }

    /// The smallest and largest surfaces a decode configuration accepts (`vaQuerySurfaceAttributes`;
    /// each nil where the driver does not say).
    func surfaceLimits(_ config: ConfigID) -> (
        minimum: (width: Int?, height: Int?), maximum: (width: Int?, height: Int?)
    ) {
        var count: UInt32 = 0
        guard VAStatusCheck.succeeded(vaQuerySurfaceAttributes(handle, config, nil, &count)), count > 0 else {
            return ((nil, nil), (nil, nil))
        }
        var attributes = [VASurfaceAttrib](repeating: VASurfaceAttrib(), count: Int(count))
        guard VAStatusCheck.succeeded(vaQuerySurfaceAttributes(handle, config, &attributes, &count)) else {
            return ((nil, nil), (nil, nil))
        }
        var values: [Int32: Int] = [:]
        for attribute in attributes.prefix(Int(count))
        where attribute.value.type.rawValue == CVAAPI_GENERIC_VALUE_INTEGER {
            values[Int32(attribute.type.rawValue)] = Int(attribute.value.value.i)
        }
        return (
            (values[CVAAPI_SURFACE_ATTRIB_MIN_WIDTH], values[CVAAPI_SURFACE_ATTRIB_MIN_HEIGHT]),
            (values[CVAAPI_SURFACE_ATTRIB_MAX_WIDTH], values[CVAAPI_SURFACE_ATTRIB_MAX_HEIGHT])
        )
    }
}

// MARK: - Surfaces and contexts

extension Display {
    /// `count` surfaces of `format` (`vaCreateSurfaces`); with `fixingPixelFormat`, the surfaces'
    /// FourCC is set as an attribute (as libavutil's `vaapi_pool_alloc` does), else the driver
    /// chooses it from the render-target format.
    func createSurfaces(
        _ format: SurfaceFormat, width: Int, height: Int, count: Int, fixingPixelFormat: Bool
    ) -> Result<[SurfaceID], VAFailure> {
        var surfaces = [SurfaceID](repeating: SurfaceID(CVAAPI_INVALID_ID), count: count)
        let status =
            fixingPixelFormat
            ? CVAAPI_create_surfaces(
                handle, format.renderTarget, UInt32(width), UInt32(height), &surfaces, UInt32(count), format.fourCC)
            : vaCreateSurfaces(
                handle, format.renderTarget, UInt32(width), UInt32(height), &surfaces, UInt32(count), nil, 0)
        return VAStatusCheck.result(status, "vaCreateSurfaces") { surfaces }
    }

    /// Destroys surfaces (`vaDestroySurfaces`).
    func destroySurfaces(_ surfaces: [SurfaceID]) {
        var surfaces = surfaces
        vaDestroySurfaces(handle, &surfaces, Int32(surfaces.count))
    }

    /// A decoding context on `config` for progressive pictures of that size, decoding into
    /// `targets` (`vaCreateContext`).
    func createContext(
        _ config: ConfigID, width: Int, height: Int, targets: [SurfaceID]
    ) -> Result<ContextID, VAFailure> {
        var targets = targets
        var context = ContextID(CVAAPI_INVALID_ID)
        let status = vaCreateContext(
            handle, config, Int32(width), Int32(height), Int32(VA_PROGRESSIVE), &targets, Int32(targets.count), &context
        )
        return VAStatusCheck.result(status, "vaCreateContext") { context }
    }

    /// Destroys a decoding context (`vaDestroyContext`).
    func destroyContext(_ context: ContextID) {
        vaDestroyContext(handle, context)
    }

    /// Waits until the GPU has finished the surface's picture (`vaSyncSurface`).
    func synchronize(_ surface: SurfaceID) -> Result<Void, VAFailure> {
        VAStatusCheck.result(vaSyncSurface(handle, surface), "vaSyncSurface") {}
    }

    /// Whether the GPU has finished the surface's picture, asked without waiting
    /// (`vaQuerySurfaceStatus`); false when the driver cannot say.
    func isFinished(_ surface: SurfaceID) -> Bool {
        var status = VASurfaceStatus(rawValue: 0)
        return VAStatusCheck.succeeded(vaQuerySurfaceStatus(handle, surface, &status)) && status == CVAAPI_SURFACE_READY
    }
}

// MARK: - Images

extension Display {
    /// An image: CPU-visible memory holding a surface's picture (`VAImage`).
    struct Image: Sendable {
        /// One plane of the image: its row length and where it starts in the image's buffer.
        struct Plane: Sendable {
            /// Bytes from one row to the next.
            let pitch: Int
            /// Bytes from the buffer's start.
            let offset: Int
        }

        /// The image's ID (`VAImageID`).
        let id: UInt32
        /// The buffer holding its pixels (`VABufferID`).
        let buffer: UInt32
        /// Its width in pixels.
        let width: Int
        /// Its height in pixels.
        let height: Int
        /// The buffer's size in bytes.
        let dataSize: Int
        /// Its first two planes (luma, then interleaved chroma, for NV12 and P010).
        let planes: [Plane]

        fileprivate init(_ image: VAImage) {
            var image = image
            id = image.image_id
            buffer = image.buf
            width = Int(image.width)
            height = Int(image.height)
            dataSize = Int(image.data_size)
            planes = (0..<2).map { plane in
                var pitch: UInt32 = 0
                var offset: UInt32 = 0
                CVAAPI_image_plane(&image, Int32(plane), &pitch, &offset)
                return Plane(pitch: Int(pitch), offset: Int(offset))
            }
        }
    }

    /// The surface itself as an image (`vaDeriveImage`), or the driver's refusal.
    func deriveImage(_ surface: SurfaceID) -> Result<Image, VAFailure> {
        var image = VAImage()
        let status = vaDeriveImage(handle, surface, &image)
        return VAStatusCheck.result(status, "vaDeriveImage") { Image(image) }
    }

    /// A new image of `format` and that size (`vaCreateImage`).
    func createImage(_ format: SurfaceFormat, width: Int32, height: Int32) -> Result<Image, VAFailure> {
        var imageFormat = VAImageFormat()
        imageFormat.fourcc = format.fourCC
        imageFormat.byte_order = UInt32(VA_LSB_FIRST)
        imageFormat.bits_per_pixel = format.bitsPerPixel
        var image = VAImage()
        let status = vaCreateImage(handle, &imageFormat, width, height, &image)
        return VAStatusCheck.result(status, "vaCreateImage") { Image(image) }
    }

    /// Copies the top-left `width` × `height` of a surface into an image (`vaGetImage`).
    func getImage(_ surface: SurfaceID, width: Int32, height: Int32, into image: Image) -> Result<Void, VAFailure> {
        VAStatusCheck.result(
            vaGetImage(handle, surface, 0, 0, UInt32(width), UInt32(height), image.id), "vaGetImage"
        ) {}
    }

    /// Destroys an image (`vaDestroyImage`).
    func destroyImage(_ image: Image) {
        vaDestroyImage(handle, image.id)
    }

    /// Maps an image's buffer into this process (`vaMapBuffer`): its address, nil when the
    /// driver gave none.
    func map(_ image: Image) -> Result<UnsafeMutableRawPointer?, VAFailure> {
        var base: UnsafeMutableRawPointer?
        let status = vaMapBuffer(handle, image.buffer, &base)
        return VAStatusCheck.result(status, "vaMapBuffer") { base }
    }

    /// Unmaps an image's buffer (`vaUnmapBuffer`).
    func unmap(_ image: Image) {
        vaUnmapBuffer(handle, image.buffer)
    }
}

// MARK: - Export

extension Display {
    /// A surface exported as DMA-BUF objects (`VADRMPRIMESurfaceDescriptor`); the caller owns
    /// the file descriptors.
    struct ExportedSurface {
        /// The surface's FourCC.
        let fourCC: UInt32
        /// The surface's width.
        let width: Int
        /// The surface's height.
        let height: Int
        /// The DMA-BUF objects.
        let objects: [DMABufDescriptor.Object]
        /// The layers: one per plane, or one for the whole picture.
        let layers: [DMABufDescriptor.Layer]
    }

    /// Exports the surface for reading as DRM PRIME 2 (`vaExportSurfaceHandle`): one layer per
    /// plane with `separateLayers`, else one layer for all planes.
    func export(_ surface: SurfaceID, separateLayers: Bool) -> Result<ExportedSurface, VAFailure> {
        var prime = VADRMPRIMESurfaceDescriptor()
        let status = vaExportSurfaceHandle(
            handle, surface, CVAAPI_MEM_TYPE_DRM_PRIME_2,
            separateLayers ? CVAAPI_EXPORT_READ_SEPARATE : CVAAPI_EXPORT_READ_COMPOSED, &prime)
        return VAStatusCheck.result(status, "vaExportSurfaceHandle") { Self.exported(&prime) }
    }

    private static func exported(_ prime: inout VADRMPRIMESurfaceDescriptor) -> ExportedSurface {
        var objects: [DMABufDescriptor.Object] = []
        for index in 0..<Int(min(prime.num_objects, 4)) {
            var fd: Int32 = -1
            var size: UInt32 = 0
            var modifier: UInt64 = 0
            CVAAPI_prime_object(&prime, Int32(index), &fd, &size, &modifier)
            objects.append(DMABufDescriptor.Object(fd: fd, size: Int(size), modifier: modifier))
        }
        var layers: [DMABufDescriptor.Layer] = []
        for index in 0..<Int(min(prime.num_layers, 4)) {
            var format: UInt32 = 0
            var count: UInt32 = 0
            CVAAPI_prime_layer(&prime, Int32(index), &format, &count)
            var planes: [DMABufDescriptor.Plane] = []
            for plane in 0..<Int(min(count, 4)) {
                var object: UInt32 = 0
                var offset: UInt32 = 0
                var pitch: UInt32 = 0
                CVAAPI_prime_plane(&prime, Int32(index), Int32(plane), &object, &offset, &pitch)
                planes.append(DMABufDescriptor.Plane(objectIndex: Int(object), offset: Int(offset), pitch: Int(pitch)))
            }
            layers.append(DMABufDescriptor.Layer(drmFormat: format, planes: planes))
        }
        return ExportedSurface(
            fourCC: prime.fourcc, width: Int(prime.width), height: Int(prime.height), objects: objects, layers: layers)
    }
}

// MARK: - libva's values

/// The render-target formats a driver decodes to (`VA_RT_FORMAT_*`).
struct RenderTargetFormats: OptionSet, Sendable {
    let rawValue: UInt32

    /// 8-bit 4:2:0. The corresponding C constant is `VA_RT_FORMAT_YUV420`.
    static let yuv420 = RenderTargetFormats(rawValue: CVAAPI_RT_FORMAT_YUV420)
    /// 10-bit 4:2:0. The corresponding C constant is `VA_RT_FORMAT_YUV420_10`.
    static let yuv420TenBit = RenderTargetFormats(rawValue: CVAAPI_RT_FORMAT_YUV420_10)
}

/// The surface formats VA-API decodes 4:2:0 streams to, and video processing converts them to.
enum SurfaceFormat: Sendable, Hashable {
    /// 8-bit: luma, then interleaved chroma (`VA_FOURCC_NV12`, render target `VA_RT_FORMAT_YUV420`).
    case nv12
    /// 10-bit in 16-bit samples (`VA_FOURCC_P010`, render target `VA_RT_FORMAT_YUV420_10`).
    case p010
    /// Packed B, G, R, A bytes (`VA_FOURCC_BGRA`, render target `VA_RT_FORMAT_RGB32`): what video
    /// processing writes for ``PixelFormat/bgra``.
    case bgra

    /// The number of planes: luma and interleaved chroma, or one packed plane.
    var planeCount: Int { self == .bgra ? 1 : 2 }

    /// Bytes per sample of the first plane.
    var bytesPerSample: Int {
        switch self {
        case .nv12: 1
        case .p010: 2
        case .bgra: 4
        }
    }

    /// `VAImageFormat.bits_per_pixel`.
    fileprivate var bitsPerPixel: UInt32 {
        switch self {
        case .nv12: 12
        case .p010: 24
        case .bgra: 32
        }
    }

    /// The surface FourCC.
    var fourCC: UInt32 {
        switch self {
        case .nv12: CVAAPI_FOURCC_NV12
        case .p010: CVAAPI_FOURCC_P010
        case .bgra: CVAAPI_FOURCC_BGRA
        }
    }

    /// The render-target format.
    fileprivate var renderTarget: UInt32 {
        switch self {
        case .nv12: CVAAPI_RT_FORMAT_YUV420
        case .p010: CVAAPI_RT_FORMAT_YUV420_10
        case .bgra: CVAAPI_RT_FORMAT_RGB32
        }
    }
}

extension HardwareProfile {
    /// The profile in libva's numbering (`VAProfile`).
    fileprivate var libva: VAProfile {
        switch self {
        case .h264ConstrainedBaseline: VAProfileH264ConstrainedBaseline
        case .h264Main: VAProfileH264Main
        case .h264High: VAProfileH264High
        case .hevcMain: VAProfileHEVCMain
        case .hevcMain10: VAProfileHEVCMain10
        case .av1Profile0: VAProfileAV1Profile0
        case .vp9Profile0: VAProfileVP9Profile0
        case .vp9Profile2: VAProfileVP9Profile2
        case .vp8: VAProfileVP8Version0_3
        case .mpeg2Simple: VAProfileMPEG2Simple
        case .mpeg2Main: VAProfileMPEG2Main
        }
    }

    /// The profile libva numbers `profile`; nil for one VAToolbox does not decode through.
    fileprivate init?(libva profile: VAProfile) {
        guard let known = Self.allCases.first(where: { $0.libva == profile }) else { return nil }
        self = known
    }
}
