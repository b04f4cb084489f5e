/// An MPEG-2 video sequence header, `sequence_header()` (ISO/IEC 13818-2 §6.2.2.1, semantics §6.3.3).
///
/// Field names are the spec's syntax elements in lowerCamelCase. The size and frame rate of the
/// sequence also depend on the sequence extension (see ``width(with:)``, ``frameRate(with:)``).
public struct MPEG2SequenceHeader: Sendable, Hashable {
    /// `horizontal_size_value`: the low 12 bits of the width in pixels.
    public var horizontalSizeValue: Int
    /// `vertical_size_value`: the low 12 bits of the height in pixels.
    public var verticalSizeValue: Int
    /// `aspect_ratio_information` (Table 6-3): 1 square samples, 2 display 4:3, 3 16:9, 4 2.21:1.
    public var aspectRatioInformation: Int
    /// `frame_rate_code` (Table 6-4): 1 24000/1001, 2 24, 3 25, 4 30000/1001, 5 30, 6 50, 7 60000/1001, 8 60.
    public var frameRateCode: Int
    /// `bit_rate_value`: the low 18 bits of the bit rate in units of 400 bit/s (0x3FFFF: variable, in practice).
    public var bitRateValue: Int
    /// `vbv_buffer_size_value`: the low 10 bits of the VBV buffer size in units of 16 kbit.
    public var vbvBufferSizeValue: Int
    /// `constrained_parameters_flag` (0 in MPEG-2 streams).
    public var constrainedParametersFlag: Bool
    /// `intra_quantiser_matrix[64]` in the coded (zigzag) order, when `load_intra_quantiser_matrix` is 1.
    public var intraQuantiserMatrix: [UInt8]?
    /// `non_intra_quantiser_matrix[64]` in the coded (zigzag) order, when `load_non_intra_quantiser_matrix` is 1.
    public var nonIntraQuantiserMatrix: [UInt8]?

    /// Parses a sequence header unit.
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the unit is not a sequence
    ///   header, is truncated, a marker bit is 0, or a size, aspect ratio or frame rate code is
    ///   forbidden (0) or reserved.
    public init(_ unit: MPEG2StartCodeUnit) throws(VTError) {
        guard unit.startCode == MPEG2StartCodeUnit.sequenceHeaderCode else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "MPEG-2: expected a sequence header (B3), got start code \(unit.startCode)")
        }
        var r = BitReader(mpeg2: unit.payload, limit: 8 + 128, context: "MPEG-2 sequence header")
        do throws(VTError) {
            horizontalSizeValue = try r.int(12, "horizontal_size_value")
            verticalSizeValue = try r.int(12, "vertical_size_value")
            aspectRatioInformation = try r.int(4, "aspect_ratio_information")
            frameRateCode = try r.int(4, "frame_rate_code")
            bitRateValue = try r.int(18, "bit_rate_value")
            try r.markerBit("bit_rate_value")
            vbvBufferSizeValue = try r.int(10, "vbv_buffer_size_value")
            constrainedParametersFlag = try r.flag("constrained_parameters_flag")
            intraQuantiserMatrix = try r.flag("load_intra_quantiser_matrix") ? try Self.matrix(&r) : nil
            nonIntraQuantiserMatrix = try r.flag("load_non_intra_quantiser_matrix") ? try Self.matrix(&r) : nil
        } catch {
            throw error.asInvalidHeader()
        }
        guard horizontalSizeValue > 0, verticalSizeValue > 0 else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "MPEG-2 sequence header: size \(horizontalSizeValue)x\(verticalSizeValue) has a forbidden 0")
        }
        guard (1...4).contains(aspectRatioInformation) else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "MPEG-2 sequence header: aspect_ratio_information \(aspectRatioInformation) is forbidden or reserved")
        }
        guard Self.frameRates.indices.contains(frameRateCode - 1) else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "MPEG-2 sequence header: frame_rate_code \(frameRateCode) is forbidden or reserved")
        }
    }

    /// Table 6-4 `frame_rate_value` for codes 1 to 8, as numerator / denominator.
    static let frameRates: [(numerator: Int, denominator: Int)] = [
        (24000, 1001), (24, 1), (25, 1), (30000, 1001), (30, 1), (50, 1), (60000, 1001), (60, 1),
    ]

    private static func matrix(_ r: inout BitReader) throws(VTError) -> [UInt8] {
        var values: [UInt8] = []
        for _ in 0..<64 { values.append(UInt8(try r.bits(8, "quantiser_matrix"))) }
        guard values.allSatisfy({ $0 != 0 }) else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "MPEG-2 sequence header: a quantiser matrix value is 0")
        }
        return values
    }

    /// The width in pixels: `horizontal_size_extension << 12 | horizontal_size_value` (§6.3.5).
    public func width(with sequenceExtension: MPEG2SequenceExtension?) -> Int {
        (sequenceExtension?.horizontalSizeExtension ?? 0) << 12 | horizontalSizeValue
    }

    /// The height in pixels: `vertical_size_extension << 12 | vertical_size_value` (§6.3.5).
    public func height(with sequenceExtension: MPEG2SequenceExtension?) -> Int {
        (sequenceExtension?.verticalSizeExtension ?? 0) << 12 | verticalSizeValue
    }

    /// The frame rate: `frame_rate_value × (frame_rate_extension_n + 1) / (frame_rate_extension_d + 1)`
    /// (§6.3.5), reduced.
    public func frameRate(with sequenceExtension: MPEG2SequenceExtension?) -> (numerator: Int, denominator: Int) {
        let base = Self.frameRates[frameRateCode - 1]
        let n = base.numerator * ((sequenceExtension?.frameRateExtensionN ?? 0) + 1)
        let d = base.denominator * ((sequenceExtension?.frameRateExtensionD ?? 0) + 1)
        let g = Self.gcd(n, d)
        return (n / g, d / g)
    }

    /// The sample (pixel) aspect ratio, reduced: from `aspect_ratio_information` (Table 6-3), a
    /// display aspect ratio of the display size (the sequence display extension's, else the
    /// frame's; §6.3.3).
    public func sampleAspectRatio(
        with sequenceExtension: MPEG2SequenceExtension?, display: MPEG2SequenceDisplayExtension? = nil
    ) -> (horizontal: Int, vertical: Int) {
        let width = display?.displayHorizontalSize ?? self.width(with: sequenceExtension)
        let height = display?.displayVerticalSize ?? self.height(with: sequenceExtension)
        let dar: (Int, Int)
        switch aspectRatioInformation {
        case 2: dar = (4, 3)
        case 3: dar = (16, 9)
        case 4: dar = (221, 100)
        default: return (1, 1)
        }
        guard width > 0, height > 0 else { return (1, 1) }
        let h = dar.0 * height
        let v = dar.1 * width
        let g = Self.gcd(h, v)
        return (h / g, v / g)
    }

    static func gcd(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (abs(a), abs(b))
        while b != 0 { (a, b) = (b, a % b) }
        return max(a, 1)
    }
}
