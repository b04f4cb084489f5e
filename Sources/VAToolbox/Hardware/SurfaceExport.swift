internal import CFFmpeg
internal import CVAAPI

extension DMABufDescriptor {
    /// Exports a VA frame's surface (`vaExportSurfaceHandle`, DRM PRIME 2).
    static func export(
        _ frame: UnsafePointer<AVFrame>, separateLayers: Bool, quirks: DriverQuirks
    ) throws(VTError) -> DMABufDescriptor {
        guard let display = CFFmpeg_frame_vaapi_display(frame) else {
            throw VTError.parameter.with("the frame is not a VA surface")
        }
        let surface = VASurfaceID(CFFmpeg_frame_vaapi_surface(frame))
        try SurfaceMapping.synchronize(display, surface)
        if !separateLayers, !quirks.exportsComposedLayers {
            throw VTError.pixelTransferNotSupported.with(
                "the \(quirks.driver.rawValue) driver exports separate layers only",
                hint: "export with separateLayers: true (one layer per plane)")
        }
        var prime = VADRMPRIMESurfaceDescriptor()
        let status = vaExportSurfaceHandle(
            display, surface, CVAAPI_MEM_TYPE_DRM_PRIME_2,
            separateLayers ? CVAAPI_EXPORT_READ_SEPARATE : CVAAPI_EXPORT_READ_COMPOSED, &prime)
        if status != CVAAPI_STATUS_SUCCESS {
            let interlaced =
                !quirks.exportsInterlacedSurfaces && status == VA_STATUS_ERROR_INVALID_SURFACE
                ? " (the \(quirks.driver.rawValue) driver does not export interlaced surfaces: lock the pixel "
                    + "buffer to read it instead)" : ""
            throw VAStatusCheck.error(
                status, "vaExportSurfaceHandle", as: .pixelTransferNotSupported,
                "the VA driver cannot export the surface as a DMA-BUF" + interlaced)
        }
        var objects: [Object] = []
        for index in 0..<Int(min(prime.num_objects, 4)) {
            var fd: Int32 = -1
            var size: UInt32 = 0
            var modifier: UInt64 = 0
            CVAAPI_prime_object(&prime, Int32(index), &fd, &size, &modifier)
            objects.append(Object(fd: fd, size: Int(size), modifier: modifier))
        }
        var layers: [Layer] = []
        for index in 0..<Int(min(prime.num_layers, 4)) {
            var format: UInt32 = 0
            var count: UInt32 = 0
            CVAAPI_prime_layer(&prime, Int32(index), &format, &count)
            var planes: [Plane] = []
            for plane in 0..<Int(min(count, 4)) {
                var object: UInt32 = 0
                var offset: UInt32 = 0
                var pitch: UInt32 = 0
                CVAAPI_prime_plane(&prime, Int32(index), Int32(plane), &object, &offset, &pitch)
                planes.append(Plane(objectIndex: Int(object), offset: Int(offset), pitch: Int(pitch)))
            }
            layers.append(Layer(drmFormat: format, planes: planes))
        }
        // libavcodec crops on the right and bottom through the frame's size; left and top
        // through its crop fields.
        let left = Int(frame.pointee.crop_left)
        let top = Int(frame.pointee.crop_top)
        let visible = Rectangle(
            x: left, y: top, width: Int(frame.pointee.width) - left, height: Int(frame.pointee.height) - top)
        return DMABufDescriptor(
            fourCC: prime.fourcc, width: Int(prime.width), height: Int(prime.height),
            objects: objects, layers: layers, visibleRectangle: visible)
    }
}
