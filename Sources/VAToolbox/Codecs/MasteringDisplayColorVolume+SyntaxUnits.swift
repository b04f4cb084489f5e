/// The fixed-point units a codec's bitstream states a mastering display colour volume in: the
/// denominators of the rationals libavcodec's decoders put in a frame's side data
/// (`AVMasteringDisplayMetadata`), which ffprobe prints unreduced (`"34000/50000"`).
///
/// A VAToolbox type, for showing metadata as ffprobe does; Apple's values are the HEVC SEI
/// message's units (``MasteringDisplayColorVolume``).
public struct MasteringDisplaySyntaxUnits: Sendable, Hashable {
    /// Steps per unit of a chromaticity coordinate.
    public var chromaticityDenominator: Int
    /// Steps per cd/m² of the minimum luminance.
    public var minimumLuminanceDenominator: Int
    /// Steps per cd/m² of the maximum luminance.
    public var maximumLuminanceDenominator: Int

    /// HEVC's and H.264's `mastering_display_colour_volume` SEI message (H.265 D.3.28): steps of
    /// 0.00002 and 0.0001 cd/m², the units ``MasteringDisplayColorVolume`` keeps.
    public static let supplementalEnhancementInformation = Self(
        chromaticityDenominator: 50000, minimumLuminanceDenominator: 10000, maximumLuminanceDenominator: 10000)
    /// AV1's `METADATA_TYPE_HDR_MDCV` (AV1 §6.7.4): chromaticities in 0.16 fixed point, the
    /// maximum luminance in 24.8 and the minimum in 18.14.
    public static let av1Metadata = Self(
        chromaticityDenominator: 1 << 16, minimumLuminanceDenominator: 1 << 14, maximumLuminanceDenominator: 1 << 8)
}

extension VideoCodecType {
    /// The units this codec's bitstream states a mastering display in: AV1's metadata OBU, else
    /// the SEI message's (which containers use too).
    public var masteringDisplaySyntaxUnits: MasteringDisplaySyntaxUnits {
        self == .av1 ? .av1Metadata : .supplementalEnhancementInformation
    }
}

extension MasteringDisplayColorVolume {
    /// The numerators of the values in `units`, each rounded to the nearest step, in ffprobe's
    /// order: red x, y, green x, y, blue x, y, white point x, y, minimum luminance, maximum
    /// luminance.
    ///
    /// A value the bitstream stated in `units` comes back as it was stated whenever it is a whole
    /// number of 0.00002 (a chromaticity) or 0.0001 cd/m² (a luminance), since
    /// ``MasteringDisplayColorVolume`` keeps those steps and the syntax's are finer.
    public func numerators(in units: MasteringDisplaySyntaxUnits) -> [Int] {
        func scaled(_ code: some BinaryInteger, from: Int, to: Int) -> Int {
            Int((Double(code) * Double(to) / Double(from)).rounded())
        }
        let chromaticities = [red, green, blue, whitePoint].flatMap { [$0.xCode, $0.yCode] }.map {
            scaled($0, from: 50000, to: units.chromaticityDenominator)
        }
        return chromaticities + [
            scaled(minimumLuminanceCode, from: 10000, to: units.minimumLuminanceDenominator),
            scaled(maximumLuminanceCode, from: 10000, to: units.maximumLuminanceDenominator),
        ]
    }
}
