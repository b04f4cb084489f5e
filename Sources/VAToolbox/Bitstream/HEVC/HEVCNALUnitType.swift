/// An HEVC `nal_unit_type` (H.265 Table 7-1), 0 to 63, read as `(byte0 >> 1) & 0x3F`.
public struct HEVCNALUnitType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The 6-bit value of `nal_unit_type`.
    public let rawValue: UInt8

    /// Creates a type from its value; values above 63 are masked to 6 bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x3F }

    /// 0: TRAIL_N, trailing picture, sub-layer non-reference.
    public static let trailN = Self(rawValue: 0)
    /// 1: TRAIL_R, trailing picture, reference.
    public static let trailR = Self(rawValue: 1)
    /// 8: RASL_N, random access skipped leading picture, non-reference.
    public static let raslN = Self(rawValue: 8)
    /// 9: RASL_R, random access skipped leading picture, reference.
    public static let raslR = Self(rawValue: 9)
    /// 16: BLA_W_LP, broken link access with leading pictures.
    public static let blaWLP = Self(rawValue: 16)
    /// 19: IDR_W_RADL, instantaneous decoding refresh with decodable leading pictures.
    public static let idrWRADL = Self(rawValue: 19)
    /// 20: IDR_N_LP, instantaneous decoding refresh without leading pictures.
    public static let idrNLP = Self(rawValue: 20)
    /// 21: CRA_NUT, clean random access.
    public static let cra = Self(rawValue: 21)
    /// 32: VPS_NUT, video parameter set.
    public static let videoParameterSet = Self(rawValue: 32)
    /// 33: SPS_NUT, sequence parameter set.
    public static let sequenceParameterSet = Self(rawValue: 33)
    /// 34: PPS_NUT, picture parameter set.
    public static let pictureParameterSet = Self(rawValue: 34)
    /// 35: AUD_NUT, access unit delimiter.
    public static let accessUnitDelimiter = Self(rawValue: 35)
    /// 36: EOS_NUT, end of sequence.
    public static let endOfSequence = Self(rawValue: 36)
    /// 37: EOB_NUT, end of bitstream.
    public static let endOfBitstream = Self(rawValue: 37)
    /// 38: FD_NUT, filler data.
    public static let fillerData = Self(rawValue: 38)
    /// 39: PREFIX_SEI_NUT.
    public static let prefixSEI = Self(rawValue: 39)
    /// 40: SUFFIX_SEI_NUT.
    public static let suffixSEI = Self(rawValue: 40)
    /// 62: UNSPEC62, which Dolby Vision uses for its RPU (the metadata of each picture).
    public static let dolbyVisionRPU = Self(rawValue: 62)

    /// The short name from Table 7-1, for example `"IDR_W_RADL"`.
    public var name: String { Self.names[Int(rawValue)] }

    /// Whether the unit is a coded slice segment (types 0 to 31).
    public var isVCL: Bool { rawValue < 32 }

    /// Whether the unit is an intra random access point picture (BLA, IDR, CRA: 16 to 23).
    public var isIRAP: Bool { (16...23).contains(rawValue) }

    /// Whether the unit is an IDR picture (19, 20).
    public var isIDR: Bool { rawValue == 19 || rawValue == 20 }

    /// Whether the unit is a BLA picture (BLA_W_LP, BLA_W_RADL, BLA_N_LP: 16 to 18).
    var isBLA: Bool { (16...18).contains(rawValue) }

    /// Whether the unit is a CRA picture (21).
    var isCRA: Bool { rawValue == 21 }

    /// Whether the unit is a random access skipped leading picture (RASL_N, RASL_R: 8, 9).
    var isRASL: Bool { rawValue == 8 || rawValue == 9 }

    /// Whether the unit is a random access decodable leading picture (RADL_N, RADL_R: 6, 7).
    var isRADL: Bool { rawValue == 6 || rawValue == 7 }

    /// Whether the unit is a parameter set: VPS, SPS or PPS (32 to 34).
    var isParameterSet: Bool { (32...34).contains(rawValue) }

    /// Whether a non-VCL unit of this type ends the access unit of a picture before it (clause
    /// 7.4.2.4.4): VPS, SPS, PPS, AUD, prefix SEI, and types 41 to 44 and 48 to 55.
    var startsAccessUnit: Bool {
        switch rawValue {
        case 32...35, 39, 41...44, 48...55: true
        default: false
        }
    }

    /// Whether the unit is a sub-layer non-reference picture (the even VCL types up to 14).
    var isSubLayerNonReference: Bool { isVCL && !isReference }

    /// Whether a VCL unit belongs to a picture that other pictures of its sub-layer may reference.
    ///
    /// False for the sub-layer non-reference types TRAIL_N, TSA_N, STSA_N, RADL_N, RASL_N and
    /// RSV_VCL_N10/12/14 (even values up to 14); true for other VCL types; false for non-VCL units.
    public var isReference: Bool { isVCL && !(rawValue <= 14 && rawValue % 2 == 0) }

    /// `"19: IDR_W_RADL (VCL)"`.
    public var description: String { "\(rawValue): \(name) (\(isVCL ? "VCL" : "non-VCL"))" }

    private static let names: [String] = {
        var names = [
            "TRAIL_N", "TRAIL_R", "TSA_N", "TSA_R", "STSA_N", "STSA_R", "RADL_N", "RADL_R",
            "RASL_N", "RASL_R", "RSV_VCL_N10", "RSV_VCL_R11", "RSV_VCL_N12", "RSV_VCL_R13", "RSV_VCL_N14",
            "RSV_VCL_R15", "BLA_W_LP", "BLA_W_RADL", "BLA_N_LP", "IDR_W_RADL", "IDR_N_LP", "CRA_NUT",
            "RSV_IRAP_VCL22", "RSV_IRAP_VCL23",
        ]
        names += (24...31).map { "RSV_VCL\($0)" }
        names += [
            "VPS_NUT", "SPS_NUT", "PPS_NUT", "AUD_NUT", "EOS_NUT", "EOB_NUT", "FD_NUT", "PREFIX_SEI_NUT",
            "SUFFIX_SEI_NUT",
        ]
        names += (41...47).map { "RSV_NVCL\($0)" }
        names += (48...63).map { "UNSPEC\($0)" }
        return names
    }()
}
