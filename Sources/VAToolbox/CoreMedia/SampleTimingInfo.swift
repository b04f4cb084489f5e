/// The timing of one media sample: how long it lasts, when it is shown and when it is decoded.
///
/// Any of the three times may be ``MediaTime/invalid`` when it is unknown or does not apply;
/// for example the decode time stamp of a stream without reordering is usually left invalid,
/// since it equals the presentation time stamp. Equality compares the times as ``MediaTime``
/// does, so `1/30` and `2/60` are the same duration.
///
/// Corresponds to `CMSampleTimingInfo`.
public struct SampleTimingInfo: Sendable, Hashable {
    /// How long the sample lasts.
    ///
    /// Corresponds to `CMSampleTimingInfo.duration`.
    public var duration: MediaTime

    /// When the sample is presented.
    ///
    /// Corresponds to `CMSampleTimingInfo.presentationTimeStamp`.
    public var presentationTimeStamp: MediaTime

    /// When the sample is decoded; invalid when decode order equals presentation order.
    ///
    /// Corresponds to `CMSampleTimingInfo.decodeTimeStamp`.
    public var decodeTimeStamp: MediaTime

    /// Creates timing from its three times, each invalid unless given.
    ///
    /// - Parameters:
    ///   - duration: How long the sample lasts.
    ///   - presentationTimeStamp: When the sample is presented.
    ///   - decodeTimeStamp: When the sample is decoded.
    ///
    /// Corresponds to `CMSampleTimingInfo(duration:presentationTimeStamp:decodeTimeStamp:)`.
    public init(
        duration: MediaTime = .invalid,
        presentationTimeStamp: MediaTime = .invalid,
        decodeTimeStamp: MediaTime = .invalid
    ) {
        self.duration = duration
        self.presentationTimeStamp = presentationTimeStamp
        self.decodeTimeStamp = decodeTimeStamp
    }

    /// Timing with all three times invalid.
    ///
    /// Corresponds to `kCMTimingInfoInvalid`.
    public static let invalid = SampleTimingInfo()
}
