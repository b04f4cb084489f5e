/// Leaving the GPU: the failover policy's counting, and the moves to the CPU.
extension SessionDecoder {
    /// Counts a device result toward the failover policy; a fault also damages the frames
    /// decoded after it up to the next sync sample, which may refer to it.
    func countDeviceResult(isFault: Bool, token: Int64) {
        failover.record(isFault: isFault)
        if isFault { noteDeviceFault(after: token) }
    }

    /// Flags the frames decoded after a GPU fault, up to the next sync sample: they may refer to
    /// the picture the GPU failed.
    func noteDeviceFault(after token: Int64) {
        failover.noteFault()
        frames.noteDeviceFault(after: token)
    }

    /// Leaves a GPU taken to be hung (``DecodeFailure/deviceHung(_:)``): it returns nothing more.
    /// A ``DecoderSpecification/HardwareAcceleration/preferred`` session moves to the CPU, which
    /// decodes the kept samples again and hands out the frames the GPU held with their own
    /// pictures; a `.required` one fails those frames with the hang, as every later frame.
    ///
    /// - Parameters:
    ///   - hardware: The GPU back end.
    ///   - error: The hang, as the back end reports it.
    ///   - sentUpTo: The last token the GPU back end was given.
    func leaveHungGPU(_ hardware: any DecoderBackend, because error: VTError, sentUpTo: Int64) {
        guard failover.movesOnSetupFailure else {
            failover.noteFault()
            for token in shared.withLock({ $0.pending.keys.filter { $0 <= sentUpTo }.sorted() }) {
                finish(token, status: error, image: nil)
            }
            return
        }
        moveToSoftware(from: hardware, because: error.reason, sentUpTo: sentUpTo, redecodingHeldFrames: true)
    }

    /// Replaces the GPU back end by a CPU one: hands out the pictures the GPU still holds, and
    /// goes on from the samples since the last random access point (replayed, as after a finish)
    /// when they are kept, else from the next sync sample.
    ///
    /// The frames the GPU took and will never return are reported as abandoned, or, with
    /// `redecodingHeldFrames` and the samples kept, decoded again by the CPU from those samples
    /// and handed out with their own pictures (after a hang, when the GPU returns nothing more).
    ///
    /// - Parameters:
    ///   - hardware: The GPU back end.
    ///   - reason: Why, for ``DecompressionSession/hardwareUnavailableReason``.
    ///   - sentUpTo: The last token the GPU back end was given.
    ///   - redecodingHeldFrames: Whether the CPU decodes the frames the GPU held again.
    func moveToSoftware(
        from hardware: any DecoderBackend, because reason: String, sentUpTo: Int64, redecodingHeldFrames: Bool = false
    ) {
        var pictures = hardware.drain()
        deliver(&pictures, lostAfterDrain: false)
        let held = shared.withLock { $0.pending.keys.filter { $0 <= sentUpTo }.sorted() }
        let kept = replay.isComplete ? Set(replay.tokens) : []
        let redecoded = redecodingHeldFrames ? Set(held.filter(kept.contains)) : []
        for token in held where !redecoded.contains(token) {
            finish(
                token,
                status: VTError.videoDecoderMalfunction.with(
                    "the GPU decoder was abandoned before it output this frame"),
                image: nil)
        }
        failover.reset()
        var why = reason
        do throws(VTError) {
            let software = try openSoftware()
            if !redecoded.isEmpty {
                redecode(redecoded, on: software)
                why +=
                    "; the CPU decoded the samples since the last random access point again, "
                    + "and the \(redecoded.count) frames the GPU held with them"
            } else if replay.isComplete {  // the CPU decodes them again for their references: nothing more is lost
                phase = .drained(software)
                why += "; the CPU decoded the samples since the last random access point again"
            } else {
                phase = .awaitingSync(software)
                replay.reset()
                why += "; the CPU starts at the next sync sample"
            }
        } catch {
            for token in redecoded { finish(token, status: error, image: nil) }
            phase = .failed(error)
            why += "; the CPU decoder could not start either: \(error.reason)"
        }
        shared.withLock { state in
            state.hardware = nil
            state.hardwareUnavailableReason = why
        }
    }

    /// Decodes the kept samples again on a new back end, which then holds the stream's
    /// references: the frames in `frames` come out with their own tokens (now or later), the
    /// others' pictures, handed out before, are suppressed.
    private func redecode(_ frames: Set<Int64>, on backend: any DecoderBackend) {
        phase = .decoding(backend)
        for (index, (data, token)) in zip(replay.samples, replay.tokens).enumerated() {
            let redecoded = frames.contains(token)
            var step = backend.decode(data, token: redecoded ? token : -1 - Int64(index))
            deliver(&step.pictures, lostAfterDrain: false)
            if redecoded, case .sample(let error, _) = step.failure { finish(token, status: error, image: nil) }
        }
    }
}
