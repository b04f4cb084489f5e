/// Which decoder a session uses and how it runs — the `decoderSpecification` dictionary of
/// `VTDecompressionSessionCreate` plus the session properties that tune the decoder.
public struct DecoderSpecification: Sendable, Hashable {
    /// Whether to decode on the GPU.
    public enum HardwareAcceleration: Sendable, Hashable {
        /// Use the GPU when one can decode the stream, the CPU otherwise (the default;
        /// `kVTVideoDecoderSpecification_EnableHardwareAcceleratedVideoDecoder`).
        case preferred
        /// Use the GPU or fail with ``VTError/couldNotFindVideoDecoder``
        /// (`kVTVideoDecoderSpecification_RequireHardwareAcceleratedVideoDecoder`).
        case required
        /// Decode on the CPU.
        case disabled
    }

    /// Whether to decode on the GPU.
    public var hardwareAcceleration: HardwareAcceleration
    /// The DRM render node to use (for example `/dev/dri/renderD129`); nil picks one.
    public var renderNodePath: String?
    /// Decoding threads for the software decoder (`kVTDecompressionPropertyKey_ThreadCount`);
    /// 0, the default, uses one per core.
    public var threadCount: Int
    /// Low-delay decoding (`kVTDecompressionPropertyKey_RealTime`): slice threads instead of
    /// frame threads, so no frame waits for other threads, and on a stream without reordering a
    /// synchronous ``DecompressionSession/decodeFrame(_:flags:frameRefcon:)`` hands out its own
    /// picture before it returns. Output order is unchanged. It can also be set on a live session
    /// (``DecompressionSession/realTime``).
    public var realTime: Bool
    /// After this many GPU faults in a row (frames reported as
    /// ``VTError/videoDecoderMalfunction``), a session whose hardware acceleration is
    /// ``HardwareAcceleration/preferred`` continues on the CPU, from the samples since the last
    /// random access point when the session keeps them, else from the next sync sample. At least 1.
    public var maximumConsecutiveHardwareFaults: Int
    /// The largest pictures the session decodes, and an optional budget for decoded-picture
    /// memory: streams past them are refused before anything is allocated (``PictureLimits``).
    public var pictureLimits: PictureLimits
    /// The longest the session waits for the GPU to answer one call (submitting a sample,
    /// waiting for a picture, draining): 10 seconds by default, as Chromium's GPU watchdog waits
    /// on Linux (`kGpuWatchdogTimeout`), far above the 2 seconds after which Windows declares a
    /// GPU hung, so that a GPU shared with other work is not taken for a hung one. A call whose
    /// thread is still runnable at the limit (waiting for a busy CPU, not for the GPU) gets the
    /// limit again, up to 4 times. A GPU that does not answer in time is taken to be hung: its frames
    /// are reported with ``VTError/videoDecoderMalfunction``, and a
    /// ``HardwareAcceleration/preferred`` session goes on on the CPU, decoding again the samples
    /// since the last random access point so that no frame is lost (Docs/Hardware.md, "A GPU that
    /// hangs"). Any ``DecompressionSession`` call therefore returns within about this time even
    /// while a driver is stuck.
    public var hardwareResponseLimit: Duration

    /// Creates a specification.
    ///
    /// The user's environment may change the default: `VATOOLBOX_HWACCEL=none` turns
    /// ``HardwareAcceleration/preferred`` into ``HardwareAcceleration/disabled``, `=vaapi` into
    /// ``HardwareAcceleration/required``; `VATOOLBOX_RENDER_NODE` names the node when
    /// `renderNodePath` is nil. An explicit `.required` or `.disabled` is never overridden.
    public init(
        hardwareAcceleration: HardwareAcceleration = .preferred, renderNodePath: String? = nil, threadCount: Int = 0,
        realTime: Bool = false, maximumConsecutiveHardwareFaults: Int = 3,
        pictureLimits: PictureLimits = PictureLimits(), hardwareResponseLimit: Duration = .seconds(10)
    ) {
        self.hardwareAcceleration = hardwareAcceleration
        self.renderNodePath = renderNodePath
        self.threadCount = threadCount
        self.realTime = realTime
        self.maximumConsecutiveHardwareFaults = maximumConsecutiveHardwareFaults
        self.pictureLimits = pictureLimits
        self.hardwareResponseLimit = hardwareResponseLimit
    }
}

/// What the output images should look like — `destinationImageBufferAttributes`.
///
/// With every field nil the session hands out its native format
/// (``DecompressionSession/nativePixelFormat``): the GPU's surfaces without a copy, the CPU
/// decoder's pictures packed into the same layout. A CPU session asked for its decoder's planar
/// format (``DecompressionSession/planarPixelFormat(for:)``) hands out the decoder's pictures
/// without a copy. Anything else is produced by libswscale into buffers from the session's
/// ``DecompressionSession/pixelBufferPool``.
public struct ImageBufferAttributes: Sendable, Hashable {
    /// `kCVPixelBufferPixelFormatTypeKey`; nil keeps the native format, which is the same on the
    /// GPU and the CPU (NV12 or P010 for 4:2:0 streams).
    public var pixelFormat: PixelFormat?
    /// `kCVPixelBufferWidthKey`: scale pictures to this width; nil keeps the stream's.
    public var width: Int?
    /// `kCVPixelBufferHeightKey`: scale pictures to this height; nil keeps the stream's.
    public var height: Int?
    /// `kCVPixelBufferPoolMinimumBufferCountKey`: buffers the pool allocates up front.
    public var minimumBufferCount: Int
    /// Whether HDR pictures (PQ or HLG transfer) handed out in an 8-bit format are tone mapped to
    /// SDR BT.709 (a VAToolbox addition; off by default, as VideoToolbox's decompression session
    /// converts without tone mapping). With no ``pixelFormat``, an HDR picture goes out in the
    /// 8-bit format of its native layout (`'420v'` for P010, `'y420'` for 10-bit planar); SDR
    /// pictures are not changed. On the GPU when the driver lists VA's HDR tone mapping filter
    /// (``DecompressionSession/pixelTransferPath`` says where). Docs/DecompressionSession.md,
    /// "HDR to SDR".
    public var toneMapsHDRToSDR: Bool

    /// Creates attributes — `destinationImageBufferAttributes`; every argument is optional.
    ///
    /// - Parameters:
    ///   - pixelFormat: The output format (``PixelFormat/nv12VideoRange``, ``PixelFormat/bgra``,
    ///     …); nil keeps the decoder's native format.
    ///   - width: Scale pictures to this width; nil keeps the stream's.
    ///   - height: Scale pictures to this height; nil keeps the stream's.
    ///   - minimumBufferCount: Buffers the session's pool allocates up front.
    ///   - toneMapsHDRToSDR: Whether HDR pictures handed out in an 8-bit format are tone mapped.
    public init(
        pixelFormat: PixelFormat? = nil, width: Int? = nil, height: Int? = nil, minimumBufferCount: Int = 0,
        toneMapsHDRToSDR: Bool = false
    ) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.minimumBufferCount = minimumBufferCount
        self.toneMapsHDRToSDR = toneMapsHDRToSDR
    }
}
