internal import CFFmpeg

/// A device reaches the pixels of the surfaces decoded on it: every surface-backed pixel buffer
/// holds its device through this, so the display outlives the pictures.
extension VADevice: SurfaceAccess {
    func readBack(_ frame: UnsafePointer<AVFrame>) throws(VTError) -> FrameReference {
        try SurfaceMapping.map(frame, device: self)
    }

    func download(_ frame: UnsafePointer<AVFrame>) throws(VTError) -> FrameReference {
        try SurfaceMapping.download(frame, device: self)
    }

    func exportDMABuf(_ frame: UnsafePointer<AVFrame>, separateLayers: Bool) throws(VTError) -> DMABufDescriptor {
        try DMABufDescriptor.export(frame, separateLayers: separateLayers, quirks: quirks)
    }
}
