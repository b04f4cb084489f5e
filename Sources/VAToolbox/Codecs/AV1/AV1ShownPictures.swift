/// AV1: the frames a temporal unit shows, its frame headers read with the sequence header in
/// force.
struct AV1ShownPictures: ShownPictureCounting {
    private var sequenceHeader: AV1SequenceHeader?
    /// The type of the last temporal unit's last shown frame; nil when unknown.
    private var lastOutputType: AV1FrameHeaderSummary.FrameType?
    /// The type of the frame in each reference slot, for shown existing frames.
    private var slotTypes = [AV1FrameHeaderSummary.FrameType?](repeating: nil, count: 8)

    mutating func shown(by sample: SampleBuffer) -> ShownPictures {
        guard let unit = try? AV1TemporalUnit(sample.data[...], sequenceHeader: sequenceHeader) else {
            lastOutputType = nil
            slotTypes = Array(repeating: nil, count: 8)
            return .frames(1)
        }
        sequenceHeader = unit.activeSequenceHeader ?? sequenceHeader
        lastOutputType = nil
        for header in unit.frameHeaders {
            // A shown existing frame is typed as the frame it shows (libdav1d hands out that
            // frame's header), which the slot remembers.
            let type = header.showExistingFrame ? slotTypes[header.frameToShowMapIdx] : header.frameType
            if header.showsFrame { lastOutputType = type }
            if !header.showExistingFrame {
                for slot in 0..<8 where header.refreshFrameFlags & (1 << slot) != 0 { slotTypes[slot] = type }
            }
        }
        return .frames(unit.shownFrameCount)
    }

    /// I for key and intra-only frames, P for inter frames, SP for switch frames, as libavcodec's
    /// libdav1d wrapper types its frames (libdav1d.c); a shown existing frame as the frame it
    /// shows.
    func pictureType(of sample: SampleBuffer) -> PictureType? {
        switch lastOutputType {
        case .key?, .intraOnly?: .intra
        case .inter?: .predicted
        case .switch?: .switchingPredicted
        default: nil
        }
    }

    /// A temporal unit without a sequence header whose frames all have `refresh_frame_flags` 0:
    /// AV1 keeps every state a later frame reads (references, CDFs, loop filter and
    /// segmentation parameters, motion fields) in the reference slots (clause 7.20), so a frame
    /// that refreshes none leaves nothing behind.
    func isDisposable(_ sample: SampleBuffer) -> Bool {
        guard let unit = try? AV1TemporalUnit(sample.data[...], sequenceHeader: sequenceHeader),
            unit.sequenceHeader == nil, !unit.lacksSequenceHeader, !unit.frameHeaders.isEmpty
        else { return false }
        return unit.frameHeaders.allSatisfy { $0.refreshFrameFlags == 0 }
    }
}

extension AV1CodecSupport {
    var sampleNoun: String { "temporal unit" }
    func makeShownPictureCounter() -> any ShownPictureCounting { AV1ShownPictures() }
}
