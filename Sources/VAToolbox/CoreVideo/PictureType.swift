/// How a decoded picture was coded, as the decoder reports it (libavutil's `AVPictureType`, which
/// ffprobe prints as `pict_type`).
///
/// A VAToolbox type: VideoToolbox hands out no picture type.
public enum PictureType: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Intra: decoded from itself alone (`AV_PICTURE_TYPE_I`).
    case intra
    /// Predicted from earlier pictures (`AV_PICTURE_TYPE_P`).
    case predicted
    /// Bi-predicted (`AV_PICTURE_TYPE_B`).
    case biPredicted
    /// MPEG-4 S(GMC)-VOP (`AV_PICTURE_TYPE_S`).
    case sprite
    /// H.264 switching intra (`AV_PICTURE_TYPE_SI`).
    case switchingIntra
    /// H.264 switching predicted (`AV_PICTURE_TYPE_SP`).
    case switchingPredicted
    /// BI type (`AV_PICTURE_TYPE_BI`, VC-1).
    case biIntra

    /// libavutil's letter for the type (`av_get_picture_type_char`), which ffprobe prints:
    /// `I`, `P`, `B`, `S`, `i`, `p`, `b`.
    public var ffmpegLetter: Character {
        switch self {
        case .intra: "I"
        case .predicted: "P"
        case .biPredicted: "B"
        case .sprite: "S"
        case .switchingIntra: "i"
        case .switchingPredicted: "p"
        case .biIntra: "b"
        }
    }

    /// The type of libavutil's letter; nil for `?` (no type) or any other.
    public init?(ffmpegLetter letter: Character) {
        guard let type = Self.allCases.first(where: { $0.ffmpegLetter == letter }) else { return nil }
        self = type
    }

    /// The letter, as ffprobe prints it.
    public var description: String { String(ffmpegLetter) }
}
