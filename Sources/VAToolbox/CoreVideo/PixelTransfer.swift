internal import CFFmpeg

/// Converts and scales pixel buffers with libswscale — what `VTPixelTransferSession` does.
///
/// Conversion follows what the `ffmpeg` CLI's automatic scale filter does, so that output equals
/// `ffmpeg -pix_fmt FORMAT` bit for bit: bicubic scaling (`SWS_BICUBIC`), the source's YCbCr
/// matrix from its colour attachments (BT.601 when unspecified), the source's range, and the
/// destination range the destination FourCC names (`'420v'` video, `'420f'` full).
///
/// Not thread-safe: a session uses its own on its queue.
final class PixelTransfer {
    private var context: OpaquePointer?
    /// What ``context`` was made for.
    private var contextKey: ContextKey?
    private var pool: PixelBufferPool?

    /// The sizes, formats and ranges a libswscale context is made for.
    private struct ContextKey: Equatable {
        var sourceWidth, sourceHeight: Int32
        var sourceFormat: Int32
        var destinationWidth, destinationHeight: Int32
        var destinationFormat: Int32
        var sourceFullRange, destinationFullRange: Bool
    }

    /// A bicubic context with both ranges set before `sws_init_context`, as the ffmpeg CLI's scale
    /// filter makes it. libswscale picks its unscaled copies (yuv420p ↔ NV12 among them), which
    /// ignore the range, only when the ranges it is initialised with are equal (libswscale/utils.c,
    /// `sws_init_context`, its "unscaled special cases"); ranges given afterwards through
    /// `sws_setColorspaceDetails` alone left a '420f' picture of a video-range stream in video
    /// range, and a 'y420' picture of a full-range stream in full range.
    private static func makeContext(_ key: ContextKey) -> OpaquePointer? {
        guard let context = sws_alloc_context() else { return nil }
        let raw = UnsafeMutableRawPointer(context)
        let options: [(String, Int64)] = [
            ("srcw", Int64(key.sourceWidth)), ("srch", Int64(key.sourceHeight)),
            ("src_format", Int64(key.sourceFormat)), ("dstw", Int64(key.destinationWidth)),
            ("dsth", Int64(key.destinationHeight)), ("dst_format", Int64(key.destinationFormat)),
            ("sws_flags", Int64(SWS_BICUBIC)), ("src_range", key.sourceFullRange ? 1 : 0),
            ("dst_range", key.destinationFullRange ? 1 : 0),
        ]
        for (name, value) in options where av_opt_set_int(raw, name, value, 0) < 0 {
            sws_freeContext(context)
            return nil
        }
        guard sws_init_context(context, nil, nil) >= 0 else {
            sws_freeContext(context)
            return nil
        }
        return context
    }

    deinit { sws_freeContext(context) }

    /// The pool the last conversion drew from.
    var currentPool: PixelBufferPool? { pool }

    /// Converts `source` into a buffer of `format`, `width` x `height`, from a pool that is made
    /// (or remade, when the size changes) as needed.
    ///
    /// - Throws: ``VTError/pixelTransferNotSupported`` when libswscale cannot convert between
    ///   the formats; ``VTError/allocationFailed`` when memory runs out.
    func transfer(_ source: PixelBuffer, to format: PixelFormat, width: Int, height: Int, minimumBufferCount: Int)
        throws(VTError) -> PixelBuffer
    {
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
        try transfer(source, into: destination, destinationFormat: destinationFormat)
    }

    private func transfer(_ source: PixelBuffer, into destination: PixelBuffer, destinationFormat: AVPixelFormat)
        throws(VTError)
    {
        try source.withFrame { (input: UnsafePointer<AVFrame>) throws(VTError) in
            try destination.withFrameForWriting { (output: UnsafeMutablePointer<AVFrame>) throws(VTError) in
                try convert(
                    input, into: output, destinationFormat: destinationFormat,
                    destinationFullRange: destination.pixelFormat.isFullRange)
            }
        }
        destination.addCopiedBytes(destination.rawVideoByteCount)
    }

    private func convert(
        _ input: UnsafePointer<AVFrame>, into output: UnsafeMutablePointer<AVFrame>, destinationFormat: AVPixelFormat,
        destinationFullRange: Bool
    ) throws(VTError) {
        let sourceFormat = input.pointee.format.pixelFormat
        guard sws_isSupportedInput(sourceFormat) > 0, sws_isSupportedOutput(destinationFormat) > 0 else {
            throw VTError.pixelTransferNotSupported.with("libswscale cannot convert between these pixel formats")
        }
        let sourceFull: Int32 = input.pointee.color_range == AVCOL_RANGE_JPEG ? 1 : 0
        let key = ContextKey(
            sourceWidth: input.pointee.width, sourceHeight: input.pointee.height, sourceFormat: sourceFormat.rawValue,
            destinationWidth: output.pointee.width, destinationHeight: output.pointee.height,
            destinationFormat: destinationFormat.rawValue, sourceFullRange: sourceFull != 0,
            destinationFullRange: destinationFullRange)
        if key != contextKey {
            sws_freeContext(context)
            context = Self.makeContext(key)
            contextKey = context == nil ? nil : key
        }
        guard let context else {
            throw VTError.pixelTransferNotSupported.with("libswscale refused the conversion")
        }
        // The source's matrix (sws_getCoefficients falls back to BT.601 for unspecified values)
        // and range, as the ffmpeg CLI's scale filter sets them.
        let matrix = sws_getCoefficients(Int32(input.pointee.colorspace.rawValue))
        _ = sws_setColorspaceDetails(
            context, matrix, sourceFull, matrix, destinationFullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
        let status = CFFmpeg_sws_scale_frame(context, input, output)
        guard status > 0 else {
            throw VTError.pixelTransferNotSupported.with("libswscale converted nothing (status \(status))")
        }
        output.pointee.color_range = destinationFullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        output.pointee.colorspace = input.pointee.colorspace
        output.pointee.color_primaries = input.pointee.color_primaries
        output.pointee.color_trc = input.pointee.color_trc
        output.pointee.sample_aspect_ratio = input.pointee.sample_aspect_ratio
        output.pointee.interlaced_frame = input.pointee.interlaced_frame
        output.pointee.top_field_first = input.pointee.top_field_first
    }
}

extension PixelFormat {
    /// Whether the FourCC names full-range samples (`'420f'`, `'f420'`, `'xf20'`); RGB counts as full.
    var isFullRange: Bool { [.nv12FullRange, .yuv420PlanarFullRange, .p010FullRange, .bgra, .rgb24].contains(self) }
}
