/// An MPEG-2 sequence extension, `sequence_extension()` (ISO/IEC 13818-2 §6.2.2.3, semantics §6.3.5).
///
/// Its presence after the sequence header marks the stream as MPEG-2 (not MPEG-1).
public struct MPEG2SequenceExtension: Sendable, Hashable {
    /// `profile_and_level_indication` (§8.1): escape bit, 3-bit profile, 4-bit level.
    public var profileAndLevelIndication: Int
    /// `progressive_sequence`: 1 when every picture is a progressive frame.
    public var progressiveSequence: Bool
    /// `chroma_format` (Table 6-5): 1 4:2:0, 2 4:2:2, 3 4:4:4.
    public var chromaFormat: Int
    /// `horizontal_size_extension`: the top 2 bits of the width.
    public var horizontalSizeExtension: Int
    /// `vertical_size_extension`: the top 2 bits of the height.
    public var verticalSizeExtension: Int
    /// `bit_rate_extension`: the top 12 bits of the bit rate.
    public var bitRateExtension: Int
    /// `vbv_buffer_size_extension`: the top 8 bits of the VBV buffer size.
    public var vbvBufferSizeExtension: Int
    /// `low_delay`: 1 when the sequence has no B pictures and may have big pictures.
    public var lowDelay: Bool
    /// `frame_rate_extension_n`.
    public var frameRateExtensionN: Int
    /// `frame_rate_extension_d`.
    public var frameRateExtensionD: Int

    /// `extension_start_code_identifier` of a sequence extension.
    public static let identifier = 1

    /// Parses a sequence extension unit.
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the unit is not a sequence
    ///   extension, is truncated, a marker bit is 0 or `chroma_format` is the reserved 0.
    public init(_ unit: MPEG2StartCodeUnit) throws(VTError) {
        guard unit.extensionStartCodeIdentifier == Self.identifier else {
            throw VTError.formatDescriptionInvalidParameter.with("MPEG-2: expected a sequence extension")
        }
        var r = BitReader(mpeg2: unit.payload, limit: 6, context: "MPEG-2 sequence extension")
        do throws(VTError) {
            try r.skip(4, "extension_start_code_identifier")
            profileAndLevelIndication = try r.int(8, "profile_and_level_indication")
            progressiveSequence = try r.flag("progressive_sequence")
            chromaFormat = try r.int(2, "chroma_format")
            horizontalSizeExtension = try r.int(2, "horizontal_size_extension")
            verticalSizeExtension = try r.int(2, "vertical_size_extension")
            bitRateExtension = try r.int(12, "bit_rate_extension")
            try r.markerBit("bit_rate_extension")
            vbvBufferSizeExtension = try r.int(8, "vbv_buffer_size_extension")
            lowDelay = try r.flag("low_delay")
            frameRateExtensionN = try r.int(2, "frame_rate_extension_n")
            frameRateExtensionD = try r.int(5, "frame_rate_extension_d")
        } catch {
            throw error.asInvalidHeader()
        }
        guard chromaFormat != 0 else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "MPEG-2 sequence extension: chroma_format 0 is reserved")
        }
    }

    /// The profile in words, as FFmpeg names it: `Simple`, `Main`, `SNR Scalable`,
    /// `Spatially Scalable`, `High`, `4:2:2` or `Multi-view`; nil for reserved values.
    public var profileName: String? {
        if profileAndLevelIndication & 0x80 != 0 {
            switch profileAndLevelIndication & 0x7F {
            case 0x02, 0x05: return "4:2:2"
            case 0x0A, 0x0B, 0x0D, 0x0E: return "Multi-view"
            default: return nil
            }
        }
        switch (profileAndLevelIndication >> 4) & 0x7 {
        case 1: return "High"
        case 2: return "Spatially Scalable"
        case 3: return "SNR Scalable"
        case 4: return "Main"
        case 5: return "Simple"
        default: return nil
        }
    }

    /// The level code (Table 8-3): 4 High, 6 High 1440, 8 Main, 10 Low (FFmpeg reports this number).
    /// For the escaped 4:2:2 and multi-view profiles, the level their code implies.
    public var levelCode: Int {
        guard profileAndLevelIndication & 0x80 != 0 else { return profileAndLevelIndication & 0xF }
        switch profileAndLevelIndication & 0x7F {
        case 0x02, 0x0A, 0x0E: return 4
        case 0x0B: return 6
        case 0x05, 0x0D: return 8
        default: return profileAndLevelIndication & 0xF
        }
    }

    /// The level in words: `Low`, `Main`, `High 1440` or `High`; nil for reserved values.
    public var levelName: String? {
        switch levelCode {
        case 4: "High"
        case 6: "High 1440"
        case 8: "Main"
        case 10: "Low"
        default: nil
        }
    }
}
