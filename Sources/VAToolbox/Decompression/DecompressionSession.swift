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
///   ``finishDelayedFrames()``. **Asynchronous** decoding returns at once; at most
///   ``maximumFramesInFlight`` frames wait for the decoder, and a call beyond that blocks.
/// - **Damage** gives ``VTError/videoDecoderBadData`` (or ``VTError/videoDecoderReferenceMissing``)
///   for the frames it touches; decoding goes on and is clean again from the next sync sample.
/// - **GPU or CPU.** With the default specification the session decodes on a VA-API render node
///   when one can decode the stream, on the CPU otherwise; ``usingHardwareAcceleratedVideoDecoder``
///   and ``hardwareUnavailableReason`` say which and why. A GPU picture the driver failed to
///   decode comes out as ``VTError/videoDecoderMalfunction`` without an image; after
///   ``DecoderSpecification/maximumConsecutiveHardwareFaults`` of them in a row a `.preferred`
///   session moves to the CPU, from the next sync sample on.
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
    /// The render node decoding, while the GPU decodes.
    public var renderNode: RenderNode? { state.withLock { $0.hardware?.renderNode } }
    /// The pixel format the decoder produces for the session's first format description, handed
    /// out without copying when no other format is requested. (A later format with another bit
    /// depth or chroma format changes it; each ``PixelBuffer`` says its own.)
    public let nativePixelFormat: PixelFormat
    /// The decoder's settings.
    public let decoderSpecification: DecoderSpecification
    /// The most asynchronous frames waiting for the decoder before ``decodeFrame(_:flags:frameRefcon:)``
    /// blocks (default 8; at least 1). Set it before decoding.
    public var maximumFramesInFlight: Int {
        get { inFlightLimit.load(ordering: .relaxed) }
        set { inFlightLimit.store(max(1, newValue), ordering: .relaxed) }
    }
    /// Frames accepted but not yet handed to the output handler (decoding, or held for reordering).
    public var framesInFlight: Int { state.withLock { $0.pending.count } }

    private let outputHandler: OutputHandler
    private let queue: DispatchQueue
    private let onQueue = DispatchSpecificKey<Bool>()
    private let inFlightLimit = Atomic<Int>(8)
    private let inFlight = Atomic<Int>(0)
    private let state: Mutex<State>
    /// The decoder, touched only on `queue`.
    private let decoder: DecoderBox
    /// The converter for requested attributes, touched only on `queue`; nil hands out the
    /// decoder's pictures as they are.
    private let transfer: TransferBox?

    /// The pool the converted output comes from (`VTDecompressionSessionGetPixelBufferPool`); nil
    /// until the first converted picture, and always nil when the native format is handed out
    /// without a copy.
    public var pixelBufferPool: PixelBufferPool? { state.withLock { $0.pool } }

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
    ///   or a size outside 1…16384;
    ///   ``VTError/couldNotCreateInstance`` when libavcodec refuses the stream.
    public init(
        formatDescription: VideoFormatDescription, decoderSpecification: DecoderSpecification = DecoderSpecification(),
        imageBufferAttributes: ImageBufferAttributes? = nil, outputHandler: @escaping OutputHandler
    ) throws(VTError) {
        try Self.checkSupported(formatDescription)
        try Self.check(imageBufferAttributes)
        let specification = DecoderSelection.effective(decoderSpecification)
        let choice = try DecoderSelection.choose(
            for: formatDescription, specification: specification,
            heldSurfaces: DecoderSelection.defaultHeldSurfaces + (imageBufferAttributes?.minimumBufferCount ?? 0))
        let native = Self.nativePixelFormat(for: formatDescription, hardware: choice.decoder.isHardware)
        let wantsTransfer =
            imageBufferAttributes.map {
                ($0.pixelFormat != nil && $0.pixelFormat != native) || $0.width != nil || $0.height != nil
            } ?? false
        transfer = wantsTransfer ? TransferBox(attributes: imageBufferAttributes ?? ImageBufferAttributes()) : nil
        nativePixelFormat = native
        self.decoderSpecification = specification
        self.outputHandler = outputHandler
        decoder = DecoderBox(choice.decoder)
        var initial = State(formatDescription: formatDescription)
        initial.hardwareUnavailableReason = choice.hardwareUnavailableReason
        if let hardware = choice.decoder as? VAAPIDecoder {
            initial.hardware = HardwareState(
                renderNode: hardware.device.renderNode, capabilities: hardware.device.capabilities)
        }
        state = Mutex(initial)
        queue = DispatchQueue(label: "VAToolbox.DecompressionSession")
        queue.setSpecific(key: onQueue, value: true)
    }

    deinit {
        invalidate()
    }

    /// Decodes one frame — `VTDecompressionSessionDecodeFrame`.
    ///
    /// A sample whose format description differs from the session's is accepted when
    /// ``canAcceptFormatDescription(_:)`` says so: its parameter sets are then sent to the decoder
    /// in band, ahead of the sample.
    ///
    /// - Parameters:
    ///   - sample: One access unit, length-prefixed.
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
        let job: Job = try state.withLock { (state: inout State) throws(VTError) -> Job in
            guard !state.isInvalidated else {
                throw VTError.invalidSession.with("decodeFrame was called after invalidate()")
            }
            var parameterSets: [[UInt8]] = []
            if !sample.formatDescription.isEqualIgnoringExtensions(state.formatDescription) {
                guard canAccept(sample.formatDescription, in: state) else {
                    throw VTError.formatDescriptionChangeNotSupported.with(
                        "the sample's format (\(sample.formatDescription)) cannot follow \(state.formatDescription) in this session",
                        hint: "create a new session for it")
                }
                // Send the decoder all of the new description's sets (an unchanged PPS must be
                // re-read against a new SPS), except those the sample carries itself.
                let inBand = Set(sample.nalUnits.filter(\.isParameterSet).map { Array($0.bytes) })
                parameterSets = sample.formatDescription.parameterSets.filter { !inBand.contains($0) }
                state.formatDescription = sample.formatDescription
            }
            let token = state.nextToken
            state.nextToken += 1
            state.pending[token] = Pending(timing: sample.timing, flags: flags, refcon: frameRefcon)
            return Job(token: token, sample: sample, parameterSets: parameterSets)
        }
        if isAsynchronous {
            while inFlight.add(1, ordering: .acquiringAndReleasing).newValue > maximumFramesInFlight {
                inFlight.subtract(1, ordering: .acquiringAndReleasing)
                queue.sync {}  // wait for the queue to make room
            }
            queue.async {
                self.run(job)
                self.inFlight.subtract(1, ordering: .acquiringAndReleasing)
            }
            return .asynchronous
        }
        onQueueSync { run(job) }
        return []
    }

    /// Whether the session can go on decoding samples of `newFormat` —
    /// `VTDecompressionSessionCanAcceptFormatDescription`.
    ///
    /// True for the same codec and NAL unit length size, in a profile and bit depth the decoder
    /// supports: the decoder reconfigures from the new parameter sets, which the session sends in
    /// band ahead of the next sample (resolution, profile and bit-depth changes included). False
    /// otherwise: create a new session.
    public func canAcceptFormatDescription(_ newFormat: VideoFormatDescription) -> Bool {
        state.withLock { !$0.isInvalidated && canAccept(newFormat, in: $0) }
    }

    /// Waits until every asynchronous frame has been decoded and handed out, except those held
    /// for reordering — `VTDecompressionSessionWaitForAsynchronousFrames`.
    ///
    /// - Throws: ``VTError/invalidSession`` after ``invalidate()``.
    public func waitForAsynchronousFrames() throws(VTError) {
        try checkValid()
        onQueueSync {}
    }

    /// Hands out every frame the decoder holds back for reordering —
    /// `VTDecompressionSessionFinishDelayedFrames` — and waits for them.
    ///
    /// Afterwards the decoder starts afresh: it keeps no reference pictures, so decoding continues
    /// at the next sync sample. Non-sync samples decoded before it come back with
    /// ``VTError/videoDecoderReferenceMissing`` and ``DecodeInfoFlags/frameDropped``. Call it at
    /// the end of a stream, or before a seek.
    ///
    /// - Throws: ``VTError/invalidSession`` after ``invalidate()``.
    public func finishDelayedFrames() throws(VTError) {
        try checkValid()
        onQueueSync {
            guard let current = decoder.current else { return }
            var pictures = current.drain()
            deliver(&pictures, lostAfterDrain: true)
            state.withLock {
                $0.needsSync = true
                $0.continuity.reset()
            }
        }
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
        onQueueSync {
            let remaining = state.withLock { state -> [Pending] in
                defer { state.pending.removeAll() }
                return state.pending.sorted { $0.key < $1.key }.map(\.value)
            }
            for pending in remaining {
                outputHandler(
                    pending.output(status: VTError.invalidSession.with("the session was invalidated"), image: nil))
            }
            decoder.release()
        }
    }

    // MARK: - Decoding on the queue

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

    private func run(_ job: Job) {
        let isInvalidated = state.withLock { $0.isInvalidated }
        guard !isInvalidated else { return }  // invalidate() reports the frame
        let skip = state.withLock { state -> Bool in
            if job.sample.isSync { state.needsSync = false }
            if job.sample.formatDescription != state.continuityFormat {
                state.continuity.learn(job.sample.formatDescription)
                state.continuityFormat = job.sample.formatDescription
            }
            if state.continuity.follow(job.sample) {
                state.pending[job.token]?.missingReference =
                    job.sample.formatDescription.codecType == .hevc
                    ? "a reference picture this frame depends on is missing (not in the decoded picture buffer)"
                    : "a reference picture this frame depends on is missing (frame_num gap)"
            }
            if state.continuity.lastWasFieldPicture { state.pending[job.token]?.isFieldPicture = true }
            if state.continuity.lastWasSkippedLeadingPicture {
                state.pending[job.token]?.isSkippedLeadingPicture = true
            }
            if job.sample.isSync {
                state.hardwareFaultSinceSync = false
            } else if state.hardwareFaultSinceSync {
                state.pending[job.token]?.missingReference = Self.afterHardwareFault
            }
            return state.needsSync
        }
        if skip {
            finish(
                job.token,
                status: VTError.videoDecoderReferenceMissing.with("decoding restarts at the next sync sample"),
                image: nil)
            return
        }
        decode(job)
    }

    /// Sends one sample to the decoder and hands out what comes back; moves to the CPU when the
    /// GPU cannot go on and the specification allows it.
    private func decode(_ job: Job) {
        guard let current = decoder.current else {
            finish(
                job.token, status: VTError.couldNotCreateInstance.with("the session has no working decoder"),
                image: nil)
            return
        }
        var data = job.sample.data
        if !job.parameterSets.isEmpty {
            current.adopt(job.sample.formatDescription)
            let lengthSize = job.sample.formatDescription.nalUnitHeaderLength
            data = ((try? AVCC.join(job.parameterSets, lengthSize: lengthSize)) ?? []) + data
        }
        do {
            var pictures = try current.send(data, token: job.token)
            if (current as? VAAPIDecoder)?.faultedDuringLastSend == true { noteHardwareFault(after: job.token) }
            deliver(&pictures, lostAfterDrain: false)
        } catch {
            if let hardware = current as? VAAPIDecoder, let failure = hardware.initializationFailure,
                decoderSpecification.hardwareAcceleration == .preferred
            {
                // libavcodec could not start the hwaccel (a new stream configuration the driver
                // refuses): the sample goes to the CPU instead.
                moveToSoftware(
                    because: "VA-API on \(hardware.device.renderNode.path) could not decode the stream: "
                        + failure.reason, format: job.sample.formatDescription, sentUpTo: job.token - 1)
                if job.sample.isSync {
                    state.withLock { $0.needsSync = false }
                    decode(job)
                } else {
                    finish(
                        job.token,
                        status: VTError.videoDecoderReferenceMissing.with("decoding restarts at the next sync sample"),
                        image: nil)
                }
                return
            }
            // With frame threads libavcodec may report an earlier packet's failure here; the
            // frame is then reported against this sample, and a picture that still comes for it
            // later is not handed out twice (`finish` forgets a token once reported).
            if current.isHardware { countHardwareResult(error, token: job.token) }
            finish(job.token, status: error, image: nil)
        }
        let faults = state.withLock { $0.consecutiveHardwareFaults }
        if faults >= max(1, decoderSpecification.maximumConsecutiveHardwareFaults),
            decoderSpecification.hardwareAcceleration == .preferred, let hardware = current as? VAAPIDecoder
        {
            moveToSoftware(
                because: "the GPU (\(hardware.device.renderNode.path)) failed to decode \(faults) pictures in a row; "
                    + "decoding continues on the CPU from the next sync sample",
                format: job.sample.formatDescription, sentUpTo: job.token)
        }
    }

    private static let afterHardwareFault =
        "the frame may refer to a picture the GPU failed to decode (since the last sync sample)"

    /// Counts GPU faults in a row: a malfunction adds one, a clean picture starts again at zero.
    /// A faulted picture also damages the frames decoded after it up to the next sync sample,
    /// which may refer to it: they are flagged as missing a reference.
    private func countHardwareResult(_ status: VTError?, token: Int64) {
        let isFault = status == VTError.videoDecoderMalfunction
        state.withLock { $0.consecutiveHardwareFaults = isFault ? $0.consecutiveHardwareFaults + 1 : 0 }
        if isFault { noteHardwareFault(after: token) }
    }

    /// Flags the frames decoded after a GPU fault, up to the next sync sample: they may refer to
    /// the picture the GPU failed.
    private func noteHardwareFault(after token: Int64) {
        state.withLock { state in
            state.hardwareFaultSinceSync = true
            for later in state.pending.keys where later > token {
                state.pending[later]?.missingReference = Self.afterHardwareFault
            }
        }
    }

    /// Replaces the GPU decoder by a CPU one: hands out the pictures the GPU still holds, reports
    /// the frames it took and will never return, and waits for a sync sample.
    ///
    /// - Parameters:
    ///   - reason: Why, for ``hardwareUnavailableReason``.
    ///   - format: The stream's current description.
    ///   - sentUpTo: The last token the GPU decoder was given.
    private func moveToSoftware(because reason: String, format: VideoFormatDescription, sentUpTo: Int64) {
        guard let hardware = decoder.current as? VAAPIDecoder else { return }
        var pictures = hardware.drain()
        deliver(&pictures, lostAfterDrain: false)
        let abandoned = state.withLock { $0.pending.keys.filter { $0 <= sentUpTo }.sorted() }
        for token in abandoned {
            finish(
                token,
                status: VTError.videoDecoderMalfunction.with(
                    "the GPU decoder was abandoned before it output this frame"),
                image: nil)
        }
        var why = reason
        do {
            decoder.replace(with: try DecoderSelection.software(for: format, specification: decoderSpecification))
        } catch {
            decoder.release()
            why += "; the CPU decoder could not start either: \(error.reason)"
        }
        state.withLock { state in
            state.hardware = nil
            state.hardwareUnavailableReason = why
            state.needsSync = true
            state.consecutiveHardwareFaults = 0
            state.hardwareFaultSinceSync = false
        }
    }

    /// Hands decoded pictures to the output handler; after a drain, reports the frames the
    /// decoder produced no picture for.
    ///
    /// A frame without a picture is only known at a drain: libavcodec may hold a picture back for
    /// as long as the stream's references keep it out of output order (long-term references do),
    /// so no amount of waiting during decoding proves a picture lost.
    ///
    /// Empties `pictures` as it goes, so that a picture the handler has let go of is gone: a GPU
    /// surface then returns to the pool before the next picture is handed out.
    private func deliver(_ pictures: inout [DecodedPicture], lostAfterDrain: Bool) {
        let isHardware = decoder.current?.isHardware ?? false
        pictures.reverse()
        while let picture = pictures.popLast() {
            if isHardware { countHardwareResult(picture.damage, token: picture.token) }
            finish(picture.token, status: picture.damage, image: picture.pixelBuffer)
        }
        guard lostAfterDrain else { return }
        let lost = state.withLock { $0.pending.sorted { $0.key < $1.key } }
        for (token, pending) in lost {
            let status: VTError?
            if pending.isFieldPicture {
                // The second field of a pair: its field went into the picture of the first,
                // which came out with the first's sample.
                status = nil
            } else if pending.isSkippedLeadingPicture {
                status = VTError.videoDecoderReferenceMissing.with(
                    "a RASL picture of the CRA picture decoding started at: it refers to pictures before the "
                        + "start, so decoders skip it")
            } else {
                status = VTError.videoDecoderBadData.with("the decoder produced no picture for this frame")
            }
            finish(token, status: status, image: nil)
        }
    }

    /// Calls the output handler for one frame and forgets it, converting its picture first when
    /// the attributes ask for another format or size.
    private func finish(_ token: Int64, status: VTError?, image: PixelBuffer?) {
        guard let pending = state.withLock({ $0.pending.removeValue(forKey: token) }) else { return }
        // libavcodec conceals a lost reference without flagging the frames it damages.
        let status = status ?? pending.missingReference.map { VTError.videoDecoderReferenceMissing.with($0) }
        guard let image, !pending.flags.contains(.doNotOutputFrame) else {
            outputHandler(pending.output(status: status, image: nil))
            return
        }
        guard let transfer else {
            let handedOut = (decoder.current as? VAAPIDecoder)?.handOut(image) ?? image
            outputHandler(pending.output(status: status, image: handedOut))
            return
        }
        do {
            let converted = try transfer.convert(image)
            state.withLock { $0.pool = transfer.transfer.currentPool }
            outputHandler(pending.output(status: status, image: converted))
        } catch {
            outputHandler(pending.output(status: error, image: nil))
        }
    }

    /// HEVC profiles libavcodec 5.1 decodes: Main, Main 10, Main Still Picture, format range
    /// extensions. (Screen content coding, multiview, scalable and 3D are not.)
    static let decodableHEVCProfiles: Set<Int> = [1, 2, 3, 4]

    /// Checks that the software decoder can decode the stream and hand out its pictures.
    ///
    /// - Throws: ``VTError/couldNotFindVideoDecoder`` naming what is not supported: the codec,
    ///   an HEVC profile libavcodec lacks, or a bit depth above 10 (no pixel format to hand out).
    static func checkSupported(_ format: VideoFormatDescription) throws(VTError) {
        guard format.codecType == .h264 || format.codecType == .hevc else {
            throw VTError.couldNotFindVideoDecoder.with(
                "no decoder for codec \(format.codecType); VAToolbox decodes H.264 and HEVC")
        }
        let stream = format.stream
        if format.codecType == .hevc && !decodableHEVCProfiles.contains(stream.profileIdc) {
            throw VTError.couldNotFindVideoDecoder.with(
                "HEVC profile \(stream.profileName) (general_profile_idc \(stream.profileIdc)) is not supported by the "
                    + "software decoder; it decodes Main, Main 10, Main Still Picture and format range extensions")
        }
        guard max(stream.bitDepthLuma, stream.bitDepthChroma) <= 10 else {
            throw VTError.couldNotFindVideoDecoder.with(
                "the stream has \(max(stream.bitDepthLuma, stream.bitDepthChroma))-bit samples; VAToolbox decodes 8- and 10-bit video"
            )
        }
        if format.codecType == .hevc && stream.chromaFormatIdc == 0 && stream.bitDepthLuma > 8 {
            throw VTError.couldNotFindVideoDecoder.with("monochrome video above 8 bits is not supported")
        }
    }

    /// Checks that attributes describe something the session can produce.
    private static func check(_ attributes: ImageBufferAttributes?) throws(VTError) {
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

    private func checkValid() throws(VTError) {
        if state.withLock({ $0.isInvalidated }) {
            throw VTError.invalidSession.with("the session was invalidated")
        }
    }

    /// Runs `body` on the queue and waits, or runs it at once when already on the queue (a call
    /// from inside the output handler).
    private func onQueueSync(_ body: () -> Void) {
        if DispatchQueue.getSpecific(key: onQueue) == true {
            body()
        } else {
            queue.sync(execute: body)
        }
    }

    /// Whether the session can go on with `newFormat`: the same codec and length size, a stream
    /// the CPU decoder supports and, when the GPU is required, one the GPU's driver decodes.
    private func canAccept(_ newFormat: VideoFormatDescription, in state: State) -> Bool {
        let current = state.formatDescription
        guard newFormat.codecType == current.codecType, newFormat.nalUnitHeaderLength == current.nalUnitHeaderLength,
            (try? Self.checkSupported(newFormat)) != nil
        else { return false }
        guard decoderSpecification.hardwareAcceleration == .required, let hardware = state.hardware else { return true }
        return (try? hardware.capabilities.profile(for: newFormat).get()) != nil
    }

    /// The pixel format a stream decodes to without conversion: NV12 or P010 on the GPU
    /// (`hardware`), and on the CPU the planar format of its chroma format, bit depth and range.
    public static func nativePixelFormat(for format: VideoFormatDescription, hardware: Bool = false) -> PixelFormat {
        let stream = format.stream
        if hardware {
            let fullRange = format.extensions.fullRangeVideo
            if stream.bitDepthLuma > 8 { return fullRange ? .p010FullRange : .p010VideoRange }
            return fullRange ? .nv12FullRange : .nv12VideoRange
        }
        let chroma = format.codecType == .h264 && stream.chromaFormatIdc == 0 ? 1 : stream.chromaFormatIdc
        switch (chroma, stream.bitDepthLuma > 8) {
        case (0, false): return .gray8
        case (1, false): return format.extensions.fullRangeVideo ? .yuv420PlanarFullRange : .yuv420Planar
        case (2, false): return .yuv422Planar
        case (3, false): return .yuv444Planar
        case (2, true): return .yuv422Planar10
        case (3, true): return .yuv444Planar10
        default: return .yuv420Planar10
        }
    }
}

extension DecompressionSession {
    /// A frame accepted and not yet handed out.
    struct Pending: Sendable {
        let timing: SampleTimingInfo
        let flags: DecodeFrameFlags
        let refcon: (any Sendable)?
        /// Whether the sample is an H.264 field picture (half of a frame).
        var isFieldPicture = false
        /// Whether the sample is an HEVC RASL picture that decoders skip (decoding started at
        /// its CRA picture).
        var isSkippedLeadingPicture = false
        /// Why the frame may lack a reference picture, when it may: a reference went missing
        /// before it, or the GPU failed a picture it may refer to.
        var missingReference: String?

        func output(status: VTError?, image: PixelBuffer?) -> DecompressionOutput {
            var info: DecodeInfoFlags = flags.contains(.enableAsynchronousDecompression) ? .asynchronous : []
            if image == nil { info.insert(.frameDropped) }
            return DecompressionOutput(
                status: status, infoFlags: info, imageBuffer: image,
                presentationTimeStamp: timing.presentationTimeStamp,
                presentationDuration: timing.duration, frameRefcon: refcon)
        }
    }

    /// What the lock protects.
    struct State: Sendable {
        var formatDescription: VideoFormatDescription
        var isInvalidated = false
        var nextToken: Int64 = 0
        var pending: [Int64: Pending] = [:]
        /// After a drain the decoder has no references: skip to the next sync sample.
        var needsSync = false
        /// The pool of converted output, once there is one.
        var pool: PixelBufferPool?
        /// H.264 reference continuity, to flag frames decoded without a lost reference.
        var continuity = ReferenceContinuity()
        /// The description whose parameter sets `continuity` last learned.
        var continuityFormat: VideoFormatDescription?
        /// The GPU in use; nil on the CPU.
        var hardware: HardwareState?
        /// Why the GPU is not in use.
        var hardwareUnavailableReason: String?
        /// GPU faults in a row.
        var consecutiveHardwareFaults = 0
        /// A GPU fault happened since the last sync sample: later frames may refer to the
        /// faulted picture.
        var hardwareFaultSinceSync = false
    }

    /// What the session knows of the GPU it decodes on.
    struct HardwareState: Sendable {
        let renderNode: RenderNode
        let capabilities: HardwareCapabilities
    }

    /// One frame's work for the queue.
    struct Job: Sendable {
        let token: Int64
        let sample: SampleBuffer
        let parameterSets: [[UInt8]]
    }

    /// Holds the converter for the queue.
    ///
    /// Unchecked `Sendable`: like the decoder, the converter is used only on the session's serial
    /// queue (from `finish`), never from two threads at once.
    final class TransferBox: @unchecked Sendable {
        let transfer = PixelTransfer()
        let attributes: ImageBufferAttributes
        init(attributes: ImageBufferAttributes) { self.attributes = attributes }

        func convert(_ image: PixelBuffer) throws(VTError) -> PixelBuffer {
            try transfer.transfer(
                image, to: attributes.pixelFormat ?? image.pixelFormat, width: attributes.width ?? image.width,
                height: attributes.height ?? image.height, minimumBufferCount: attributes.minimumBufferCount)
        }
    }

    /// Holds the decoder for the queue.
    ///
    /// Unchecked `Sendable`: the decoder is used only on the session's serial queue (every use is
    /// inside `run`, `finishDelayedFrames` or `invalidate`, all on that queue), so it is never
    /// touched by two threads at once; the box only carries it there.
    final class DecoderBox: @unchecked Sendable {
        private var decoder: LibavcodecDecoder?
        init(_ decoder: LibavcodecDecoder) { self.decoder = decoder }
        /// The decoder, until the session is invalidated.
        var current: LibavcodecDecoder? { decoder }
        func replace(with other: LibavcodecDecoder) { decoder = other }
        func release() { decoder = nil }
    }
}
