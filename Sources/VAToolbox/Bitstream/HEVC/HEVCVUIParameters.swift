/// HEVC video usability information, `vui_parameters()` (H.265 clause E.2.1): how to display the
/// decoded pictures (sample aspect ratio, colour, chroma siting, cropping for display), the frame
/// rate, the HRD, and limits that help a decoder size its buffers.
///
/// Fields that are absent take the values the spec infers for them (clause E.3.1): unspecified
/// colour (2), limited range, and so on.
public struct HEVCVUIParameters: Sendable, Hashable {
    /// `aspect_ratio_info_present_flag`.
    public internal(set) var aspectRatioInfoPresentFlag = false
    /// `aspect_ratio_idc` (Table E-1): 0 unspecified, 1 to 16 predefined, 255 `EXTENDED_SAR`.
    public internal(set) var aspectRatioIdc: UInt8 = 0
    /// `sar_width` (when `aspect_ratio_idc` is 255).
    public internal(set) var sarWidth: UInt16 = 0
    /// `sar_height` (when `aspect_ratio_idc` is 255).
    public internal(set) var sarHeight: UInt16 = 0
    /// `overscan_info_present_flag`.
    public internal(set) var overscanInfoPresentFlag = false
    /// `overscan_appropriate_flag`.
    public internal(set) var overscanAppropriateFlag = false
    /// `video_signal_type_present_flag`.
    public internal(set) var videoSignalTypePresentFlag = false
    /// `video_format` (Table E-2): 0 component, 1 PAL, 2 NTSC, 3 SECAM, 4 MAC, 5 unspecified.
    public internal(set) var videoFormat: UInt8 = 5
    /// `video_full_range_flag`: full-range samples (0 to 2ⁿ − 1) rather than limited range.
    public internal(set) var videoFullRangeFlag = false
    /// `colour_description_present_flag`.
    public internal(set) var colourDescriptionPresentFlag = false
    /// `colour_primaries` (Table E-3, ITU-T H.273): 1 BT.709, 9 BT.2020, 2 unspecified, …
    public internal(set) var colourPrimaries: UInt8 = 2
    /// `transfer_characteristics` (Table E-4): 1 BT.709, 16 SMPTE ST 2084 (PQ), 18 HLG, 2 unspecified, …
    public internal(set) var transferCharacteristics: UInt8 = 2
    /// `matrix_coeffs` (Table E-5): 0 identity (RGB), 1 BT.709, 9 BT.2020 NCL, 2 unspecified, …
    public internal(set) var matrixCoeffs: UInt8 = 2
    /// `chroma_loc_info_present_flag`.
    public internal(set) var chromaLocInfoPresentFlag = false
    /// `chroma_sample_loc_type_top_field`, 0 to 5 (Figure E-1).
    public internal(set) var chromaSampleLocTypeTopField = 0
    /// `chroma_sample_loc_type_bottom_field`, 0 to 5.
    public internal(set) var chromaSampleLocTypeBottomField = 0
    /// `neutral_chroma_indication_flag`.
    public internal(set) var neutralChromaIndicationFlag = false
    /// `field_seq_flag`: each picture is a field.
    public internal(set) var fieldSeqFlag = false
    /// `frame_field_info_present_flag`: picture timing SEI messages carry `pic_struct`.
    public internal(set) var frameFieldInfoPresentFlag = false
    /// `default_display_window_flag`.
    public internal(set) var defaultDisplayWindowFlag = false
    /// `def_disp_win_left_offset`, in chroma sample units like the conformance window.
    public internal(set) var defDispWinLeftOffset: UInt32 = 0
    /// `def_disp_win_right_offset`.
    public internal(set) var defDispWinRightOffset: UInt32 = 0
    /// `def_disp_win_top_offset`.
    public internal(set) var defDispWinTopOffset: UInt32 = 0
    /// `def_disp_win_bottom_offset`.
    public internal(set) var defDispWinBottomOffset: UInt32 = 0
    /// `vui_timing_info_present_flag`.
    public internal(set) var vuiTimingInfoPresentFlag = false
    /// `vui_num_units_in_tick`: the clock ticks of one picture interval, with ``vuiTimeScale``.
    public internal(set) var vuiNumUnitsInTick: UInt32 = 0
    /// `vui_time_scale`: clock ticks per second.
    public internal(set) var vuiTimeScale: UInt32 = 0
    /// `vui_poc_proportional_to_timing_flag`.
    public internal(set) var vuiPocProportionalToTimingFlag = false
    /// `vui_num_ticks_poc_diff_one_minus1`.
    public internal(set) var vuiNumTicksPocDiffOneMinus1: UInt32 = 0
    /// `vui_hrd_parameters_present_flag`.
    public internal(set) var vuiHrdParametersPresentFlag = false
    /// `hrd_parameters(1, sps_max_sub_layers_minus1)`, when present.
    public internal(set) var hrdParameters: HEVCHRDParameters?
    /// `bitstream_restriction_flag`.
    public internal(set) var bitstreamRestrictionFlag = false
    /// `tiles_fixed_structure_flag`.
    public internal(set) var tilesFixedStructureFlag = false
    /// `motion_vectors_over_pic_boundaries_flag` (inferred 1).
    public internal(set) var motionVectorsOverPicBoundariesFlag = true
    /// `restricted_ref_pic_lists_flag`.
    public internal(set) var restrictedRefPicListsFlag = false
    /// `min_spatial_segmentation_idc`, 0 to 4095: also the `hvcC` field of that name.
    public internal(set) var minSpatialSegmentationIdc = 0
    /// `max_bytes_per_pic_denom`, 0 to 16 (inferred 2).
    public internal(set) var maxBytesPerPicDenom = 2
    /// `max_bits_per_min_cu_denom`, 0 to 16 (inferred 1).
    public internal(set) var maxBitsPerMinCuDenom = 1
    /// `log2_max_mv_length_horizontal`, 0 to 15 (inferred 15).
    public internal(set) var log2MaxMvLengthHorizontal = 15
    /// `log2_max_mv_length_vertical`, 0 to 15 (inferred 15).
    public internal(set) var log2MaxMvLengthVertical = 15

    /// `aspect_ratio_idc` value 255: the ratio is coded as `sar_width` and `sar_height`.
    public static let extendedSAR: UInt8 = 255

    /// Parses `vui_parameters()` (clause E.2.1).
    ///
    /// - Parameters:
    ///   - reader: The reader, positioned at `aspect_ratio_info_present_flag`; left after the VUI.
    ///   - spsMaxSubLayersMinus1: `sps_max_sub_layers_minus1`, 0 to 6, for `hrd_parameters()`.
    /// - Throws: ``VTError/videoDecoderBadData`` when the data ends early or a value is outside its
    ///   range (`chroma_sample_loc_type_*` over 5, `min_spatial_segmentation_idc` over 4095,
    ///   `max_bytes_per_pic_denom` or `max_bits_per_min_cu_denom` over 16,
    ///   `log2_max_mv_length_*` over 15, or an HRD field).
    public init(_ reader: inout BitReader, spsMaxSubLayersMinus1: Int) throws(VTError) {
        aspectRatioInfoPresentFlag = try reader.flag("aspect_ratio_info_present_flag")
        if aspectRatioInfoPresentFlag {
            aspectRatioIdc = UInt8(try reader.bits(8, "aspect_ratio_idc"))
            if aspectRatioIdc == Self.extendedSAR {
                sarWidth = UInt16(try reader.bits(16, "sar_width"))
                sarHeight = UInt16(try reader.bits(16, "sar_height"))
            }
        }
        overscanInfoPresentFlag = try reader.flag("overscan_info_present_flag")
        if overscanInfoPresentFlag {
            overscanAppropriateFlag = try reader.flag("overscan_appropriate_flag")
        }
        videoSignalTypePresentFlag = try reader.flag("video_signal_type_present_flag")
        if videoSignalTypePresentFlag {
            videoFormat = UInt8(try reader.bits(3, "video_format"))
            videoFullRangeFlag = try reader.flag("video_full_range_flag")
            colourDescriptionPresentFlag = try reader.flag("colour_description_present_flag")
            if colourDescriptionPresentFlag {
                colourPrimaries = UInt8(try reader.bits(8, "colour_primaries"))
                transferCharacteristics = UInt8(try reader.bits(8, "transfer_characteristics"))
                matrixCoeffs = UInt8(try reader.bits(8, "matrix_coeffs"))
            }
        }
        chromaLocInfoPresentFlag = try reader.flag("chroma_loc_info_present_flag")
        if chromaLocInfoPresentFlag {
            chromaSampleLocTypeTopField = try reader.unsignedExpGolomb("chroma_sample_loc_type_top_field", maximum: 5)
            chromaSampleLocTypeBottomField = try reader.unsignedExpGolomb(
                "chroma_sample_loc_type_bottom_field", maximum: 5)
        }
        neutralChromaIndicationFlag = try reader.flag("neutral_chroma_indication_flag")
        fieldSeqFlag = try reader.flag("field_seq_flag")
        frameFieldInfoPresentFlag = try reader.flag("frame_field_info_present_flag")
        defaultDisplayWindowFlag = try reader.flag("default_display_window_flag")
        if defaultDisplayWindowFlag {
            defDispWinLeftOffset = try reader.unsignedExpGolomb("def_disp_win_left_offset")
            defDispWinRightOffset = try reader.unsignedExpGolomb("def_disp_win_right_offset")
            defDispWinTopOffset = try reader.unsignedExpGolomb("def_disp_win_top_offset")
            defDispWinBottomOffset = try reader.unsignedExpGolomb("def_disp_win_bottom_offset")
        }
        vuiTimingInfoPresentFlag = try reader.flag("vui_timing_info_present_flag")
        if vuiTimingInfoPresentFlag {
            vuiNumUnitsInTick = try reader.bits(32, "vui_num_units_in_tick")
            vuiTimeScale = try reader.bits(32, "vui_time_scale")
            vuiPocProportionalToTimingFlag = try reader.flag("vui_poc_proportional_to_timing_flag")
            if vuiPocProportionalToTimingFlag {
                vuiNumTicksPocDiffOneMinus1 = try reader.unsignedExpGolomb("vui_num_ticks_poc_diff_one_minus1")
            }
            vuiHrdParametersPresentFlag = try reader.flag("vui_hrd_parameters_present_flag")
            if vuiHrdParametersPresentFlag {
                hrdParameters = try HEVCHRDParameters(
                    &reader, commonInfPresentFlag: true, maxNumSubLayersMinus1: spsMaxSubLayersMinus1)
            }
        }
        bitstreamRestrictionFlag = try reader.flag("bitstream_restriction_flag")
        if bitstreamRestrictionFlag {
            tilesFixedStructureFlag = try reader.flag("tiles_fixed_structure_flag")
            motionVectorsOverPicBoundariesFlag = try reader.flag("motion_vectors_over_pic_boundaries_flag")
            restrictedRefPicListsFlag = try reader.flag("restricted_ref_pic_lists_flag")
            minSpatialSegmentationIdc = try reader.unsignedExpGolomb("min_spatial_segmentation_idc", maximum: 4095)
            maxBytesPerPicDenom = try reader.unsignedExpGolomb("max_bytes_per_pic_denom", maximum: 16)
            maxBitsPerMinCuDenom = try reader.unsignedExpGolomb("max_bits_per_min_cu_denom", maximum: 16)
            log2MaxMvLengthHorizontal = try reader.unsignedExpGolomb("log2_max_mv_length_horizontal", maximum: 15)
            log2MaxMvLengthVertical = try reader.unsignedExpGolomb("log2_max_mv_length_vertical", maximum: 15)
        }
    }

    /// The sample (pixel) aspect ratio, horizontal to vertical, from `aspect_ratio_idc` (Table
    /// E-1) or, for `EXTENDED_SAR`, `sar_width:sar_height`; nil when unspecified (no aspect ratio
    /// info, `aspect_ratio_idc` 0 or reserved, or a zero `sar_width`/`sar_height`).
    ///
    /// Not reduced: `EXTENDED_SAR` 4:2 stays 4:2 (the spec asks for relatively prime values but
    /// does not make other values invalid).
    public var sampleAspectRatio: (width: Int, height: Int)? {
        guard aspectRatioInfoPresentFlag else { return nil }
        if aspectRatioIdc == Self.extendedSAR {
            guard sarWidth != 0, sarHeight != 0 else { return nil }
            return (Int(sarWidth), Int(sarHeight))
        }
        guard (1...16).contains(aspectRatioIdc) else { return nil }
        let ratio = Self.tableE1[Int(aspectRatioIdc) - 1]
        return (ratio.width, ratio.height)
    }

    /// The frame rate from the timing information, `vui_time_scale / vui_num_units_in_tick`
    /// pictures per second; nil without timing information or with a zero field.
    public var frameRate: (numerator: UInt32, denominator: UInt32)? {
        guard vuiTimingInfoPresentFlag, vuiTimeScale != 0, vuiNumUnitsInTick != 0 else { return nil }
        return (vuiTimeScale, vuiNumUnitsInTick)
    }

    /// Table E-1, `aspect_ratio_idc` 1 to 16.
    private static let tableE1: [(width: Int, height: Int)] = [
        (1, 1), (12, 11), (10, 11), (16, 11), (40, 33), (24, 11), (20, 11), (32, 11),
        (80, 33), (18, 11), (15, 11), (64, 33), (160, 99), (4, 3), (3, 2), (2, 1),
    ]
}
