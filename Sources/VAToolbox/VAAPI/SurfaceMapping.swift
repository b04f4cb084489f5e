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
    static func synchronize(_ display: Display, _ surface: Display.SurfaceID) throws(VTError) {
        guard case .failure(let failure) = display.synchronize(surface) else { return }
        if failure.isDecodingError {
            throw failure.error(
                as: .videoDecoderBadData, "the GPU found errors in the picture's data (the stream is damaged)")
        }
        throw failure.error(as: .videoDecoderMalfunction, "the GPU failed to finish the picture")
    }

    /// Whether the GPU has finished the surface's picture, asked without waiting
    /// (`vaQuerySurfaceStatus`); false when the driver cannot say.
    static func isFinished(_ display: Display, _ surface: Display.SurfaceID) -> Bool {
        display.isFinished(surface)
    }

    /// The surface's picture read back and mapped into this process; the image goes back to its
    /// cache (or a derived image is destroyed) when the mapping goes.
    ///
    /// - Throws: What ``synchronize(_:_:)`` throws; ``VTError/videoDecoderMalfunction`` when the
    ///   picture cannot be read back or does not fit its surface; ``VTError/allocationFailed``
    ///   when the image cannot be made or mapped.
    static func map(_ frame: SurfaceFrame, device: VADevice) throws(VTError) -> ImageMapping {
        let display = frame.display
        try synchronize(display, frame.surface)
        let mapping: ImageMapping
        if device.quirks.readBack == .deriveImage, let derived = derive(frame, device: device) {
            mapping = derived
            device.decisions.recordReadBack(.deriveImage)
        } else {
            let key = ImageCache.Key(format: frame.format, width: frame.surfaceWidth, height: frame.surfaceHeight)
            let image = try device.images.take(key)
            mapping = ImageMapping(display: display, image: image, device: device, key: key)
            try display.getImage(frame.surface, width: frame.surfaceWidth, height: frame.surfaceHeight, into: image)
                .get(
                    as: .videoDecoderMalfunction, "reading the surface back from the GPU")
            device.decisions.recordReadBack(.getImage)
        }
        let image = mapping.image
        // The planes handed out must lie inside the image: a picture whose size disagrees with
        // its surface's (a decoder that did not renew its surfaces when the size grew) is refused
        // rather than read past the image's end.
        guard frame.width <= image.width, frame.height <= image.height else {
            throw VTError.videoDecoderMalfunction.with(
                "the \(frame.width)x\(frame.height) picture does not fit its \(image.width)x\(image.height) surface")
        }
        let mapped = try display.map(image).get(as: .allocationFailed, "mapping the image")
        guard let mapped else { throw VTError.allocationFailed.with("vaMapBuffer returned no address") }
        mapping.base = mapped
        return mapping
    }

    /// The surface mapped through `vaDeriveImage`, or nil when the driver refuses (Mesa refuses
    /// interlaced surfaces, for example): the caller then copies with `vaGetImage`.
    private static func derive(_ frame: SurfaceFrame, device: VADevice) -> ImageMapping? {
        guard case .success(let image) = frame.display.deriveImage(frame.surface) else { return nil }
        return ImageMapping(display: frame.display, image: image, device: device, key: nil)
    }
}

/// A VA frame's surface and picture, as libavcodec's frame (`AV_PIX_FMT_VAAPI`) describes them.
struct SurfaceFrame {
    /// The display the surface belongs to (the frame's device context's).
    let display: Display
    /// The surface.
    let surface: Display.SurfaceID
    /// The surface's format (the frames context's software format).
    let format: SurfaceFormat
    /// The surface's width (the frames context's).
    let surfaceWidth: Int32
    /// The surface's height.
    let surfaceHeight: Int32
    /// The picture's width, cropped on the right (the frame's `width`).
    let width: Int
    /// The picture's height, cropped at the bottom (the frame's `height`).
    let height: Int
    /// The picture's left crop (`crop_left`), which libavcodec cannot apply to a surface.
    let cropLeft: Int
    /// The picture's top crop (`crop_top`).
    let cropTop: Int
}

/// Images for `vaGetImage` read-backs, kept per format and size for reuse: a lock takes one, its
/// release gives it back. At most ``ImageCache/keptPerKey`` of each are kept; all are destroyed
/// with the device, before its display is terminated.
final class ImageCache: Sendable {
    /// A read-back image's format and size.
    struct Key: Hashable, Sendable {
        var format: SurfaceFormat
        var width: Int32
        var height: Int32
    }

    /// How many idle images of one format and size are kept.
    static let keptPerKey = 4

    private let display: Display
    private let idle = Mutex<[Key: [UInt32: Display.Image]]>([:])
    private let created = Atomic<Int>(0)

    init(display: Display) {
        self.display = display
    }

    /// Images created so far (for tests: reuse keeps it flat).
    var createdCount: Int { created.load(ordering: .relaxed) }

    /// An idle image of that format and size, or a new one.
    func take(_ key: Key) throws(VTError) -> Display.Image {
        let reused = idle.withLock { images -> Display.Image? in
            guard let entry = images[key]?.first else { return nil }
            images[key]?[entry.key] = nil
            return entry.value
        }
        if let reused { return reused }
        created.add(1, ordering: .relaxed)
        return try display.createImage(key.format, width: key.width, height: key.height).get(
            as: .allocationFailed, "creating an image to read the surface into")
    }

    /// Gives an image back for reuse (or destroys it when enough are kept).
    func giveBack(_ image: Display.Image, _ key: Key) {
        let kept = idle.withLock { images -> Bool in
            guard images[key, default: [:]].count < Self.keptPerKey else { return false }
            images[key, default: [:]][image.id] = image
            return true
        }
        if !kept { display.destroyImage(image) }
    }

    /// Destroys every idle image.
    func destroyAll() {
        let images = idle.withLock { images in
            defer { images.removeAll() }
            return images.values.flatMap(\.values)
        }
        for image in images { display.destroyImage(image) }
    }
}

/// An image read back from a surface and mapped, given back to its cache (or destroyed, when
/// derived) when the last plane reference goes.
///
/// Unchecked `Sendable`: immutable apart from `base`, which is set once, before the frame that
/// owns the mapping is shared; libva's calls are thread-safe.
final class ImageMapping: @unchecked Sendable {
    let display: Display
    let image: Display.Image
    /// Keeps the display alive while the image is mapped, and takes the image back.
    let device: VADevice
    /// The cache key; nil for a derived image, which belongs to its surface.
    let key: ImageCache.Key?
    /// The image's pixels in this process; nil until it is mapped.
    fileprivate(set) var base: UnsafeMutableRawPointer?

    fileprivate init(display: Display, image: Display.Image, device: VADevice, key: ImageCache.Key?) {
        self.display = display
        self.image = image
        self.device = device
        self.key = key
    }

    deinit {
        if base != nil { display.unmap(image) }
        if let key {
            device.images.giveBack(image, key)
        } else {
            display.destroyImage(image)
        }
    }
}
