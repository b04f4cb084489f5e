/// The part of a ``DecompressionSession`` that runs on its serial queue: it owns the decoder back
/// end and its lifecycle state, follows the stream's references, applies the failover policy, and
/// hands each frame to the output handler exactly once.
///
/// Unchecked `Sendable`: every method runs on the session's serial queue only (or in a handler
/// call nested in one), so its state is never touched by two threads at once; the conformance
/// only lets the session's closures carry it there. What other threads read is in `shared`.
final class SessionDecoder: @unchecked Sendable {
    let shared: SharedSessionState
    private let outputHandler: DecompressionSession.OutputHandler
    /// Gives the CPU decoder's planar 4:2:0 pictures the native (bi-planar) layout.
    private let packer = BiPlanarPacker()
    var phase: Phase
    /// The settings a CPU back end decodes with; one opened with others reopens at the next
    /// drain (``DecoderBackend/needsReopening(for:)``).
    private var settings: DecoderSettings
    /// The converter for requested attributes; nil hands out the decoder's pictures in the
    /// native format.
    private var transfer: PixelTransferJob?
    /// The session's field mode, when it is not both fields.
    private var fieldFilter: FieldModeFilter?
    /// The samples since the random access point a replay starts at, for a finish that keeps the
    /// references.
    var replay = ReplayBuffer()
    var failover: FailoverPolicy
    /// What the session knows of each frame in flight, from following the stream.
    var frames: FrameNotebook
    /// The samples given to a back end (the last one, recent decode time stamps).
    private var sent: SentSamples

    init(
        backend: any DecoderBackend, formatDescription: VideoFormatDescription, settings: DecoderSettings,
        transfer: PixelTransferJob?, shared: SharedSessionState,
        outputHandler: @escaping DecompressionSession.OutputHandler
    ) {
        phase = .opened(backend)
        failover = FailoverPolicy(specification: settings.specification)
        frames = FrameNotebook(format: formatDescription)
        sent = SentSamples(format: formatDescription)
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
        frames.follow(
            job.sample, token: job.token, afterFault: failover.follow(isSync: job.sample.isSync),
            propagatingHDR: shared.withLock { $0.propagatesPerFrameHDRDisplayMetadata })
        dispatch(job)
        if job.sample.attachments.contains(.drainAfterDecoding) { finishDelayedFrames() }
    }

    /// Decodes a frame already followed, as the phase allows.
    private func dispatch(_ job: Job) {
        switch phase {
        case .opened(let backend), .decoding(let backend): decode(job, on: backend, replaying: false)
        case .drained(let backend): decode(job, on: backend, replaying: true)
        case .awaitingSync(let backend) where Self.startsDecoding(job.sample):
            decode(job, on: backend, replaying: false)
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
    /// references: the back end is drained, then replayed (``Phase/drained(_:)``) — the samples
    /// since the last random access point, or since the one before while an open point's leading
    /// pictures may still come, with their output suppressed (see ``ReplayBuffer``). When those
    /// samples are not all kept (decoding has not reached a random access point, or the GOP
    /// outgrew the buffer), decoding restarts at the next sync sample instead. Frames accepted
    /// but not given to the back end yet (asynchronous frames still queued) are not touched.
    func finishDelayedFrames() {
        guard let backend = phase.backend else {
            finishTemporalDeinterlacing()
            return
        }
        var pictures = backend.drain()
        deliver(&pictures, lostAfterDrain: true)
        finishTemporalDeinterlacing()
        guard phase.backend != nil else { return }  // the output handler invalidated the session
        if phase.holdsReferences && replay.isComplete {
            phase = .drained(reopenedIfSettingsChanged(backend))
        } else {
            restartAtNextSync(backend)
        }
    }

    /// Hands out every frame the back end holds back and starts it afresh without references:
    /// decoding goes on at the next sync sample (`kCMSampleAttachmentKey_ResetDecoderBeforeDecoding`).
    func resetDecoder() {
        guard let backend = phase.backend else {
            finishTemporalDeinterlacing()
            return
        }
        var pictures = backend.drain()
        deliver(&pictures, lostAfterDrain: true)
        finishTemporalDeinterlacing()
        guard phase.backend != nil else { return }
        restartAtNextSync(backend)
    }

    /// Waits for a sync sample with no reference pictures.
    private func restartAtNextSync(_ backend: any DecoderBackend) {
        phase = .awaitingSync(reopenedIfSettingsChanged(backend))
        frames.restart()
        replay.reset()
    }

    /// Reports every frame still waiting as dropped by invalidation, and releases the back end.
    func invalidate() {
        let remaining = shared.withLock { state -> [PendingFrame] in
            defer { state.pending.removeAll() }
            return state.pending.sorted { $0.key < $1.key }.map(\.value)
        }
        frames.removeAll()
        // The frames the temporal deinterlacer held go first: they came before those still pending.
        let held = delayed.map(\.output.pending)
        delayed.removeAll()
        for pending in held + remaining {
            outputHandler(
                pending.output(status: VTError.invalidSession.with("the session was invalidated"), image: nil))
        }
        phase = .released
    }

    // MARK: - Settings

    /// Takes new decoder settings: a CPU back end that has decoded nothing reopens with them at
    /// once, one that has reopens at the next drain (libavcodec fixes its threads when it opens).
    /// A GPU back end keeps them for a move to the CPU.
    ///
    /// - Returns: Why the back end could not reopen at once (it then goes on as it was).
    func adopt(_ settings: DecoderSettings) -> VTError? {
        self.settings = settings
        guard case .opened(let backend) = phase, backend.needsReopening(for: softwareConfiguration) else { return nil }
        do throws(VTError) {
            phase = .opened(try openSoftware())
            return nil
        } catch {
            return error
        }
    }

    /// Converts output with `job` from now on (nil: the decoder's own pictures).
    func setTransfer(_ job: PixelTransferJob?) {
        transfer = job
    }

    /// Filters each picture with `filter` from now on, before converting it (nil: the pictures as
    /// decoded, both fields woven).
    func setFieldFilter(_ filter: FieldModeFilter?) {
        finishTemporalDeinterlacing()
        fieldFilter = filter
    }

    /// Makes converted output come from a new pool that keeps `count` buffers, from the next picture.
    func setMinimumBufferCount(_ count: Int) {
        transfer = transfer?.withMinimumBufferCount(count)
    }

    /// How a CPU back end decodes with the current settings.
    private var softwareConfiguration: SoftwareDecoderConfiguration {
        DecoderSelection.softwareConfiguration(for: settings.effectiveSpecification, format: sent.lastFormat)
    }

    /// The back end, or a new CPU one when it was opened with other settings (the old one stays
    /// when libavcodec refuses them; the next drain tries again).
    private func reopenedIfSettingsChanged(_ backend: any DecoderBackend) -> any DecoderBackend {
        guard backend.needsReopening(for: softwareConfiguration) else { return backend }
        return (try? openSoftware()) ?? backend
    }

    /// A new CPU back end with the current settings, for the last sample's description.
    func openSoftware() throws(VTError) -> any DecoderBackend {
        let software = try DecoderSelection.software(
            for: sent.lastFormat, specification: settings.effectiveSpecification)
        shared.withLock { $0.decodingThreads = software.decodingThreads }
        return software
    }

    // MARK: - Decoding

    /// Sends one sample to the back end, after the replay it is owed, and hands out what comes
    /// back; moves to the CPU when the GPU cannot go on and the policy allows it.
    ///
    /// A CPU back end reports no device faults, so counting its results toward the failover
    /// policy never moves it.
    private func decode(_ job: Job, on backend: any DecoderBackend, replaying: Bool) {
        phase = .decoding(backend)
        let access = job.sample.formatDescription.codecSupport.randomAccess(of: job.sample)
        // A closed random access point refers to nothing before it: no replay needed.
        if replaying && access != .closed { backend.replay(replay.samples) }
        var data = job.sample.data
        if job.startsNewFormat {
            backend.reconfigure(for: job.sample.formatDescription)
            data = job.inBandConfiguration + data
        }
        sent.record(job.sample, token: job.token)
        replay.record(data, token: job.token, access: access)
        var step = backend.decode(data, token: job.token)
        if step.deviceFaulted { noteDeviceFault(after: job.token) }
        deliver(&step.pictures, lostAfterDrain: false)
        switch step.failure {
        case nil:
            break
        case .backEndCannotContinue(let error) where failover.movesOnSetupFailure:
            // libavcodec could not start the hwaccel (a new stream configuration the driver
            // refuses): the sample goes to the CPU instead.
            let node = backend.hardware?.renderNode.path ?? "the GPU"
            moveToSoftware(
                from: backend, because: "VA-API on \(node) could not decode the stream: " + error.reason,
                sentUpTo: job.token - 1)
            dispatch(job)
            return
        case .backEndCannotContinue(let error):
            // The sample's picture is lost, and a later one that refers to it would come out
            // wrong (libavcodec starts the hwaccel again at the next sample and decodes it
            // without the reference): those up to the next sync sample are flagged.
            countDeviceResult(isFault: false, token: job.token)
            noteDeviceFault(after: job.token)
            finish(job.token, status: error, image: nil)
        case .deviceHung(let error):
            leaveHungGPU(backend, because: error, sentUpTo: job.token)
            return
        case .sample(let error, let isDeviceFault):
            // With frame threads libavcodec may report an earlier packet's failure here; the
            // frame is then reported against this sample, and a picture that still comes for it
            // later is not handed out twice (`finish` forgets a token once reported).
            countDeviceResult(isFault: isDeviceFault, token: job.token)
            finish(job.token, status: error, image: nil)
        }
        if failover.movesAfterFaults {
            let device = backend.hardware.map { "the GPU (\($0.renderNode.path))" } ?? "the GPU"
            moveToSoftware(
                from: backend,
                because: "\(device) failed to decode \(failover.consecutiveFaults) "
                    + "pictures in a row; decoding continues on the CPU",
                sentUpTo: job.token)
        }
    }

    // MARK: - Handing out

    /// Hands decoded pictures to the output handler; after a drain, reports the frames the
    /// back end produced no picture for.
    ///
    /// A frame without a picture is only known at a drain: libavcodec may hold a picture back as
    /// long as the references keep it out of output order, so no wait proves a picture lost.
    ///
    /// Empties `pictures` as it goes: a GPU surface the handler let go of returns to the pool first.
    func deliver(_ pictures: inout [DecodedPicture], lostAfterDrain: Bool) {
        pictures.reverse()
        while let picture = pictures.popLast() {
            // A picture of a replayed sample: its frame was handed out before the finish.
            guard picture.token >= 0 else { continue }
            countDeviceResult(isFault: picture.isDeviceFault, token: picture.token)
            finish(
                picture.token, status: picture.status, image: picture.pixelBuffer, handOut: picture.handOut,
                released: sent.decodeTime(of: picture.releasedBy))
        }
        guard lostAfterDrain else { return }
        let sentUpTo = sent.lastToken
        let lost = shared.withLock { $0.pending.keys.filter { $0 <= sentUpTo }.sorted() }
        for token in lost {
            finish(token, status: frames.notes(on: token).statusWithoutPicture, image: nil)
        }
    }

    /// Calls the output handler for one frame and forgets it, converting its picture first when
    /// the attributes ask for another format or size, and otherwise handing it out in the
    /// native format (a planar 4:2:0 picture of the CPU packed as NV12 or P010). A frame decoded
    /// with ``DecodeFrameFlags/enableTemporalProcessing`` under the temporal deinterlace mode
    /// waits for the temporal deinterlacer instead (``delayed``); any other frame hands those
    /// out first.
    func finish(
        _ token: Int64, status: VTError?, image: PixelBuffer?, handOut: HandOut = .asIs, released: MediaTime = .invalid
    ) {
        let notes = frames.take(token)
        guard let pending = shared.withLock({ $0.pending.removeValue(forKey: token) }) else { return }
        let output = FrameOutput(
            pending: pending, status: notes.status(decoderStatus: status), released: released,
            dynamicHDR: notes.dynamicHDR)
        let temporal = pending.flags.contains(.enableTemporalProcessing) ? fieldFilter?.temporal : nil
        if temporal == nil { finishTemporalDeinterlacing() }
        guard let decoded = image, !pending.flags.contains(.doNotOutputFrame), !pending.doNotDisplay else {
            // Behind the frames still waiting, in order.
            if delayed.isEmpty {
                outputHandler(pending.output(status: output.status, image: nil))
            } else {
                delayed.append(DelayedFrame(output: output, picture: nil, waitsForPicture: false))
            }
            return
        }
        if let temporal {
            deinterlaceTemporally(decoded, handOut: handOut, output, with: temporal)
            return
        }
        // The field mode's picture (deinterlaced, or one field), then what the attributes ask for.
        let picture: PixelBuffer
        if let fieldFilter {
            let time = pending.timing.presentationTimeStamp
            do throws(VTError) {
                picture = try waitingOnDevice(for: decoded) { () throws(VTError) in
                    try fieldFilter.apply(decoded, time: time)
                }
            } catch {
                outputHandler(pending.output(status: error, image: nil))
                return
            }
            if let path = fieldFilter.path { shared.withLock { $0.deinterlacingPath = path } }
        } else {
            picture = decoded
        }
        hand(picture, decoded: decoded, handOut: handOut, output)
    }

    /// Converts `picture` as the attributes ask and calls the output handler with it (or with
    /// the conversion's error). The decoder's surface allowance applies to `decoded`, the
    /// decoder's own picture, only.
    private func hand(_ picture: PixelBuffer, decoded: PixelBuffer?, handOut: HandOut, _ output: FrameOutput) {
        let pending = output.pending
        do throws(VTError) {
            guard let transfer, transfer.changes(picture) else {
                // No conversion: a requested format the picture already has (the CPU's planar
                // one) goes out as it is, without a copy; no request means the native layout.
                // The decoder's surface allowance applies to its own pictures, not to one the
                // field mode made (a GPU-deinterlaced picture's surface is the processor's).
                var handedOut =
                    picture === decoded ? try waitingOnDevice(for: picture) { handOut.apply(to: picture) } : picture
                if transfer == nil { handedOut = try packer.pack(handedOut) }
                outputHandler(
                    pending.output(
                        status: output.status, image: handedOut, releasedAt: output.released,
                        dynamicHDR: output.dynamicHDR))
                return
            }
            let converted = try waitingOnDevice(for: picture) { () throws(VTError) in try transfer.convert(picture) }
            shared.withLock {
                $0.pool = transfer.transfer.currentPool
                $0.pixelTransferPath = transfer.transfer.path
            }
            outputHandler(
                pending.output(
                    status: output.status, image: converted, releasedAt: output.released,
                    dynamicHDR: output.dynamicHDR))
        } catch {
            // A conversion left behind in a hung driver keeps its converter: the next one gets a new one.
            if phase.backend?.hasHung == true {
                self.transfer = transfer.map { PixelTransferJob(attributes: $0.attributes) }
            }
            outputHandler(pending.output(status: error, image: nil))
        }
    }

    // MARK: - Temporal deinterlacing

    /// A frame's output as the decoder finished it: what the handler gets with its picture.
    struct FrameOutput {
        let pending: PendingFrame
        let status: VTError?
        let released: MediaTime
        let dynamicHDR: DynamicHDRMetadata?
    }

    /// A frame whose output waits: for its deinterlaced picture, or behind frames that do.
    struct DelayedFrame {
        let output: FrameOutput
        var picture: PixelBuffer?
        /// It gets a picture from the temporal deinterlacer (else it goes out without one).
        var waitsForPicture: Bool
    }

    /// Frames decoded with temporal processing under ``DeinterlaceMode/temporal``, whose pictures
    /// the temporal deinterlacer gives a picture later, and frames without a picture behind
    /// them; oldest first. ``finishDelayedFrames()``, ``resetDecoder()``, a frame without
    /// temporal processing and a new field mode hand them out; ``invalidate()`` drops them.
    private var delayed: [DelayedFrame] = []

    /// Gives `decoded` to the temporal deinterlacer and hands out the frames whose pictures came.
    /// The deinterlacer holds the decoder's picture (and the two before it) as references, so it
    /// is handed out under the decoder's surface allowance: beyond the pool's spare surfaces it
    /// is a copy in CPU memory, and the deinterlacer goes on on the CPU.
    private func deinterlaceTemporally(
        _ decoded: PixelBuffer, handOut: HandOut, _ output: FrameOutput, with temporal: Deinterlacer
    ) {
        delayed.append(DelayedFrame(output: output, picture: nil, waitsForPicture: true))
        let time = output.pending.timing.presentationTimeStamp
        do throws(VTError) {
            let pictures = try waitingOnDevice(for: decoded) { () throws(VTError) -> [Deinterlacer.Output] in
                try temporal.deinterlace(handOut.apply(to: decoded), presentationTimeStamp: time)
            }
            take(pictures.map(\.image), from: temporal)
        } catch {
            failDelayed(error)
        }
    }

    /// Hands out every frame still waiting: the temporal deinterlacer gives its last pictures.
    func finishTemporalDeinterlacing() {
        guard !delayed.isEmpty else { return }
        guard let temporal = fieldFilter?.temporal else {
            failDelayed(VTError.parameter.with("the temporal deinterlace mode was turned off"))
            return
        }
        do throws(VTError) {
            take(try temporal.finish().map(\.image), from: temporal)
        } catch {
            failDelayed(error)
        }
        // A frame the deinterlacer gave no picture for goes out without one.
        failDelayed(VTError.videoDecoderMalfunction.with("the temporal deinterlacer gave no picture for the frame"))
    }

    /// Gives the deinterlacer's pictures to the oldest frames waiting for one, then hands out the
    /// frames at the front that have what they wait for.
    private func take(_ pictures: [PixelBuffer], from temporal: Deinterlacer) {
        var pictures = pictures[...]
        for index in delayed.indices where delayed[index].waitsForPicture && delayed[index].picture == nil {
            guard let picture = pictures.popFirst() else { break }
            delayed[index].picture = picture
        }
        if let path = temporal.path { shared.withLock { $0.deinterlacingPath = path } }
        while let first = delayed.first, !first.waitsForPicture || first.picture != nil {
            delayed.removeFirst()
            if let picture = first.picture {
                hand(picture, decoded: nil, handOut: .asIs, first.output)
            } else {
                outputHandler(first.output.pending.output(status: first.output.status, image: nil))
            }
        }
    }

    /// Hands out every frame still waiting, those without their picture with `error`, one at a
    /// time (an output handler that invalidates the session has ``invalidate()`` report the rest).
    private func failDelayed(_ error: VTError) {
        while !delayed.isEmpty {
            let frame = delayed.removeFirst()
            if let picture = frame.picture {
                hand(picture, decoded: nil, handOut: .asIs, frame.output)
            } else {
                let status = frame.waitsForPicture ? error : frame.output.status
                outputHandler(frame.output.pending.output(status: status, image: nil))
            }
        }
    }

    /// Runs work on a GPU picture (reading it back, converting it) within the back end's bound
    /// on waiting for its device; other pictures' work runs as it is.
    private func waitingOnDevice<Value: Sendable>(
        for image: PixelBuffer, _ work: @escaping @Sendable () throws(VTError) -> Value
    ) throws(VTError) -> Value {
        guard image.isGPUSurface, let backend = phase.backend else { return try work() }
        return try backend.boundingWaits(work)
    }
}
