/// An H.264 `nal_unit_type` (Table 7-1), 0 to 31.
///
/// ``description`` gives the listing VideoToolbox examples print by hand:
/// `"7: Sequence parameter set (non-VCL)"`.
public struct H264NALUnitType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The 5-bit value of `nal_unit_type`.
    public let rawValue: UInt8

    /// Creates a type from its value; values above 31 are masked to 5 bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x1F }

    /// 1: coded slice of a non-IDR picture.
    public static let nonIDRSlice = Self(rawValue: 1)
    /// 2: coded slice data partition A.
    public static let sliceDataPartitionA = Self(rawValue: 2)
    /// 3: coded slice data partition B.
    public static let sliceDataPartitionB = Self(rawValue: 3)
    /// 4: coded slice data partition C.
    public static let sliceDataPartitionC = Self(rawValue: 4)
    /// 5: coded slice of an IDR picture.
    public static let idrSlice = Self(rawValue: 5)
    /// 6: supplemental enhancement information.
    public static let sei = Self(rawValue: 6)
    /// 7: sequence parameter set.
    public static let sequenceParameterSet = Self(rawValue: 7)
    /// 8: picture parameter set.
    public static let pictureParameterSet = Self(rawValue: 8)
    /// 9: access unit delimiter.
    public static let accessUnitDelimiter = Self(rawValue: 9)
    /// 10: end of sequence.
    public static let endOfSequence = Self(rawValue: 10)
    /// 11: end of stream.
    public static let endOfStream = Self(rawValue: 11)
    /// 12: filler data.
    public static let fillerData = Self(rawValue: 12)
    /// 13: sequence parameter set extension.
    public static let sequenceParameterSetExtension = Self(rawValue: 13)
    /// 14: prefix NAL unit (SVC/MVC).
    public static let prefix = Self(rawValue: 14)
    /// 15: subset sequence parameter set (SVC/MVC).
    public static let subsetSequenceParameterSet = Self(rawValue: 15)
    /// 16: depth parameter set.
    public static let depthParameterSet = Self(rawValue: 16)
    /// 19: coded slice of an auxiliary coded picture without partitioning (e.g. alpha).
    public static let auxiliarySlice = Self(rawValue: 19)
    /// 20: coded slice extension (SVC/MVC).
    public static let sliceExtension = Self(rawValue: 20)

    /// The name from Table 7-1.
    public var name: String { Self.names[Int(rawValue)] }

    /// Whether the unit carries coded picture data of the primary picture (types 1 to 5, Annex A).
    public var isVCL: Bool { (1...5).contains(rawValue) }

    /// Whether the unit is a slice of an IDR picture, where decoding can start.
    public var isIDR: Bool { self == .idrSlice }

    /// Whether the unit is a parameter set: SPS, PPS or SPS extension (7, 8, 13).
    var isParameterSet: Bool {
        self == .sequenceParameterSet || self == .pictureParameterSet || self == .sequenceParameterSetExtension
    }

    /// Whether the unit begins with a slice header: a non-IDR or IDR slice, or data partition A
    /// (1, 2, 5); partitions B and C (3, 4) carry only `slice_id`.
    var carriesSliceHeader: Bool { self == .nonIDRSlice || self == .sliceDataPartitionA || self == .idrSlice }

    /// Whether a unit of this type ends the access unit of a picture before it (clause 7.4.1.2.3):
    /// SEI, SPS, PPS, access unit delimiter, and types 14 to 18.
    var startsAccessUnit: Bool { (6...9).contains(rawValue) || (14...18).contains(rawValue) }

    /// `"7: Sequence parameter set (non-VCL)"`.
    public var description: String { "\(rawValue): \(name) (\(isVCL ? "VCL" : "non-VCL"))" }

    private static let names: [String] = [
        "Unspecified",
        "Coded slice of a non-IDR picture",
        "Coded slice data partition A",
        "Coded slice data partition B",
        "Coded slice data partition C",
        "Coded slice of an IDR picture",
        "Supplemental enhancement information",
        "Sequence parameter set",
        "Picture parameter set",
        "Access unit delimiter",
        "End of sequence",
        "End of stream",
        "Filler data",
        "Sequence parameter set extension",
        "Prefix NAL unit",
        "Subset sequence parameter set",
        "Depth parameter set",
        "Reserved",
        "Reserved",
        "Coded slice of an auxiliary coded picture without partitioning",
        "Coded slice extension",
        "Coded slice extension for a depth view component",
        "Reserved",
        "Reserved",
        "Unspecified",
        "Unspecified",
        "Unspecified",
        "Unspecified",
        "Unspecified",
        "Unspecified",
        "Unspecified",
        "Unspecified",
    ]
}
