/// How a media file ends before its container says it should — a download or a copy cut short —
/// as ``MediaFileReader/truncation`` reports it: the ffmpeg CLI's `partial file` (MP4) and `File
/// ended prematurely` (Matroska).
///
/// The samples wholly in the file are read as usual; one the end of the file cuts through comes
/// out flagged ``SampleAttachments/damaged`` (and is listed in
/// ``MediaFileReader/damagedSamples``) when the container hands out what there is of it, as
/// MP4's does; the samples after it are not in the file, and are not read.
public struct MediaFileTruncation: Sendable, Hashable, CustomStringConvertible {
    /// The file's size in bytes: where it ends.
    public let fileSize: Int64
    /// The size the container's structure gives the file at least: the end of the top-level
    /// element that runs past the end of the file (``element``), else the end of the last sample
    /// the sample table places; nil when only a sample cut short shows the truncation.
    public let expectedSize: Int64?
    /// The top-level element that runs past the end of the file, by its container's name for it:
    /// `"mdat"` (an MP4/MOV box), `"Segment"` (Matroska, WebM); nil when none does.
    public let element: String?
    /// How many samples the track's sample table lists (MP4/MOV, whose `stbl` lists every
    /// sample up front); nil for containers that have no such table (Matroska, WebM, IVF).
    public let expectedSampleCount: Int?
    /// How many of the samples the table lists lie wholly in the file (they are the ones that
    /// can be read whole); nil with ``expectedSampleCount``.
    public let completeSampleCount: Int?
    /// The byte offset at which the first sample not wholly in the file starts; nil when
    /// unknown.
    public let firstIncompleteSampleOffset: Int64?

    init(
        fileSize: Int64, expectedSize: Int64?, element: String?, expectedSampleCount: Int?,
        completeSampleCount: Int?, firstIncompleteSampleOffset: Int64?
    ) {
        self.fileSize = fileSize
        self.expectedSize = expectedSize
        self.element = element
        self.expectedSampleCount = expectedSampleCount
        self.completeSampleCount = completeSampleCount
        self.firstIncompleteSampleOffset = firstIncompleteSampleOffset
    }

    /// One line for messages, for example `"the file ends at byte 54307, but its mdat box runs to
    /// byte 92002; 25 of the track's 48 samples are in the file whole (the first one cut starts
    /// at byte 52851) (partial file)"`.
    public var description: String {
        var text = "the file ends at byte \(fileSize)"
        if let expectedSize {
            let structure = element.map { ["EBML", "Segment"].contains($0) ? "its \($0) element" : "its \($0) box" }
            text += ", but \(structure ?? "its last sample") runs to byte \(expectedSize)"
        }
        if let expectedSampleCount, let completeSampleCount {
            text += "; \(completeSampleCount) of the track's \(expectedSampleCount) samples are in the file whole"
            if let firstIncompleteSampleOffset {
                text += " (the first one cut starts at byte \(firstIncompleteSampleOffset))"
            }
        } else if let firstIncompleteSampleOffset {
            text += "; the sample at byte \(firstIncompleteSampleOffset) is cut short"
        }
        return text + " (partial file)"
    }
}
