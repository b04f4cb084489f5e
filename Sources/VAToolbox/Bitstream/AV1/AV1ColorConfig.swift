/// `color_config()` of an AV1 sequence header (§5.5.2): bit depth, chroma subsampling and colour
/// description.
///
/// The colour codes are those of ISO/IEC 23091-4 / ITU-T H.273, as in H.264 and HEVC VUI (and as
/// libavcodec's `AVColorPrimaries`, `AVColorTransferCharacteristic` and `AVColorSpace` number them).
public struct AV1ColorConfig: Sendable, Hashable {
    /// `high_bitdepth`.
    public internal(set) var highBitdepth: Bool
    /// `twelve_bit` (profile 2 with `high_bitdepth` only; else false).
    public internal(set) var twelveBit: Bool
    /// `BitDepth`: 8, 10 or 12.
    public internal(set) var bitDepth: Int
    /// `mono_chrome`: only a luma plane (always 0 in profile 1).
    public internal(set) var monoChrome: Bool
    /// `color_description_present_flag`.
    public internal(set) var colorDescriptionPresentFlag: Bool
    /// `color_primaries`; 2 (unspecified) when not described.
    public internal(set) var colorPrimaries: UInt8
    /// `transfer_characteristics`; 2 (unspecified) when not described.
    public internal(set) var transferCharacteristics: UInt8
    /// `matrix_coefficients`; 2 (unspecified) when not described.
    public internal(set) var matrixCoefficients: UInt8
    /// `color_range`: false studio (limited) range, true full range.
    public internal(set) var colorRange: Bool
    /// `subsampling_x`: 1 when chroma has half the luma width.
    public internal(set) var subsamplingX: Int
    /// `subsampling_y`: 1 when chroma has half the luma height.
    public internal(set) var subsamplingY: Int
    /// `chroma_sample_position` (4:2:0 only; else 0, `CSP_UNKNOWN`): 0 unknown, 1 vertical
    /// (co-located horizontally with luma, between rows), 2 co-located, 3 reserved.
    public internal(set) var chromaSamplePosition: Int
    /// `separate_uv_delta_q`: U and V have separate quantizer deltas.
    public internal(set) var separateUvDeltaQ: Bool

    /// `CP_BT_709`, `TC_SRGB`, `MC_IDENTITY` (§6.4.2): together they mean 4:4:4 RGB in full range.
    static let (bt709, srgb, identity): (UInt8, UInt8, UInt8) = (1, 13, 0)

    init(_ reader: inout BitReader, seqProfile: Int) throws(VTError) {
        highBitdepth = try reader.flag("high_bitdepth")
        twelveBit = try seqProfile == 2 && highBitdepth ? reader.flag("twelve_bit") : false
        bitDepth = twelveBit ? 12 : highBitdepth ? 10 : 8
        monoChrome = try seqProfile == 1 ? false : reader.flag("mono_chrome")
        colorDescriptionPresentFlag = try reader.flag("color_description_present_flag")
        if colorDescriptionPresentFlag {
            colorPrimaries = UInt8(try reader.f(8, "color_primaries"))
            transferCharacteristics = UInt8(try reader.f(8, "transfer_characteristics"))
            matrixCoefficients = UInt8(try reader.f(8, "matrix_coefficients"))
        } else {
            (colorPrimaries, transferCharacteristics, matrixCoefficients) = (2, 2, 2)
        }
        chromaSamplePosition = 0
        if monoChrome {
            colorRange = try reader.flag("color_range")
            (subsamplingX, subsamplingY) = (1, 1)
            separateUvDeltaQ = false
            return
        }
        if colorPrimaries == Self.bt709, transferCharacteristics == Self.srgb, matrixCoefficients == Self.identity {
            colorRange = true
            (subsamplingX, subsamplingY) = (0, 0)
        } else {
            colorRange = try reader.flag("color_range")
            switch seqProfile {
            case 0: (subsamplingX, subsamplingY) = (1, 1)
            case 1: (subsamplingX, subsamplingY) = (0, 0)
            default:
                if bitDepth == 12 {
                    subsamplingX = try reader.int(1, "subsampling_x")
                    subsamplingY = try subsamplingX == 1 ? reader.int(1, "subsampling_y") : 0
                } else {
                    (subsamplingX, subsamplingY) = (1, 0)
                }
            }
            if subsamplingX == 1, subsamplingY == 1 {
                chromaSamplePosition = try reader.int(2, "chroma_sample_position")
            }
        }
        separateUvDeltaQ = try reader.flag("separate_uv_delta_q")
    }

    /// The chroma format: `"4:0:0"` (monochrome), `"4:2:0"`, `"4:2:2"` or `"4:4:4"`.
    public var chromaFormatName: String {
        if monoChrome { return "4:0:0" }
        switch (subsamplingX, subsamplingY) {
        case (1, 1): return "4:2:0"
        case (1, 0): return "4:2:2"
        default: return "4:4:4"
        }
    }
}
