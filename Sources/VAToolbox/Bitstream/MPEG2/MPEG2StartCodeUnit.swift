/// One start-code unit of an MPEG-2 video stream (ISO/IEC 13818-2 §6.2, Table 6-1): the start
/// code value after a `00 00 01` prefix, and the bytes up to the next start code prefix.
///
/// The units are the headers (sequence, extension, group of pictures, picture, user data) and
/// the slices of the stream.
public struct MPEG2StartCodeUnit: Sendable, Hashable {
    /// The start code value: the byte after `00 00 01`.
    public var startCode: UInt8
    /// The bytes after the start code value, up to the next `00 00 01` (zero bytes before it included).
    public var payload: ArraySlice<UInt8>
    /// The index of the unit's `00 00 01` prefix in the data it was split from.
    public var prefixIndex: Int

    /// `picture_start_code` (00).
    public static let pictureStartCode: UInt8 = 0x00
    /// The last `slice_start_code` (01 to AF).
    public static let lastSliceStartCode: UInt8 = 0xAF
    /// `user_data_start_code` (B2).
    public static let userDataStartCode: UInt8 = 0xB2
    /// `sequence_header_code` (B3).
    public static let sequenceHeaderCode: UInt8 = 0xB3
    /// `sequence_error_code` (B4).
    public static let sequenceErrorCode: UInt8 = 0xB4
    /// `extension_start_code` (B5).
    public static let extensionStartCode: UInt8 = 0xB5
    /// `sequence_end_code` (B7).
    public static let sequenceEndCode: UInt8 = 0xB7
    /// `group_start_code` (B8).
    public static let groupStartCode: UInt8 = 0xB8

    /// Creates a unit.
    public init(startCode: UInt8, payload: ArraySlice<UInt8>, prefixIndex: Int) {
        self.startCode = startCode
        self.payload = payload
        self.prefixIndex = prefixIndex
    }

    /// Whether the unit is a slice (`slice_start_code` 01 to AF).
    public var isSlice: Bool { (0x01...Self.lastSliceStartCode).contains(startCode) }

    /// For an extension unit, `extension_start_code_identifier` (Table 6-2): 1 sequence, 2 sequence
    /// display, 3 quant matrix, 5 sequence scalable, 7 picture display, 8 picture coding, …
    public var extensionStartCodeIdentifier: Int? {
        guard startCode == Self.extensionStartCode, let first = payload.first else { return nil }
        return Int(first >> 4)
    }

    /// Splits MPEG-2 video data into its start-code units, without copying.
    ///
    /// Bytes before the first `00 00 01` belong to no unit and are skipped; a prefix at the very
    /// end with no start code value after it is ignored.
    public static func split(_ data: ArraySlice<UInt8>) -> [MPEG2StartCodeUnit] {
        var prefixes: [Int] = []
        var index = data.startIndex
        while index + 3 < data.endIndex {
            let third = data[index + 2]
            if third > 1 {
                index += 3
            } else if third == 1, data[index] == 0, data[index + 1] == 0 {
                prefixes.append(index)
                index += 4
            } else {
                index += 1
            }
        }
        var units: [MPEG2StartCodeUnit] = []
        for (i, prefix) in prefixes.enumerated() {
            let end = i + 1 < prefixes.count ? prefixes[i + 1] : data.endIndex
            units.append(
                MPEG2StartCodeUnit(startCode: data[prefix + 3], payload: data[(prefix + 4)..<end], prefixIndex: prefix))
        }
        return units
    }
}

extension BitReader {
    /// A reader over the first `limit` bytes of an MPEG-2 unit's payload (headers are short; a
    /// prefix avoids copying a slice's data).
    init(mpeg2 payload: ArraySlice<UInt8>, limit: Int, context: String) {
        self.init(Array(payload.prefix(limit)), context: context)
    }

    /// Reads a `marker_bit`, which must be 1.
    mutating func markerBit(_ element: StaticString) throws(VTError) {
        guard try flag(element) else {
            throw VTError.formatDescriptionInvalidParameter.with("\(context): marker_bit after \(element) is 0")
        }
    }
}
