/// An HEVC picture parameter set (PPS, `pic_parameter_set_rbsp()`, H.265 clause 7.3.2.3.1): the
/// coding tools, quantisation defaults, tiles and loop filter settings that slices refer to by
/// `slice_pic_parameter_set_id`.
///
/// Parsing stops after `pps_extension_present_flag`: the range, multilayer, 3D and SCC extensions
/// (`pps_range_extension()` and the others) are not read. Everything of version 1 of the syntax is.
///
/// Some ranges depend on the SPS the PPS refers to (`init_qp_minus26`, `diff_cu_qp_delta_depth`,
/// the tile counts, `log2_parallel_merge_level_minus2`). Given the SPS, the parser checks them
/// exactly; without it, against the widest values any SPS allows, which is enough to keep every
/// array the parser builds small.
public struct HEVCPictureParameterSet: Sendable, Hashable {
    /// `pps_pic_parameter_set_id`, 0 to 63.
    public internal(set) var ppsPicParameterSetId: Int
    /// `pps_seq_parameter_set_id`, 0 to 15.
    public internal(set) var ppsSeqParameterSetId: Int
    /// `dependent_slice_segments_enabled_flag`.
    public internal(set) var dependentSliceSegmentsEnabledFlag: Bool
    /// `output_flag_present_flag`: slice headers carry `pic_output_flag`.
    public internal(set) var outputFlagPresentFlag: Bool
    /// `num_extra_slice_header_bits`, 0 to 7.
    public internal(set) var numExtraSliceHeaderBits: Int
    /// `sign_data_hiding_enabled_flag`.
    public internal(set) var signDataHidingEnabledFlag: Bool
    /// `cabac_init_present_flag`.
    public internal(set) var cabacInitPresentFlag: Bool
    /// `num_ref_idx_l0_default_active_minus1`, 0 to 14.
    public internal(set) var numRefIdxL0DefaultActiveMinus1: Int
    /// `num_ref_idx_l1_default_active_minus1`, 0 to 14.
    public internal(set) var numRefIdxL1DefaultActiveMinus1: Int
    /// `init_qp_minus26`, −(26 + `QpBdOffsetY`) to 25.
    public internal(set) var initQpMinus26: Int
    /// `constrained_intra_pred_flag`.
    public internal(set) var constrainedIntraPredFlag: Bool
    /// `transform_skip_enabled_flag`.
    public internal(set) var transformSkipEnabledFlag: Bool
    /// `cu_qp_delta_enabled_flag`.
    public internal(set) var cuQpDeltaEnabledFlag: Bool
    /// `diff_cu_qp_delta_depth`, 0 to `log2_diff_max_min_luma_coding_block_size` (0 when absent).
    public internal(set) var diffCuQpDeltaDepth: Int
    /// `pps_cb_qp_offset`, −12 to 12.
    public internal(set) var ppsCbQpOffset: Int
    /// `pps_cr_qp_offset`, −12 to 12.
    public internal(set) var ppsCrQpOffset: Int
    /// `pps_slice_chroma_qp_offsets_present_flag`.
    public internal(set) var ppsSliceChromaQpOffsetsPresentFlag: Bool
    /// `weighted_pred_flag`.
    public internal(set) var weightedPredFlag: Bool
    /// `weighted_bipred_flag`.
    public internal(set) var weightedBipredFlag: Bool
    /// `transquant_bypass_enabled_flag`.
    public internal(set) var transquantBypassEnabledFlag: Bool
    /// `tiles_enabled_flag`.
    public internal(set) var tilesEnabledFlag: Bool
    /// `entropy_coding_sync_enabled_flag` (wavefront parallel processing).
    public internal(set) var entropyCodingSyncEnabledFlag: Bool
    /// `num_tile_columns_minus1`, 0 to `PicWidthInCtbsY − 1` (0 without tiles).
    public internal(set) var numTileColumnsMinus1: Int
    /// `num_tile_rows_minus1`, 0 to `PicHeightInCtbsY − 1` (0 without tiles).
    public internal(set) var numTileRowsMinus1: Int
    /// `uniform_spacing_flag` (inferred 1).
    public internal(set) var uniformSpacingFlag: Bool
    /// `column_width_minus1[i]` for the first `num_tile_columns_minus1` columns, in CTBs (empty
    /// with uniform spacing).
    public internal(set) var columnWidthMinus1: [Int]
    /// `row_height_minus1[i]` for the first `num_tile_rows_minus1` rows, in CTBs (empty with
    /// uniform spacing).
    public internal(set) var rowHeightMinus1: [Int]
    /// `loop_filter_across_tiles_enabled_flag` (inferred 1).
    public internal(set) var loopFilterAcrossTilesEnabledFlag: Bool
    /// `pps_loop_filter_across_slices_enabled_flag`.
    public internal(set) var ppsLoopFilterAcrossSlicesEnabledFlag: Bool
    /// `deblocking_filter_control_present_flag`.
    public internal(set) var deblockingFilterControlPresentFlag: Bool
    /// `deblocking_filter_override_enabled_flag`.
    public internal(set) var deblockingFilterOverrideEnabledFlag: Bool
    /// `pps_deblocking_filter_disabled_flag`.
    public internal(set) var ppsDeblockingFilterDisabledFlag: Bool
    /// `pps_beta_offset_div2`, −6 to 6.
    public internal(set) var ppsBetaOffsetDiv2: Int
    /// `pps_tc_offset_div2`, −6 to 6.
    public internal(set) var ppsTcOffsetDiv2: Int
    /// `pps_scaling_list_data_present_flag`.
    public var ppsScalingListDataPresentFlag: Bool { ppsScalingListData != nil }
    /// The PPS's `scaling_list_data()`, when `pps_scaling_list_data_present_flag` is 1; it then
    /// replaces the SPS's lists for pictures using this PPS.
    public internal(set) var ppsScalingListData: HEVCScalingListData?
    /// `lists_modification_present_flag`.
    public internal(set) var listsModificationPresentFlag: Bool
    /// `log2_parallel_merge_level_minus2`, 0 to `CtbLog2SizeY − 2`.
    public internal(set) var log2ParallelMergeLevelMinus2: Int
    /// `slice_segment_header_extension_present_flag`.
    public internal(set) var sliceSegmentHeaderExtensionPresentFlag: Bool
    /// `pps_extension_present_flag` (the extensions themselves are not parsed).
    public internal(set) var ppsExtensionPresentFlag: Bool

    /// `pps_pic_parameter_set_id` is at most 63 (clause 7.4.3.3.1).
    public static let maxId = 63

    /// Parses a PPS NAL unit.
    ///
    /// - Parameters:
    ///   - nalUnit: An HEVC NAL unit of type 34.
    ///   - sps: The SPS the PPS refers to, for the exact range checks; nil to check against the
    ///     widest ranges.
    /// - Throws: ``VTError/parameter`` when the unit is not an HEVC PPS, or `sps` is not the SPS
    ///   it refers to; ``VTError/videoDecoderBadData`` when it is truncated or a value is out of range.
    public init(_ nalUnit: NALUnit, sps: HEVCSequenceParameterSet? = nil) throws(VTError) {
        try self.init(rbsp: nalUnit.hevcRBSP(of: .pictureParameterSet, for: "an HEVC PPS"), sps: sps)
    }

    /// Parses the RBSP of a PPS (the NAL unit payload after its 2-byte header, with emulation
    /// prevention bytes removed).
    ///
    /// - Parameters:
    ///   - rbsp: The payload.
    ///   - sps: The SPS the PPS refers to, for the exact range checks; nil to check against the
    ///     widest ranges.
    /// - Throws: ``VTError/videoDecoderBadData`` when the payload is truncated or a value is outside
    ///   its range (clause 7.4.3.3.1), including tile columns or rows that do not fit the picture;
    ///   ``VTError/parameter`` when `sps` has another `sps_seq_parameter_set_id` than
    ///   `pps_seq_parameter_set_id`.
    public init(rbsp: [UInt8], sps: HEVCSequenceParameterSet? = nil) throws(VTError) {
        var reader = BitReader(rbsp, context: "HEVC PPS")
        ppsPicParameterSetId = try reader.unsignedExpGolomb("pps_pic_parameter_set_id", maximum: Self.maxId)
        ppsSeqParameterSetId = try reader.unsignedExpGolomb(
            "pps_seq_parameter_set_id", maximum: HEVCSequenceParameterSet.maxId)
        if let sps, sps.spsSeqParameterSetId != ppsSeqParameterSetId {
            throw VTError.parameter.with(
                "HEVC PPS \(ppsPicParameterSetId) refers to SPS \(ppsSeqParameterSetId), not to the SPS \(sps.spsSeqParameterSetId) given"
            )
        }
        // The widest ranges when no SPS is given: QpBdOffsetY <= 48 (bit depth 16), a CTB of at
        // least 16 samples, MinCbLog2SizeY >= 3 and CtbLog2SizeY <= 6 (see HEVCSequenceParameterSet).
        let widestCtbs = (HEVCSequenceParameterSet.maxPicDimension + 15) / 16
        let qpBdOffsetY = 6 * (sps?.bitDepthLumaMinus8 ?? 8)
        let log2DiffMaxMinCb = sps?.log2DiffMaxMinLumaCodingBlockSize ?? 3
        let picWidthInCtbsY = sps?.picWidthInCtbsY ?? widestCtbs
        let picHeightInCtbsY = sps?.picHeightInCtbsY ?? widestCtbs
        let ctbLog2SizeY = sps?.ctbLog2SizeY ?? 6

        dependentSliceSegmentsEnabledFlag = try reader.flag("dependent_slice_segments_enabled_flag")
        outputFlagPresentFlag = try reader.flag("output_flag_present_flag")
        numExtraSliceHeaderBits = try reader.int(3, "num_extra_slice_header_bits")
        signDataHidingEnabledFlag = try reader.flag("sign_data_hiding_enabled_flag")
        cabacInitPresentFlag = try reader.flag("cabac_init_present_flag")
        numRefIdxL0DefaultActiveMinus1 = try reader.unsignedExpGolomb(
            "num_ref_idx_l0_default_active_minus1", maximum: 14)
        numRefIdxL1DefaultActiveMinus1 = try reader.unsignedExpGolomb(
            "num_ref_idx_l1_default_active_minus1", maximum: 14)
        initQpMinus26 = try reader.signedExpGolomb("init_qp_minus26", in: -(26 + qpBdOffsetY)...25)
        constrainedIntraPredFlag = try reader.flag("constrained_intra_pred_flag")
        transformSkipEnabledFlag = try reader.flag("transform_skip_enabled_flag")
        cuQpDeltaEnabledFlag = try reader.flag("cu_qp_delta_enabled_flag")
        diffCuQpDeltaDepth =
            cuQpDeltaEnabledFlag ? try reader.unsignedExpGolomb("diff_cu_qp_delta_depth", maximum: log2DiffMaxMinCb) : 0
        ppsCbQpOffset = try reader.signedExpGolomb("pps_cb_qp_offset", in: -12...12)
        ppsCrQpOffset = try reader.signedExpGolomb("pps_cr_qp_offset", in: -12...12)
        ppsSliceChromaQpOffsetsPresentFlag = try reader.flag("pps_slice_chroma_qp_offsets_present_flag")
        weightedPredFlag = try reader.flag("weighted_pred_flag")
        weightedBipredFlag = try reader.flag("weighted_bipred_flag")
        transquantBypassEnabledFlag = try reader.flag("transquant_bypass_enabled_flag")
        tilesEnabledFlag = try reader.flag("tiles_enabled_flag")
        entropyCodingSyncEnabledFlag = try reader.flag("entropy_coding_sync_enabled_flag")

        numTileColumnsMinus1 = 0
        numTileRowsMinus1 = 0
        uniformSpacingFlag = true
        columnWidthMinus1 = []
        rowHeightMinus1 = []
        loopFilterAcrossTilesEnabledFlag = true
        if tilesEnabledFlag {
            numTileColumnsMinus1 = try reader.unsignedExpGolomb("num_tile_columns_minus1", maximum: picWidthInCtbsY - 1)
            numTileRowsMinus1 = try reader.unsignedExpGolomb("num_tile_rows_minus1", maximum: picHeightInCtbsY - 1)
            // With tiles on, a picture has more than one tile (clause 7.4.3.3.1).
            guard numTileColumnsMinus1 > 0 || numTileRowsMinus1 > 0 else {
                throw VTError.videoDecoderBadData.with(
                    "HEVC PPS: tiles_enabled_flag is 1 but num_tile_columns_minus1 and num_tile_rows_minus1 are 0")
            }
            uniformSpacingFlag = try reader.flag("uniform_spacing_flag")
            if !uniformSpacingFlag {
                columnWidthMinus1 = try Self.tileSizes(
                    &reader, count: numTileColumnsMinus1, total: picWidthInCtbsY, "column_width_minus1")
                rowHeightMinus1 = try Self.tileSizes(
                    &reader, count: numTileRowsMinus1, total: picHeightInCtbsY, "row_height_minus1")
            }
            loopFilterAcrossTilesEnabledFlag = try reader.flag("loop_filter_across_tiles_enabled_flag")
        }
        ppsLoopFilterAcrossSlicesEnabledFlag = try reader.flag("pps_loop_filter_across_slices_enabled_flag")
        deblockingFilterControlPresentFlag = try reader.flag("deblocking_filter_control_present_flag")
        deblockingFilterOverrideEnabledFlag = false
        ppsDeblockingFilterDisabledFlag = false
        ppsBetaOffsetDiv2 = 0
        ppsTcOffsetDiv2 = 0
        if deblockingFilterControlPresentFlag {
            deblockingFilterOverrideEnabledFlag = try reader.flag("deblocking_filter_override_enabled_flag")
            ppsDeblockingFilterDisabledFlag = try reader.flag("pps_deblocking_filter_disabled_flag")
            if !ppsDeblockingFilterDisabledFlag {
                ppsBetaOffsetDiv2 = try reader.signedExpGolomb("pps_beta_offset_div2", in: -6...6)
                ppsTcOffsetDiv2 = try reader.signedExpGolomb("pps_tc_offset_div2", in: -6...6)
            }
        }
        let scalingListPresent = try reader.flag("pps_scaling_list_data_present_flag")
        ppsScalingListData = scalingListPresent ? try HEVCScalingListData(&reader) : nil
        listsModificationPresentFlag = try reader.flag("lists_modification_present_flag")
        log2ParallelMergeLevelMinus2 = try reader.unsignedExpGolomb(
            "log2_parallel_merge_level_minus2", maximum: ctbLog2SizeY - 2)
        sliceSegmentHeaderExtensionPresentFlag = try reader.flag("slice_segment_header_extension_present_flag")
        ppsExtensionPresentFlag = try reader.flag("pps_extension_present_flag")
    }

    /// `column_width_minus1` / `row_height_minus1`: `count` sizes whose sum leaves at least one
    /// CTB for the last tile (clause 7.4.3.3.1, equations 6-3 and 6-4).
    private static func tileSizes(
        _ reader: inout BitReader, count: Int, total: Int, _ element: StaticString
    ) throws(VTError) -> [Int] {
        var sizes: [Int] = []
        var used = 0
        for _ in 0..<count {
            let sizeMinus1 = try reader.unsignedExpGolomb(element, maximum: total - 1)
            used += sizeMinus1 + 1
            guard used < total else {
                throw VTError.videoDecoderBadData.with(
                    "HEVC PPS: the \(element) values add up to \(used) CTBs or more, leaving nothing of the \(total) for the last tile"
                )
            }
            sizes.append(sizeMinus1)
        }
        return sizes
    }
}
