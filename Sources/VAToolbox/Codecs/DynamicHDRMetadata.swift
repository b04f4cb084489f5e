/// The dynamic HDR metadata of one sample — what changes from frame to frame and goes out with
/// its frame when the session propagates per-frame HDR display metadata.
struct DynamicHDRMetadata: Sendable, Hashable {
    /// The HDR10+ ITU-T T.35 message (``HDR10Plus``), from its country code on.
    var hdr10Plus: [UInt8]?
    /// The Dolby Vision RPU NAL unit (HEVC type 62), header included, as the sample carries it.
    var dolbyVisionRPU: [UInt8]?

    /// Whether the sample carries neither.
    var isEmpty: Bool { hdr10Plus == nil && dolbyVisionRPU == nil }
}

extension NALUnitCodecSupport {
    /// The static HDR metadata in a sample's SEI NAL units (``SEIMessages``), the latest of
    /// each kind.
    ///
    /// - Parameters:
    ///   - data: The sample, length-prefixed as `format` says.
    ///   - isSEI: Whether a unit is an SEI unit that precedes the picture.
    ///   - includingHDR10: Whether to read the mastering display and light level too (for a
    ///     decoder that does not).
    func staticHDRMetadata(
        inSEIOf data: [UInt8], format: VideoFormatDescription, isSEI: (NALUnit) -> Bool, includingHDR10: Bool
    ) -> StaticHDRMetadata? {
        guard let units = try? AVCC.split(data[...], lengthSize: format.nalUnitHeaderLength) else { return nil }
        var found = StaticHDRMetadata()
        for bytes in units {
            guard let unit = try? NALUnit(bytes, codec: codecType), isSEI(unit),
                let metadata = SEIMessages.staticHDRMetadata(inRBSP: unit.rbsp, includingHDR10: includingHDR10)
            else { continue }
            found = found.updated(by: metadata)
        }
        return found.isEmpty ? nil : found
    }
}
