/// The static HDR metadata of AV1 metadata OBUs (AV1 specification §5.8.1, `metadata_obu()`):
/// `METADATA_TYPE_HDR_CLL` (§5.8.2) and `METADATA_TYPE_HDR_MDCV` (§5.8.3).
///
/// Read from the samples themselves for the GPU path: libavcodec 5.1's native AV1 decoder
/// (`av1dec.c`), which drives the VA-API hwaccel, attaches no side data for them, while libdav1d
/// on the CPU does (`HDRMetadataOnTheGPU` shows both).
enum AV1HDRMetadata {
    /// `METADATA_TYPE_HDR_CLL`.
    static let contentLightLevelType: UInt32 = 1
    /// `METADATA_TYPE_HDR_MDCV`.
    static let masteringDisplayType: UInt32 = 2

    /// The metadata a sample's OBUs carry (low-overhead format), each nil when absent; nil when
    /// the sample has neither (or its OBUs cannot be walked).
    static func staticMetadata(in sample: ArraySlice<UInt8>) -> StaticHDRMetadata? {
        var found = StaticHDRMetadata()
        var index = sample.startIndex
        while index < sample.endIndex {
            guard let unit = try? AV1OBU.parse(sample, at: &index) else { break }
            guard unit.obuType == .metadata else { continue }
            var at = unit.payload.startIndex
            guard let type = try? AV1LEB128.read(unit.payload, at: &at, "metadata_type") else { continue }
            let body = unit.payload[at...]
            switch type {
            case contentLightLevelType: found.contentLightLevel = contentLightLevel(body) ?? found.contentLightLevel
            case masteringDisplayType: found.masteringDisplay = masteringDisplay(body) ?? found.masteringDisplay
            default: break
            }
        }
        return found.isEmpty ? nil : found
    }

    /// `max_cll` f(16), `max_fall` f(16).
    private static func contentLightLevel(_ body: ArraySlice<UInt8>) -> ContentLightLevel? {
        guard body.count >= 4 else { return nil }
        let bytes = Array(body.prefix(4))
        return ContentLightLevel(
            maximumContentLightLevel: UInt16(bytes[0]) << 8 | UInt16(bytes[1]),
            maximumFrameAverageLightLevel: UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
    }

    /// `primary_chromaticity_x/y[i]` f(16) for red, green, blue (0.16 fixed point), the white
    /// point's f(16) pair, `luminance_max` f(32) (24.8 fixed point) and `luminance_min` f(32)
    /// (18.14), rounded to the HEVC SEI message's steps as libavcodec's side data is on the CPU.
    private static func masteringDisplay(_ body: ArraySlice<UInt8>) -> MasteringDisplayColorVolume? {
        guard body.count >= 24 else { return nil }
        let bytes = Array(body.prefix(24))
        func u16(_ at: Int) -> Double { Double(UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])) }
        func u32(_ at: Int) -> Double { u16(at) * 65536 + u16(at + 2) }
        func point(_ at: Int) -> MasteringDisplayColorVolume.Chromaticity? {
            .init(x: u16(at) / 65536, y: u16(at + 2) / 65536)
        }
        guard let red = point(0), let green = point(4), let blue = point(8), let white = point(12) else { return nil }
        return MasteringDisplayColorVolume(
            red: red, green: green, blue: blue, whitePoint: white, maximumLuminance: u32(16) / 256,
            minimumLuminance: u32(20) / 16384)
    }
}
