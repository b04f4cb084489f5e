import Dispatch
import Synchronization

/// Decodes compressed frames into pixel buffers — `VTDecompressionSession`.
///
/// ```swift
/// let session = try DecompressionSession(formatDescription: format) { output in
///     guard output.status == nil, let image = output.imageBuffer else { return }
///     show(image, at: output.presentationTimeStamp)
/// }
/// for sample in samples {
///     try session.decodeFrame(sample, flags: [.enableAsynchronousDecompression])
/// }
/// try session.finishDelayedFrames()
/// try session.waitForAsynchronousFrames()
/// session.invalidate()
/// ```
///
/// ## Semantics
/// - **One call per frame.** The output handler runs exactly once for every frame that
///   ``decodeFrame(_:flags:frameRefcon:)`` accepted: with a picture, with an error status, or
///   with ``DecodeInfoFlags/frameDropped``. It runs serially (never concurrently with itself), on
///   the session's own queue, and never after ``invalidate()`` returns. A call that throws did not
///   accept its frame, and no output comes for it.
/// - **Presentation order, always.** Frames come out in presentation order (B-frames reordered),
///   each with the time stamps, duration and refcon of its own sample. VideoToolbox emits in
///   decode order unless ``DecodeFrameFlags/enableTemporalProcessing`` is set; this session
///   always reorders, deliberately: code written for decode order sorts anyway, and code written
///   for presentation order then works without the flag.
/// - **Synchronous** decoding returns after every frame that can be output has been handed to the
///   handler; frames held back for reordering come with later calls or with
///   ``finishDelayedFrames()``. With frame threads (the default, for throughput) libavcodec also
///   holds pictures back by its thread count; in real-time mode (``realTime``), and always on the
///   GPU (which runs no frame threads), a stream without reordering has each picture out before
///   its `decodeFrame` returns. In the temporal deinterlace mode (``DeinterlaceMode/temporal``)
///   a frame decoded with ``DecodeFrameFlags/enableTemporalProcessing`` goes out one picture
///   later still, as Apple documents the mode's pipeline delay. **Asynchronous** decoding returns at once; at most
///   ``maximumFramesInFlight`` frames wait for the decoder, and a call beyond that blocks.
/// - **Damage** gives ``VTError/videoDecoderBadData`` (or ``VTError/videoDecoderReferenceMissing``)
///   for the frames it touches; decoding goes on and is clean again from the next sync sample.
/// - **GPU or CPU.** With the default specification the session decodes on a VA-API render node
///   when one can decode the stream, on the CPU otherwise; ``usingHardwareAcceleratedVideoDecoder``
///   and ``hardwareUnavailableReason`` say which and why. A GPU picture the driver failed to
///   decode comes out as ``VTError/videoDecoderMalfunction`` without an image; after
///   ``DecoderSpecification/maximumConsecutiveHardwareFaults`` of them in a row a `.preferred`
///   session moves to the CPU, which decodes the samples since the last random access point
///   again (or, when they are not kept, starts at the next sync sample).
///
/// Thread safety: every method may be called from any thread, also from inside the output handler.
/// A call from inside the handler runs at once on the session's queue: `finishDelayedFrames()` or
/// `invalidate()` called there hands out the remaining frames through nested handler calls before
/// it returns (the only way to keep "no output after `invalidate()` returns").
public final class DecompressionSession: Sendable {
    /// The output handler's type.
    public typealias OutputHandler = @Sendable (DecompressionOutput) -> Void

    /// The format description of the stream being decoded (it changes when a new one is accepted).
    public var formatDescription: VideoFormatDescription { state.withLock { $0.formatDescription } }
    /// Whether the GPU decodes (`kVTDecompressionPropertyKey_UsingHardwareAcceleratedVideoDecoder`).
    /// It turns false when the session moves to the CPU after GPU faults.
    public var usingHardwareAcceleratedVideoDecoder: Bool { state.withLock { $0.hardware != nil } }
    /// Why the GPU is not used, when it is not: hardware acceleration disabled, no render node,
    /// permission denied, no VA driver, a profile or size the driver lacks, or GPU faults — per
    /// render node tried. Nil while the GPU decodes.
    public var hardwareUnavailableReason: String? { state.withLock { $0.hardwareUnavailableReason } }
    /// Where the last picture was converted for the image-buffer attributes (another format or
    /// size): ``PixelTransferPath/gpu`` when the driver's video processing did it and the
    /// picture is still a GPU surface, ``PixelTransferPath/cpu(reason:)`` with why a GPU picture
    /// was not converted there. Nil before the first conversion, and when nothing is converted.
    public var pixelTransferPath: PixelTransferPath? { state.withLock { $0.pixelTransferPath } }
    /// Where ``FieldMode/deinterlaceFields`` last deinterlaced a GPU picture:
    /// ``PixelTransferPath/gpu`` when the driver's video processing did it (VA's Bob, or its
    /// motion-adaptive deinterlacing in ``DeinterlaceMode/temporal``; the picture is still a GPU
    /// surface), ``PixelTransferPath/cpu(reason:)`` with why it was read back and filtered on the
    /// CPU (libpostproc's vertical filter, libavfilter's bwdif). Nil before the first, and on the CPU.
    public var deinterlacingPath: PixelTransferPath? { state.withLock { $0.deinterlacingPath } }
    /// GPU calls still running in a driver past the session's bound
    /// (``DecoderSpecification/hardwareResponseLimit``), in the whole process. Each is a thread
    /// stuck in a hung driver, holding the decoder it was called on (its libavcodec context,
    /// surfaces and VA display) until the driver returns; it is 0 unless a GPU hung. Not part of
    /// VideoToolbox.
    public static var stuckHardwareCalls: Int { WatchdogBackend.stuckCalls }
    /// The render node decoding, while the GPU decodes.
    public var renderNode: RenderNode? { state.withLock { $0.hardware?.renderNode } }
    /// What the GPU path decided on this driver so far (the surface pool it allocated, how it read
    /// surfaces back), for diagnostics; nil on the CPU. Not part of VideoToolbox.
    public var hardwareDecisions: HardwareDecisions? { state.withLock { $0.hardware?.decisions.current } }
    /// The pixel format the session hands out for its first format description when no other
    /// format is requested. (A later format with another bit depth or chroma format changes it;
    /// each ``PixelBuffer`` says its own.)
    ///
    /// It is the same on the GPU and on the CPU: VideoToolbox's bi-planar formats for 4:2:0
    /// streams of 8 and 10 bits (NV12 `'420v'`/`'420f'`, P010 `'x420'`/`'xf20'`), the planar
    /// format of the CPU decoder for the streams no GPU decodes (`'y422'`, `'y4l0'`, `'y0l2'`,
    /// `'Y800'`, …). See ``nativePixelFormat(for:)``.
    public let nativePixelFormat: PixelFormat
    /// The decoder's settings: those of creation, with the real-time mode and thread count as
    /// last set (see ``setProperty(_:to:)``).
    public var decoderSpecification: DecoderSpecification { state.withLock { $0.specification } }
    /// The most asynchronous frames waiting for the decoder before ``decodeFrame(_:flags:frameRefcon:)``
    /// blocks (default 8; at least 1). Set it before decoding.
    public var maximumFramesInFlight: Int {
        get { inFlightLimit.load(ordering: .relaxed) }
        set { inFlightLimit.store(max(1, newValue), ordering: .relaxed) }
    }
    /// Frames accepted but not yet handed to the output handler (decoding, or held for reordering).
    public var framesInFlight: Int { state.withLock { $0.pending.count } }

    /// The pool the converted output comes from (`VTDecompressionSessionGetPixelBufferPool`); nil
    /// until the first converted picture, and always nil when no conversion is asked for (the
    /// native format, or on the CPU its ``planarPixelFormat(for:)``).
    public var pixelBufferPool: PixelBufferPool? { state.withLock { $0.pool } }

    private let queue: DispatchQueue
    private let onQueue = DispatchSpecificKey<Bool>()
    private let inFlightLimit = Atomic<Int>(8)
    private let inFlight = Atomic<Int>(0)
    let state: SharedSessionState
    /// The decoding itself, on `queue`.
    let decoder: SessionDecoder

    /// Creates a session — `VTDecompressionSessionCreate`.
    ///
    /// - Parameters:
    ///   - formatDescription: The stream's description.
    ///   - decoderSpecification: GPU or CPU, threads, real-time mode.
    ///   - imageBufferAttributes: The output format; nil keeps the decoder's native format.
    ///   - outputHandler: Called once per decoded frame (see ``DecompressionSession``).
    /// - Throws: ``VTError/couldNotFindVideoDecoder`` when hardware is required and no render node
    ///   can decode the stream, or the codec, profile or bit depth is not supported (the reason
    ///   says which);
    ///   ``VTError/parameter`` for attributes that name a pixel format VAToolbox cannot produce
    ///   or a size outside 1…16384, or for a VAToolbox environment variable with a value it does
    ///   not take (``EnvironmentVariable``);
    ///   ``VTError/couldNotCreateInstance`` when libavcodec refuses the stream.
    public init(
        formatDescription: VideoFormatDescription, decoderSpecification: DecoderSpecification = DecoderSpecification(),
        imageBufferAttributes: ImageBufferAttributes? = nil, outputHandler: @escaping OutputHandler
    ) throws(VTError) {
        try SoftwareBackend.checkDecodable(formatDescription)
        try Self.check(imageBufferAttributes)
        let specification = try DecoderSelection.effective(decoderSpecification)
        try specification.pictureLimits.check(
            formatDescription, decodingThreads: DecoderSelection.expectedDecodingThreads(for: specification))
        let choice = try DecoderSelection.choose(
            for: formatDescription, specification: specification, requested: decoderSpecification,
            heldSurfaces: DecoderSelection.defaultHeldSurfaces + (imageBufferAttributes?.minimumBufferCount ?? 0))
        let native = Self.nativePixelFormat(for: formatDescription)
        let wantsTransfer = Self.wantsTransfer(imageBufferAttributes, native: native)
        nativePixelFormat = native
        var initial = SessionState(formatDescription: formatDescription, specification: specification)
        initial.hardwareUnavailableReason = choice.hardwareUnavailableReason
        initial.hardware = choice.backend.hardware
        initial.decodingThreads = choice.backend.decodingThreads
        initial.imageBufferAttributes = imageBufferAttributes
        initial.outputPoolMinimumBufferCount = imageBufferAttributes?.minimumBufferCount ?? 0
        let state = SharedSessionState(initial)
        self.state = state
        decoder = SessionDecoder(
            backend: choice.backend, formatDescription: formatDescription,
            settings: DecoderSettings(specification: specification),
            transfer: wantsTransfer
                ? PixelTransferJob(attributes: imageBufferAttributes ?? ImageBufferAttributes()) : nil,
            shared: state, outputHandler: outputHandler)
        queue = DispatchQueue(label: "VAToolbox.DecompressionSession")
        queue.setSpecific(key: onQueue, value: true)
    }

    deinit {
        invalidate()
    }

    /// Decodes one frame — `VTDecompressionSessionDecodeFrame`.
    ///
    /// A sample whose format description differs from the session's is accepted when
    /// ``canAcceptFormatDescription(_:)`` says so: the new configuration (parameter sets, sequence
    /// header) is then sent to the decoder in band, ahead of the sample.
    ///
    /// - Parameters:
    ///   - sample: One access unit (H.264/HEVC: length-prefixed NAL units; AV1: a temporal unit;
    ///     VP8/VP9: a frame or superframe; MPEG-2: a picture).
    ///   - flags: Asynchronous decoding, do-not-output, and hints.
    ///   - frameRefcon: A value handed back with this frame's output.
    /// - Returns: ``DecodeInfoFlags/asynchronous`` when the frame is decoded asynchronously.
    /// - Throws: ``VTError/invalidSession`` after ``invalidate()``;
    ///   ``VTError/formatDescriptionChangeNotSupported`` for a format the session cannot take.
    @discardableResult
    public func decodeFrame(
        _ sample: SampleBuffer, flags: DecodeFrameFlags = [], frameRefcon: (any Sendable)? = nil
    ) throws(VTError) -> DecodeInfoFlags {
        let isAsynchronous =
            flags.contains(.enableAsynchronousDecompression) && DispatchQueue.getSpecific(key: onQueue) == nil
        let job = try state.withLock { (state: inout SessionState) throws(VTError) -> SessionDecoder.Job in
            guard !state.isInvalidated else {
                throw VTError.invalidSession.with("decodeFrame was called after invalidate()")
            }
            var startsNewFormat = false
            if !sample.formatDescription.isEqualIgnoringExtensions(state.formatDescription) {
                try state.specification.pictureLimits.check(
                    sample.formatDescription,
                    decodingThreads: DecoderSelection.expectedDecodingThreads(for: state.specification))
                guard canAccept(sample.formatDescription, in: state) else {
                    throw VTError.formatDescriptionChangeNotSupported.with(
                        "the sample's format (\(sample.formatDescription)) cannot follow \(state.formatDescription) in this session",
                        hint: "create a new session for it")
                }
                state.formatDescription = sample.formatDescription
                startsNewFormat = true
            }
            let token = state.nextToken
            state.nextToken += 1
            state.pending[token] = PendingFrame(
                timing: sample.timing, flags: flags, refcon: frameRefcon,
                doNotDisplay: sample.attachments.contains(.doNotDisplay))
            return SessionDecoder.Job(
                token: token, sample: sample, startsNewFormat: startsNewFormat,
                inBandConfiguration: startsNewFormat
                    ? sample.formatDescription.codecSupport.inBandConfiguration(for: sample) : [])
        }
        if isAsynchronous {
            while inFlight.add(1, ordering: .acquiringAndReleasing).newValue > maximumFramesInFlight {
                inFlight.subtract(1, ordering: .acquiringAndReleasing)
                queue.sync {}  // wait for the queue to make room
            }
            queue.async {
                self.decoder.run(job)
                self.inFlight.subtract(1, ordering: .acquiringAndReleasing)
            }
            return .asynchronous
        }
        onQueueSync { decoder.run(job) }
        return []
    }

    /// Whether the session can go on decoding samples of `newFormat` —
    /// `VTDecompressionSessionCanAcceptFormatDescription`.
    ///
    /// True for the same codec (and, for H.264/HEVC, the same NAL unit length size), in a profile
    /// and bit depth the decoder supports: the decoder reconfigures from the new configuration,
    /// which the session sends in band ahead of the next sample (resolution, profile and
    /// bit-depth changes included). False otherwise: create a new session.
    public func canAcceptFormatDescription(_ newFormat: VideoFormatDescription) -> Bool {
        state.withLock { !$0.isInvalidated && canAccept(newFormat, in: $0) }
    }

    /// Waits until every asynchronous frame has been decoded and every delayed frame handed out —
    /// `VTDecompressionSessionWaitForAsynchronousFrames`.
    ///
    /// As Apple's does, it finishes the delayed frames itself (see ``finishDelayedFrames()``), so
    /// that "wait, then invalidate" loses no picture: when it returns, every frame accepted before
    /// the call has had its output.
    ///
    /// - Throws: ``VTError/invalidSession`` after ``invalidate()``.
    public func waitForAsynchronousFrames() throws(VTError) {
        try checkValid()
        onQueueSync { decoder.finishDelayedFrames() }
    }

    /// Hands out every frame the decoder holds back for reordering —
    /// `VTDecompressionSessionFinishDelayedFrames` — and waits for them.
    ///
    /// Decoding then goes on with the decoder's references intact, as in VideoToolbox: libavcodec
    /// can only hand out its last pictures by draining, which drops its references, so the session
    /// drains it and sends it the samples since the last random access point again with their
    /// output suppressed. After an open random access point (an HEVC CRA picture, an H.264 open-GOP
    /// I picture, an MPEG-2 I picture of an open GOP) the replay starts at the point before, while
    /// the open point's leading pictures, which refer to that GOP, may still come. That costs about
    /// one decode of those samples (a GOP so far, two at most) per call, and the session keeps their
    /// compressed bytes (at most 64 MiB; past that, and before decoding has reached a random access
    /// point, decoding restarts at the next sync sample instead, and the non-sync samples before it
    /// come back with ``VTError/videoDecoderReferenceMissing`` and ``DecodeInfoFlags/frameDropped``). Frames decoded after a finish may come out before
    /// frames emitted by it in presentation order (B-frames whose later references were emitted).
    /// To start afresh without references (a seek), give the next sample
    /// ``SampleAttachments/resetDecoderBeforeDecoding``.
    ///
    /// - Throws: ``VTError/invalidSession`` after ``invalidate()``.
    public func finishDelayedFrames() throws(VTError) {
        try checkValid()
        onQueueSync { decoder.finishDelayedFrames() }
    }

    /// Ends the session — `VTDecompressionSessionInvalidate`.
    ///
    /// Frames still waiting are handed to the output handler as ``DecodeInfoFlags/frameDropped``
    /// with status ``VTError/invalidSession`` before this returns; after it returns the handler is
    /// never called again, and every method throws ``VTError/invalidSession``. Calling it again
    /// does nothing.
    public func invalidate() {
        let wasValid = state.withLock { state -> Bool in
            defer { state.isInvalidated = true }
            return !state.isInvalidated
        }
        guard wasValid else { return }
        onQueueSync { decoder.invalidate() }
    }

    // MARK: - The queue

    /// Decodes one sample on the session's queue without blocking the caller's thread: the
    /// asynchronous front's way in. Returns the error `decodeFrame` would throw.
    func decodeOnQueue(_ sample: SampleBuffer) async -> VTError? {
        await withCheckedContinuation { (continuation: CheckedContinuation<VTError?, Never>) in
            queue.async {
                do throws(VTError) {
                    try self.decodeFrame(sample)
                    continuation.resume(returning: nil)
                } catch {
                    continuation.resume(returning: error)
                }
            }
        }
    }

    /// Finishes delayed frames on the session's queue without blocking the caller's thread.
    func finishOnQueue() async {
        await withCheckedContinuation { continuation in
            queue.async {
                try? self.finishDelayedFrames()
                continuation.resume()
            }
        }
    }

    /// Runs `body` on the queue and waits, or runs it at once when already on the queue (a call
    /// from inside the output handler).
    func onQueueSync(_ body: () -> Void) {
        if DispatchQueue.getSpecific(key: onQueue) == true {
            body()
        } else {
            queue.sync(execute: body)
        }
    }

    func checkValid() throws(VTError) {
        if state.withLock({ $0.isInvalidated }) {
            throw VTError.invalidSession.with("the session was invalidated")
        }
    }

    // MARK: - Rules

    /// Checks that attributes describe something the session can produce.
    static func check(_ attributes: ImageBufferAttributes?) throws(VTError) {
        guard let attributes else { return }
        if let format = attributes.pixelFormat, format.ffmpeg == nil {
            throw VTError.parameter.with("pixel format \(format) is not one VAToolbox can produce")
        }
        for (name, value) in [("width", attributes.width), ("height", attributes.height)] {
            if let value, !(1...16384).contains(value) {
                throw VTError.parameter.with("the requested \(name) \(value) is outside 1…16384")
            }
        }
        guard attributes.minimumBufferCount >= 0 else {
            throw VTError.parameter.with("minimumBufferCount is negative")
        }
    }

    /// Whether attributes ask for anything but the decoder's own pictures: another format, a
    /// size, or tone mapping.
    static func wantsTransfer(_ attributes: ImageBufferAttributes?, native: PixelFormat) -> Bool {
        guard let attributes else { return false }
        return (attributes.pixelFormat != nil && attributes.pixelFormat != native) || attributes.width != nil
            || attributes.height != nil || attributes.toneMapsHDRToSDR
    }

    /// The conversion job `attributes` ask for, nil when they ask for the native pictures.
    func transferJob(for attributes: ImageBufferAttributes?) -> PixelTransferJob? {
        guard let attributes, Self.wantsTransfer(attributes, native: nativePixelFormat) else { return nil }
        return PixelTransferJob(attributes: attributes)
    }

    /// Whether the session can go on with `newFormat`: the codec's rule for following a stream
    /// in band, a stream the CPU decoder supports and, when the GPU is required, one the GPU's
    /// driver decodes.
    private func canAccept(_ newFormat: VideoFormatDescription, in state: SessionState) -> Bool {
        let current = state.formatDescription
        guard current.codecSupport.canFollow(current, with: newFormat),
            (try? SoftwareBackend.checkDecodable(newFormat)) != nil
        else { return false }
        guard state.specification.hardwareAcceleration == .required, let hardware = state.hardware else { return true }
        return (try? hardware.capabilities.profile(for: newFormat).get()) != nil
    }

    /// The pixel format a session hands out for a stream when no other format is requested, on
    /// the GPU and on the CPU alike — the format VideoToolbox decodes H.264 and HEVC to:
    ///
    /// | Stream                          | Native format                   |
    /// |---------------------------------|---------------------------------|
    /// | 4:2:0, 8 bits (and H.264 4:0:0) | `'420v'` (NV12), `'420f'` full range |
    /// | 4:2:0, 10 bits                  | `'x420'` (P010), `'xf20'` full range |
    /// | anything else (CPU only)        | ``planarPixelFormat(for:)``      |
    ///
    /// The GPU decodes to these formats. On the CPU libavcodec decodes to planar formats: a 4:2:0
    /// picture is then packed into the bi-planar layout (the luma plane shared, the chroma
    /// interleaved; 10-bit samples moved to the high bits), a cost ``planarPixelFormat(for:)``
    /// avoids for a caller that wants planar pictures.
    public static func nativePixelFormat(for format: VideoFormatDescription) -> PixelFormat {
        BiPlanarPacker.handOutFormat(
            for: planarPixelFormat(for: format), fullRange: format.extensions.fullRangeVideo)
    }

    /// The native pixel format of a stream on the GPU (`hardware`) or the CPU: the same on both,
    /// ``nativePixelFormat(for:)``.
    @available(
        *, deprecated, renamed: "nativePixelFormat(for:)", message: "the native format is the same on both paths"
    )
    public static func nativePixelFormat(for format: VideoFormatDescription, hardware: Bool) -> PixelFormat {
        nativePixelFormat(for: format)
    }

    /// The planar pixel format libavcodec decodes a stream to on the CPU (`'y420'`, `'f420'`,
    /// `'y0l0'`, `'y422'`, …; FFmpeg's `yuv420p` and its kin, the format the `ffmpeg` CLI writes
    /// and hashes).
    ///
    /// Asked for through ``ImageBufferAttributes/pixelFormat``, it is handed out by a CPU session
    /// without any copy (the decoder's own frame memory); a GPU session converts its NV12 or P010
    /// pictures to it.
    public static func planarPixelFormat(for format: VideoFormatDescription) -> PixelFormat {
        format.codecSupport.softwarePixelFormat(for: format)
    }
}
