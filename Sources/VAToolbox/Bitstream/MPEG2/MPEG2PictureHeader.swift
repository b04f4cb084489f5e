/// An MPEG-2 picture header, `picture_header()` (ISO/IEC 13818-2 §6.2.3, semantics §6.3.9).
public struct MPEG2PictureHeader: Sendable, Hashable {
    /// `picture_coding_type` (Table 6-12).
    public enum PictureCodingType: Int, Sendable, Hashable {
        /// Intra-coded (I).
        case intra = 1
        /// Predictive-coded (P).
        case predictive = 2
        /// Bidirectionally-predictive-coded (B).
        case bidirectional = 3
        /// D picture (MPEG-1 only; forbidden in MPEG-2).
        case dcIntra = 4

        /// `I`, `P`, `B` or `D`, as ffprobe's `pict_type`.
        public var letter: String { ["I", "P", "B", "D"][rawValue - 1] }
    }

    /// `temporal_reference` (10 bits): the display position within the GOP, modulo 1024.
    public var temporalReference: Int
    /// `picture_coding_type`.
    public var pictureCodingType: PictureCodingType
    /// `vbv_delay` (0xFFFF: variable bit rate).
    public var vbvDelay: Int
    /// `full_pel_forward_vector` (MPEG-1; 0 in MPEG-2), for P and B pictures.
    public var fullPelForwardVector = false
    /// `forward_f_code` (MPEG-1; 7 in MPEG-2), for P and B pictures.
    public var forwardFCode: Int?
    /// `full_pel_backward_vector` (MPEG-1; 0 in MPEG-2), for B pictures.
    public var fullPelBackwardVector = false
    /// `backward_f_code` (MPEG-1; 7 in MPEG-2), for B pictures.
    public var backwardFCode: Int?

    /// Parses a picture header unit.
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the unit is not a picture
    ///   header, is truncated, or `picture_coding_type` is forbidden (0) or reserved (5 to 7).
    public init(_ unit: MPEG2StartCodeUnit) throws(VTError) {
        guard unit.startCode == MPEG2StartCodeUnit.pictureStartCode else {
            throw VTError.formatDescriptionInvalidParameter.with("MPEG-2: expected a picture header (00)")
        }
        var r = BitReader(mpeg2: unit.payload, limit: 8, context: "MPEG-2 picture header")
        do throws(VTError) {
            temporalReference = try r.int(10, "temporal_reference")
            let type = try r.int(3, "picture_coding_type")
            guard let codingType = PictureCodingType(rawValue: type) else {
                throw VTError.formatDescriptionInvalidParameter.with(
                    "MPEG-2 picture header: picture_coding_type \(type) is forbidden or reserved")
            }
            pictureCodingType = codingType
            vbvDelay = try r.int(16, "vbv_delay")
            if codingType == .predictive || codingType == .bidirectional {
                fullPelForwardVector = try r.flag("full_pel_forward_vector")
                forwardFCode = try r.int(3, "forward_f_code")
            }
            if codingType == .bidirectional {
                fullPelBackwardVector = try r.flag("full_pel_backward_vector")
                backwardFCode = try r.int(3, "backward_f_code")
            }
        } catch {
            throw error.asInvalidHeader()
        }
    }
}
