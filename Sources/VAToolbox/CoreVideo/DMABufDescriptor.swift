#if canImport(Glibc)
    import Glibc
#endif

/// A GPU surface shared as DMA-BUF file descriptors (DRM PRIME), for zero-copy import into EGL
/// (`EGL_EXT_image_dma_buf_import`), Vulkan (`VK_EXT_external_memory_dma_buf`) or a KMS plane.
///
/// The descriptor owns its file descriptors and closes them when it goes away; `dup` one to keep
/// it longer. The memory is the decoder's surface: treat it as read-only, and keep the
/// ``PixelBuffer`` alive while the GPU reads it, or the decoder may decode into it again.
public final class DMABufDescriptor: Sendable, CustomStringConvertible {
    /// One DMA-BUF (a memory object) of the surface.
    public struct Object: Sendable, Hashable {
        /// The DMA-BUF file descriptor, owned by the descriptor.
        public let fd: Int32
        /// The object's size in bytes.
        public let size: Int
        /// The DRM format modifier (tiling) of the object; `DRM_FORMAT_MOD_LINEAR` is 0.
        public let modifier: UInt64
    }

    /// One plane of a layer.
    public struct Plane: Sendable, Hashable {
        /// The index in ``objects`` of the object holding the plane.
        public let objectIndex: Int
        /// Where the plane starts in its object, in bytes.
        public let offset: Int
        /// The distance in bytes from one row of the plane to the next.
        public let pitch: Int
    }

    /// One layer: an image in one DRM format, as a graphics API imports it.
    ///
    /// With a compression modifier (Intel's `I915_FORMAT_MOD_Y_TILED_GEN12_MC_CCS` on iHD), each
    /// image plane is followed by its auxiliary (CCS) plane: an importer passes every plane of
    /// the layer, with the modifier, and never reads the data linearly.
    public struct Layer: Sendable, Hashable {
        /// The layer's DRM FourCC (`DRM_FORMAT_R8`, `DRM_FORMAT_GR88`, `DRM_FORMAT_NV12` …).
        /// Drivers differ for the chroma layer: GR88/GR1616 on Intel and Mesa, RG88/RG1616 on
        /// nvidia-vaapi-driver (`src/vabackend.c` `formatsInfo`).
        public let drmFormat: UInt32
        /// The layer's planes, auxiliary planes included.
        public let planes: [Plane]
    }

    /// The part of the surface that holds the picture, in pixels from its top-left corner: the
    /// rectangle a consumer crops to (EGL, Vulkan and KMS import the whole surface).
    public struct Rectangle: Sendable, Hashable {
        /// The left edge.
        public let x: Int
        /// The top edge.
        public let y: Int
        /// The width.
        public let width: Int
        /// The height.
        public let height: Int
    }

    /// The surface's overall format as a VA FourCC (`VA_FOURCC_NV12`, `VA_FOURCC_P010`): the
    /// four characters packed little-endian, as DRM FourCCs are.
    public let fourCC: UInt32
    /// The surface's width in pixels (coded size: it may exceed the picture's).
    public let width: Int
    /// The surface's height in pixels.
    public let height: Int
    /// The memory objects.
    public let objects: [Object]
    /// The layers: one per plane with ``PixelBuffer/exportDMABuf(separateLayers:)``'s default,
    /// one with every plane otherwise.
    public let layers: [Layer]
    /// The visible picture inside the surface (the stream's cropping: a 1080-line picture in a
    /// 1088-line surface, for example).
    public let visibleRectangle: Rectangle

    /// The DRM format modifier of the memory holding the layer's first plane
    /// (`DRM_FORMAT_MOD_LINEAR` is 0), what EGL's `EGL_DMA_BUF_PLANE0_MODIFIER_LO/HI_EXT` and
    /// Vulkan's `VkImageDrmFormatModifierExplicitCreateInfoEXT` take.
    public func modifier(of layer: Layer) -> UInt64 {
        guard let plane = layer.planes.first, objects.indices.contains(plane.objectIndex) else { return 0 }
        return objects[plane.objectIndex].modifier
    }

    /// `"DMA-BUF NV12 1920x1088 (visible 1920x1080 at 0,0): 1 object(s), layers R8 GR88, modifier
    /// 0x0"`.
    public var description: String {
        let formats = layers.map { Self.name(ofFourCC: $0.drmFormat) }
        let visible = visibleRectangle
        let modifiers = Set(objects.map(\.modifier)).sorted().map { "0x" + String($0, radix: 16) }
        return
            "DMA-BUF \(Self.name(ofFourCC: fourCC)) \(width)x\(height) (visible \(visible.width)x\(visible.height) at "
            + "\(visible.x),\(visible.y)): \(objects.count) object(s), layers \(formats.joined(separator: " ")), modifier "
            + modifiers.joined(separator: " ")
    }

    /// The characters of a little-endian FourCC (DRM and VA order): `"NV12"`, `"GR88"`.
    public static func name(ofFourCC value: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }.filter { $0 > 0x20 && $0 < 0x7f }
        return String(decoding: bytes, as: UTF8.self)
    }

    init(fourCC: UInt32, width: Int, height: Int, objects: [Object], layers: [Layer], visibleRectangle: Rectangle) {
        self.fourCC = fourCC
        self.width = width
        self.height = height
        self.objects = objects
        self.layers = layers
        self.visibleRectangle = visibleRectangle
    }

    deinit {
        for object in objects { close(object.fd) }
    }
}

extension PixelBuffer {
    /// Shares the picture's GPU surface as DMA-BUF file descriptors, without a copy
    /// (`vaExportSurfaceHandle`).
    ///
    /// - Parameter separateLayers: One layer per plane (R8 + GR88 for NV12, the form EGL and
    ///   Vulkan import most widely, and the only one nvidia-vaapi-driver exports; the default), or
    ///   one layer holding every plane.
    /// - Throws: ``VTError/parameter`` for a picture in CPU memory (decoded on the CPU, or made
    ///   writable), which has no DMA-BUF; ``VTError/pixelTransferNotSupported`` when the driver
    ///   cannot export.
    public func exportDMABuf(separateLayers: Bool = true) throws(VTError) -> DMABufDescriptor {
        try exportSurface(separateLayers: separateLayers)
    }
}
