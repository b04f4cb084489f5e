internal import CFFmpeg
internal import CVAAPI
import Synchronization

/// Reads VA surfaces back to CPU memory for a pixel buffer's lock, the way the surface's driver
/// reads fastest (``DriverQuirks/readBack``):
/// - `vaDeriveImage` (iHD): the surface itself, mapped; no copy.
/// - `vaGetImage` (every other driver): a copy into an image of the surface's format and size
///   taken from the device's ``ImageCache``, so that no image is created per lock.
///
/// Every read-back first synchronises the surface: on drivers that report no decode errors the
/// decoder never did (see ``VAAPIBackend``).
enum SurfaceMapping {
    /// Waits until the GPU has finished the surface's picture (`vaSyncSurface`).
    ///
    /// - Throws: ``VTError/videoDecoderBadData`` when the driver says the picture has decode
    ///   errors (`VA_STATUS_ERROR_DECODING_ERROR`: the stream is damaged, the GPU is fine);
    ///   ``VTError/videoDecoderMalfunction`` for any other failure.
    static func synchronize(_ display: VADisplay, _ surface: VASurfaceID) throws(VTError) {
        let status = vaSyncSurface(display, surface)
        guard status != CVAAPI_STATUS_SUCCESS else { return }
        if status == VA_STATUS_ERROR_DECODING_ERROR {
            throw VAStatusCheck.error(
                status, "vaSyncSurface", as: .videoDecoderBadData,
                "the GPU found errors in the picture's data (the stream is damaged)")
        }
        throw VAStatusCheck.error(
            status, "vaSyncSurface", as: .videoDecoderMalfunction, "the GPU failed to finish the picture")
    }

    /// Whether the GPU has finished the surface's picture, asked without waiting
    /// (`vaQuerySurfaceStatus`); false when the driver cannot say.
    static func isFinished(_ display: VADisplay, _ surface: VASurfaceID) -> Bool {
        var status = VASurfaceStatus(rawValue: 0)
        return vaQuerySurfaceStatus(display, surface, &status) == CVAAPI_STATUS_SUCCESS
            && status == CVAAPI_SURFACE_READY
    }

    /// A software frame (NV12 or P010) whose planes are a read-back of a VA frame's surface,
    /// cropped as the VA frame is; the image goes back to its cache (or a derived image is
    /// destroyed) when the frame is freed.
    static func map(_ frame: UnsafePointer<AVFrame>, device: VADevice) throws(VTError) -> FrameReference {
        guard let display = CFFmpeg_frame_vaapi_display(frame) else {
            throw VTError.parameter.with("the frame is not a VA surface")
        }
        let surface = VASurfaceID(CFFmpeg_frame_vaapi_surface(frame))
        let softwareFormat = CFFmpeg_frame_hw_sw_format(frame)
        let is10Bit = softwareFormat == AV_PIX_FMT_P010LE
        var surfaceWidth: Int32 = 0
        var surfaceHeight: Int32 = 0
        CFFmpeg_frame_hw_size(frame, &surfaceWidth, &surfaceHeight)
        try synchronize(display, surface)
        let mapping: ImageMapping
        if device.quirks.readBack == .deriveImage, let derived = derive(display, surface, device: device) {
            mapping = derived
            device.decisions.recordReadBack(.deriveImage)
        } else {
            let key = ImageCache.Key(
                fourCC: is10Bit ? CVAAPI_FOURCC_P010 : CVAAPI_FOURCC_NV12, width: surfaceWidth, height: surfaceHeight)
            let image = try device.images.take(key)
            mapping = ImageMapping(display: display, image: image, device: device, key: key)
            try VAStatusCheck.check(
                vaGetImage(display, surface, 0, 0, UInt32(surfaceWidth), UInt32(surfaceHeight), image.image_id),
                "vaGetImage", as: .videoDecoderMalfunction, "reading the surface back from the GPU")
            device.decisions.recordReadBack(.getImage)
        }
        var image = mapping.image
        // The planes handed out must lie inside the image: a picture whose size disagrees with
        // its surface's (a decoder that did not renew its surfaces when the size grew) is refused
        // rather than read past the image's end.
        let pictureWidth = Int(frame.pointee.width)
        let pictureHeight = Int(frame.pointee.height)
        guard pictureWidth <= Int(image.width), pictureHeight <= Int(image.height) else {
            throw VTError.videoDecoderMalfunction.with(
                "the \(pictureWidth)x\(pictureHeight) picture does not fit its \(image.width)x\(image.height) surface")
        }
        var base: UnsafeMutableRawPointer?
        try VAStatusCheck.check(
            vaMapBuffer(display, image.buf, &base), "vaMapBuffer", as: .allocationFailed, "mapping the image")
        guard let base else { throw VTError.allocationFailed.with("vaMapBuffer returned no address") }
        mapping.isMapped = true
        guard let output = av_frame_alloc() else { throw VTError.allocationFailed.with("allocating a frame") }
        let reference = FrameReference(adopting: output)
        let owner = Unmanaged.passRetained(mapping)
        guard
            let buffer = av_buffer_create(
                base.assumingMemoryBound(to: UInt8.self), Int(image.data_size),
                { opaque, _ in if let opaque { Unmanaged<ImageMapping>.fromOpaque(opaque).release() } },
                owner.toOpaque(), Int32(AV_BUFFER_FLAG_READONLY))
        else {
            owner.release()
            throw VTError.allocationFailed.with("allocating a buffer reference")
        }
        av_frame_copy_props(output, frame)
        output.pointee.format = softwareFormat.rawValue
        // The VA frame is cropped on the right and bottom already (libavcodec cannot move a
        // surface's origin); the left and top crop is applied to the read-back planes, exactly,
        // as `av_frame_apply_cropping` with `AV_FRAME_CROP_UNALIGNED` crops a software frame: the
        // luma plane from the offset itself, the interleaved chroma plane from the sample pair
        // and row that hold it. The size matches ``PixelBuffer``'s.
        let left = Int(frame.pointee.crop_left)
        let top = Int(frame.pointee.crop_top)
        output.pointee.width = frame.pointee.width - Int32(left)
        output.pointee.height = frame.pointee.height - Int32(top)
        var lumaPitch: UInt32 = 0
        var lumaOffset: UInt32 = 0
        var chromaPitch: UInt32 = 0
        var chromaOffset: UInt32 = 0
        CVAAPI_image_plane(&image, 0, &lumaPitch, &lumaOffset)
        CVAAPI_image_plane(&image, 1, &chromaPitch, &chromaOffset)
        let sampleBytes = is10Bit ? 2 : 1
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        CFFmpeg_frame_set_planes(
            output, buffer, bytes + Int(lumaOffset) + top * Int(lumaPitch) + left * sampleBytes, Int32(lumaPitch),
            bytes + Int(chromaOffset) + top / 2 * Int(chromaPitch) + (left & ~1) * sampleBytes, Int32(chromaPitch))
        output.pointee.crop_left = 0
        output.pointee.crop_top = 0
        output.pointee.crop_right = 0
        output.pointee.crop_bottom = 0
        return reference
    }

    /// The surface mapped through `vaDeriveImage`, or nil when the driver refuses (Mesa refuses
    /// interlaced surfaces, for example): the caller then copies with `vaGetImage`.
    private static func derive(_ display: VADisplay, _ surface: VASurfaceID, device: VADevice) -> ImageMapping? {
        var image = VAImage()
        guard vaDeriveImage(display, surface, &image) == CVAAPI_STATUS_SUCCESS else { return nil }
        return ImageMapping(display: display, image: image, device: device, key: nil)
    }

    /// Copies a VA frame into a new software frame of its own (for writing).
    static func download(_ frame: UnsafePointer<AVFrame>, device: VADevice) throws(VTError) -> FrameReference {
        let mapped = try map(frame, device: device)
        guard let copy = av_frame_alloc() else { throw VTError.allocationFailed.with("allocating a frame") }
        let reference = FrameReference(adopting: copy)
        copy.pointee.format = mapped.pointer.pointee.format
        copy.pointee.width = mapped.pointer.pointee.width
        copy.pointee.height = mapped.pointer.pointee.height
        try FFmpegStatus.check(av_frame_get_buffer(copy, 0), "av_frame_get_buffer", "allocating a frame")
        try FFmpegStatus.check(av_frame_copy(copy, mapped.pointer), "av_frame_copy", "copying a read-back surface")
        av_frame_copy_props(copy, mapped.pointer)
        av_buffer_unref(&copy.pointee.opaque_ref)
        return reference
    }
}

/// Images for `vaGetImage` read-backs, kept per format and size for reuse: a lock takes one, its
/// release gives it back. At most ``ImageCache/keptPerKey`` of each are kept; all are destroyed
/// with the device, before its display is terminated.
final class ImageCache: @unchecked Sendable {
    // Unchecked Sendable: `display` is immutable; the images are behind the mutex.

    /// A read-back image's format and size.
    struct Key: Hashable, Sendable {
        var fourCC: UInt32
        var width: Int32
        var height: Int32
    }

    /// How many idle images of one format and size are kept.
    static let keptPerKey = 4

    private let display: VADisplay
    private let idle = Mutex<[Key: [VAImageID: VAImage]]>([:])
    private let created = Atomic<Int>(0)

    init(display: VADisplay) {
        self.display = display
    }

    /// Images created so far (for tests: reuse keeps it flat).
    var createdCount: Int { created.load(ordering: .relaxed) }

    /// An idle image of that format and size, or a new one.
    func take(_ key: Key) throws(VTError) -> VAImage {
        let reused = idle.withLock { images -> VAImage? in
            guard let entry = images[key]?.first else { return nil }
            images[key]?[entry.key] = nil
            return entry.value
        }
        if let reused { return reused }
        created.add(1, ordering: .relaxed)
        return try Self.create(display, key)
    }

    /// Gives an image back for reuse (or destroys it when enough are kept).
    func giveBack(_ image: VAImage, _ key: Key) {
        let kept = idle.withLock { images -> Bool in
            guard images[key, default: [:]].count < Self.keptPerKey else { return false }
            images[key, default: [:]][image.image_id] = image
            return true
        }
        if !kept { vaDestroyImage(display, image.image_id) }
    }

    /// Destroys every idle image.
    func destroyAll() {
        let images = idle.withLock { images in
            defer { images.removeAll() }
            return images.values.flatMap(\.keys)
        }
        for image in images { vaDestroyImage(display, image) }
    }

    /// A new image (`vaCreateImage`).
    static func create(_ display: VADisplay, _ key: Key) throws(VTError) -> VAImage {
        var format = VAImageFormat()
        format.fourcc = key.fourCC
        format.byte_order = UInt32(VA_LSB_FIRST)
        format.bits_per_pixel = key.fourCC == CVAAPI_FOURCC_P010 ? 24 : 12
        var image = VAImage()
        try VAStatusCheck.check(
            vaCreateImage(display, &format, key.width, key.height, &image), "vaCreateImage",
            as: .allocationFailed, "creating an image to read the surface into")
        return image
    }
}

/// An image read back from a surface, given back to its cache (or destroyed, when derived) when
/// the last plane reference goes.
///
/// Unchecked `Sendable`: immutable apart from `isMapped`, which is set once before the frame that
/// owns the mapping is shared; libva's calls are thread-safe.
private final class ImageMapping: @unchecked Sendable {
    let display: VADisplay
    let image: VAImage
    /// Keeps the display alive while the image is mapped, and takes the image back.
    let device: VADevice
    /// The cache key; nil for a derived image, which belongs to its surface.
    let key: ImageCache.Key?
    var isMapped = false

    init(display: VADisplay, image: VAImage, device: VADevice, key: ImageCache.Key?) {
        self.display = display
        self.image = image
        self.device = device
        self.key = key
    }

    deinit {
        if isMapped { vaUnmapBuffer(display, image.buf) }
        if let key {
            device.images.giveBack(image, key)
        } else {
            vaDestroyImage(display, image.image_id)
        }
    }
}
