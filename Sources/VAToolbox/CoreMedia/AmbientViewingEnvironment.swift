/// The viewing environment the content was graded for (ITU-T H.274 / H.265 D.2.39 and H.264
/// D.2.36, the `ambient_viewing_environment` SEI message): the ambient light's illuminance and
/// chromaticity. A display adapts the picture to a room brighter or darker than this.
///
/// Kept in the SEI message's units, the layout Apple stores in
/// `kCMFormatDescriptionExtension_AmbientViewingEnvironment` and
/// `kCVImageBufferAmbientViewingEnvironmentKey` (``appleBytes``).
public struct AmbientViewingEnvironment: Sendable, Hashable, CustomStringConvertible {
    /// `ambient_illuminance`: the illuminance in steps of 0.0001 lux.
    public var illuminanceCode: UInt32
    /// `ambient_light_x` and `ambient_light_y`: the light's CIE 1931 chromaticity in steps of
    /// 0.00002.
    public var light: MasteringDisplayColorVolume.Chromaticity

    /// An environment from its values in the SEI message's units.
    public init(illuminanceCode: UInt32, light: MasteringDisplayColorVolume.Chromaticity) {
        self.illuminanceCode = illuminanceCode
        self.light = light
    }

    /// The illuminance in lux.
    public var illuminance: Double { Double(illuminanceCode) / 10000 }

    /// Apple's 8 bytes: the SEI message's payload, big-endian — `ambient_illuminance` (4 bytes),
    /// `ambient_light_x`, `ambient_light_y` (2 bytes each).
    public var appleBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8)
        for byte in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: illuminanceCode >> (24 - 8 * byte))) }
        for value in [light.xCode, light.yCode] {
            bytes.append(UInt8(value >> 8))
            bytes.append(UInt8(truncatingIfNeeded: value))
        }
        return bytes
    }

    /// Reads Apple's 8 bytes (``appleBytes``, the SEI payload); nil when there are not 8, or the
    /// illuminance is 0 (which H.274 forbids).
    public init?<Bytes: Collection<UInt8>>(appleBytes bytes: Bytes) {
        let bytes = Array(bytes)
        guard bytes.count == 8 else { return nil }
        let illuminance = bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard illuminance > 0 else { return nil }
        self.init(
            illuminanceCode: illuminance,
            light: MasteringDisplayColorVolume.Chromaticity(
                xCode: UInt16(bytes[4]) << 8 | UInt16(bytes[5]), yCode: UInt16(bytes[6]) << 8 | UInt16(bytes[7])))
    }

    /// `0.314 lux at (0.3127,0.329)`.
    public var description: String { "\(illuminance) lux at (\(light.x),\(light.y))" }
}
