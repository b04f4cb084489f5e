internal import CFFmpeg

/// Converts and scales one frame into another with libswscale, as the `ffmpeg` CLI's automatic
/// scale filter does: bicubic scaling (`SWS_BICUBIC`), the source's YCbCr matrix (BT.601 when
/// unspecified) and range, and the destination range the caller names.
///
/// Keeps one libswscale context, remade when the sizes, layouts or ranges change. Not
/// thread-safe: one conversion at a time.
final class Scaler {
    private var context: OpaquePointer?
    /// What ``context`` was made for.
    private var contextKey: ContextKey?
    /// The context that unpacks a semi-planar source (see ``unpacked(_:)``), and what it was made for.
    private var unpacker: OpaquePointer?
    private var unpackerKey: ContextKey?

    /// Creates a scaler; its context is made at the first conversion.
    init() {}

    deinit {
        sws_freeContext(context)
        sws_freeContext(unpacker)
    }

    /// The sizes, layouts and ranges a libswscale context is made for.
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
    /// `sws_setColorspaceDetails` alone would leave the range unconverted.
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

    /// Converts and scales `input` into `output`, a CPU frame whose size says what to make, in
    /// `outputLayout`; `output` then carries `input`'s colour description, aspect and fields, and
    /// the range asked for.
    ///
    /// - Throws: ``VTError/pixelTransferNotSupported`` when libswscale cannot convert between
    ///   the layouts or refuses the conversion.
    func scale(_ input: Frame, into output: Frame, outputLayout: PixelLayout, outputFullRange: Bool) throws(VTError) {
        let destination = output.pointer
        let destinationFormat = AVPixelFormat(rawValue: outputLayout.rawValue)
        // A GPU surface's NV12 or P010 is converted from its planar unpacking: what the decoder
        // gives the CPU path, whose conversion it must equal (libswscale converts planar input
        // to RGB by its own unscaled routes, and semi-planar input by the general one).
        let unpacked =
            input.pointer.pointee.format != destinationFormat.rawValue
                || input.pointer.pointee.width != destination.pointee.width
                || input.pointer.pointee.height != destination.pointee.height
            ? try self.unpacked(input) : nil
        defer {
            var planar = unpacked
            av_frame_free(&planar)
        }
        let source = unpacked ?? input.pointer
        let sourceFormat = AVPixelFormat(rawValue: source.pointee.format)
        // The same layout, size and range: a copy. libswscale's unscaled copy of a semi-planar
        // layout into itself leaves the chroma plane at 0 (FFmpeg 5.1, Debian 12: NV12, NV21 and
        // P010 alike; ScalerTests), which is a black-and-green picture rather than this one.
        if sourceFormat == destinationFormat, source.pointee.width == destination.pointee.width,
            source.pointee.height == destination.pointee.height,
            (source.pointee.color_range == AVCOL_RANGE_JPEG) == outputFullRange
        {
            let status = av_frame_copy(destination, source)
            guard status >= 0 else {
                throw FFmpegStatus.error(status, "av_frame_copy", "copying the picture")
                    .replacingStatus(with: .pixelTransferNotSupported)
            }
            Self.describe(destination, like: source, fullRange: outputFullRange)
            return
        }
        guard sws_isSupportedInput(sourceFormat) > 0, sws_isSupportedOutput(destinationFormat) > 0 else {
            throw VTError.pixelTransferNotSupported.with("libswscale cannot convert between these pixel formats")
        }
        let sourceFull: Int32 = source.pointee.color_range == AVCOL_RANGE_JPEG ? 1 : 0
        let key = ContextKey(
            sourceWidth: source.pointee.width, sourceHeight: source.pointee.height,
            sourceFormat: sourceFormat.rawValue, destinationWidth: destination.pointee.width,
            destinationHeight: destination.pointee.height, destinationFormat: destinationFormat.rawValue,
            sourceFullRange: sourceFull != 0, destinationFullRange: outputFullRange)
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
        let matrix = sws_getCoefficients(Int32(source.pointee.colorspace.rawValue))
        _ = sws_setColorspaceDetails(context, matrix, sourceFull, matrix, outputFullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
        let status = CFFmpeg_sws_scale_frame(context, source, destination)
        guard status > 0 else {
            throw VTError.pixelTransferNotSupported.with("libswscale converted nothing (status \(status))")
        }
        Self.describe(destination, like: source, fullRange: outputFullRange)
    }

    /// Gives `destination` the colour description, aspect and fields of `source`, converted to
    /// `destination`'s size, and the range asked for.
    private static func describe(
        _ destination: UnsafeMutablePointer<AVFrame>, like source: UnsafeMutablePointer<AVFrame>, fullRange: Bool
    ) {
        destination.pointee.color_range = fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        destination.pointee.colorspace = source.pointee.colorspace
        destination.pointee.color_primaries = source.pointee.color_primaries
        destination.pointee.color_trc = source.pointee.color_trc
        // The displayed shape stays, as the ffmpeg CLI's scale filter keeps it (vf_scale.c
        // config_props): a known aspect ratio times (input width × output height) / (input height
        // × output width).
        let aspect = source.pointee.sample_aspect_ratio
        if aspect.num > 0, aspect.den > 0 {
            destination.pointee.sample_aspect_ratio = av_mul_q(
                AVRational(
                    num: destination.pointee.height * source.pointee.width,
                    den: destination.pointee.width * source.pointee.height), aspect)
        } else {
            destination.pointee.sample_aspect_ratio = aspect
        }
        destination.pointee.interlaced_frame = source.pointee.interlaced_frame
        destination.pointee.top_field_first = source.pointee.top_field_first
    }

    /// A planar copy of an NV12 or P010 frame (yuv420p, yuv420p10le: libswscale's unscaled
    /// copies, exact), with its properties; nil for a frame of another layout. The caller frees it.
    private func unpacked(_ input: Frame) throws(VTError) -> UnsafeMutablePointer<AVFrame>? {
        let source = input.pointer
        let planarFormat: AVPixelFormat
        switch AVPixelFormat(rawValue: source.pointee.format) {
        case AV_PIX_FMT_NV12: planarFormat = AV_PIX_FMT_YUV420P
        case AV_PIX_FMT_P010LE: planarFormat = AV_PIX_FMT_YUV420P10LE
        default: return nil
        }
        let fullRange = source.pointee.color_range == AVCOL_RANGE_JPEG
        let key = ContextKey(
            sourceWidth: source.pointee.width, sourceHeight: source.pointee.height, sourceFormat: source.pointee.format,
            destinationWidth: source.pointee.width, destinationHeight: source.pointee.height,
            destinationFormat: planarFormat.rawValue, sourceFullRange: fullRange, destinationFullRange: fullRange)
        if key != unpackerKey {
            sws_freeContext(unpacker)
            unpacker = Self.makeContext(key)
            unpackerKey = unpacker == nil ? nil : key
        }
        guard let unpacker, let planar = av_frame_alloc() else {
            throw VTError.pixelTransferNotSupported.with("libswscale cannot unpack the picture")
        }
        planar.pointee.format = planarFormat.rawValue
        planar.pointee.width = source.pointee.width
        planar.pointee.height = source.pointee.height
        guard av_frame_get_buffer(planar, 0) >= 0, CFFmpeg_sws_scale_frame(unpacker, source, planar) > 0 else {
            var unwanted: UnsafeMutablePointer<AVFrame>? = planar
            av_frame_free(&unwanted)
            throw VTError.allocationFailed.with("unpacking the picture for conversion")
        }
        av_frame_copy_props(planar, source)
        return planar
    }
}
