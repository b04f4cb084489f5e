/// An HEVC `profile_tier_level()` structure (H.265 clause 7.3.3): which profile, tier and level a
/// bitstream conforms to, for the whole stream and for each temporal sub-layer.
///
/// It is carried in the VPS and the SPS (``HEVCVideoParameterSet/profileTierLevel``,
/// ``HEVCSequenceParameterSet/profileTierLevel``), and its general fields are repeated in the
/// `hvcC` record (``HEVCDecoderConfigurationRecord``). Field names are the spec's syntax elements
/// in lowerCamelCase.
public struct HEVCProfileTierLevel: Sendable, Hashable {
    /// The profile fields of one temporal sub-layer, present when
    /// `sub_layer_profile_present_flag[i]` is 1 (clause 7.4.4).
    public struct SubLayerProfile: Sendable, Hashable {
        /// `sub_layer_profile_space[i]`.
        public internal(set) var subLayerProfileSpace: UInt8
        /// `sub_layer_tier_flag[i]`.
        public internal(set) var subLayerTierFlag: Bool
        /// `sub_layer_profile_idc[i]`.
        public internal(set) var subLayerProfileIdc: UInt8
        /// `sub_layer_profile_compatibility_flag[i][j]`, flag `j` in bit `31 - j`.
        public internal(set) var subLayerProfileCompatibilityFlags: UInt32
        /// The 48 bits from `sub_layer_progressive_source_flag[i]` to `sub_layer_inbld_flag[i]`
        /// (or its reserved bit), first bit in bit 47.
        public internal(set) var subLayerConstraintIndicatorFlags: UInt64
    }

    /// What `profile_tier_level()` says of temporal sub-layer `i` (`i` below
    /// `maxNumSubLayersMinus1`).
    public struct SubLayer: Sendable, Hashable {
        /// `sub_layer_profile_present_flag[i]`.
        public internal(set) var subLayerProfilePresentFlag: Bool
        /// `sub_layer_level_present_flag[i]`.
        public internal(set) var subLayerLevelPresentFlag: Bool
        /// The sub-layer's profile fields, when `sub_layer_profile_present_flag[i]` is 1.
        public internal(set) var profile: SubLayerProfile?
        /// `sub_layer_level_idc[i]`, when `sub_layer_level_present_flag[i]` is 1.
        public internal(set) var subLayerLevelIdc: UInt8?
    }

    /// `general_profile_space`: 0 in streams conforming to this version of the spec.
    public internal(set) var generalProfileSpace: UInt8
    /// `general_tier_flag`: false for the Main tier, true for the High tier (Table A.8).
    public internal(set) var generalTierFlag: Bool
    /// `general_profile_idc`: 1 Main, 2 Main 10, 3 Main Still Picture, 4 format range extensions,
    /// 9 screen content coding, and so on (Annex A).
    public internal(set) var generalProfileIdc: UInt8
    /// `general_profile_compatibility_flag[j]` for `j` in 0 to 31, flag `j` in bit `31 - j`: the
    /// 32-bit field in the order it is coded (and stored in `hvcC`).
    public internal(set) var generalProfileCompatibilityFlags: UInt32
    /// The 48 constraint-indicator bits that follow the compatibility flags, first bit in bit 47:
    /// `general_progressive_source_flag`, `general_interlaced_source_flag`,
    /// `general_non_packed_constraint_flag`, `general_frame_only_constraint_flag`, then 43
    /// profile-specific constraint bits and `general_inbld_flag` (or their reserved bits). This is
    /// `general_constraint_indicator_flags` of the `hvcC` record.
    public internal(set) var generalConstraintIndicatorFlags: UInt64
    /// `general_level_idc`: 30 times the level number (93 for level 3.1); what `ffprobe` prints as
    /// `level`.
    public internal(set) var generalLevelIdc: UInt8
    /// One entry per sub-layer below the highest (`maxNumSubLayersMinus1` entries).
    public internal(set) var subLayers: [SubLayer]

    /// The largest `maxNumSubLayersMinus1` (`vps_max_sub_layers_minus1`,
    /// `sps_max_sub_layers_minus1`): 6, for at most seven temporal sub-layers (clause 7.4.3.1).
    public static let maxSubLayersMinus1 = 6

    /// Parses `profile_tier_level(profilePresentFlag, maxNumSubLayersMinus1)` (clause 7.3.3).
    ///
    /// - Parameters:
    ///   - reader: The reader, positioned at the structure; left just after it.
    ///   - profilePresentFlag: Whether the general profile fields are present (1 in the VPS and
    ///     the SPS); when false they are zero.
    ///   - maxNumSubLayersMinus1: The number of sub-layers minus 1, 0 to 6.
    /// - Throws: ``VTError/videoDecoderBadData`` when the data ends inside the structure;
    ///   ``VTError/parameter`` when `maxNumSubLayersMinus1` is outside 0 to 6.
    public init(
        _ reader: inout BitReader, profilePresentFlag: Bool = true, maxNumSubLayersMinus1: Int
    ) throws(VTError) {
        guard (0...Self.maxSubLayersMinus1).contains(maxNumSubLayersMinus1) else {
            throw VTError.parameter.with(
                "maxNumSubLayersMinus1 is \(maxNumSubLayersMinus1), outside 0...\(Self.maxSubLayersMinus1)")
        }
        if profilePresentFlag {
            generalProfileSpace = UInt8(try reader.bits(2, "general_profile_space"))
            generalTierFlag = try reader.flag("general_tier_flag")
            generalProfileIdc = UInt8(try reader.bits(5, "general_profile_idc"))
            generalProfileCompatibilityFlags = try reader.bits(32, "general_profile_compatibility_flag")
            generalConstraintIndicatorFlags = try Self.constraintIndicatorFlags(&reader)
        } else {
            generalProfileSpace = 0
            generalTierFlag = false
            generalProfileIdc = 0
            generalProfileCompatibilityFlags = 0
            generalConstraintIndicatorFlags = 0
        }
        generalLevelIdc = UInt8(try reader.bits(8, "general_level_idc"))

        var presentFlags: [(profile: Bool, level: Bool)] = []
        for _ in 0..<maxNumSubLayersMinus1 {
            let profile = try reader.flag("sub_layer_profile_present_flag")
            let level = try reader.flag("sub_layer_level_present_flag")
            presentFlags.append((profile, level))
        }
        if maxNumSubLayersMinus1 > 0 {
            try reader.skip(2 * (8 - maxNumSubLayersMinus1), "reserved_zero_2bits")
        }
        var subLayers: [SubLayer] = []
        for (profilePresent, levelPresent) in presentFlags {
            var profile: SubLayerProfile? = nil
            if profilePresent {
                profile = SubLayerProfile(
                    subLayerProfileSpace: UInt8(try reader.bits(2, "sub_layer_profile_space")),
                    subLayerTierFlag: try reader.flag("sub_layer_tier_flag"),
                    subLayerProfileIdc: UInt8(try reader.bits(5, "sub_layer_profile_idc")),
                    subLayerProfileCompatibilityFlags: try reader.bits(32, "sub_layer_profile_compatibility_flag"),
                    subLayerConstraintIndicatorFlags: try Self.constraintIndicatorFlags(&reader))
            }
            let levelIdc = levelPresent ? UInt8(try reader.bits(8, "sub_layer_level_idc")) : nil
            subLayers.append(
                SubLayer(
                    subLayerProfilePresentFlag: profilePresent, subLayerLevelPresentFlag: levelPresent,
                    profile: profile, subLayerLevelIdc: levelIdc))
        }
        self.subLayers = subLayers
    }

    /// `general_progressive_source_flag`.
    public var generalProgressiveSourceFlag: Bool { constraintBit(0) }
    /// `general_interlaced_source_flag`.
    public var generalInterlacedSourceFlag: Bool { constraintBit(1) }
    /// `general_non_packed_constraint_flag`.
    public var generalNonPackedConstraintFlag: Bool { constraintBit(2) }
    /// `general_frame_only_constraint_flag`.
    public var generalFrameOnlyConstraintFlag: Bool { constraintBit(3) }

    /// The 48 constraint-indicator bits as the 6 bytes they occupy in the bitstream and in `hvcC`.
    public var generalConstraintIndicatorBytes: [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: generalConstraintIndicatorFlags >> UInt64(40 - 8 * $0)) }
    }

    /// `general_profile_compatibility_flag[j]`, or false for `j` outside 0 to 31.
    public func generalProfileCompatibilityFlag(_ j: Int) -> Bool {
        guard (0..<32).contains(j) else { return false }
        return generalProfileCompatibilityFlags >> UInt32(31 - j) & 1 == 1
    }

    /// The profile a decoder should assume: `general_profile_idc`, or when that is 0, the lowest
    /// `j > 0` whose `general_profile_compatibility_flag[j]` is set (what libavcodec does, so
    /// that ``profileName`` matches `ffprobe`); 0 when neither says anything.
    public var inferredProfileIdc: UInt8 {
        guard generalProfileIdc == 0 else { return generalProfileIdc }
        return (1..<32).first(where: generalProfileCompatibilityFlag).map { UInt8($0) } ?? 0
    }

    /// The profile's name as `ffprobe` prints it (libavcodec's names): `"Main"`, `"Main 10"`,
    /// `"Main Still Picture"`, `"Rext"` (format range extensions) or `"SCC"` (screen content
    /// coding); nil for other profiles, for which `ffprobe` prints the number.
    public var profileName: String? {
        switch inferredProfileIdc {
        case 1: "Main"
        case 2: "Main 10"
        case 3: "Main Still Picture"
        case 4: "Rext"
        case 9: "SCC"
        default: nil
        }
    }

    /// Reads the 48 bits between the compatibility flags and the level (4 + 43 + 1 bits).
    private static func constraintIndicatorFlags(_ reader: inout BitReader) throws(VTError) -> UInt64 {
        let high = UInt64(try reader.bits(16, "general_progressive_source_flag..."))
        let low = UInt64(try reader.bits(32, "general_reserved_zero_43bits/general_inbld_flag"))
        return high << 32 | low
    }

    /// Constraint bit `index`, counted from the first coded bit.
    private func constraintBit(_ index: Int) -> Bool {
        generalConstraintIndicatorFlags >> UInt64(47 - index) & 1 == 1
    }
}
