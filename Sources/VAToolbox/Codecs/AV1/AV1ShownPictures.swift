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
}

extension AV1CodecSupport {
    var sampleNoun: String { "temporal unit" }
    func makeShownPictureCounter() -> any ShownPictureCounting { AV1ShownPictures() }
}
