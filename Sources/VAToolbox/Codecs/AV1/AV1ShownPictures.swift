/// AV1: the frames a temporal unit shows, its frame headers read with the sequence header in
/// force.
struct AV1ShownPictures: ShownPictureCounting {
    private var sequenceHeader: AV1SequenceHeader?

    mutating func shown(by sample: SampleBuffer) -> ShownPictures {
        guard let unit = try? AV1TemporalUnit(sample.data[...], sequenceHeader: sequenceHeader) else {
            return .frames(1)
        }
        sequenceHeader = unit.activeSequenceHeader ?? sequenceHeader
        return .frames(unit.shownFrameCount)
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
