internal import CFFmpeg

extension StreamParameters {
    /// Reads a stream's codec parameters.
    ///
    /// - Parameters:
    ///   - parameters: libavformat's codec parameters of the stream.
    ///   - containerAspectRatio: The stream's sample aspect ratio as the container states it
    ///     (Matroska display size, MP4 `pasp`); it wins over the codec's, as in the ffmpeg CLI.
    init(_ parameters: AVCodecParameters, containerAspectRatio: AVRational = AVRational(num: 0, den: 1)) {
        configurationRecord =
            parameters.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(parameters.extradata_size))) }
            ?? []
        width = Int(parameters.width)
        height = Int(parameters.height)
        profile = parameters.profile >= 0 ? Int(parameters.profile) : nil
        profileName =
            parameters.profile >= 0
            ? avcodec_profile_name(parameters.codec_id, parameters.profile).map { String(cString: $0) } : nil
        level = parameters.level >= 0 ? Int(parameters.level) : nil
        let format = AVPixelFormat(rawValue: parameters.format)
        pixelFormatName = av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "unknown"
        if let descriptor = av_pix_fmt_desc_get(format) {
            let layout = descriptor.pointee
            bitDepth = Int(layout.comp.0.depth)
            let isRGB = layout.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
            switch (layout.nb_components, layout.log2_chroma_w, layout.log2_chroma_h) {
            case _ where isRGB: chromaFormatIdc = nil
            case (1, _, _), (2, _, _): chromaFormatIdc = 0
            case (_, 1, 1): chromaFormatIdc = 1
            case (_, 1, 0): chromaFormatIdc = 2
            case (_, 0, 0): chromaFormatIdc = 3
            case (_, 0, 1): chromaFormatIdc = StreamProperties.chromaFormat440
            default: chromaFormatIdc = nil
            }
        } else {
            bitDepth = 8
            chromaFormatIdc = 1
        }
        fullRange = parameters.color_range == AVCOL_RANGE_JPEG || format == AV_PIX_FMT_YUVJ420P
        colorPrimaries = Self.specified(Int(parameters.color_primaries.rawValue))
        transferCharacteristics = Self.specified(Int(parameters.color_trc.rawValue))
        matrixCoefficients = Self.specified(Int(parameters.color_space.rawValue))
        // AVChromaLocation counts from 1 (left = 1); chroma_sample_loc_type from 0.
        let location = Int(parameters.chroma_location.rawValue)
        chromaLocation = location > 0 ? location - 1 : nil
        mayBeInterlaced = parameters.field_order != AV_FIELD_PROGRESSIVE && parameters.field_order != AV_FIELD_UNKNOWN
        let ratio = containerAspectRatio.num > 0 ? containerAspectRatio : parameters.sample_aspect_ratio
        pixelAspectRatio =
            ratio.num > 0 && ratio.den > 0
            ? PixelAspectRatio(horizontalSpacing: Int(ratio.num), verticalSpacing: Int(ratio.den)) : nil
        reorderDepth = Int(max(0, parameters.video_delay))
        codecTag = parameters.codec_tag
    }

    /// A colour code point, nil for 2 (unspecified) and anything out of range.
    private static func specified(_ code: Int) -> UInt8? {
        code == 2 || code < 0 || code > 255 ? nil : UInt8(code)
    }
}
