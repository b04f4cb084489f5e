#if _endian(big)
    #error("BiPlanarPacker builds its sample pairs as little-endian words")
#endif

/// Hands the CPU decoder's planar 4:2:0 pictures out in VideoToolbox's bi-planar layout, the
/// GPU's layout: `'y420'`/`'f420'` as NV12 (`'420v'`/`'420f'`), `'y0l0'` as P010
/// (`'x420'`/`'xf20'`, by the picture's range). Other pictures pass through unchanged.
///
/// No libswscale and no intermediate buffer: NV12 keeps the decoder's luma plane (a reference,
/// not a copy) and only the chroma is written, Cb and Cr interleaved into a pooled plane; P010
/// is written once, each sample moved to the high bits. The loops are plain enough for the
/// optimiser to vectorise (Docs/Benchmarks.md has the cost against libswscale's copy).
///
/// Not thread-safe: a session uses its own on its queue.
final class BiPlanarPacker {
    /// The interleaved chroma planes of NV12 pictures, one size at a time.
    private var chromaPool: PlanePool?
    /// The P010 pictures, one format and size at a time.
    private var wordPool: PixelBufferPool?

    /// The format a picture of `format` (whose frame is full range or not) is handed out in:
    /// its bi-planar counterpart, or itself when it has none.
    static func handOutFormat(for format: PixelFormat, fullRange: Bool) -> PixelFormat {
        format.biPlanarCounterpart(fullRange: fullRange) ?? format
    }

    /// The format `image` is handed out in by ``pack(_:)``.
    static func handOutFormat(of image: PixelBuffer) -> PixelFormat {
        // Only the 10-bit planar FourCC leaves the range to the frame: read it only then.
        guard image.pixelFormat == .yuv420Planar10 else {
            return handOutFormat(for: image.pixelFormat, fullRange: false)
        }
        return handOutFormat(for: image.pixelFormat, fullRange: image.attachments.fullRange)
    }

    /// `image` in the bi-planar layout, or `image` itself when it has no bi-planar counterpart
    /// (4:2:2, 4:4:4, 12-bit, luma only) or already is one (a GPU picture).
    ///
    /// - Throws: ``VTError/allocationFailed`` when memory runs out.
    func pack(_ image: PixelBuffer) throws(VTError) -> PixelBuffer {
        let target = Self.handOutFormat(of: image)
        guard target != image.pixelFormat else { return image }
        return try image.withFrame { (source: Frame) throws(VTError) -> PixelBuffer in
            target == .nv12VideoRange || target == .nv12FullRange
                ? try nv12(from: source, format: target) : try p010(from: source, format: target)
        }
    }

    /// An NV12 frame that shares the source's luma plane and has its chroma interleaved.
    private func nv12(from source: Frame, format: PixelFormat) throws(VTError) -> PixelBuffer {
        let pairs = (source.width + 1) / 2
        let rows = (source.height + 1) / 2
        let pitch = (2 * pairs + PixelBufferPool.rowAlignment - 1) & ~(PixelBufferPool.rowAlignment - 1)
        if chromaPool?.size != pitch * rows { chromaPool = try PlanePool(size: pitch * rows) }
        guard let chromaPool, let cb = source.data(1), let cr = source.data(2) else {
            throw VTError.allocationFailed.with("referencing the decoder's luma plane")
        }
        let owned = try FrameReference.nv12(
            sharingLumaOf: source, chromaFrom: chromaPool, chromaBytesPerRow: pitch, chromaRows: rows)
        guard let chromaData = owned.frame.data(1) else {
            throw VTError.allocationFailed.with("a pooled chroma plane without memory")
        }
        let cbPitch = source.bytesPerRow(1)
        let crPitch = source.bytesPerRow(2)
        let pairsOut = UnsafeMutableRawPointer(chromaData)
        for row in 0..<rows {
            Self.interleave(
                cb + row * cbPitch, cr + row * crPitch, into: pairsOut + row * pitch, count: pairs)
        }
        return PixelBuffer(taking: owned, pixelFormat: format, copiedByteCount: 2 * pairs * rows)
    }

    /// A P010 frame written from a 10-bit planar one.
    private func p010(from source: Frame, format: PixelFormat) throws(VTError) -> PixelBuffer {
        let width = source.width
        let height = source.height
        if wordPool?.pixelFormat != format || wordPool?.width != width || wordPool?.height != height {
            wordPool = try PixelBufferPool(pixelFormat: format, width: width, height: height)
        }
        guard let wordPool else { throw VTError.allocationFailed.with("allocating a P010 pool") }
        let destination = try wordPool.makePixelBuffer()
        try destination.withFrameToWrite { (frame: Frame) throws(VTError) in
            try frame.copyProperties(from: source, "describing a P010 frame")
            guard let luma = source.data(0), let cb = source.data(1), let cr = source.data(2),
                let lumaOut = frame.data(0), let chromaOut = frame.data(1)
            else { throw VTError.allocationFailed.with("a P010 frame without planes") }
            let pitches = (0..<3).map { source.bytesPerRow($0) }
            let lumaOutPitch = frame.bytesPerRow(0)
            let chromaOutPitch = frame.bytesPerRow(1)
            for row in 0..<height {
                Self.moveToHighBits(luma + row * pitches[0], into: lumaOut + row * lumaOutPitch, count: width)
            }
            for row in 0..<(height + 1) / 2 {
                Self.interleaveToHighBits(
                    cb + row * pitches[1], cr + row * pitches[2], into: chromaOut + row * chromaOutPitch,
                    count: (width + 1) / 2)
            }
        }
        destination.addCopiedBytes(destination.rawVideoByteCount)
        return destination
    }

    // MARK: - The loops

    // Each output sample pair is one wider word built from the two inputs, little-endian (Cb in
    // the low half): a zero-extend, shift and or per lane, which the optimiser vectorises, where
    // stores to alternate bytes need shuffles it may not find.

    /// Writes `count` (Cb, Cr) byte pairs from a row of Cb and a row of Cr.
    private static func interleave(
        _ cb: UnsafePointer<UInt8>, _ cr: UnsafePointer<UInt8>, into output: UnsafeMutableRawPointer, count: Int
    ) {
        let pairs = output.assumingMemoryBound(to: UInt16.self)
        for index in 0..<count {
            pairs[index] = UInt16(cb[index]) | UInt16(cr[index]) << 8
        }
    }

    /// Writes `count` 16-bit samples with the 10 bits of each input sample (low bits, as
    /// libavcodec's planar formats hold them) moved to the high bits, as P010 holds them.
    private static func moveToHighBits(
        _ input: UnsafeMutablePointer<UInt8>, into output: UnsafeMutablePointer<UInt8>, count: Int
    ) {
        let samples = UnsafeRawPointer(input).assumingMemoryBound(to: UInt16.self)
        let words = UnsafeMutableRawPointer(output).assumingMemoryBound(to: UInt16.self)
        for index in 0..<count {
            words[index] = samples[index] << 6
        }
    }

    /// Writes `count` (Cb, Cr) pairs of 16-bit samples, each moved to the high bits.
    private static func interleaveToHighBits(
        _ cb: UnsafeMutablePointer<UInt8>, _ cr: UnsafeMutablePointer<UInt8>,
        into output: UnsafeMutablePointer<UInt8>, count: Int
    ) {
        let cbSamples = UnsafeRawPointer(cb).assumingMemoryBound(to: UInt16.self)
        let crSamples = UnsafeRawPointer(cr).assumingMemoryBound(to: UInt16.self)
        let pairs = UnsafeMutableRawPointer(output).assumingMemoryBound(to: UInt32.self)
        for index in 0..<count {
            pairs[index] = UInt32(cbSamples[index] << 6) | UInt32(crSamples[index] << 6) << 16
        }
    }
}

extension PixelFormat {
    /// VideoToolbox's bi-planar format for a planar 4:2:0 format of 8 or 10 bits: `'420v'`,
    /// `'420f'`, `'x420'` or `'xf20'` (the 10-bit planar FourCC names no range: `fullRange`
    /// says it). Nil for every other format.
    func biPlanarCounterpart(fullRange: Bool) -> PixelFormat? {
        switch self {
        case .yuv420Planar: .nv12VideoRange
        case .yuv420PlanarFullRange: .nv12FullRange
        case .yuv420Planar10: fullRange ? .p010FullRange : .p010VideoRange
        default: nil
        }
    }
}
