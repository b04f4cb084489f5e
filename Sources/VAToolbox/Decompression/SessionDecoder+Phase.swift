extension SessionDecoder {
    /// The decoder's lifecycle: which back end decodes, and what it is owed before the next
    /// sample.
    enum Phase {
        /// A back end given no sample since it opened: new settings reopen it at once.
        case opened(any DecoderBackend)
        /// Decoding: every sample goes to the back end.
        case decoding(any DecoderBackend)
        /// Drained by a finish, its references kept: before the next sample (unless that one is
        /// a closed random access point) it is given the samples since the last random access
        /// point again (the ``ReplayBuffer``), so a finish at the end of a stream (finish, then
        /// wait, then invalidate) decodes nothing again.
        case drained(any DecoderBackend)
        /// The back end holds no references (after a reset, or after moving to another back
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
            case .opened(let backend), .decoding(let backend), .drained(let backend), .awaitingSync(let backend):
                backend
            case .failed, .released: nil
            }
        }

        /// Whether the back end holds the stream's references: a finish can keep them.
        var holdsReferences: Bool {
            switch self {
            case .opened, .decoding, .drained: true
            case .awaitingSync, .failed, .released: false
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
}
