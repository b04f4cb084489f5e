/// The AV1 codec configuration record (`AV1CodecConfigurationRecord`, the payload of the `av1C`
/// box; AV1 Codec ISO Media File Format Binding §2.3.3): the profile, level and colour format
/// of the stream, then the sequence header (and possibly metadata) OBUs.
///
/// It is what VideoToolbox keeps under the `av1C` key of a format description's
/// `kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms`, and what libavformat's MP4 and
/// Matroska demuxers hand out as the stream's `extradata`.
///
/// ```
/// marker (1) = 1, version (7) = 1,
/// seq_profile (3), seq_level_idx_0 (5),
/// seq_tier_0, high_bitdepth, twelve_bit, monochrome, chroma_subsampling_x, chroma_subsampling_y (1 each),
/// chroma_sample_position (2),
/// reserved (3) = 0, initial_presentation_delay_present (1), initial_presentation_delay_minus_one (4) or reserved,
/// configOBUs
/// ```
public struct AV1CodecConfigurationRecord: Sendable, Hashable {
    /// `version`: 1, the only version defined.
    public internal(set) var version: Int
    /// `seq_profile`, as in the sequence header.
    public internal(set) var seqProfile: Int
    /// `seq_level_idx_0`: `seq_level_idx[0]` of the sequence header.
    public internal(set) var seqLevelIdx0: Int
    /// `seq_tier_0`: `seq_tier[0]` of the sequence header.
    public internal(set) var seqTier0: Int
    /// `high_bitdepth`, as in `color_config()`.
    public internal(set) var highBitdepth: Bool
    /// `twelve_bit`, as in `color_config()`.
    public internal(set) var twelveBit: Bool
    /// `monochrome`: `mono_chrome` of `color_config()`.
    public internal(set) var monochrome: Bool
    /// `chroma_subsampling_x`: `subsampling_x`.
    public internal(set) var chromaSubsamplingX: Int
    /// `chroma_subsampling_y`: `subsampling_y`.
    public internal(set) var chromaSubsamplingY: Int
    /// `chroma_sample_position`, as in `color_config()`.
    public internal(set) var chromaSamplePosition: Int
    /// `initial_presentation_delay_minus_one` when `initial_presentation_delay_present` is 1: how
    /// many samples, minus one, to buffer before presenting the first.
    public internal(set) var initialPresentationDelayMinus1: Int?
    /// `configOBUs`: zero or more OBUs in low-overhead form, a sequence header and metadata.
    public internal(set) var configOBUs: [UInt8]
    /// The sequence header in ``configOBUs``, when there is one (the binding recommends one; some
    /// muxers write none and leave it to the first sample).
    public internal(set) var sequenceHeader: AV1SequenceHeader?

    /// `initial_presentation_delay_present`.
    public var initialPresentationDelayPresent: Bool { initialPresentationDelayMinus1 != nil }

    /// Parses an `av1C` box payload (the box's contents after its size and type).
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when it is shorter than 4 bytes,
    ///   `marker` is 0, `version` is not 1, or `configOBUs` are malformed (OBU framing or the
    ///   sequence header).
    public init(_ bytes: ArraySlice<UInt8>) throws(VTError) {
        guard bytes.count >= 4 else { throw Self.invalid("is \(bytes.count) bytes, shorter than 4") }
        var reader = BitReader(
            bytes.prefix(4), context: "AV1 codec configuration record (av1C)",
            error: .formatDescriptionInvalidParameter)
        guard try reader.flag("marker") else { throw Self.invalid("has marker 0 (must be 1)") }
        version = try reader.int(7, "version")
        guard version == 1 else { throw Self.invalid("has version \(version) (only 1 is defined)") }
        seqProfile = try reader.int(3, "seq_profile")
        seqLevelIdx0 = try reader.int(5, "seq_level_idx_0")
        seqTier0 = try reader.int(1, "seq_tier_0")
        highBitdepth = try reader.flag("high_bitdepth")
        twelveBit = try reader.flag("twelve_bit")
        monochrome = try reader.flag("monochrome")
        chromaSubsamplingX = try reader.int(1, "chroma_subsampling_x")
        chromaSubsamplingY = try reader.int(1, "chroma_subsampling_y")
        chromaSamplePosition = try reader.int(2, "chroma_sample_position")
        try reader.skip(3, "reserved")
        let delayPresent = try reader.flag("initial_presentation_delay_present")
        let delay = try reader.int(4, "initial_presentation_delay_minus_one")
        initialPresentationDelayMinus1 = delayPresent ? delay : nil
        configOBUs = Array(bytes.dropFirst(4))
        sequenceHeader = nil
        do throws(VTError) {
            let obus = try AV1OBU.split(configOBUs[...])
            if let header = obus.first(where: { $0.obuType == .sequenceHeader }) {
                sequenceHeader = try AV1SequenceHeader(header.payload)
            }
        } catch {
            throw VTError.formatDescriptionInvalidParameter.with("AV1 av1C configOBUs: \(error.reason)")
        }
    }

    /// Builds the record of a sequence header OBU: the fields from its `seq_profile`,
    /// `seq_level_idx[0]`, `seq_tier[0]` and `color_config()`, and the OBU (with a size field) as
    /// `configOBUs`.
    ///
    /// `initial_presentation_delay_present` is 0, as libavformat's MP4 and Matroska muxers write it:
    /// the delay the binding describes is a property of the samples, not of the sequence header.
    ///
    /// - Throws: ``VTError/parameter`` when the OBU is not a sequence header;
    ///   ``VTError/formatDescriptionInvalidParameter`` when the sequence header is malformed.
    public init(sequenceHeaderOBU obu: AV1OBU) throws(VTError) {
        guard obu.obuType == .sequenceHeader else {
            throw VTError.parameter.with("an av1C is built from a sequence header OBU, not \(obu.obuType)")
        }
        let header = try AV1SequenceHeader(obu.payload)
        version = 1
        seqProfile = header.seqProfile
        seqLevelIdx0 = header.seqLevelIdx
        seqTier0 = header.seqTier
        highBitdepth = header.colorConfig.highBitdepth
        twelveBit = header.colorConfig.twelveBit
        monochrome = header.colorConfig.monoChrome
        chromaSubsamplingX = header.colorConfig.subsamplingX
        chromaSubsamplingY = header.colorConfig.subsamplingY
        chromaSamplePosition = header.colorConfig.chromaSamplePosition
        initialPresentationDelayMinus1 = nil
        configOBUs = obu.lowOverheadBytes
        sequenceHeader = header
    }

    /// The record's bytes: the `av1C` box payload.
    public var bytes: [UInt8] {
        func bit(_ flag: Bool) -> UInt8 { flag ? 1 : 0 }
        var out: [UInt8] = [
            0x80 | UInt8(version & 0x7f),
            UInt8((seqProfile & 7) << 5 | (seqLevelIdx0 & 0x1f)),
            UInt8(seqTier0 & 1) << 7 | bit(highBitdepth) << 6 | bit(twelveBit) << 5 | bit(monochrome) << 4
                | UInt8(chromaSubsamplingX & 1) << 3 | UInt8(chromaSubsamplingY & 1) << 2
                | UInt8(chromaSamplePosition & 3),
        ]
        if let initialPresentationDelayMinus1 {
            out.append(0x10 | UInt8(initialPresentationDelayMinus1 & 0x0f))
        } else {
            out.append(0)
        }
        return out + configOBUs
    }

    private static func invalid(_ reason: String) -> VTError {
        VTError.formatDescriptionInvalidParameter.with("AV1 codec configuration record (av1C) \(reason)")
    }
}
