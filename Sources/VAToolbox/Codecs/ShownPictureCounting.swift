/// What one sample shows.
enum ShownPictures {
    /// Whole pictures (0 for a hidden frame, several for a superframe or temporal unit).
    case frames(Int)
    /// One field of a picture.
    case field
}

/// A codec's own counting of shown pictures, with the state its headers need (parameter sets,
/// the sequence header in force).
protocol ShownPictureCounting: Sendable {
    /// What `sample` shows (samples in decode order).
    mutating func shown(by sample: SampleBuffer) -> ShownPictures
}

/// One picture per sample: the codecs whose every sample is one shown frame.
struct OnePicturePerSample: ShownPictureCounting {
    func shown(by sample: SampleBuffer) -> ShownPictures { .frames(1) }
}
