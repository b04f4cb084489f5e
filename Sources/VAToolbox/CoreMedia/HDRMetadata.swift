/// The colour volume of the display the content was mastered on (SMPTE ST 2086): its primaries,
/// white point and luminance range — the static HDR metadata of HDR10 next to
/// ``ContentLightLevel``.
///
/// The values are kept in the units of the HEVC `mastering_display_colour_volume` SEI message
/// (ITU-T H.265 D.2.28), the layout Apple stores in
/// `kCMFormatDescriptionExtension_MasteringDisplayColorVolume` and
/// `kCVImageBufferMasteringDisplayColorVolumeKey` (``appleBytes``): chromaticities in steps of
/// 0.00002, luminance in steps of 0.0001 cd/m². Metadata from AV1 (whose OBU uses other fixed-point
/// units) or a container is rounded to these steps.
public struct MasteringDisplayColorVolume: Sendable, Hashable, CustomStringConvertible {
    /// A CIE 1931 chromaticity in steps of 0.00002 (`x = xCode / 50000`).
    public struct Chromaticity: Sendable, Hashable {
        /// x in steps of 0.00002 (0…50000).
        public var xCode: UInt16
        /// y in steps of 0.00002.
        public var yCode: UInt16

        /// A chromaticity from its codes.
        public init(xCode: UInt16, yCode: UInt16) {
            self.xCode = xCode
            self.yCode = yCode
        }

        /// A chromaticity from its coordinates, rounded to steps of 0.00002; nil outside 0…1.3107.
        public init?(x: Double, y: Double) {
            guard let xCode = Self.code(x), let yCode = Self.code(y) else { return nil }
            self.init(xCode: xCode, yCode: yCode)
        }

        /// The x coordinate.
        public var x: Double { Double(xCode) / 50000 }
        /// The y coordinate.
        public var y: Double { Double(yCode) / 50000 }

        private static func code(_ value: Double) -> UInt16? {
            let scaled = (value * 50000).rounded()
            return scaled.isFinite && scaled >= 0 && scaled <= Double(UInt16.max) ? UInt16(scaled) : nil
        }
    }

    /// The red primary.
    public var red: Chromaticity
    /// The green primary.
    public var green: Chromaticity
    /// The blue primary.
    public var blue: Chromaticity
    /// The white point.
    public var whitePoint: Chromaticity
    /// The display's maximum luminance in steps of 0.0001 cd/m².
    public var maximumLuminanceCode: UInt32
    /// The display's minimum luminance in steps of 0.0001 cd/m².
    public var minimumLuminanceCode: UInt32

    /// Metadata from its values in the SEI message's units.
    public init(
        red: Chromaticity, green: Chromaticity, blue: Chromaticity, whitePoint: Chromaticity,
        maximumLuminanceCode: UInt32, minimumLuminanceCode: UInt32
    ) {
        self.red = red
        self.green = green
        self.blue = blue
        self.whitePoint = whitePoint
        self.maximumLuminanceCode = maximumLuminanceCode
        self.minimumLuminanceCode = minimumLuminanceCode
    }

    /// Metadata from luminance in cd/m², rounded to steps of 0.0001 cd/m²; nil for a luminance
    /// that is negative, not finite or above 429,496 cd/m².
    public init?(
        red: Chromaticity, green: Chromaticity, blue: Chromaticity, whitePoint: Chromaticity,
        maximumLuminance: Double, minimumLuminance: Double
    ) {
        guard let maximum = Self.luminanceCode(maximumLuminance), let minimum = Self.luminanceCode(minimumLuminance)
        else { return nil }
        self.init(
            red: red, green: green, blue: blue, whitePoint: whitePoint, maximumLuminanceCode: maximum,
            minimumLuminanceCode: minimum)
    }

    /// The display's maximum luminance in cd/m² (nits).
    public var maximumLuminance: Double { Double(maximumLuminanceCode) / 10000 }
    /// The display's minimum luminance in cd/m².
    public var minimumLuminance: Double { Double(minimumLuminanceCode) / 10000 }

    /// Apple's 24 bytes: the SEI message's payload, big-endian — the primaries' x and y in the
    /// order green, blue, red, then the white point (2 bytes each), the maximum and the minimum
    /// luminance (4 bytes each).
    public var appleBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        for value in [green.xCode, green.yCode, blue.xCode, blue.yCode, red.xCode, red.yCode] {
            bytes.appendBigEndian(value)
        }
        bytes.appendBigEndian(whitePoint.xCode)
        bytes.appendBigEndian(whitePoint.yCode)
        bytes.appendBigEndian(maximumLuminanceCode)
        bytes.appendBigEndian(minimumLuminanceCode)
        return bytes
    }

    /// Reads Apple's 24 bytes (``appleBytes``); nil when there are not 24.
    public init?(appleBytes bytes: [UInt8]) {
        guard bytes.count == 24 else { return nil }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) << 16 | UInt32(u16(at + 2)) }
        self.init(
            red: Chromaticity(xCode: u16(8), yCode: u16(10)), green: Chromaticity(xCode: u16(0), yCode: u16(2)),
            blue: Chromaticity(xCode: u16(4), yCode: u16(6)), whitePoint: Chromaticity(xCode: u16(12), yCode: u16(14)),
            maximumLuminanceCode: u32(16), minimumLuminanceCode: u32(20))
    }

    /// `R(0.68,0.32) G(0.265,0.69) B(0.15,0.06) WP(0.3127,0.329) L(0.0001…1000 cd/m²)`.
    public var description: String {
        func point(_ name: String, _ value: Chromaticity) -> String { "\(name)(\(value.x),\(value.y))" }
        return [point("R", red), point("G", green), point("B", blue), point("WP", whitePoint)].joined(separator: " ")
            + " L(\(minimumLuminance)…\(maximumLuminance) cd/m²)"
    }

    private static func luminanceCode(_ value: Double) -> UInt32? {
        let scaled = (value * 10000).rounded()
        return scaled.isFinite && scaled >= 0 && scaled <= Double(UInt32.max) ? UInt32(scaled) : nil
    }
}

/// The light level of the content (CTA-861.3): its brightest pixel and its brightest frame on
/// average, in cd/m² — HDR10's `MaxCLL` and `MaxFALL`.
public struct ContentLightLevel: Sendable, Hashable, CustomStringConvertible {
    /// `MaxCLL`: the maximum content light level, in cd/m².
    public var maximumContentLightLevel: UInt16
    /// `MaxFALL`: the maximum frame-average light level, in cd/m².
    public var maximumFrameAverageLightLevel: UInt16

    /// A light level from its two values in cd/m².
    public init(maximumContentLightLevel: UInt16, maximumFrameAverageLightLevel: UInt16) {
        self.maximumContentLightLevel = maximumContentLightLevel
        self.maximumFrameAverageLightLevel = maximumFrameAverageLightLevel
    }

    /// Apple's 4 bytes (`kCMFormatDescriptionExtension_ContentLightLevelInfo`,
    /// `kCVImageBufferContentLightLevelInfoKey`): the HEVC `content_light_level_info` SEI
    /// payload, big-endian — MaxCLL, then MaxFALL.
    public var appleBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(maximumContentLightLevel)
        bytes.appendBigEndian(maximumFrameAverageLightLevel)
        return bytes
    }

    /// Reads Apple's 4 bytes (``appleBytes``); nil when there are not 4.
    public init?(appleBytes bytes: [UInt8]) {
        guard bytes.count == 4 else { return nil }
        self.init(
            maximumContentLightLevel: UInt16(bytes[0]) << 8 | UInt16(bytes[1]),
            maximumFrameAverageLightLevel: UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
    }

    /// `MaxCLL 1000, MaxFALL 400 cd/m²`.
    public var description: String {
        "MaxCLL \(maximumContentLightLevel), MaxFALL \(maximumFrameAverageLightLevel) cd/m²"
    }
}

extension MasteringDisplayColorVolume {
    /// libavutil's values (frame or stream side data), rounded to the SEI message's steps; nil
    /// for values out of range.
    init?(libav values: MasteringDisplayValues) {
        let c = values.chromaticities
        guard c.count == 8, let red = Chromaticity(x: c[0], y: c[1]), let green = Chromaticity(x: c[2], y: c[3]),
            let blue = Chromaticity(x: c[4], y: c[5]), let white = Chromaticity(x: c[6], y: c[7])
        else { return nil }
        self.init(
            red: red, green: green, blue: blue, whitePoint: white, maximumLuminance: values.maximumLuminance,
            minimumLuminance: values.minimumLuminance)
    }

    /// The codes, for a frame's side data.
    var libavCodes: MasteringDisplayCodes {
        MasteringDisplayCodes(
            chromaticities: [red, green, blue, whitePoint].flatMap { [$0.xCode, $0.yCode] },
            maximumLuminance: maximumLuminanceCode, minimumLuminance: minimumLuminanceCode)
    }
}

extension ContentLightLevel {
    /// libavutil's values; above 65535 cd/m² clamped, as the SEI message cannot carry more.
    init(libav values: LightLevelValues) {
        self.init(
            maximumContentLightLevel: UInt16(clamping: values.maximumContentLightLevel),
            maximumFrameAverageLightLevel: UInt16(clamping: values.maximumFrameAverageLightLevel))
    }

    /// The values, for a frame's side data.
    var libavValues: LightLevelValues {
        LightLevelValues(
            maximumContentLightLevel: Int(maximumContentLightLevel),
            maximumFrameAverageLightLevel: Int(maximumFrameAverageLightLevel))
    }
}

/// The static HDR metadata a stream carries, either part possibly absent.
struct StaticHDRMetadata: Sendable, Hashable {
    /// The mastering display colour volume.
    var masteringDisplay: MasteringDisplayColorVolume?
    /// The content light level.
    var contentLightLevel: ContentLightLevel?
    /// The ambient viewing environment.
    var ambientViewingEnvironment: AmbientViewingEnvironment?
    /// The transfer the stream prefers to its video usability information's (the
    /// `alternative_transfer_characteristics` SEI message).
    var alternativeTransferCharacteristics: TransferFunction?

    /// Whether none is known.
    var isEmpty: Bool {
        masteringDisplay == nil && contentLightLevel == nil && ambientViewingEnvironment == nil
            && alternativeTransferCharacteristics == nil
    }

    /// This metadata with what `newer` states replacing what it states.
    func updated(by newer: StaticHDRMetadata) -> StaticHDRMetadata {
        StaticHDRMetadata(
            masteringDisplay: newer.masteringDisplay ?? masteringDisplay,
            contentLightLevel: newer.contentLightLevel ?? contentLightLevel,
            ambientViewingEnvironment: newer.ambientViewingEnvironment ?? ambientViewingEnvironment,
            alternativeTransferCharacteristics: newer.alternativeTransferCharacteristics
                ?? alternativeTransferCharacteristics)
    }
}

extension [UInt8] {
    fileprivate mutating func appendBigEndian<Value: FixedWidthInteger>(_ value: Value) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
