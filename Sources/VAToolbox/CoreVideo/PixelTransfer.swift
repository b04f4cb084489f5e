/// Converts and scales pixel buffers with libswscale — what `VTPixelTransferSession` does.
///
/// Conversion follows what the `ffmpeg` CLI's automatic scale filter does, so that output equals
/// `ffmpeg -pix_fmt FORMAT` bit for bit: bicubic scaling (`SWS_BICUBIC`), the source's YCbCr
/// matrix from its colour attachments (BT.601 when unspecified), the source's range, and the
/// destination range the destination FourCC names (`'420v'` video, `'420f'` full).
///
/// A GPU surface is converted on the GPU when its driver can (``SurfaceProcessing``, VA video
/// processing: the result is a GPU surface too), on the CPU otherwise; ``path`` says which, and why.
///
/// With ``toneMapsHDRToSDR`` on, an HDR picture converted to an 8-bit format is tone mapped first
/// (``ToneMapping``): on the GPU in the same processing call, on the CPU with ``ToneMapper``.
///
/// Not thread-safe: a session uses its own on its queue.
final class PixelTransfer {
    /// The libswscale context, kept between conversions.
    private let scaler = Scaler()
    private var pool: PixelBufferPool?
    /// The GPU converter of the surfaces' device, made at the first GPU surface.
    private var processor: (any SurfaceProcessing)?
    /// Whether GPU surfaces may be converted on the GPU (``PixelTransferSession`` lets the
    /// application turn it off).
    var convertsOnGPU = true
    /// Whether HDR pictures converted to an 8-bit format are tone mapped to SDR (off: their code
    /// values are converted as they are).
    var toneMapsHDRToSDR = false
    /// The CPU's tone mapper, made at the first picture it maps.
    private var toneMapper: ToneMapper?

    /// The pool the last CPU conversion drew from.
    var currentPool: PixelBufferPool? { pool }
    /// Where the last conversion ran; nil before the first.
    private(set) var path: PixelTransferPath?

    /// Converts `source` into a buffer of `format`, `width` x `height`: a GPU surface on the GPU
    /// when its driver can, else on the CPU into a buffer from a pool that is made (or remade,
    /// when the size changes) as needed.
    ///
    /// - Throws: ``VTError/pixelTransferNotSupported`` when libswscale cannot convert between
    ///   the formats; ``VTError/allocationFailed`` when memory runs out.
    func transfer(_ source: PixelBuffer, to format: PixelFormat, width: Int, height: Int, minimumBufferCount: Int)
        throws(VTError) -> PixelBuffer
    {
        let toneMaps = toneMapsHDRToSDR && ToneMapping.applies(to: source, making: format)
        if let converted = onGPU(
            source, to: format, width: width, height: height, minimumBufferCount, toneMapping: toneMaps)
        {
            return converted
        }
        let source = toneMaps ? try toneMapped(source) : source
        // The tone mapper's picture is a new buffer: when it is what was asked for, it goes out
        // without another copy.
        if toneMaps, source.pixelFormat == format, source.width == width, source.height == height {
            return source
        }
        if pool == nil || pool?.pixelFormat != format || pool?.width != width || pool?.height != height {
            pool = try PixelBufferPool(
                pixelFormat: format, width: width, height: height, minimumBufferCount: minimumBufferCount)
        }
        guard let pool, let destinationFormat = format.ffmpeg else {
            throw VTError.pixelTransferNotSupported.with("VAToolbox cannot produce \(format)")
        }
        let destination = try pool.makePixelBuffer()
        try transfer(source, into: destination, destinationFormat: destinationFormat)
        return destination
    }

    /// Converts and scales `source` into `destination`, whose format and size say what to make.
    ///
    /// - Throws: ``VTError/pixelTransferNotSupported`` when libswscale cannot convert between
    ///   the formats or `destination` is a GPU surface; ``VTError/allocationFailed`` when a
    ///   destination the decoder shares cannot be copied to be written.
    func transfer(_ source: PixelBuffer, into destination: PixelBuffer) throws(VTError) {
        guard !destination.isGPUSurface, let destinationFormat = destination.pixelFormat.ffmpeg else {
            throw VTError.pixelTransferNotSupported.with(
                "VAToolbox cannot write into a \(destination.isGPUSurface ? "GPU surface" : "\(destination.pixelFormat) buffer")"
            )
        }
        // Locking for writing copies a buffer the decoder still shares, so a reference picture is
        // never written.
        try destination.withLockedPlanesForWriting { _ throws(VTError) in }
        // A GPU surface converted on the GPU is read back into the destination: one read-back of
        // the converted picture instead of the source's and a conversion on the CPU.
        let toneMaps = toneMapsHDRToSDR && ToneMapping.applies(to: source, making: destination.pixelFormat)
        if let converted = onGPU(
            source, to: destination.pixelFormat, width: destination.width, height: destination.height, 0,
            toneMapping: toneMaps)
        {
            try converted.withFrame { (input: Frame) throws(VTError) in
                try destination.withFrameToWrite { (output: Frame) throws(VTError) in
                    try output.copyPixels(from: input)
                    output.copyPictureDescription(from: input)
                }
            }
            destination.addCopiedBytes(destination.rawVideoByteCount)
            return
        }
        let source = toneMaps ? try toneMapped(source) : source
        try transfer(source, into: destination, destinationFormat: destinationFormat)
    }

    /// `source` tone mapped on the CPU.
    private func toneMapped(_ source: PixelBuffer) throws(VTError) -> PixelBuffer {
        let mapper = toneMapper ?? ToneMapper()
        toneMapper = mapper
        return try mapper.map(source)
    }

    /// `source` converted on the GPU when it is a GPU surface and its driver can; nil otherwise,
    /// with ``path`` saying why.
    private func onGPU(
        _ source: PixelBuffer, to format: PixelFormat, width: Int, height: Int, _ minimumBufferCount: Int,
        toneMapping: Bool
    ) -> PixelBuffer? {
        guard let device = source.surfaceDevice else {
            path = .cpu(reason: nil)
            return nil
        }
        guard convertsOnGPU else {
            path = .cpu(reason: "GPU conversion turned off")
            return nil
        }
        let processor = self.processor ?? device.makeProcessor()
        self.processor = processor
        switch processor.process(
            source, to: format, width: width, height: height, minimumBufferCount: minimumBufferCount,
            toneMapping: toneMapping)
        {
        case .success(let converted):
            path = .gpu
            return converted
        case .failure(let refusal):
            path = .cpu(reason: refusal.reason)
            return nil
        }
    }

    private func transfer(_ source: PixelBuffer, into destination: PixelBuffer, destinationFormat: PixelLayout)
        throws(VTError)
    {
        try source.withFrame { (input: Frame) throws(VTError) in
            try destination.withFrameToWrite { (output: Frame) throws(VTError) in
                try scaler.scale(
                    input, into: output, outputLayout: destinationFormat,
                    outputFullRange: destination.pixelFormat.isFullRange)
            }
        }
        destination.addCopiedBytes(destination.rawVideoByteCount)
    }
}

extension PixelFormat {
    /// Whether the FourCC names full-range samples (`'420f'`, `'f420'`, `'xf20'`); RGB counts as full.
    var isFullRange: Bool { [.nv12FullRange, .yuv420PlanarFullRange, .p010FullRange, .bgra, .rgb24].contains(self) }
}
