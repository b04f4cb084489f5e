internal import CFFmpeg
internal import CVAAPI

/// Reads VA surfaces back to CPU memory for a pixel buffer's lock.
///
/// `vaCreateImage` + `vaGetImage` + `vaMapBuffer`, not `vaDeriveImage`: a derived image maps the
/// surface itself, which on many Intel GPUs is uncached, tiled memory that reads an order of
/// magnitude slower than the copy `vaGetImage` makes into cached memory.
enum SurfaceMapping {
    /// A software frame (NV12 or P010) whose planes are a fresh read-back of a VA frame's surface,
    /// cropped as the VA frame is; the image is unmapped and destroyed when the frame is freed.
    static func map(_ frame: UnsafePointer<AVFrame>) throws(VTError) -> FrameReference {
        guard let display = CFFmpeg_frame_vaapi_display(frame) else {
            throw VTError.parameter.with("the frame is not a VA surface")
        }
        let surface = VASurfaceID(CFFmpeg_frame_vaapi_surface(frame))
        let softwareFormat = CFFmpeg_frame_hw_sw_format(frame)
        let is10Bit = softwareFormat == AV_PIX_FMT_P010LE
        var surfaceWidth: Int32 = 0
        var surfaceHeight: Int32 = 0
        CFFmpeg_frame_hw_size(frame, &surfaceWidth, &surfaceHeight)
        try VAStatusCheck.check(
            vaSyncSurface(display, surface), "vaSyncSurface", as: .videoDecoderMalfunction,
            "waiting for the GPU to finish the picture")
        var format = VAImageFormat()
        format.fourcc = is10Bit ? CVAAPI_FOURCC_P010 : CVAAPI_FOURCC_NV12
        format.byte_order = UInt32(VA_LSB_FIRST)
        format.bits_per_pixel = is10Bit ? 24 : 12
        var image = VAImage()
        try VAStatusCheck.check(
            vaCreateImage(display, &format, surfaceWidth, surfaceHeight, &image), "vaCreateImage",
            as: .allocationFailed, "creating an image to read the surface into")
        let mapping = ImageMapping(display: display, image: image)
        try VAStatusCheck.check(
            vaGetImage(display, surface, 0, 0, UInt32(surfaceWidth), UInt32(surfaceHeight), image.image_id),
            "vaGetImage", as: .videoDecoderMalfunction, "reading the surface back from the GPU")
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
        // surface's origin); the left and top crop is applied to the read-back planes.
        let left = Int(frame.pointee.crop_left) & ~1
        let top = Int(frame.pointee.crop_top) & ~1
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
            bytes + Int(chromaOffset) + top / 2 * Int(chromaPitch) + left * sampleBytes, Int32(chromaPitch))
        output.pointee.crop_left = 0
        output.pointee.crop_top = 0
        output.pointee.crop_right = 0
        output.pointee.crop_bottom = 0
        return reference
    }

    /// Copies a VA frame into a new software frame of its own (for writing).
    static func download(_ frame: UnsafePointer<AVFrame>) throws(VTError) -> FrameReference {
        let mapped = try map(frame)
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

/// An image read back from a surface, destroyed when the last plane reference goes.
///
/// Unchecked `Sendable`: immutable apart from `isMapped`, which is set once before the frame that
/// owns the mapping is shared; libva's calls are thread-safe.
private final class ImageMapping: @unchecked Sendable {
    let display: VADisplay
    let image: VAImage
    var isMapped = false

    init(display: VADisplay, image: VAImage) {
        self.display = display
        self.image = image
    }

    deinit {
        if isMapped { vaUnmapBuffer(display, image.buf) }
        vaDestroyImage(display, image.image_id)
    }
}
