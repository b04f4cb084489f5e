/// A Dolby Vision stream's configuration record — the `dvcC`, `dvvC` or `dvwC` box of an MP4
/// sample entry, the Matroska `BlockAdditionMapping` of the same name — which says which Dolby
/// Vision profile and level the stream uses and which of its layers are present.
///
/// The 24-byte record (``recordBytes``) is what Apple keeps under the box's name in
/// `kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms`. Its syntax is that of Dolby's
/// "Dolby Vision streams within the ISO base media file format" as quietvoid/dovi_tool reads it
/// (`dolby_vision` crate, `DoviDecoderConfigurationRecord`) and libavformat (`ff_isom_parse_dvcc_dvvc`).
public struct DolbyVisionConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// `dv_version_major`.
    public var versionMajor: UInt8
    /// `dv_version_minor`.
    public var versionMinor: UInt8
    /// `dv_profile` (7 bits): 5, 7, 8, 9, 10 …
    public var profile: UInt8
    /// `dv_level` (6 bits).
    public var level: UInt8
    /// `rpu_present_flag`: the stream carries RPUs (the metadata of every frame).
    public var rpuPresent: Bool
    /// `el_present_flag`: the stream has an enhancement layer.
    public var enhancementLayerPresent: Bool
    /// `bl_present_flag`: the stream has a base layer.
    public var baseLayerPresent: Bool
    /// `dv_bl_signal_compatibility_id` (4 bits): what a player without Dolby Vision can show of
    /// the base layer — 1 HDR10, 2 SDR, 4 HLG, 0 none.
    public var baseLayerCompatibilityID: UInt8

    /// A configuration from its fields.
    public init(
        versionMajor: UInt8, versionMinor: UInt8, profile: UInt8, level: UInt8, rpuPresent: Bool,
        enhancementLayerPresent: Bool, baseLayerPresent: Bool, baseLayerCompatibilityID: UInt8
    ) {
        self.versionMajor = versionMajor
        self.versionMinor = versionMinor
        self.profile = profile & 0x7F
        self.level = level & 0x3F
        self.rpuPresent = rpuPresent
        self.enhancementLayerPresent = enhancementLayerPresent
        self.baseLayerPresent = baseLayerPresent
        self.baseLayerCompatibilityID = baseLayerCompatibilityID & 0x0F
    }

    /// Reads a record (the box's payload, at least its first 5 bytes); nil when shorter.
    public init?<Bytes: Collection<UInt8>>(recordBytes bytes: Bytes) {
        let bytes = Array(bytes.prefix(5))
        guard bytes.count == 5 else { return nil }
        let packed = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        self.init(
            versionMajor: bytes[0], versionMinor: bytes[1], profile: UInt8(packed >> 9),
            level: UInt8((packed >> 3) & 0x3F), rpuPresent: packed & 0b100 != 0,
            enhancementLayerPresent: packed & 0b10 != 0,
            baseLayerPresent: packed & 1 != 0, baseLayerCompatibilityID: bytes[4] >> 4)
    }

    /// The 24-byte record: the versions, then profile (7 bits), level (6), the three presence
    /// flags, the compatibility ID (4), and reserved zero bits.
    public var recordBytes: [UInt8] {
        let packed =
            UInt16(profile) << 9 | UInt16(level) << 3 | (rpuPresent ? 0b100 : 0) | (enhancementLayerPresent ? 0b10 : 0)
            | (baseLayerPresent ? 1 : 0)
        return [
            versionMajor, versionMinor, UInt8(packed >> 8), UInt8(truncatingIfNeeded: packed),
            baseLayerCompatibilityID << 4,
        ]
            + [UInt8](repeating: 0, count: 19)
    }

    /// The name of the box the record goes in: `"dvcC"` for profiles up to 7, `"dvvC"` for 8
    /// and 9, `"dvwC"` from 10 on (the rule libavformat's and dovi_tool's writers follow).
    public var boxType: String {
        switch profile {
        case ...7: "dvcC"
        case 8...9: "dvvC"
        default: "dvwC"
        }
    }

    /// `profile 8.1 level 4, version 1.0, RPU+BL`: the profile with its base layer's
    /// compatibility ID after the dot, as Dolby names them (8.1 is HDR10-compatible).
    public var description: String {
        let layers = [rpuPresent ? "RPU" : nil, enhancementLayerPresent ? "EL" : nil, baseLayerPresent ? "BL" : nil]
            .compactMap { $0 }.joined(separator: "+")
        return
            "profile \(profile).\(baseLayerCompatibilityID) level \(level), version \(versionMajor).\(versionMinor), \(layers)"
    }
}
