internal import CFFmpeg

extension PixelBuffer {
    /// The image as a PNG file: 8-bit RGB, encoded by libavcodec's PNG encoder.
    ///
    /// VideoToolbox leaves this to ImageIO (`CGImageDestination`); here it is one call. A buffer
    /// in another format is converted to ``PixelFormat/rgb24`` first, as
    /// ``PixelTransferSession`` converts (the `ffmpeg` CLI's settings), so the PNG holds the
    /// pixels `ffmpeg -i INPUT -frames:v 1 OUT.png` writes for an 8-bit picture. Pictures of more
    /// than 8 bits are reduced to 8 (ffmpeg writes those as 16-bit PNGs).
    ///
    /// ```swift
    /// let png = try picture.pngData()
    /// FileManager.default.createFile(atPath: "frame.png", contents: Data(png))
    /// ```
    ///
    /// - Returns: The bytes of the PNG file.
    /// - Throws: ``VTError/pixelTransferNotSupported`` when the image cannot be converted to RGB;
    ///   ``VTError/couldNotFindVideoEncoder`` when this libavcodec was built without its PNG
    ///   encoder; ``VTError/allocationFailed`` when memory runs out;
    ///   ``VTError/videoEncoderMalfunction`` when the encoder fails.
    public func pngData() throws(VTError) -> [UInt8] {
        let rgb =
            pixelFormat == .rgb24
            ? self
            : try PixelTransfer().transfer(self, to: .rgb24, width: width, height: height, minimumBufferCount: 0)
        return try rgb.withFrame { (frame: UnsafePointer<AVFrame>) throws(VTError) -> [UInt8] in
            try PNGEncoding.encode(frame)
        }
    }
}

/// libavcodec's PNG encoder, one picture at a time.
enum PNGEncoding {
    /// Encodes an `AV_PIX_FMT_RGB24` frame.
    static func encode(_ frame: UnsafePointer<AVFrame>) throws(VTError) -> [UInt8] {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG) else {
            throw VTError.couldNotFindVideoEncoder.with(
                "this libavcodec has no PNG encoder", hint: "install a libavcodec built with its PNG encoder")
        }
        var context = avcodec_alloc_context3(codec)
        var packet = av_packet_alloc()
        defer {
            avcodec_free_context(&context)
            av_packet_free(&packet)
        }
        guard let context, let packet else { throw VTError.allocationFailed.with("setting up the PNG encoder") }
        context.pointee.width = frame.pointee.width
        context.pointee.height = frame.pointee.height
        context.pointee.pix_fmt = AV_PIX_FMT_RGB24
        context.pointee.time_base = AVRational(num: 1, den: 25)
        try check(avcodec_open2(context, codec, nil), "avcodec_open2", "opening the PNG encoder")
        try check(avcodec_send_frame(context, frame), "avcodec_send_frame", "encoding a PNG")
        try check(avcodec_receive_packet(context, packet), "avcodec_receive_packet", "encoding a PNG")
        guard let data = packet.pointee.data, packet.pointee.size > 0 else {
            throw VTError.videoEncoderMalfunction.with("the PNG encoder returned no data")
        }
        return Array(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
    }

    /// An encoder status as an error: out of memory as itself, anything else as an encoder
    /// malfunction, with libavcodec's message as the cause.
    private static func check(_ status: Int32, _ function: StaticString, _ step: String) throws(VTError) {
        guard status < 0 else { return }
        let error = FFmpegStatus.error(status, function, step)
        throw error == VTError.allocationFailed
            ? error : VTError.videoEncoderMalfunction.with(step + " failed", cause: error.cause)
    }
}
