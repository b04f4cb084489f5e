/// What a session learns about each frame while it follows the stream in decode order — a
/// reference that went missing, damage, a field or a hidden picture — kept on the session's
/// queue, its only writer, from the moment the frame is followed until it is handed out.
///
/// The frames' public part (time stamps, flags, refcon) is in ``SessionState/pending``, which
/// the caller's threads read; these notes only decide the status a frame is handed out with.
struct FrameNotebook {
    /// One frame's notes.
    struct Notes {
        /// Whether the sample is flagged ``SampleAttachments/damaged``.
        var isDamaged = false
        /// Whether the sample is a field picture (half of a frame).
        var isFieldPicture = false
        /// Whether the sample is a leading picture that decoders skip (decoding started at its
        /// random access point).
        var isSkippedLeadingPicture = false
        /// Whether the sample shows no picture of its own (a hidden frame), or its picture will
        /// never come out (a later sample discarded it).
        var showsNoPicture = false
        /// Why the frame may lack a reference picture, when it may: a reference went missing
        /// before it, or the GPU failed a picture it may refer to.
        var missingReference: String?
        /// The sample's dynamic HDR metadata (HDR10+, Dolby Vision RPU), when the session
        /// propagates per-frame HDR metadata.
        var dynamicHDR: DynamicHDRMetadata?

        /// The status the frame is handed out with, given the decoder's own: the decoder's,
        /// else damage, else a missing reference (libavcodec conceals a lost reference without
        /// flagging the frames it damages).
        func status(decoderStatus: VTError?) -> VTError? {
            decoderStatus ?? (isDamaged ? VTError.videoDecoderBadData.with("the sample is damaged") : nil)
                ?? missingReference.map { VTError.videoDecoderReferenceMissing.with($0) }
        }

        /// The status of a frame the decoder gave no picture for, known at a drain.
        var statusWithoutPicture: VTError? {
            if isFieldPicture || showsNoPicture {
                // The second field of a pair: its field went into the picture of the first,
                // which came out with the first's sample. Or a hidden frame, decoded only as a
                // reference.
                return nil
            }
            if isSkippedLeadingPicture {
                return VTError.videoDecoderReferenceMissing.with(
                    "a RASL picture of the CRA picture decoding started at: it refers to pictures before the "
                        + "start, so decoders skip it")
            }
            return VTError.videoDecoderBadData.with("the decoder produced no picture for this frame")
        }
    }

    /// The stream's reference tracker, and the description whose configuration it last learned.
    private var references: any ReferenceTracker
    private var referencesFormat: VideoFormatDescription?
    private var notes: [Int64: Notes] = [:]

    init(format: VideoFormatDescription) {
        references = format.codecSupport.makeReferenceTracker()
    }

    /// Follows one sample's references (the codec's tracker) and notes what may be wrong with
    /// its frame.
    ///
    /// - Parameters:
    ///   - afterFault: Whether the GPU failed a picture since the last sync sample.
    ///   - propagatingHDR: Whether to keep the sample's per-frame HDR metadata for its frame.
    mutating func follow(_ sample: SampleBuffer, token: Int64, afterFault: Bool, propagatingHDR: Bool = false) {
        let format = sample.formatDescription
        if format != referencesFormat {
            references.learn(format)
            referencesFormat = format
        }
        let continuity = references.follow(sample)
        // The samples before this one whose pictures have not come out yet never will.
        if continuity.discardsPriorPictures {
            for earlier in notes.keys where earlier < token { notes[earlier]?.showsNoPicture = true }
        }
        notes[token] = Notes(
            isDamaged: sample.attachments.contains(.damaged), isFieldPicture: continuity.isFieldPicture,
            isSkippedLeadingPicture: continuity.isSkippedLeadingPicture, showsNoPicture: continuity.showsNoPicture,
            missingReference: afterFault ? FailoverPolicy.afterFault : continuity.missingReference,
            dynamicHDR: propagatingHDR ? Self.dynamicHDRMetadata(of: sample) : nil)
    }

    /// A sample's dynamic HDR metadata: its container's HDR10+ message (WebM `BlockAdditional`)
    /// before one in its data, and the codec's reading of its data.
    private static func dynamicHDRMetadata(of sample: SampleBuffer) -> DynamicHDRMetadata {
        var metadata = sample.formatDescription.codecSupport.dynamicHDRMetadata(in: sample)
        if let fromContainer = sample.hdr10PlusPerFrameData { metadata.hdr10Plus = fromContainer }
        return metadata
    }

    /// Flags the frames followed after `token`: they may refer to the picture the GPU failed.
    /// (Frames not followed yet learn it from ``FailoverPolicy/follow(isSync:)``.)
    mutating func noteDeviceFault(after token: Int64) {
        for later in notes.keys where later > token { notes[later]?.missingReference = FailoverPolicy.afterFault }
    }

    /// The notes on a frame (none when it was never followed).
    func notes(on token: Int64) -> Notes {
        notes[token] ?? Notes()
    }

    /// The notes on a frame, forgotten: it is being handed out.
    mutating func take(_ token: Int64) -> Notes {
        notes.removeValue(forKey: token) ?? Notes()
    }

    /// Forgets the reference state: decoding restarts at a sync sample.
    mutating func restart() {
        references.reset()
    }

    /// Forgets every frame (the session was invalidated).
    mutating func removeAll() {
        notes.removeAll()
    }
}
