/// `obu_type`: what an open bitstream unit (OBU) carries (AV1 specification §6.2.2, Table
/// "OBU types").
///
/// A struct rather than an enum because the reserved values (0, 9 to 14) occur in valid streams:
/// a decoder ignores OBUs of a reserved type (§6.2.2), so the parser keeps them with their number.
public struct AV1OBUType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The 4-bit `obu_type` value, 0 to 15.
    public let rawValue: UInt8

    /// Wraps an `obu_type` value; only the low 4 bits are kept.
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x0f }

    /// `OBU_SEQUENCE_HEADER` (1): a ``AV1SequenceHeader``.
    public static let sequenceHeader = AV1OBUType(rawValue: 1)
    /// `OBU_TEMPORAL_DELIMITER` (2): starts a temporal unit; empty payload.
    public static let temporalDelimiter = AV1OBUType(rawValue: 2)
    /// `OBU_FRAME_HEADER` (3): a frame header whose tile groups follow in separate OBUs.
    public static let frameHeader = AV1OBUType(rawValue: 3)
    /// `OBU_TILE_GROUP` (4): tile data of the current frame.
    public static let tileGroup = AV1OBUType(rawValue: 4)
    /// `OBU_METADATA` (5): HDR metadata, ITU-T T.35 data, timecodes and the like.
    public static let metadata = AV1OBUType(rawValue: 5)
    /// `OBU_FRAME` (6): a frame header and its first tile group in one OBU.
    public static let frame = AV1OBUType(rawValue: 6)
    /// `OBU_REDUNDANT_FRAME_HEADER` (7): a copy of the current frame's header, for error resilience.
    public static let redundantFrameHeader = AV1OBUType(rawValue: 7)
    /// `OBU_TILE_LIST` (8): tiles for large-scale tile decoding (not a normal decoding path).
    public static let tileList = AV1OBUType(rawValue: 8)
    /// `OBU_PADDING` (15): bytes to ignore.
    public static let padding = AV1OBUType(rawValue: 15)

    /// Whether the type is reserved (0, 9 to 14): a decoder ignores such OBUs.
    public var isReserved: Bool { rawValue == 0 || (9...14).contains(rawValue) }

    /// Whether the OBU starts with an `uncompressed_header()` that begins a frame: a frame header
    /// or a frame OBU. Redundant frame headers only repeat one.
    public var startsFrame: Bool { self == .frameHeader || self == .frame }

    /// A short name for listings: `TD`, `SEQ`, `FRAME_HDR`, `TILE_GROUP`, `METADATA`, `FRAME`,
    /// `REDUNDANT_FRAME_HDR`, `TILE_LIST`, `PADDING`, or `RESERVED(n)`.
    public var description: String {
        switch rawValue {
        case 1: "SEQ"
        case 2: "TD"
        case 3: "FRAME_HDR"
        case 4: "TILE_GROUP"
        case 5: "METADATA"
        case 6: "FRAME"
        case 7: "REDUNDANT_FRAME_HDR"
        case 8: "TILE_LIST"
        case 15: "PADDING"
        default: "RESERVED(\(rawValue))"
        }
    }
}
