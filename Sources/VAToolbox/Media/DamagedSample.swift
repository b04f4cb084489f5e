/// A sample ``MediaFileReader`` found damaged and went on past.
///
/// A damaged sample that still has data is handed out flagged ``SampleAttachments/damaged`` (the
/// session decodes it as the ffmpeg CLI would and reports its frame with
/// ``VTError/videoDecoderBadData``); one that could not be read at all is skipped.
public struct DamagedSample: Sendable, Hashable {
    /// The sample's number: how many packets of the track the reader met before it, damaged or
    /// not (its position in decode order from 0, when reading from the start without seeking).
    public let number: Int
    /// The sample's decode time stamp; invalid when it could not be read.
    public let decodeTimeStamp: MediaTime
    /// The sample's presentation time stamp; invalid when unknown.
    public let presentationTimeStamp: MediaTime
    /// What is wrong with it, for example `"a NAL unit length of 16776960 bytes runs past the end"`.
    public let reason: String
    /// Whether the reader skipped it (nothing could be read) rather than handing it out flagged.
    public let isSkipped: Bool

    /// The sample's time in seconds, for messages: its presentation time, else its decode time;
    /// nil when it has neither.
    public var seconds: Double? {
        if presentationTimeStamp.isNumeric { return presentationTimeStamp.seconds }
        return decodeTimeStamp.isNumeric ? decodeTimeStamp.seconds : nil
    }
}
