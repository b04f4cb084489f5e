/// Where a decoder's 4:2:0 chroma samples sit relative to luma, as libavcodec reports it on its
/// frames (`AVFrame.chroma_location`) — what a Y4M header's `C420jpeg`/`C420mpeg2`/`C420paldv`
/// tag and a renderer need.
public enum ChromaSiting: Sendable, Hashable {
    /// Cosited horizontally with the left luma sample, between the rows (MPEG-2, H.264 and HEVC's
    /// default: `AVCHROMA_LOC_LEFT`).
    case left
    /// Cosited with the top-left luma sample (`AVCHROMA_LOC_TOPLEFT`, 4:2:0 DV).
    case topLeft
    /// Another siting the stream states.
    case other
    /// The decoder states none.
    case unspecified
}
