/// One picture ``FrameSampler`` was asked for.
public struct SampledFrame: Sendable {
    /// The picture's frame number (``FrameIndex/Frame/number``): the one asked for, or with
    /// ``SamplingAccuracy/nearestSyncSample`` the sync sample's picture nearest to it.
    public let number: Int
    /// The place in the caller's list of the request it answers.
    public let requestIndex: Int
    /// Its presentation time stamp.
    public let presentationTimeStamp: MediaTime
    /// Its duration (invalid when unknown).
    public let duration: MediaTime
    /// The picture, in the sampler's image buffer attributes; nil when the decoder gave none
    /// (then ``status`` says why).
    public let image: PixelBuffer?
    /// The decoder's error for the picture (it may still have an image, with damage), or nil.
    public let status: VTError?
}

/// How ``FrameSampler`` finds the pictures asked for.
public enum SamplingAccuracy: Sendable, Hashable {
    /// The very picture asked for, decoded from the sync sample it needs.
    case exact
    /// The picture of the sync sample nearest to it in presentation time: one decoded sample per
    /// picture, for scrubbing and previews (``FrameIndex/nearestSyncFrame(to:)``).
    case nearestSyncSample
}

/// What a ``FrameSampler`` did, since it was made or last opened a file.
public struct SamplingStatistics: Sendable, Hashable {
    /// Samples read from the file (decoded or not).
    public var samplesRead = 0
    /// Samples sent to the decoder.
    public var samplesDecoded = 0
    /// Samples read inside a run and not decoded: disposable, and no picture asked for.
    public var disposableSamplesSkipped = 0
    /// Times the reader moved through the container's index instead of reading on.
    public var seeks = 0
    /// Runs decoded (each starts at a sync sample with the decoder afresh).
    public var runs = 0
    /// Decompression sessions created.
    public var sessionsCreated = 0
}
