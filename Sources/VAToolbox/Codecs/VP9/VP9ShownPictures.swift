/// VP9: the frames of a superframe that are output (not hidden, or shown existing frames).
struct VP9ShownPictures: ShownPictureCounting {
    func shown(by sample: SampleBuffer) -> ShownPictures {
        guard let frames = try? VP9Superframe.frames(in: sample.data[...]) else { return .frames(1) }
        return .frames(frames.count { frame in (try? VP9UncompressedHeader(frame))?.isOutput ?? true })
    }
}

extension VP9CodecSupport {
    var statesLevel: Bool { false }
    func makeShownPictureCounter() -> any ShownPictureCounting { VP9ShownPictures() }
}
