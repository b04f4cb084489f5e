/// An MPEG-2 picture coding extension, `picture_coding_extension()` (ISO/IEC 13818-2 §6.2.3.1,
/// semantics §6.3.10): motion vector ranges, field/frame structure and display flags.
public struct MPEG2PictureCodingExtension: Sendable, Hashable {
    /// `picture_structure` (Table 6-14).
    public enum PictureStructure: Int, Sendable, Hashable {
        /// The top field of a frame, coded alone.
        case topField = 1
        /// The bottom field of a frame, coded alone.
        case bottomField = 2
        /// A frame picture (both fields together, progressive or interlaced).
        case frame = 3
    }

    /// `f_code[s][t]`: s 0 forward / 1 backward, t 0 horizontal / 1 vertical (15 = unused).
    public var fCode: [[Int]]
    /// `intra_dc_precision`: 0 to 3 for 8 to 11 bits.
    public var intraDcPrecision: Int
    /// `picture_structure`.
    public var pictureStructure: PictureStructure
    /// `top_field_first`: in a frame picture of an interlaced sequence, the top field is output
    /// first; in a progressive sequence with `repeat_first_field`, the frame is shown 3 times (else 2).
    public var topFieldFirst: Bool
    /// `frame_pred_frame_dct`: only frame prediction and frame DCT (1 in progressive frames).
    public var framePredFrameDct: Bool
    /// `concealment_motion_vectors`.
    public var concealmentMotionVectors: Bool
    /// `q_scale_type`.
    public var qScaleType: Bool
    /// `intra_vlc_format`.
    public var intraVlcFormat: Bool
    /// `alternate_scan`.
    public var alternateScan: Bool
    /// `repeat_first_field`: 3:2 pull-down (the first field is shown again after the second).
    public var repeatFirstField: Bool
    /// `chroma_420_type` (equal to `progressive_frame` for 4:2:0).
    public var chroma420Type: Bool
    /// `progressive_frame`: the two fields are from the same instant.
    public var progressiveFrame: Bool
    /// `composite_display_flag`; the composite display fields that follow it are skipped.
    public var compositeDisplayFlag: Bool

    /// `extension_start_code_identifier` of a picture coding extension.
    public static let identifier = 8

    /// Parses a picture coding extension unit.
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the unit is not a picture
    ///   coding extension, is truncated, or `picture_structure` is the reserved 0.
    public init(_ unit: MPEG2StartCodeUnit) throws(VTError) {
        guard unit.extensionStartCodeIdentifier == Self.identifier else {
            throw VTError.formatDescriptionInvalidParameter.with("MPEG-2: expected a picture coding extension")
        }
        var r = BitReader(mpeg2: unit.payload, limit: 8, context: "MPEG-2 picture coding extension")
        do throws(VTError) {
            try r.skip(4, "extension_start_code_identifier")
            var codes: [[Int]] = []
            for _ in 0..<2 { codes.append([try r.int(4, "f_code"), try r.int(4, "f_code")]) }
            fCode = codes
            intraDcPrecision = try r.int(2, "intra_dc_precision")
            let structure = try r.int(2, "picture_structure")
            guard let pictureStructure = PictureStructure(rawValue: structure) else {
                throw VTError.formatDescriptionInvalidParameter.with(
                    "MPEG-2 picture coding extension: picture_structure 0 is reserved")
            }
            self.pictureStructure = pictureStructure
            topFieldFirst = try r.flag("top_field_first")
            framePredFrameDct = try r.flag("frame_pred_frame_dct")
            concealmentMotionVectors = try r.flag("concealment_motion_vectors")
            qScaleType = try r.flag("q_scale_type")
            intraVlcFormat = try r.flag("intra_vlc_format")
            alternateScan = try r.flag("alternate_scan")
            repeatFirstField = try r.flag("repeat_first_field")
            chroma420Type = try r.flag("chroma_420_type")
            progressiveFrame = try r.flag("progressive_frame")
            compositeDisplayFlag = try r.flag("composite_display_flag")
        } catch {
            throw error.asInvalidHeader()
        }
    }

    /// Whether this is a field picture (top or bottom field coded alone).
    public var isFieldPicture: Bool { pictureStructure != .frame }
}
