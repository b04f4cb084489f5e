// Colour code points of H.264 / H.265 VUI and ITU-T H.273, with the names CoreVideo gives them
// (kCVImageBufferColorPrimaries_…, kCVImageBufferTransferFunction_…, kCVImageBufferYCbCrMatrix_…).

/// Colour primaries (`colour_primaries`, H.273 Table 2), corresponding to `kCVImageBufferColorPrimariesKey`.
public struct ColorPrimaries: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The H.273 code point.
    public let rawValue: UInt8
    /// Wraps an H.273 code point.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 1: BT.709 (`kCVImageBufferColorPrimaries_ITU_R_709_2`).
    public static let itu709 = Self(rawValue: 1)
    /// 2: unspecified.
    public static let unspecified = Self(rawValue: 2)
    /// 5: BT.470 System B/G, PAL (`kCVImageBufferColorPrimaries_EBU_3213`).
    public static let ebu3213 = Self(rawValue: 5)
    /// 6: SMPTE 170M, NTSC (`kCVImageBufferColorPrimaries_SMPTE_C`).
    public static let smpteC = Self(rawValue: 6)
    /// 9: BT.2020 (`kCVImageBufferColorPrimaries_ITU_R_2020`).
    public static let itu2020 = Self(rawValue: 9)
    /// 11: DCI P3 (`kCVImageBufferColorPrimaries_DCI_P3`).
    public static let dciP3 = Self(rawValue: 11)
    /// 12: Display P3 (`kCVImageBufferColorPrimaries_P3_D65`).
    public static let p3D65 = Self(rawValue: 12)

    /// The short name H.273 and FFmpeg use, for example `"bt709"`.
    public var name: String {
        Self.names[rawValue] ?? "reserved (\(rawValue))"
    }
    /// The CoreVideo constant's suffix, for example `"ITU_R_709_2"`, when CoreVideo has one.
    public var coreVideoName: String? { Self.coreVideoNames[rawValue] }
    /// The short name.
    public var description: String { name }

    private static let names: [UInt8: String] = [
        0: "reserved", 1: "bt709", 2: "unknown", 4: "bt470m", 5: "bt470bg", 6: "smpte170m", 7: "smpte240m",
        8: "film", 9: "bt2020", 10: "smpte428", 11: "smpte431", 12: "smpte432", 22: "jedec-p22",
    ]
    private static let coreVideoNames: [UInt8: String] = [
        1: "ITU_R_709_2", 5: "EBU_3213", 6: "SMPTE_C", 9: "ITU_R_2020", 11: "DCI_P3", 12: "P3_D65",
    ]
}

/// Transfer characteristics (`transfer_characteristics`, H.273 Table 3), corresponding to
/// `kCVImageBufferTransferFunctionKey`.
public struct TransferFunction: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The H.273 code point.
    public let rawValue: UInt8
    /// Wraps an H.273 code point.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 1: BT.709 (`kCVImageBufferTransferFunction_ITU_R_709_2`).
    public static let itu709 = Self(rawValue: 1)
    /// 2: unspecified.
    public static let unspecified = Self(rawValue: 2)
    /// 6: SMPTE 170M, same curve as BT.709.
    public static let smpte170M = Self(rawValue: 6)
    /// 7: SMPTE 240M (`kCVImageBufferTransferFunction_SMPTE_240M_1995`).
    public static let smpte240M = Self(rawValue: 7)
    /// 8: linear (`kCVImageBufferTransferFunction_Linear`).
    public static let linear = Self(rawValue: 8)
    /// 13: sRGB / IEC 61966-2-1 (`kCVImageBufferTransferFunction_sRGB`).
    public static let sRGB = Self(rawValue: 13)
    /// 14: BT.2020 for 10-bit systems, the BT.709 curve (`kCVImageBufferTransferFunction_ITU_R_2020`).
    public static let itu2020TenBit = Self(rawValue: 14)
    /// 15: BT.2020 for 12-bit systems (`kCVImageBufferTransferFunction_ITU_R_2020` too).
    public static let itu2020TwelveBit = Self(rawValue: 15)
    /// 16: SMPTE ST 2084, PQ (`kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ`).
    public static let pq = Self(rawValue: 16)
    /// 17: SMPTE ST 428-1 (`kCVImageBufferTransferFunction_SMPTE_ST_428_1`).
    public static let smpte428 = Self(rawValue: 17)
    /// 18: ARIB STD-B67, HLG (`kCVImageBufferTransferFunction_ITU_R_2100_HLG`).
    public static let hlg = Self(rawValue: 18)

    /// The short name H.273 and FFmpeg use, for example `"smpte2084"`.
    public var name: String { Self.names[rawValue] ?? "reserved (\(rawValue))" }
    /// The short name.
    public var description: String { name }

    private static let names: [UInt8: String] = [
        0: "reserved", 1: "bt709", 2: "unknown", 4: "bt470m", 5: "bt470bg", 6: "smpte170m", 7: "smpte240m",
        8: "linear", 9: "log100", 10: "log316", 11: "iec61966-2-4", 12: "bt1361e", 13: "iec61966-2-1",
        14: "bt2020-10", 15: "bt2020-12", 16: "smpte2084", 17: "smpte428", 18: "arib-std-b67",
    ]
}

/// Matrix coefficients (`matrix_coefficients`, H.273 Table 4), corresponding to
/// `kCVImageBufferYCbCrMatrixKey`.
public struct YCbCrMatrix: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The H.273 code point.
    public let rawValue: UInt8
    /// Wraps an H.273 code point.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0: identity (GBR).
    public static let identity = Self(rawValue: 0)
    /// 1: BT.709 (`kCVImageBufferYCbCrMatrix_ITU_R_709_2`).
    public static let itu709 = Self(rawValue: 1)
    /// 2: unspecified.
    public static let unspecified = Self(rawValue: 2)
    /// 5: BT.470 System B/G (`kCVImageBufferYCbCrMatrix_ITU_R_601_4`).
    public static let bt470BG = Self(rawValue: 5)
    /// 6: SMPTE 170M, BT.601 (`kCVImageBufferYCbCrMatrix_ITU_R_601_4`).
    public static let itu601 = Self(rawValue: 6)
    /// 9: BT.2020 non-constant luminance (`kCVImageBufferYCbCrMatrix_ITU_R_2020`).
    public static let itu2020 = Self(rawValue: 9)

    /// The short name H.273 and FFmpeg use, for example `"bt2020nc"`.
    public var name: String { Self.names[rawValue] ?? "reserved (\(rawValue))" }
    /// The short name.
    public var description: String { name }

    private static let names: [UInt8: String] = [
        0: "gbr", 1: "bt709", 2: "unknown", 4: "fcc", 5: "bt470bg", 6: "smpte170m", 7: "smpte240m",
        8: "ycgco", 9: "bt2020nc", 10: "bt2020c", 11: "smpte2085", 12: "chroma-derived-nc",
        13: "chroma-derived-c", 14: "ictcp",
    ]
}
