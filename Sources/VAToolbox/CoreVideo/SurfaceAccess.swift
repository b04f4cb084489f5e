/// How a pixel buffer reaches the pixels of a GPU surface: the VA-API layer's answer (its
/// ``VADevice``), given to each surface-backed buffer when it is made and held by it, so that
/// the device outlives every picture decoded on it and no table of devices is needed.
///
/// CoreVideo declares it and the Hardware layer implements it, so that the pixel buffer names
/// nothing above its own layer (Docs/Architecture.md, "Layers").
protocol SurfaceAccess: AnyObject, Sendable {
    /// A CPU frame whose planes are a read-back of the VA frame's surface, cropped as the VA
    /// frame is; the read-back is released with the frame.
    ///
    /// - Throws: ``VTError/videoDecoderMalfunction`` when the GPU cannot finish or read the
    ///   picture, ``VTError/videoDecoderBadData`` when it reports errors in its data.
    func readBack(_ frame: Frame) throws(VTError) -> FrameReference
    /// A CPU frame of its own holding the VA frame's picture (for writing, or to free the surface).
    func download(_ frame: Frame) throws(VTError) -> FrameReference
    /// The VA frame's surface shared as DMA-BUF file descriptors, without a copy.
    ///
    /// - Throws: ``VTError/pixelTransferNotSupported`` when the driver cannot export it.
    func exportDMABuf(_ frame: Frame, separateLayers: Bool) throws(VTError) -> DMABufDescriptor
    /// A converter of this device's surfaces on its GPU, for one converter's use.
    func makeProcessor() -> any SurfaceProcessing
}

/// Converts GPU surfaces on the GPU: the VA layer's video processing (its `VideoProcessor`),
/// made for a converter by the surface's ``SurfaceAccess`` and kept by it.
///
/// CoreVideo declares it and the VA layer implements it (Docs/Architecture.md, "Layers").
/// Not thread-safe: its converter uses it one picture at a time.
protocol SurfaceProcessing: AnyObject {
    /// `image` (a GPU surface of the processor's device) converted on the GPU into a new surface
    /// of `format` and that size, or why it cannot be: a format, colour or size the driver does
    /// not process, or a driver that failed before (the CPU converts from then on). With
    /// `toneMapping`, the HDR picture is tone mapped to SDR BT.709 in the same call
    /// (``ToneMapping``).
    func process(
        _ image: PixelBuffer, to format: PixelFormat, width: Int, height: Int, minimumBufferCount: Int,
        toneMapping: Bool
    ) -> Result<PixelBuffer, SurfaceProcessingRefusal>

    /// `image` (an interlaced GPU surface) deinterlaced on the GPU by the driver's single-picture
    /// spatial deinterlacer (`VAProcDeinterlacingBob`), in a new surface of the same format and
    /// size: the GPU's counterpart of the session's vertical filter. Or why it cannot be.
    func deinterlace(_ image: PixelBuffer) -> Result<PixelBuffer, SurfaceProcessingRefusal>

    /// How many pictures before and after an interlaced GPU surface like `image` the driver's
    /// motion-adaptive deinterlacer (`VAProcDeinterlacingMotionAdaptive`) takes, or why it is
    /// not used: not listed, or one that takes no next picture (what ``Deinterlacer``'s bwdif
    /// reads).
    func temporalDeinterlacingReferences(
        for image: PixelBuffer
    ) -> Result<TemporalDeinterlacingReferences, SurfaceProcessingRefusal>

    /// One field of `image` (a GPU surface) deinterlaced on the GPU by the driver's
    /// motion-adaptive deinterlacer with the pictures `past` and `future` of it (nearest first,
    /// as many as it takes and there are), in a new surface of the same format and size. Or why
    /// it cannot be.
    func deinterlaceTemporally(
        _ image: PixelBuffer, secondField: Bool, past: [PixelBuffer], future: [PixelBuffer]
    ) -> Result<PixelBuffer, SurfaceProcessingRefusal>
}

/// How many pictures before and after the one deinterlaced a GPU's temporal deinterlacer takes.
struct TemporalDeinterlacingReferences: Sendable, Equatable {
    /// Pictures before it.
    let past: Int
    /// Pictures after it.
    let future: Int
}

/// Why a picture was not converted on the GPU.
struct SurfaceProcessingRefusal: Error, Sendable {
    /// For the ``PixelTransferPath/cpu(reason:)`` the converter reports.
    let reason: String
}
