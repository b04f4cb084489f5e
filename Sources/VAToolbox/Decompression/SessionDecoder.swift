import Synchronization

/// The part of a ``DecompressionSession`` that runs on its serial queue: it owns the decoder back
/// end and its lifecycle state, follows the stream's references, applies the failover policy, and
/// hands each frame to the output handler exactly once.
///
/// Unchecked `Sendable`: every method is called on the session's serial queue only (from
/// `decodeFrame`'s job, `finishDelayedFrames`, `invalidate`, or a handler call nested in one of
/// them), so its mutable state is never touched by two threads at once; the conformance only lets
/// the session's closures carry it there. What other threads read sits in `shared`, behind its lock.
final class SessionDecoder: @unchecked Sendable {
    /// The decoder's lifecycle.
    enum Phase {
        /// Decoding: every sample goes to the back end.
        case decoding(any DecoderBackend)
        /// The back end holds no references (after a drain, or after moving to another back
        /// end): samples are skipped, as missing a reference, up to the next sync sample (or random
        /// access point, ``startsDecoding(_:)``).
        case awaitingSync(any DecoderBackend)
        /// No back end could be started (the CPU decoder failed after the GPU's): every sample
        /// fails.
        case failed(VTError)
        /// The session was invalidated and the back end released.
        case released

        var backend: (any DecoderBackend)? {
            switch self {
            case .decoding(let backend), .awaitingSync(let backend): backend
            case .failed, .released: nil
            }
        }
    }

    /// One frame's work for the queue.
    struct Job: Sendable {
        let token: Int64
        let sample: SampleBuffer
        /// Whether the sample starts a new format description (the back end reconfigures).
        let startsNewFormat: Bool
        /// The new description's configuration the sample does not carry itself, sent ahead of it.
        let inBandConfiguration: [UInt8]
    }

    private let shared: SharedSessionState
    private let outputHandler: DecompressionSession.OutputHandler
    /// The settings a new CPU back end opens with.
    private var settings: DecoderSettings
    /// Whether the settings changed since the back end opened: a CPU back end reopens at the next
    /// drain.
    private var settingsChanged = false
    /// The converter for requested attributes; nil hands out the decoder's pictures in the
    /// native format.
    private var transfer: PixelTransferJob?
    /// Gives the CPU decoder's planar 4:2:0 pictures the native (bi-planar) layout.
    private let packer = BiPlanarPacker()
    private var phase: Phase
    /// Whether the back end has been given a sample since it opened.
    private var backendHasDecoded = false
    /// The samples since the random access point a replay starts at, for a finish that keeps the
    /// references.
    private var replay = ReplayBuffer()
    /// Whether the back end, drained by a finish, is still owed the replay of ``replay``'s
    /// samples: it gets them before the next sample, so a finish at the end of a stream (finish,
    /// then wait, then invalidate) decodes nothing again.
    private var replayIsOwed = false
    /// The description of the last sample given to the back end (or of the session, before any).
    private var currentFormat: VideoFormatDescription
    private var failover: FailoverPolicy
    /// The stream's reference tracker, and the description whose configuration it last learned.
    private var references: any ReferenceTracker
    private var referencesFormat: VideoFormatDescription?
    /// The last token given to a back end: a drain can only show frames up to it missing (later
    /// ones are accepted but not decoded yet).
    private var lastSentToken: Int64 = -1
    /// The decode time stamps of the samples last given to a back end, by token: a picture's
    /// ``DecompressionOutput/releasingDecodeTimeStamp`` is its releasing sample's. A picture is
    /// released at most a DPB (or a thread count) of samples after its own, so the latest
    /// ``releaseWindow`` are kept.
    private var decodeTimes: [Int64: MediaTime] = [:]
    /// How many samples' decode time stamps ``decodeTimes`` keeps.
    private static let releaseWindow: Int64 = 512

    init(
        backend: any DecoderBackend, formatDescription: VideoFormatDescription, settings: DecoderSettings,
        transfer: PixelTransferJob?, shared: SharedSessionState,
        outputHandler: @escaping DecompressionSession.OutputHandler
    ) {
        phase = .decoding(backend)
        failover = FailoverPolicy(specification: settings.specification)
        references = formatDescription.codecSupport.makeReferenceTracker()
        currentFormat = formatDescription
        self.settings = settings
        self.transfer = transfer
        self.shared = shared
        self.outputHandler = outputHandler
    }

    // MARK: - The lifecycle

    /// Decodes one accepted frame, or reports why it is not decoded, honouring its sample's
    /// attachments: `resetDecoderBeforeDecoding` drains the back end first and restarts it
    /// without references, `drainAfterDecoding` hands out the delayed frames after, as
    /// ``finishDelayedFrames()`` does.
    func run(_ job: Job) {
        guard !shared.withLock({ $0.isInvalidated }) else { return }  // invalidate() reports the frame
        if job.sample.attachments.contains(.resetDecoderBeforeDecoding) { resetDecoder() }
        follow(job)
        dispatch(job)
        if job.sample.attachments.contains(.drainAfterDecoding) { finishDelayedFrames() }
    }

    /// Decodes a frame already followed, as the phase allows.
    private func dispatch(_ job: Job) {
        switch phase {
        case .decoding: decode(job)
        case .awaitingSync(let backend) where Self.startsDecoding(job.sample):
            phase = .decoding(backend)
            decode(job)
        case .awaitingSync:
            finish(
                job.token,
                status: VTError.videoDecoderReferenceMissing.with("decoding restarts at the next sync sample"),
                image: nil)
        case .failed, .released:
            finish(
                job.token, status: VTError.couldNotCreateInstance.with("the session has no working decoder"),
                image: nil)
        }
    }

    /// Whether decoding can start at a sample: a sync sample, or a random access point the codec
    /// knows that is not one (an H.264 recovery point exact at once: an Annex B stream of open
    /// GOPs has no sync sample after its first IDR).
    private static func startsDecoding(_ sample: SampleBuffer) -> Bool {
        guard !sample.isSync else { return true }
        let access = sample.formatDescription.codecSupport.randomAccess(of: sample)
        return access == .open || access == .closed
    }

    /// Hands out every frame the back end holds back, and lets decoding go on with its
    /// references: the back end is drained, then, before the next sample (unless that one is a
    /// closed random access point), given the samples since the last random access point again
    /// (since the one before, while an open point's leading pictures may still come) with their
    /// output suppressed (see ``ReplayBuffer``); a finish at the end of a stream replays nothing. When those samples are not all kept
    /// (decoding has not reached a random access point, or the GOP outgrew the buffer), decoding
    /// restarts at the next sync sample instead. Frames accepted but not given to the back end
    /// yet (asynchronous frames still queued) are not touched.
    func finishDelayedFrames() {
        guard let backend = phase.backend else { return }
        var pictures = backend.drain()
        deliver(&pictures, from: backend, lostAfterDrain: true)
        guard case .decoding = phase, replay.isComplete else {
            restartAtNextSync(backend)
            return
        }
        let next = reopenedIfSettingsChanged(backend)
        replayIsOwed = true
        backendHasDecoded = true
        phase = .decoding(next)
    }

    /// Hands out every frame the back end holds back and starts it afresh without references:
    /// decoding goes on at the next sync sample (`kCMSampleAttachmentKey_ResetDecoderBeforeDecoding`).
    func resetDecoder() {
        guard let backend = phase.backend else { return }
        var pictures = backend.drain()
        deliver(&pictures, from: backend, lostAfterDrain: true)
        restartAtNextSync(backend)
    }

    /// Waits for a sync sample with no reference pictures.
    private func restartAtNextSync(_ backend: any DecoderBackend) {
        phase = .awaitingSync(reopenedIfSettingsChanged(backend))
        references.reset()
        replay.reset()
        replayIsOwed = false
    }

    // MARK: - Settings

    /// Takes new decoder settings: a CPU back end that has decoded nothing reopens with them at
    /// once, one that has reopens at the next drain (libavcodec fixes its threads when it opens).
    /// A GPU back end keeps them for a move to the CPU.
    ///
    /// - Returns: Why the back end could not reopen at once (it then goes on as it was).
    func adopt(_ settings: DecoderSettings) -> VTError? {
        self.settings = settings
        settingsChanged = true
        guard !backendHasDecoded, case .decoding(let backend) = phase, backend.hardware == nil else { return nil }
        do throws(VTError) {
            phase = .decoding(try reopened(backend))
            return nil
        } catch {
            return error
        }
    }

    /// Converts output with `job` from now on (nil: the decoder's own pictures).
    func setTransfer(_ job: PixelTransferJob?) {
        transfer = job
    }

    /// Makes converted output come from a new pool that keeps `count` buffers, from the next picture.
    func setMinimumBufferCount(_ count: Int) {
        transfer = transfer?.withMinimumBufferCount(count)
    }

    /// The back end, or when the settings changed and it runs on the CPU, a new one with them
    /// (the old one stays when libavcodec refuses them).
    private func reopenedIfSettingsChanged(_ backend: any DecoderBackend) -> any DecoderBackend {
        guard settingsChanged, backend.hardware == nil else { return backend }
        return (try? reopened(backend)) ?? backend
    }

    /// A new CPU back end with the current settings, for the current format.
    private func reopened(_ backend: any DecoderBackend) throws(VTError) -> any DecoderBackend {
        let software = try DecoderSelection.software(for: currentFormat, specification: settings.effectiveSpecification)
        settingsChanged = false
        backendHasDecoded = false
        shared.withLock { $0.decodingThreads = software.decodingThreads }
        return software
    }

    /// Reports every frame still waiting as dropped by invalidation, and releases the back end.
    func invalidate() {
        let remaining = shared.withLock { state -> [PendingFrame] in
            defer { state.pending.removeAll() }
            return state.pending.sorted { $0.key < $1.key }.map(\.value)
        }
        for pending in remaining {
            outputHandler(
                pending.output(status: VTError.invalidSession.with("the session was invalidated"), image: nil))
        }
        phase = .released
    }

    // MARK: - Decoding

    /// Follows the sample's references (the codec's tracker) and the GPU faults since the last
    /// sync sample, noting on the frame what may be wrong with it.
    private func follow(_ job: Job) {
        let format = job.sample.formatDescription
        if format != referencesFormat {
            references.learn(format)
            referencesFormat = format
        }
        let continuity = references.follow(job.sample)
        let afterFault = failover.follow(isSync: job.sample.isSync)
        shared.withLock { state in
            // The samples before this one whose pictures have not come out yet never will.
            if continuity.discardsPriorPictures {
                for token in state.pending.keys where token < job.token { state.pending[token]?.showsNoPicture = true }
            }
            guard var pending = state.pending[job.token] else { return }
            if let missing = continuity.missingReference { pending.missingReference = missing }
            pending.isFieldPicture = continuity.isFieldPicture
            pending.isSkippedLeadingPicture = continuity.isSkippedLeadingPicture
            pending.showsNoPicture = continuity.showsNoPicture
            if afterFault { pending.missingReference = FailoverPolicy.afterFault }
            pending.isDamaged = job.sample.attachments.contains(.damaged)
            state.pending[job.token] = pending
        }
    }

    /// Sends one sample to the back end and hands out what comes back; moves to the CPU when
    /// the GPU cannot go on and the policy allows it.
    private func decode(_ job: Job) {
        guard case .decoding(let backend) = phase else { return }
        let access = job.sample.formatDescription.codecSupport.randomAccess(of: job.sample)
        if replayIsOwed {
            replayIsOwed = false
            // A closed random access point refers to nothing before it: no replay needed.
            if access != .closed { backend.replay(replay.samples) }
        }
        var data = job.sample.data
        if job.startsNewFormat {
            backend.reconfigure(for: job.sample.formatDescription)
            data = job.inBandConfiguration + data
        }
        lastSentToken = job.token
        decodeTimes[job.token] = job.sample.decodeTimeStamp
        if decodeTimes.count > 2 * Int(Self.releaseWindow) {
            decodeTimes = decodeTimes.filter { $0.key > job.token - Self.releaseWindow }
        }
        replay.record(data, access: access)
        backendHasDecoded = true
        currentFormat = job.sample.formatDescription
        var step = backend.decode(data, token: job.token)
        if step.deviceFaulted { noteDeviceFault(after: job.token) }
        deliver(&step.pictures, from: backend, lostAfterDrain: false)
        switch step.failure {
        case nil:
            break
        case .backEndCannotContinue(let error) where backend.hardware != nil && failover.movesOnSetupFailure:
            // libavcodec could not start the hwaccel (a new stream configuration the driver
            // refuses): the sample goes to the CPU instead.
            let node = backend.hardware.map(\.renderNode.path) ?? "the GPU"
            moveToSoftware(
                from: backend, because: "VA-API on \(node) could not decode the stream: " + error.reason,
                format: job.sample.formatDescription, sentUpTo: job.token - 1)
            dispatch(job)
            return
        case .backEndCannotContinue(let error):
            if backend.hardware != nil { countDeviceResult(isFault: false, token: job.token) }
            finish(job.token, status: error, image: nil)
        case .sample(let error, let isDeviceFault):
            // With frame threads libavcodec may report an earlier packet's failure here; the
            // frame is then reported against this sample, and a picture that still comes for it
            // later is not handed out twice (`finish` forgets a token once reported).
            if backend.hardware != nil { countDeviceResult(isFault: isDeviceFault, token: job.token) }
            finish(job.token, status: error, image: nil)
        }
        if let hardware = backend.hardware, failover.movesAfterFaults {
            moveToSoftware(
                from: backend,
                because: "the GPU (\(hardware.renderNode.path)) failed to decode \(failover.consecutiveFaults) "
                    + "pictures in a row; decoding continues on the CPU from the next sync sample",
                format: job.sample.formatDescription, sentUpTo: job.token)
        }
    }

    /// Counts a GPU result toward the failover policy; a fault also damages the frames decoded
    /// after it up to the next sync sample, which may refer to it.
    private func countDeviceResult(isFault: Bool, token: Int64) {
        failover.record(isFault: isFault)
        if isFault { noteDeviceFault(after: token) }
    }

    /// Flags the frames decoded after a GPU fault, up to the next sync sample: they may refer to
    /// the picture the GPU failed.
    private func noteDeviceFault(after token: Int64) {
        failover.noteFault()
        shared.withLock { state in
            for later in state.pending.keys where later > token {
                state.pending[later]?.missingReference = FailoverPolicy.afterFault
            }
        }
    }

    /// Replaces the GPU back end by a CPU one: hands out the pictures the GPU still holds, reports
    /// the frames it took and will never return, and waits for a sync sample.
    ///
    /// - Parameters:
    ///   - hardware: The GPU back end.
    ///   - reason: Why, for ``DecompressionSession/hardwareUnavailableReason``.
    ///   - format: The stream's current description.
    ///   - sentUpTo: The last token the GPU back end was given.
    private func moveToSoftware(
        from hardware: any DecoderBackend, because reason: String, format: VideoFormatDescription, sentUpTo: Int64
    ) {
        var pictures = hardware.drain()
        deliver(&pictures, from: hardware, lostAfterDrain: false)
        let abandoned = shared.withLock { $0.pending.keys.filter { $0 <= sentUpTo }.sorted() }
        for token in abandoned {
            finish(
                token,
                status: VTError.videoDecoderMalfunction.with(
                    "the GPU decoder was abandoned before it output this frame"),
                image: nil)
        }
        var why = reason
        do throws(VTError) {
            let software = try DecoderSelection.software(for: format, specification: settings.effectiveSpecification)
            phase = .awaitingSync(software)
            replay.reset()
            replayIsOwed = false
            settingsChanged = false
            backendHasDecoded = false
            shared.withLock { $0.decodingThreads = software.decodingThreads }
        } catch {
            phase = .failed(error)
            why += "; the CPU decoder could not start either: \(error.reason)"
        }
        failover.reset()
        shared.withLock { state in
            state.hardware = nil
            state.hardwareUnavailableReason = why
        }
    }

    // MARK: - Handing out

    /// Hands decoded pictures to the output handler; after a drain, reports the frames the
    /// back end produced no picture for.
    ///
    /// A frame without a picture is only known at a drain: libavcodec may hold a picture back for
    /// as long as the stream's references keep it out of output order (long-term references do),
    /// so no amount of waiting during decoding proves a picture lost.
    ///
    /// Empties `pictures` as it goes, so that a picture the handler has let go of is gone: a GPU
    /// surface then returns to the pool before the next picture is handed out.
    private func deliver(_ pictures: inout [DecodedPicture], from backend: any DecoderBackend, lostAfterDrain: Bool) {
        pictures.reverse()
        while let picture = pictures.popLast() {
            // A picture of a replayed sample: its frame was handed out before the finish.
            guard picture.token >= 0 else { continue }
            if backend.hardware != nil { countDeviceResult(isFault: picture.isDeviceFault, token: picture.token) }
            finish(
                picture.token, status: picture.status, image: picture.pixelBuffer, handOut: picture.handOut,
                releasedAt: picture.releasedBy.flatMap { decodeTimes[$0] } ?? .invalid)
        }
        guard lostAfterDrain else { return }
        let sentUpTo = lastSentToken
        let lost = shared.withLock { $0.pending.filter { $0.key <= sentUpTo }.sorted { $0.key < $1.key } }
        for (token, pending) in lost {
            let status: VTError?
            if pending.isFieldPicture || pending.showsNoPicture {
                // The second field of a pair: its field went into the picture of the first,
                // which came out with the first's sample. Or a hidden frame, decoded only as a
                // reference.
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
    /// the attributes ask for another format or size, and otherwise handing it out in the
    /// native format (a planar 4:2:0 picture of the CPU packed as NV12 or P010).
    private func finish(
        _ token: Int64, status: VTError?, image: PixelBuffer?, handOut: HandOut = .asIs,
        releasedAt: MediaTime = .invalid
    ) {
        guard let pending = shared.withLock({ $0.pending.removeValue(forKey: token) }) else { return }
        // libavcodec conceals a lost reference without flagging the frames it damages.
        let status =
            status ?? (pending.isDamaged ? VTError.videoDecoderBadData.with("the sample is damaged") : nil)
            ?? pending.missingReference.map { VTError.videoDecoderReferenceMissing.with($0) }
        guard let image, !pending.flags.contains(.doNotOutputFrame), !pending.doNotDisplay else {
            outputHandler(pending.output(status: status, image: nil))
            return
        }
        do throws(VTError) {
            guard let transfer, transfer.changes(image) else {
                // No conversion: a requested format the picture already has (the CPU's planar
                // one) goes out as it is, without a copy; no request means the native layout.
                var picture = handOut.apply(to: image)
                if transfer == nil { picture = try packer.pack(picture) }
                outputHandler(pending.output(status: status, image: picture, releasedAt: releasedAt))
                return
            }
            let converted = try transfer.convert(image)
            shared.withLock { $0.pool = transfer.transfer.currentPool }
            outputHandler(pending.output(status: status, image: converted, releasedAt: releasedAt))
        } catch {
            outputHandler(pending.output(status: error, image: nil))
        }
    }
}

/// A session's shared state behind its lock, held by the session and by its decoder.
final class SharedSessionState: Sendable {
    private let state: Mutex<SessionState>

    init(_ initial: SessionState) {
        state = Mutex(initial)
    }

    /// Runs `body` with the state locked.
    func withLock<Result, Failure: Error>(
        _ body: (inout SessionState) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try state.withLock { (value: inout SessionState) throws(Failure) -> Result in try body(&value) }
    }
}

/// What a session shares between the caller's threads and its queue, behind its lock.
struct SessionState: Sendable {
    var formatDescription: VideoFormatDescription
    /// The decoder specification, with the real-time mode and thread count as last set.
    var specification: DecoderSpecification
    /// `kVTDecompressionPropertyKey_MaximizePowerEfficiency`.
    var maximizePowerEfficiency = false
    /// The threads the current back end decodes with.
    var decodingThreads = 1
    /// The destination image buffer attributes.
    var imageBufferAttributes: ImageBufferAttributes?
    /// `kVTDecompressionPropertyKey_OutputPoolRequestedMinimumBufferCount`.
    var outputPoolMinimumBufferCount = 0
    var isInvalidated = false
    var nextToken: Int64 = 0
    /// The frames accepted and not yet handed out, by token.
    var pending: [Int64: PendingFrame] = [:]
    /// The pool of converted output, once there is one.
    var pool: PixelBufferPool?
    /// The GPU in use; nil on the CPU.
    var hardware: HardwareDecoding?
    /// Why the GPU is not in use.
    var hardwareUnavailableReason: String?
}

/// A frame accepted and not yet handed out.
struct PendingFrame: Sendable {
    let timing: SampleTimingInfo
    let flags: DecodeFrameFlags
    let refcon: (any Sendable)?
    /// The sample's `kCMSampleAttachmentKey_DoNotDisplay`: decoded as a reference, output as
    /// dropped without an image (an edit list's leading or trailing samples).
    var doNotDisplay = false
    /// Whether the sample is flagged ``SampleAttachments/damaged``: its frame reports
    /// ``VTError/videoDecoderBadData``.
    var isDamaged = false
    /// Whether the sample is a field picture (half of a frame).
    var isFieldPicture = false
    /// Whether the sample is a leading picture that decoders skip (decoding started at its
    /// random access point).
    var isSkippedLeadingPicture = false
    /// Whether the sample shows no picture of its own (a hidden frame).
    var showsNoPicture = false
    /// Why the frame may lack a reference picture, when it may: a reference went missing
    /// before it, or the GPU failed a picture it may refer to.
    var missingReference: String?

    /// The output handler's argument for this frame; `releasedAt` is the decode time stamp of the
    /// sample whose decoding released its picture.
    func output(status: VTError?, image: PixelBuffer?, releasedAt: MediaTime = .invalid) -> DecompressionOutput {
        var info: DecodeInfoFlags = flags.contains(.enableAsynchronousDecompression) ? .asynchronous : []
        if image == nil { info.insert(.frameDropped) }
        if image?.isWritableWithoutCopy == true { info.insert(.imageBufferModifiable) }
        return DecompressionOutput(
            status: status, infoFlags: info, imageBuffer: image, presentationTimeStamp: timing.presentationTimeStamp,
            presentationDuration: timing.duration, frameRefcon: refcon,
            releasingDecodeTimeStamp: image == nil ? .invalid : releasedAt)
    }
}

/// The conversion a session's image buffer attributes ask for.
///
/// Unchecked `Sendable`: like the back end, the converter is used only on the session's serial
/// queue (from ``SessionDecoder``), never from two threads at once.
final class PixelTransferJob: @unchecked Sendable {
    let transfer = PixelTransfer()
    let attributes: ImageBufferAttributes
    init(attributes: ImageBufferAttributes) { self.attributes = attributes }

    /// The same conversion into a new pool that keeps `count` buffers.
    func withMinimumBufferCount(_ count: Int) -> PixelTransferJob {
        var attributes = attributes
        attributes.minimumBufferCount = count
        return PixelTransferJob(attributes: attributes)
    }

    /// The format `image` is converted to: the requested one, or the native one when only a
    /// size is requested.
    func targetFormat(for image: PixelBuffer) -> PixelFormat {
        attributes.pixelFormat ?? BiPlanarPacker.handOutFormat(of: image)
    }

    /// Whether converting `image` changes it: another format or size than its own.
    func changes(_ image: PixelBuffer) -> Bool {
        targetFormat(for: image) != image.pixelFormat || (attributes.width ?? image.width) != image.width
            || (attributes.height ?? image.height) != image.height
    }

    func convert(_ image: PixelBuffer) throws(VTError) -> PixelBuffer {
        try transfer.transfer(
            image, to: targetFormat(for: image), width: attributes.width ?? image.width,
            height: attributes.height ?? image.height, minimumBufferCount: attributes.minimumBufferCount)
    }
}
