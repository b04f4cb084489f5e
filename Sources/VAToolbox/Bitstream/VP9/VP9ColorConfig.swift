/// The colour configuration of a VP9 frame, `color_config()` (VP9 specification v0.6 §6.2.2),
/// carried by key frames and by intra-only frames of profiles 1 to 3.
public struct VP9ColorConfig: Sendable, Hashable {
    /// `BitDepth`: 8, or 10 / 12 (`ten_or_twelve_bit`) in profiles 2 and 3.
    public var bitDepth: Int
    /// `color_space` (§7.2.2): 0 unknown, 1 BT.601, 2 BT.709, 3 SMPTE 170, 4 SMPTE 240,
    /// 5 BT.2020, 6 reserved, 7 sRGB (RGB, profiles 1 and 3 only).
    public var colorSpace: Int
    /// `color_range`: 0 studio swing (16–235), 1 full swing (0–255). 1 for sRGB.
    public var colorRange: Int
    /// `subsampling_x`: 1 when chroma has half the luma width.
    public var subsamplingX: Int
    /// `subsampling_y`: 1 when chroma has half the luma height.
    public var subsamplingY: Int

    /// The value of `color_space` for RGB.
    public static let colorSpaceRGB = 7

    /// What intra-only frames of profile 0 imply (§7.2: 8-bit 4:2:0 BT.601, studio range).
    public static let profile0IntraOnly = VP9ColorConfig(
        bitDepth: 8, colorSpace: 1, colorRange: 0, subsamplingX: 1, subsamplingY: 1)

    /// Creates a colour configuration from its syntax elements.
    public init(bitDepth: Int, colorSpace: Int, colorRange: Int, subsamplingX: Int, subsamplingY: Int) {
        self.bitDepth = bitDepth
        self.colorSpace = colorSpace
        self.colorRange = colorRange
        self.subsamplingX = subsamplingX
        self.subsamplingY = subsamplingY
    }

    /// Reads `color_config()` for `profile`.
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the data ends, a reserved bit
    ///   is set, or profile 0 / 2 signals RGB or 4:4:4 where the spec forbids it.
    init(from r: inout BitReader, profile: Int) throws(VTError) {
        bitDepth = profile >= 2 ? (try r.flag("ten_or_twelve_bit") ? 12 : 10) : 8
        colorSpace = try r.int(3, "color_space")
        let hasChromaSubsamplingBits = profile == 1 || profile == 3
        if colorSpace != Self.colorSpaceRGB {
            colorRange = try r.int(1, "color_range")
            if hasChromaSubsamplingBits {
                subsamplingX = try r.int(1, "subsampling_x")
                subsamplingY = try r.int(1, "subsampling_y")
                guard subsamplingX == 0 || subsamplingY == 0 else {
                    throw VTError.formatDescriptionInvalidParameter.with(
                        "VP9 color_config: profile \(profile) signals 4:2:0, which is for profiles 0 and 2 only")
                }
                guard try !r.flag("reserved_zero") else {
                    throw VTError.formatDescriptionInvalidParameter.with("VP9 color_config: reserved_zero is 1")
                }
            } else {
                subsamplingX = 1
                subsamplingY = 1
            }
        } else {
            colorRange = 1
            guard hasChromaSubsamplingBits else {
                throw VTError.formatDescriptionInvalidParameter.with(
                    "VP9 color_config: RGB (color_space 7) in profile \(profile), allowed in profiles 1 and 3 only")
            }
            subsamplingX = 0
            subsamplingY = 0
            guard try !r.flag("reserved_zero") else {
                throw VTError.formatDescriptionInvalidParameter.with("VP9 color_config: reserved_zero is 1")
            }
        }
    }

    /// Whether the samples use the full range (`color_range` 1).
    public var isFullRange: Bool { colorRange == 1 }

    /// The chroma format in words: `4:2:0`, `4:2:2`, `4:4:0` or `4:4:4`.
    public var chromaFormat: String {
        switch (subsamplingX, subsamplingY) {
        case (1, 1): "4:2:0"
        case (1, 0): "4:2:2"
        case (0, 1): "4:4:0"
        default: "4:4:4"
        }
    }

    /// The colour space in words (`BT.601`, `BT.709`, `sRGB`, …).
    public var colorSpaceName: String {
        ["unknown", "BT.601", "BT.709", "SMPTE 170", "SMPTE 240", "BT.2020", "reserved", "sRGB"][colorSpace & 7]
    }
}
