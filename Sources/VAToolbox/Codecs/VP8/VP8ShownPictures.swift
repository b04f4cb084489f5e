/// VP8: a frame shows a picture unless `show_frame` is 0 (a golden or alternate reference).
struct VP8ShownPictures: ShownPictureCounting {
    func shown(by sample: SampleBuffer) -> ShownPictures {
        .frames((try? VP8FrameHeader(sample.data[...])).map { $0.showFrame ? 1 : 0 } ?? 1)
    }
}

extension VP8CodecSupport {
    var statesLevel: Bool { false }
    func makeShownPictureCounter() -> any ShownPictureCounting { VP8ShownPictures() }
}
