internal import CFFmpeg
import Synchronization

/// A device reaches the pixels of the surfaces decoded on it: every surface-backed pixel buffer
/// holds its device through this, so the display outlives the pictures.
///
/// This file is the pixel buffers' side of the bridge between libavutil's VA frames and the VA
/// layer: it reads what a frame says of its surface (``SurfaceFrame``), and wraps a read-back in
/// a frame of its own.
extension VADevice: SurfaceAccess {
    func readBack(_ frame: Frame) throws(VTError) -> FrameReference {
        let surface = try SurfaceFrame(frame.pointer)
        return try Self.frame(reading: try SurfaceMapping.map(surface, device: self), of: frame.pointer, surface)
    }

    func download(_ frame: Frame) throws(VTError) -> FrameReference {
        let mapped = try readBack(frame)
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

    func exportDMABuf(_ frame: Frame, separateLayers: Bool) throws(VTError) -> DMABufDescriptor {
        try DMABufDescriptor.export(try SurfaceFrame(frame.pointer), separateLayers: separateLayers, quirks: quirks)
    }

    /// A software frame (NV12, P010 or BGRA) whose planes are the mapped read-back of `frame`'s
    /// surface, cropped as `frame` is; the mapping is released with the frame.
    private static func frame(
        reading mapping: ImageMapping, of frame: UnsafePointer<AVFrame>, _ surface: SurfaceFrame
    ) throws(VTError) -> FrameReference {
        guard let base = mapping.base else { throw VTError.allocationFailed.with("vaMapBuffer returned no address") }
        guard let output = av_frame_alloc() else { throw VTError.allocationFailed.with("allocating a frame") }
        let reference = FrameReference(adopting: output)
        let owner = Unmanaged.passRetained(mapping)
        guard
            let buffer = av_buffer_create(
                base.assumingMemoryBound(to: UInt8.self), mapping.image.dataSize,
                { opaque, _ in if let opaque { Unmanaged<ImageMapping>.fromOpaque(opaque).release() } },
                owner.toOpaque(), Int32(AV_BUFFER_FLAG_READONLY))
        else {
            owner.release()
            throw VTError.allocationFailed.with("allocating a buffer reference")
        }
        av_frame_copy_props(output, frame)
        output.pointee.format = CFFmpeg_frame_hw_sw_format(frame).rawValue
        // The VA frame is cropped on the right and bottom already (libavcodec cannot move a
        // surface's origin); the left and top crop is applied to the read-back planes, exactly,
        // as `av_frame_apply_cropping` with `AV_FRAME_CROP_UNALIGNED` crops a software frame: the
        // luma plane from the offset itself, the interleaved chroma plane from the sample pair
        // and row that hold it. The size matches ``PixelBuffer``'s.
        let left = surface.cropLeft
        let top = surface.cropTop
        output.pointee.width = Int32(surface.width - left)
        output.pointee.height = Int32(surface.height - top)
        let luma = mapping.image.planes[0]
        let sampleBytes = surface.format.bytesPerSample
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        // A packed picture (a processed BGRA surface) has one plane.
        let chroma = surface.format.planeCount == 2 && mapping.image.planes.count > 1 ? mapping.image.planes[1] : nil
        CFFmpeg_frame_set_planes(
            output, buffer, bytes + luma.offset + top * luma.pitch + left * sampleBytes, Int32(luma.pitch),
            chroma.map { bytes + $0.offset + top / 2 * $0.pitch + (left & ~1) * sampleBytes }, Int32(chroma?.pitch ?? 0)
        )
        output.pointee.crop_left = 0
        output.pointee.crop_top = 0
        output.pointee.crop_right = 0
        output.pointee.crop_bottom = 0
        return reference
    }
}

extension SurfaceFrame {
    /// What a VA frame (`AV_PIX_FMT_VAAPI`) says of its surface and picture.
    ///
    /// - Throws: ``VTError/parameter`` when the frame is not a VA surface.
    init(_ frame: UnsafePointer<AVFrame>) throws(VTError) {
        guard let display = CFFmpeg_frame_vaapi_display(frame) else {
            throw VTError.parameter.with("the frame is not a VA surface")
        }
        var surfaceWidth: Int32 = 0
        var surfaceHeight: Int32 = 0
        CFFmpeg_frame_hw_size(frame, &surfaceWidth, &surfaceHeight)
        self.init(
            display: Display(handle: display), surface: Self.surface(of: frame),
            format: Self.format(of: CFFmpeg_frame_hw_sw_format(frame)),
            surfaceWidth: surfaceWidth, surfaceHeight: surfaceHeight, width: Int(frame.pointee.width),
            height: Int(frame.pointee.height), cropLeft: Int(frame.pointee.crop_left),
            cropTop: Int(frame.pointee.crop_top))
    }

    /// The surface format of a frames context's software format: P010, BGRA (a processed
    /// picture), or NV12.
    private static func format(of layout: AVPixelFormat) -> SurfaceFormat {
        switch layout {
        case AV_PIX_FMT_P010LE: .p010
        case AV_PIX_FMT_BGRA: .bgra
        default: .nv12
        }
    }

    /// The surface a VA frame lives in (`data[3]`).
    static func surface(of frame: UnsafePointer<AVFrame>) -> Display.SurfaceID {
        Display.SurfaceID(CFFmpeg_frame_vaapi_surface(frame))
    }
}

extension PixelBuffer {
    /// The VA surface the buffer's picture is in; nil for a picture in CPU memory.
    var vaSurface: Display.SurfaceID? {
        (try? withSurface { (frame) throws(VTError) -> Display.SurfaceID? in
            frame.map { SurfaceFrame.surface(of: $0.pointer) }
        }) ?? nil
    }
}

/// Counts the surfaces handed out in pixel buffers that are still alive: each tracked frame
/// carries a reference (`opaque_ref`) whose release, when the frame goes, counts it out.
final class SurfaceCounter: Sendable {
    private let alive = Atomic<Int>(0)

    /// Surfaces held outside the decoder now.
    var count: Int { alive.load(ordering: .acquiring) }

    /// Counts the surface in `image` until its frame is freed.
    func track(_ image: PixelBuffer) {
        try? image.withFrameToWrite { (frame) throws(VTError) in track(frame.pointer) }
    }

    private func track(_ frame: UnsafeMutablePointer<AVFrame>) {
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
