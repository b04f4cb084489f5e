/// HEVC hypothetical reference decoder parameters, `hrd_parameters(commonInfPresentFlag,
/// maxNumSubLayersMinus1)` (H.265 clause E.2.2): the buffering model the stream was encoded for.
///
/// Parsed in full so that the VUI fields after it can be read; a decoder that does not check
/// conformance does not need the values.
public struct HEVCHRDParameters: Sendable, Hashable {
    /// One coded picture buffer specification, `sub_layer_hrd_parameters()` entry `i` (clause E.2.3).
    public struct CPBSpecification: Sendable, Hashable {
        /// `bit_rate_value_minus1[i]`.
        public internal(set) var bitRateValueMinus1: UInt32
        /// `cpb_size_value_minus1[i]`.
        public internal(set) var cpbSizeValueMinus1: UInt32
        /// `cpb_size_du_value_minus1[i]` (0 unless `sub_pic_hrd_params_present_flag`).
        public internal(set) var cpbSizeDuValueMinus1: UInt32
        /// `bit_rate_du_value_minus1[i]` (0 unless `sub_pic_hrd_params_present_flag`).
        public internal(set) var bitRateDuValueMinus1: UInt32
        /// `cbr_flag[i]`: constant bit rate.
        public internal(set) var cbrFlag: Bool
    }

    /// The timing and buffering of one temporal sub-layer (the loop of clause E.2.2).
    public struct SubLayer: Sendable, Hashable {
        /// `fixed_pic_rate_general_flag[i]`.
        public internal(set) var fixedPicRateGeneralFlag: Bool
        /// `fixed_pic_rate_within_cvs_flag[i]` (inferred 1 when the general flag is 1).
        public internal(set) var fixedPicRateWithinCvsFlag: Bool
        /// `elemental_duration_in_tc_minus1[i]`, 0 to 2047 (0 when not coded).
        public internal(set) var elementalDurationInTcMinus1: Int
        /// `low_delay_hrd_flag[i]`.
        public internal(set) var lowDelayHrdFlag: Bool
        /// `cpb_cnt_minus1[i]`, 0 to 31.
        public internal(set) var cpbCntMinus1: Int
        /// `sub_layer_hrd_parameters(i)` of the NAL HRD, when `nal_hrd_parameters_present_flag`.
        public internal(set) var nalHrdParameters: [CPBSpecification]
        /// `sub_layer_hrd_parameters(i)` of the VCL HRD, when `vcl_hrd_parameters_present_flag`.
        public internal(set) var vclHrdParameters: [CPBSpecification]
    }

    /// `nal_hrd_parameters_present_flag`.
    public internal(set) var nalHrdParametersPresentFlag: Bool = false
    /// `vcl_hrd_parameters_present_flag`.
    public internal(set) var vclHrdParametersPresentFlag: Bool = false
    /// `sub_pic_hrd_params_present_flag`.
    public internal(set) var subPicHrdParamsPresentFlag: Bool = false
    /// `tick_divisor_minus2`.
    public internal(set) var tickDivisorMinus2: Int = 0
    /// `du_cpb_removal_delay_increment_length_minus1`.
    public internal(set) var duCpbRemovalDelayIncrementLengthMinus1: Int = 0
    /// `sub_pic_cpb_params_in_pic_timing_sei_flag`.
    public internal(set) var subPicCpbParamsInPicTimingSeiFlag: Bool = false
    /// `dpb_output_delay_du_length_minus1`.
    public internal(set) var dpbOutputDelayDuLengthMinus1: Int = 0
    /// `bit_rate_scale`.
    public internal(set) var bitRateScale: Int = 0
    /// `cpb_size_scale`.
    public internal(set) var cpbSizeScale: Int = 0
    /// `cpb_size_du_scale`.
    public internal(set) var cpbSizeDuScale: Int = 0
    /// `initial_cpb_removal_delay_length_minus1` (inferred 23 when not coded).
    public internal(set) var initialCpbRemovalDelayLengthMinus1: Int = 23
    /// `au_cpb_removal_delay_length_minus1` (inferred 23 when not coded).
    public internal(set) var auCpbRemovalDelayLengthMinus1: Int = 23
    /// `dpb_output_delay_length_minus1` (inferred 23 when not coded).
    public internal(set) var dpbOutputDelayLengthMinus1: Int = 23
    /// One entry per temporal sub-layer, 0 to `maxNumSubLayersMinus1`.
    public internal(set) var subLayers: [SubLayer] = []

    /// The largest `cpb_cnt_minus1`: 31 (clause E.3.2).
    public static let maxCpbCntMinus1 = 31

    /// Parses `hrd_parameters(commonInfPresentFlag, maxNumSubLayersMinus1)` (clause E.2.2).
    ///
    /// - Parameters:
    ///   - reader: The reader, positioned at the structure; left just after it.
    ///   - commonInfPresentFlag: Whether the fields common to all sub-layers are coded (1 in the VUI).
    ///   - maxNumSubLayersMinus1: `sps_max_sub_layers_minus1`, 0 to 6.
    /// - Throws: ``VTError/videoDecoderBadData`` when the data ends early or
    ///   `elemental_duration_in_tc_minus1` or `cpb_cnt_minus1` is out of range;
    ///   ``VTError/parameter`` when `maxNumSubLayersMinus1` is outside 0 to 6.
    public init(_ reader: inout BitReader, commonInfPresentFlag: Bool, maxNumSubLayersMinus1: Int) throws(VTError) {
        guard (0...HEVCProfileTierLevel.maxSubLayersMinus1).contains(maxNumSubLayersMinus1) else {
            throw VTError.parameter.with("maxNumSubLayersMinus1 is \(maxNumSubLayersMinus1), outside 0...6")
        }
        if commonInfPresentFlag {
            nalHrdParametersPresentFlag = try reader.flag("nal_hrd_parameters_present_flag")
            vclHrdParametersPresentFlag = try reader.flag("vcl_hrd_parameters_present_flag")
            if nalHrdParametersPresentFlag || vclHrdParametersPresentFlag {
                subPicHrdParamsPresentFlag = try reader.flag("sub_pic_hrd_params_present_flag")
                if subPicHrdParamsPresentFlag {
                    tickDivisorMinus2 = try reader.int(8, "tick_divisor_minus2")
                    duCpbRemovalDelayIncrementLengthMinus1 = try reader.int(
                        5, "du_cpb_removal_delay_increment_length_minus1")
                    subPicCpbParamsInPicTimingSeiFlag = try reader.flag("sub_pic_cpb_params_in_pic_timing_sei_flag")
                    dpbOutputDelayDuLengthMinus1 = try reader.int(5, "dpb_output_delay_du_length_minus1")
                }
                bitRateScale = try reader.int(4, "bit_rate_scale")
                cpbSizeScale = try reader.int(4, "cpb_size_scale")
                if subPicHrdParamsPresentFlag {
                    cpbSizeDuScale = try reader.int(4, "cpb_size_du_scale")
                }
                initialCpbRemovalDelayLengthMinus1 = try reader.int(5, "initial_cpb_removal_delay_length_minus1")
                auCpbRemovalDelayLengthMinus1 = try reader.int(5, "au_cpb_removal_delay_length_minus1")
                dpbOutputDelayLengthMinus1 = try reader.int(5, "dpb_output_delay_length_minus1")
            }
        }
        for _ in 0...maxNumSubLayersMinus1 {
            let fixedPicRateGeneralFlag = try reader.flag("fixed_pic_rate_general_flag")
            let fixedPicRateWithinCvsFlag =
                fixedPicRateGeneralFlag ? true : try reader.flag("fixed_pic_rate_within_cvs_flag")
            var elementalDurationInTcMinus1 = 0
            var lowDelayHrdFlag = false
            if fixedPicRateWithinCvsFlag {
                elementalDurationInTcMinus1 = try reader.unsignedExpGolomb(
                    "elemental_duration_in_tc_minus1", maximum: 2047)
            } else {
                lowDelayHrdFlag = try reader.flag("low_delay_hrd_flag")
            }
            let cpbCntMinus1 =
                lowDelayHrdFlag ? 0 : try reader.unsignedExpGolomb("cpb_cnt_minus1", maximum: Self.maxCpbCntMinus1)
            let nal = nalHrdParametersPresentFlag ? try cpbSpecifications(&reader, count: cpbCntMinus1 + 1) : []
            let vcl = vclHrdParametersPresentFlag ? try cpbSpecifications(&reader, count: cpbCntMinus1 + 1) : []
            subLayers.append(
                SubLayer(
                    fixedPicRateGeneralFlag: fixedPicRateGeneralFlag,
                    fixedPicRateWithinCvsFlag: fixedPicRateWithinCvsFlag,
                    elementalDurationInTcMinus1: elementalDurationInTcMinus1, lowDelayHrdFlag: lowDelayHrdFlag,
                    cpbCntMinus1: cpbCntMinus1, nalHrdParameters: nal, vclHrdParameters: vcl))
        }
    }

    /// `sub_layer_hrd_parameters()` (clause E.2.3): `CpbCnt` = `cpb_cnt_minus1 + 1` entries.
    private func cpbSpecifications(_ reader: inout BitReader, count: Int) throws(VTError) -> [CPBSpecification] {
        var specifications: [CPBSpecification] = []
        for _ in 0..<count {
            let bitRate = try reader.unsignedExpGolomb("bit_rate_value_minus1")
            let cpbSize = try reader.unsignedExpGolomb("cpb_size_value_minus1")
            var cpbSizeDu: UInt32 = 0
            var bitRateDu: UInt32 = 0
            if subPicHrdParamsPresentFlag {
                cpbSizeDu = try reader.unsignedExpGolomb("cpb_size_du_value_minus1")
                bitRateDu = try reader.unsignedExpGolomb("bit_rate_du_value_minus1")
            }
            specifications.append(
                CPBSpecification(
                    bitRateValueMinus1: bitRate, cpbSizeValueMinus1: cpbSize, cpbSizeDuValueMinus1: cpbSizeDu,
                    bitRateDuValueMinus1: bitRateDu, cbrFlag: try reader.flag("cbr_flag")))
        }
        return specifications
    }
}
