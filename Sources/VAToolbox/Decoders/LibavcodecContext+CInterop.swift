internal import CFFmpeg

// The C-typed entry points of the libavcodec layer, for the callers that still configure
// libavcodec and read its frames in C: `VAAPIBackend` (its hwaccel set-up, its surface frames)
// and `Media` (the codec IDs libavformat reports). Each goes when its caller moves into a C
// layer; everything here forwards to the Swift entry points.

extension LibavcodecContext {
    /// ``init(formatDescription:preferredDecoders:configure:)`` with the `AVCodecContext` itself
    /// to configure, for the hwaccel's set-up.
    convenience init(
        formatDescription: VideoFormatDescription, preferredDecoders: [String] = [],
        configure: (UnsafeMutablePointer<AVCodecContext>) throws(VTError) -> Void
    ) throws(VTError) {
        try self.init(formatDescription: formatDescription, preferredDecoders: preferredDecoders) {
            (context: DecoderContext) throws(VTError) in try configure(context.pointer)
        }
    }

    /// ``send(_:token:picture:)`` with a picture maker that reads the `AVFrame`.
    func send(
        _ data: [UInt8], token: Int64, picture: (UnsafeMutablePointer<AVFrame>) throws(VTError) -> DecodedPicture
    ) -> (pictures: [DecodedPicture], error: VTError?) {
        send(data, token: token) { (frame: Frame) throws(VTError) in try picture(frame.pointer) }
    }

    /// ``drain(picture:)`` with a picture maker that reads the `AVFrame`.
    func drain(picture: (UnsafeMutablePointer<AVFrame>) throws(VTError) -> DecodedPicture) -> [DecodedPicture] {
        drain { (frame: Frame) throws(VTError) in try picture(frame.pointer) }
    }

    /// ``picture(of:surfaceAccess:)`` for a CPU `AVFrame`.
    static func picture(from frame: UnsafeMutablePointer<AVFrame>) throws(VTError) -> DecodedPicture {
        try picture(of: Frame(frame))
    }

    /// ``picture(of:surfaceAccess:)`` for an `AVFrame`.
    static func picture(
        from frame: UnsafeMutablePointer<AVFrame>, surfaceAccess: (any SurfaceAccess)?
    ) throws(VTError) -> DecodedPicture {
        try picture(of: Frame(frame), surfaceAccess: surfaceAccess)
    }
}

extension PixelBuffer {
    /// ``withSurface(_:)`` with the `AVFrame`.
    func withSurfaceFrame<Result>(_ body: (UnsafePointer<AVFrame>?) throws(VTError) -> Result) throws(VTError)
        -> Result
    {
        try withSurface { (frame: Frame?) throws(VTError) -> Result in
            try body(frame.map { UnsafePointer($0.pointer) })
        }
    }

    /// ``withFrameToWrite(_:)`` with the `AVFrame`.
    func withFrameForWriting<Result>(_ body: (UnsafeMutablePointer<AVFrame>) throws(VTError) -> Result) throws(VTError)
        -> Result
    {
        try withFrameToWrite { (frame: Frame) throws(VTError) -> Result in try body(frame.pointer) }
    }
}

extension CodecRegistry {
    /// ``support(forLibavcodecID:)`` for an `AVCodecID`.
    static func support(forLibavcodecID id: AVCodecID) -> (any CodecSupport)? {
        support(forLibavcodecID: CodecID(id))
    }
}

extension Int32 {
    /// An `AVFrame.format` value as a pixel format.
    var pixelFormat: AVPixelFormat { AVPixelFormat(rawValue: self) }
}
