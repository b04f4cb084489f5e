/// An MPEG-2 group of pictures header, `group_of_pictures_header()` (ISO/IEC 13818-2 §6.2.2.6).
public struct MPEG2GroupOfPicturesHeader: Sendable, Hashable {
    /// `time_code` (25 bits: drop frame flag, hours, minutes, marker, seconds, pictures).
    public var timeCode: Int
    /// `closed_gop`: B pictures right after the first I picture use backward prediction only.
    public var closedGop: Bool
    /// `broken_link`: the B pictures right after the first I picture cannot be decoded (an edit).
    public var brokenLink: Bool

    /// Parses a group of pictures header unit.
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the unit is not a GOP header or is truncated.
    public init(_ unit: MPEG2StartCodeUnit) throws(VTError) {
        guard unit.startCode == MPEG2StartCodeUnit.groupStartCode else {
            throw VTError.formatDescriptionInvalidParameter.with("MPEG-2: expected a group of pictures header (B8)")
        }
        var r = BitReader(mpeg2: unit.payload, limit: 4, context: "MPEG-2 group of pictures header")
        do throws(VTError) {
            timeCode = try r.int(25, "time_code")
            closedGop = try r.flag("closed_gop")
            brokenLink = try r.flag("broken_link")
        } catch {
            throw error.asInvalidHeader()
        }
    }
}
