/// The largest pictures a session decodes, and how much decoded-picture memory it may hold —
/// the guard a server decoding untrusted uploads needs: a stream's parameter sets can declare
/// any size (an H.264 SPS 15360×15360, an HEVC SPS 8192×16384), and a decoder that believes them
/// allocates gigabytes before the first slice fails.
///
/// A session checks its format description against them when it is created and each new one a
/// sample brings (``VTError/videoDecoderUnsupportedDataFormat``, naming the size and the limit),
/// before anything is allocated; libavcodec gets the pixel limit too (`max_pixels`), so a size
/// changed in band is refused by the decoder, frame by frame, before it allocates pictures. The
/// GPU refuses sizes past its driver's own maximum; the session then decodes on the CPU
/// (``DecoderSpecification/HardwareAcceleration/preferred``), which obeys these limits.
public struct PictureLimits: Sendable, Hashable {
    /// The widest picture, in pixels (coded width).
    public var maximumWidth: Int
    /// The tallest picture, in pixels (coded height).
    public var maximumHeight: Int
    /// The most pixels one picture may have (coded width × height); nil takes the codec's
    /// default (``defaultMaximumPixels(for:)``).
    public var maximumPixels: Int?
    /// Bytes of decoded pictures the session may hold at once, estimated from the stream before
    /// decoding (``estimatedPictureMemory(for:decodingThreads:)``); nil sets no budget.
    public var maximumPictureMemory: Int?

    /// Creates limits; the defaults refuse only what no real stream asks for.
    ///
    /// - Parameters:
    ///   - maximumWidth: The widest coded picture (default 16384, the widest any codec's levels
    ///     allow).
    ///   - maximumHeight: The tallest coded picture (default 16384).
    ///   - maximumPixels: The most pixels in a picture; nil (the default) takes the codec's
    ///     (``defaultMaximumPixels(for:)``).
    ///   - maximumPictureMemory: A budget for decoded pictures, in bytes; nil (the default) sets none.
    public init(
        maximumWidth: Int = 16384, maximumHeight: Int = 16384, maximumPixels: Int? = nil,
        maximumPictureMemory: Int? = nil
    ) {
        self.maximumWidth = maximumWidth
        self.maximumHeight = maximumHeight
        self.maximumPixels = maximumPixels
        self.maximumPictureMemory = maximumPictureMemory
    }

    /// The pixel limit for a codec when ``maximumPixels`` is nil: 8192 × 8192 (67,108,864, above
    /// 8K UHD and every H.264, HEVC, VP9 and AV1 level's largest picture of 35,651,584), and for
    /// MPEG-2 4096 × 2304 (9,437,184: four times its High level's 1920 × 1152, the largest any
    /// MPEG-2 level defines, and room for 4K UHD).
    public static func defaultMaximumPixels(for codec: VideoCodecType) -> Int {
        CodecRegistry.support(for: codec)?.defaultMaximumPixels ?? 8192 * 8192
    }

    /// The pixel limit that applies to a stream of `codec`.
    func maximumPixels(for codec: VideoCodecType) -> Int {
        maximumPixels ?? Self.defaultMaximumPixels(for: codec)
    }

    /// An upper estimate of the decoded-picture memory a session holds for a stream: one
    /// picture's bytes (coded size, chroma format, 1 or 2 bytes a sample) times the pictures a
    /// decoder may hold — the stream's decoded picture buffer, the picture being decoded, one
    /// per decoding thread, and one the application holds.
    ///
    /// - Parameters:
    ///   - format: The stream's description.
    ///   - decodingThreads: The threads that will decode it.
    public static func estimatedPictureMemory(for format: VideoFormatDescription, decodingThreads: Int) -> Int {
        let pixels = Int(format.codedDimensions.width) * Int(format.codedDimensions.height)
        let stream = format.stream
        let chromaSamples: Int =  // in quarters of the luma samples
            switch stream.chromaFormatIdc {
            case 0: 0
            case 2: 4
            case 3: 8
            default: 2
            }
        let bytesPerSample = max(stream.bitDepthLuma, stream.bitDepthChroma) > 8 ? 2 : 1
        let pictureBytes = pixels * (4 + chromaSamples) / 4 * bytesPerSample
        let pictures = max(stream.maxDecFrameBuffering, 1) + 2 + max(decodingThreads, 1)
        return pictureBytes.multipliedReportingOverflow(by: pictures).overflow
            ? .max : pictureBytes * pictures
    }

    /// Throws when a stream's pictures are past these limits.
    ///
    /// - Parameters:
    ///   - format: The stream's description (its coded size, chroma format and bit depth).
    ///   - decodingThreads: The threads that will decode it (for the memory estimate).
    /// - Throws: ``VTError/videoDecoderUnsupportedDataFormat`` naming the size and the limit.
    public func check(_ format: VideoFormatDescription, decodingThreads: Int) throws(VTError) {
        let width = Int(format.codedDimensions.width)
        let height = Int(format.codedDimensions.height)
        let pixels = width * height
        let hint = "raise DecoderSpecification.pictureLimits to decode it"
        if width > maximumWidth || height > maximumHeight {
            throw VTError.videoDecoderUnsupportedDataFormat.with(
                "the stream's pictures are \(width)x\(height), past the session's limit of "
                    + "\(maximumWidth)x\(maximumHeight)", hint: hint)
        }
        let pixelLimit = maximumPixels(for: format.codecType)
        if pixels > pixelLimit {
            throw VTError.videoDecoderUnsupportedDataFormat.with(
                "the stream's pictures are \(width)x\(height) (\(pixels) pixels), past the session's limit of "
                    + "\(pixelLimit) pixels", hint: hint)
        }
        if let budget = maximumPictureMemory {
            let estimate = Self.estimatedPictureMemory(for: format, decodingThreads: decodingThreads)
            if estimate > budget {
                throw VTError.videoDecoderUnsupportedDataFormat.with(
                    "decoding the stream's \(width)x\(height) pictures may hold \(estimate) bytes of pictures, past "
                        + "the session's budget of \(budget) bytes", hint: hint)
            }
        }
    }
}
