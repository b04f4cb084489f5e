internal import CFFmpeg

/// A device reaches the pixels of the surfaces decoded on it: every surface-backed pixel buffer
/// holds its device through this, so the display outlives the pictures.
extension VADevice: SurfaceAccess {
    func readBack(_ frame: Frame) throws(VTError) -> FrameReference {
        try SurfaceMapping.map(frame.pointer, device: self)
    }

    func download(_ frame: Frame) throws(VTError) -> FrameReference {
        try SurfaceMapping.download(frame.pointer, device: self)
    }

    func exportDMABuf(_ frame: Frame, separateLayers: Bool) throws(VTError) -> DMABufDescriptor {
        try DMABufDescriptor.export(frame.pointer, separateLayers: separateLayers, quirks: quirks)
    }
}
