/// VP8: a frame shows a picture unless `show_frame` is 0 (a golden or alternate reference). A
/// droppable frame (``VP8FrameHeader/isDroppable(deltasInForce:)``) is disposable, judged with the
/// loop filter deltas the frames before it left in force.
struct VP8ShownPictures: ShownPictureCounting {
    /// The loop filter deltas in force (``VP8FrameHeader/loopFilterDeltas(after:)``); nil until a
    /// key frame, and again after a frame whose header could not be read.
    private var loopFilterDeltas: [Int]?
    /// The last sample's verdict, for ``isDisposable(_:)``.
    private var lastIsDisposable = false
    /// Whether the last sample was a key frame; nil when its header could not be read.
    private var lastIsKeyFrame: Bool?

    mutating func shown(by sample: SampleBuffer) -> ShownPictures {
        guard let header = try? VP8FrameHeader(sample.data[...]) else {
            loopFilterDeltas = nil
            lastIsDisposable = false
            lastIsKeyFrame = nil
            return .frames(1)
        }
        lastIsDisposable = header.isDroppable(deltasInForce: loopFilterDeltas)
        loopFilterDeltas = header.loopFilterDeltas(after: loopFilterDeltas)
        lastIsKeyFrame = header.isKeyFrame
        return .frames(header.showFrame ? 1 : 0)
    }

    func isDisposable(_ sample: SampleBuffer) -> Bool { lastIsDisposable }

    /// I for key frames, P for the others (libavcodec's vp8.c).
    func pictureType(of sample: SampleBuffer) -> PictureType? {
        lastIsKeyFrame.map { $0 ? .intra : .predicted }
    }
}

extension VP8CodecSupport {
    var statesLevel: Bool { false }
    func makeShownPictureCounter() -> any ShownPictureCounting { VP8ShownPictures() }
}
