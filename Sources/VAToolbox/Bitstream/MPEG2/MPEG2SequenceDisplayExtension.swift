/// An MPEG-2 sequence display extension, `sequence_display_extension()` (ISO/IEC 13818-2
/// §6.2.2.4, semantics §6.3.6): the video format, colour description and display size.
public struct MPEG2SequenceDisplayExtension: Sendable, Hashable {
    /// `video_format` (Table 6-6): 0 component, 1 PAL, 2 NTSC, 3 SECAM, 4 MAC, 5 unspecified.
    public var videoFormat: Int
    /// `colour_description`: whether the three colour codes are present.
    public var colourDescription: Bool
    /// `colour_primaries` (Table 6-7; the H.273 codes, 1 = BT.709). 1 when not present (§6.3.6).
    public var colourPrimaries = 1
    /// `transfer_characteristics` (Table 6-8). 1 when not present.
    public var transferCharacteristics = 1
    /// `matrix_coefficients` (Table 6-9). 1 when not present.
    public var matrixCoefficients = 1
    /// `display_horizontal_size` (14 bits).
    public var displayHorizontalSize: Int
    /// `display_vertical_size` (14 bits).
    public var displayVerticalSize: Int

    /// `extension_start_code_identifier` of a sequence display extension.
    public static let identifier = 2

    /// Parses a sequence display extension unit.
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the unit is not a sequence
    ///   display extension, is truncated, or its marker bit is 0.
    public init(_ unit: MPEG2StartCodeUnit) throws(VTError) {
        guard unit.extensionStartCodeIdentifier == Self.identifier else {
            throw VTError.formatDescriptionInvalidParameter.with("MPEG-2: expected a sequence display extension")
        }
        var r = BitReader(mpeg2: unit.payload, limit: 8, context: "MPEG-2 sequence display extension")
        do throws(VTError) {
            try r.skip(4, "extension_start_code_identifier")
            videoFormat = try r.int(3, "video_format")
            colourDescription = try r.flag("colour_description")
            if colourDescription {
                colourPrimaries = try r.int(8, "colour_primaries")
                transferCharacteristics = try r.int(8, "transfer_characteristics")
                matrixCoefficients = try r.int(8, "matrix_coefficients")
            }
            displayHorizontalSize = try r.int(14, "display_horizontal_size")
            try r.markerBit("display_horizontal_size")
            displayVerticalSize = try r.int(14, "display_vertical_size")
        } catch {
            throw error.asInvalidHeader()
        }
    }
}
