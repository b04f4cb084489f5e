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
        return try rgb.withFrame { (frame: Frame) throws(VTError) -> [UInt8] in try PNGEncoder.encode(frame) }
    }
}
