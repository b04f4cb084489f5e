/// Counts the pictures a stream's samples show, by their headers alone (nothing is decoded): a VP9
/// superframe's or an AV1 temporal unit's shown frames, none for a hidden VP8 frame (a golden or
/// alternate reference), half a picture for each H.264 field, one for any other sample — and one
/// for a sample whose headers cannot be read (the decoder will say what is wrong with it).
///
/// ```swift
/// var counter = PictureCounter()
/// while let sample = try reader.nextSample() { counter.add(sample) }
/// print(counter.pictures)
/// ```
public struct PictureCounter: Sendable {
    private var counters: [VideoCodecType: any ShownPictureCounting] = [:]
    private var frames = 0
    private var fields = 0

    /// A counter at zero.
    public init() {}

    /// The pictures the samples added so far show: two fields make one.
    public var pictures: Int { frames + fields / 2 }

    /// Counts the pictures one sample shows (samples in decode order).
    public mutating func add(_ sample: SampleBuffer) {
        let codec = sample.formatDescription.codecType
        guard var counter = counters[codec] ?? CodecRegistry.support(for: codec)?.makeShownPictureCounter() else {
            frames += 1
            return
        }
        switch counter.shown(by: sample) {
        case .frames(let count): frames += count
        case .field: fields += 1
        }
        counters[codec] = counter
    }
}
