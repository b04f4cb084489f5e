import Synchronization

/// Converts and scales images between pixel buffers — `VTPixelTransferSession`.
///
/// The conversion is the one a ``DecompressionSession`` applies for its
/// ``ImageBufferAttributes`` and the `vatoolbox` tool uses: libswscale with the settings of the
/// `ffmpeg` CLI's automatic scale filter — bicubic scaling, the source's YCbCr matrix from its
/// colour attachments (BT.601 when unspecified) and its range, and the range the destination's
/// pixel format names (`'420v'` video, `'420f'` full, RGB full). Converting a decoded picture to
/// ``PixelFormat/nv12VideoRange``, ``PixelFormat/p010VideoRange`` or ``PixelFormat/bgra``
/// gives the bytes `ffmpeg -pix_fmt nv12|p010le|bgra [-s WxH]` gives.
///
/// ```swift
/// let transfer = PixelTransferSession()
/// let thumbnail = try transfer.transferImage(picture, pixelFormat: .bgra, width: 160, height: 90)
/// ```
///
/// A GPU surface (a picture decoded on VA-API) given to
/// ``transferImage(_:pixelFormat:width:height:)`` is converted on the GPU when its driver can —
/// VA video processing, as FFmpeg's `scale_vaapi` — into a GPU surface of the format asked for
/// (BGRA, NV12 or P010), which stays on the GPU until it is locked or exported;
/// ``lastTransferPath`` says where, and why not on the GPU. Docs/Hardware.md, "Video
/// processing", lists what each driver converts.
///
/// A session keeps its libswscale context, its GPU converter and a pool of destination buffers
/// between calls; it may be used from any thread, one conversion at a time.
public final class PixelTransferSession: Sendable {
    /// The converter, one call at a time.
    private let converter: Mutex<PixelTransfer>

    /// Creates a session — `VTPixelTransferSessionCreate`.
    ///
    /// - Parameter convertsOnGPU: Whether GPU surfaces may be converted on the GPU (true); false
    ///   reads them back and converts on the CPU.
    public init(convertsOnGPU: Bool = true) {
        let transfer = PixelTransfer()
        transfer.convertsOnGPU = convertsOnGPU
        converter = Mutex(transfer)
    }

    /// Whether an HDR picture (PQ or HLG) converted to an 8-bit format is tone mapped to SDR
    /// BT.709 first (a VAToolbox addition, off by default as VideoToolbox's is): on the GPU where
    /// the driver lists VA's HDR tone mapping filter, else on the CPU with libavfilter's
    /// `zscale` and `tonemap` (the chain Docs/DecompressionSession.md, "HDR to SDR", gives).
    public var toneMapsHDRToSDR: Bool {
        get { converter.withLock { $0.toneMapsHDRToSDR } }
        set { converter.withLock { $0.toneMapsHDRToSDR = newValue } }
    }

    /// Where the last ``transferImage(_:pixelFormat:width:height:)`` converted: on the GPU, or
    /// on the CPU and why a GPU surface was not converted there; nil before the first.
    public var lastTransferPath: PixelTransferPath? {
        converter.withLock { $0.path }
    }

    /// Converts and scales `source` into `destination` — `VTPixelTransferSessionTransferImage`.
    ///
    /// The destination's pixel format and size say what to make; its planes are overwritten. A
    /// destination that shares its memory with a decoder is copied first (see
    /// ``PixelBuffer/withLockedPlanesForWriting(_:)``), so no reference picture is ever written.
    ///
    /// - Parameters:
    ///   - source: The image to read; a GPU surface is read back.
    ///   - destination: The image to write, in CPU memory, for example from a
    ///     ``PixelBufferPool``.
    /// - Throws: ``VTError/pixelTransferNotSupported`` when libswscale cannot convert between
    ///   the two formats or `destination` is a GPU surface; ``VTError/allocationFailed`` when
    ///   memory runs out.
    public func transferImage(_ source: PixelBuffer, to destination: PixelBuffer) throws(VTError) {
        try converter.withLock { (transfer: inout PixelTransfer) throws(VTError) in
            try transfer.transfer(source, into: destination)
        }
    }

    /// Converts and scales `source` into a new buffer of `pixelFormat`.
    ///
    /// A GPU surface is converted on the GPU into a GPU surface when its driver can (see above);
    /// otherwise the buffer comes from a pool the session keeps for the last format and size
    /// asked for, so a loop over pictures of one size allocates only a handful.
    ///
    /// - Parameters:
    ///   - source: The image to read; a GPU surface is converted on the GPU, or read back.
    ///   - pixelFormat: The destination's format, for example ``PixelFormat/bgra``.
    ///   - width: The destination's width; nil keeps the source's.
    ///   - height: The destination's height; nil keeps the source's.
    /// - Returns: The converted image (its ``PixelBuffer/copiedByteCount`` counts the copy).
    /// - Throws: ``VTError/parameter`` for a size outside 1…16384 or a format VAToolbox cannot
    ///   allocate; ``VTError/pixelTransferNotSupported`` when libswscale cannot convert between
    ///   the formats; ``VTError/allocationFailed`` when memory runs out.
    public func transferImage(
        _ source: PixelBuffer, pixelFormat: PixelFormat, width: Int? = nil, height: Int? = nil
    ) throws(VTError) -> PixelBuffer {
        try converter.withLock { (transfer: inout PixelTransfer) throws(VTError) -> PixelBuffer in
            try transfer.transfer(
                source, to: pixelFormat, width: width ?? source.width, height: height ?? source.height,
                minimumBufferCount: 0)
        }
    }
}
