/// What one sample shows.
enum ShownPictures {
    /// Whole pictures (0 for a hidden frame, several for a superframe or temporal unit).
    case frames(Int)
    /// One field of a picture.
    case field
}

/// A codec's own counting of shown pictures, with the state its headers need (parameter sets,
/// the sequence header in force), and its judgement of which samples nothing else needs.
protocol ShownPictureCounting: Sendable {
    /// What `sample` shows (samples in decode order).
    mutating func shown(by sample: SampleBuffer) -> ShownPictures
    /// Whether no later sample needs `sample` decoded: it leaves the decoder as it found it (no
    /// reference picture, no parameter set, no state a later picture reads), so a decoder that
    /// never sees it decodes every other picture the same. Asked after ``shown(by:)`` for the same
    /// sample. False whenever the headers do not prove it.
    mutating func isDisposable(_ sample: SampleBuffer) -> Bool
    /// The verdict on the sample before `next`, for codecs whose judgement needs the sample that
    /// follows (VP9: whether the next frame reads this one's motion vectors); nil keeps what
    /// ``isDisposable(_:)`` said. Asked before ``shown(by:)`` for `next`.
    mutating func isPreviousDisposable(given next: SampleBuffer) -> Bool?
    /// How the picture `sample` shows was coded, as libavcodec reports it on the decoded frame
    /// (`AVFrame.pict_type`, ffprobe's `pict_type`); nil where the headers do not say. Asked
    /// after ``shown(by:)`` for the same sample.
    func pictureType(of sample: SampleBuffer) -> PictureType?
}

extension ShownPictureCounting {
    /// No sample is proven disposable: the default of the codecs that do not judge.
    func isDisposable(_ sample: SampleBuffer) -> Bool { false }

    /// No second look: the verdict of ``isDisposable(_:)`` stands.
    func isPreviousDisposable(given next: SampleBuffer) -> Bool? { nil }

    /// Not known.
    func pictureType(of sample: SampleBuffer) -> PictureType? { nil }
}

/// One picture per sample: the codecs whose every sample is one shown frame.
struct OnePicturePerSample: ShownPictureCounting {
    func shown(by sample: SampleBuffer) -> ShownPictures { .frames(1) }
}
