extension DMABufDescriptor {
    /// Exports a VA frame's surface (`vaExportSurfaceHandle`, DRM PRIME 2), once the GPU has
    /// finished its picture.
    ///
    /// - Throws: What ``SurfaceMapping/synchronize(_:_:)`` throws;
    ///   ``VTError/pixelTransferNotSupported`` when the driver cannot export the surface, or
    ///   not as one composed layer.
    static func export(
        _ frame: SurfaceFrame, separateLayers: Bool, quirks: DriverQuirks
    ) throws(VTError) -> DMABufDescriptor {
        try SurfaceMapping.synchronize(frame.display, frame.surface)
        if !separateLayers, !quirks.exportsComposedLayers {
            throw VTError.pixelTransferNotSupported.with(
                "the \(quirks.driver.rawValue) driver exports separate layers only",
                hint: "export with separateLayers: true (one layer per plane)")
        }
        let exported: Display.ExportedSurface
        switch frame.display.export(frame.surface, separateLayers: separateLayers) {
        case .success(let surface):
            exported = surface
        case .failure(let failure):
            let interlaced =
                !quirks.exportsInterlacedSurfaces && failure.isInvalidSurface
                ? " (the \(quirks.driver.rawValue) driver does not export interlaced surfaces: lock the pixel "
                    + "buffer to read it instead)" : ""
            throw failure.error(
                as: .pixelTransferNotSupported, "the VA driver cannot export the surface as a DMA-BUF" + interlaced)
        }
        // libavcodec crops on the right and bottom through the frame's size; left and top
        // through its crop fields.
        let visible = Rectangle(
            x: frame.cropLeft, y: frame.cropTop, width: frame.width - frame.cropLeft,
            height: frame.height - frame.cropTop)
        return DMABufDescriptor(
            fourCC: exported.fourCC, width: exported.width, height: exported.height,
            objects: exported.objects, layers: exported.layers, visibleRectangle: visible)
    }
}
