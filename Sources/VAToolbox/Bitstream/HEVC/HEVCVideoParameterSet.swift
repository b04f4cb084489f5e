/// An HEVC video parameter set (VPS, `video_parameter_set_rbsp()`, H.265 clause 7.3.2.1).
///
/// Parsing reads the sub-layer ordering information and the timing information
/// (`vps_num_units_in_tick`, `vps_time_scale`: a raw stream's frame rate when the SPS states
/// none, as ffmpeg takes it); the HRD information and the extensions that follow are not read.
/// Those describe multi-layer and HRD conformance, which a single-layer decoder does not need;
/// the SPS carries everything needed to decode.
///
/// Corresponds to what VideoToolbox reads from the first parameter set given to
/// `CMVideoFormatDescriptionCreateFromHEVCParameterSets`.
public struct HEVCVideoParameterSet: Sendable, Hashable {
    /// `vps_video_parameter_set_id`, 0 to 15.
    public internal(set) var vpsVideoParameterSetId: Int
    /// `vps_base_layer_internal_flag`.
    public internal(set) var vpsBaseLayerInternalFlag: Bool
    /// `vps_base_layer_available_flag`.
    public internal(set) var vpsBaseLayerAvailableFlag: Bool
    /// `vps_max_layers_minus1`, 0 to 62: the number of layers minus 1 (0 for single-layer streams).
    public internal(set) var vpsMaxLayersMinus1: Int
    /// `vps_max_sub_layers_minus1`, 0 to 6: the number of temporal sub-layers minus 1.
    public internal(set) var vpsMaxSubLayersMinus1: Int
    /// `vps_temporal_id_nesting_flag`.
    public internal(set) var vpsTemporalIdNestingFlag: Bool
    /// `profile_tier_level(1, vps_max_sub_layers_minus1)`.
    public internal(set) var profileTierLevel: HEVCProfileTierLevel
    /// `vps_sub_layer_ordering_info_present_flag`: when false, the values of the highest
    /// sub-layer were coded and copied to the others.
    public internal(set) var vpsSubLayerOrderingInfoPresentFlag: Bool
    /// `vps_max_dec_pic_buffering_minus1[i]` for each sub-layer `i` (0 to 15).
    public internal(set) var vpsMaxDecPicBufferingMinus1: [Int]
    /// `vps_max_num_reorder_pics[i]` for each sub-layer `i`.
    public internal(set) var vpsMaxNumReorderPics: [Int]
    /// `vps_max_latency_increase_plus1[i]` for each sub-layer `i`.
    public internal(set) var vpsMaxLatencyIncreasePlus1: [UInt32]
    /// `vps_num_units_in_tick` and `vps_time_scale`, when `vps_timing_info_present_flag` is set
    /// (nil also when the layer sets before them are malformed: nothing else depends on them).
    public internal(set) var timingInfo: TimingInfo?

    /// The VPS timing information (clause 7.3.2.1).
    public struct TimingInfo: Sendable, Hashable {
        /// `vps_num_units_in_tick`: the clock ticks of one picture.
        public var numUnitsInTick: UInt32
        /// `vps_time_scale`: clock ticks per second.
        public var timeScale: UInt32
    }

    /// The duration of one picture, `vps_num_units_in_tick / vps_time_scale`, when present and sane.
    var frameDuration: MediaTime? {
        guard let timingInfo, timingInfo.numUnitsInTick > 0, timingInfo.timeScale > 0,
            timingInfo.timeScale <= UInt32(Int32.max)
        else { return nil }
        return MediaTime(value: Int64(timingInfo.numUnitsInTick), timescale: Int32(timingInfo.timeScale))
    }

    /// Parses a VPS NAL unit.
    ///
    /// - Throws: ``VTError/parameter`` when the unit is not an HEVC VPS (type 32);
    ///   ``VTError/videoDecoderBadData`` when it is truncated or a value is out of range.
    public init(_ nalUnit: NALUnit) throws(VTError) {
        try self.init(rbsp: nalUnit.hevcRBSP(of: .videoParameterSet, for: "an HEVC VPS"))
    }

    /// Parses the RBSP of a VPS (the NAL unit payload after its 2-byte header, with emulation
    /// prevention bytes removed).
    ///
    /// - Throws: ``VTError/videoDecoderBadData`` when the payload is truncated, or when
    ///   `vps_max_sub_layers_minus1` is 7 or the sub-layer ordering values break clause 7.4.3.1.
    public init(rbsp: [UInt8]) throws(VTError) {
        var reader = BitReader(rbsp, context: "HEVC VPS")
        vpsVideoParameterSetId = try reader.int(4, "vps_video_parameter_set_id")
        vpsBaseLayerInternalFlag = try reader.flag("vps_base_layer_internal_flag")
        vpsBaseLayerAvailableFlag = try reader.flag("vps_base_layer_available_flag")
        vpsMaxLayersMinus1 = try reader.int(6, "vps_max_layers_minus1")
        vpsMaxSubLayersMinus1 = try reader.int(3, "vps_max_sub_layers_minus1")
        guard vpsMaxSubLayersMinus1 <= HEVCProfileTierLevel.maxSubLayersMinus1 else {
            throw VTError.videoDecoderBadData.with(
                "HEVC VPS: vps_max_sub_layers_minus1 is \(vpsMaxSubLayersMinus1), more than 6")
        }
        vpsTemporalIdNestingFlag = try reader.flag("vps_temporal_id_nesting_flag")
        // Decoders ignore the value of vps_reserved_0xffff_16bits (clause 7.4.3.1).
        try reader.skip(16, "vps_reserved_0xffff_16bits")
        profileTierLevel = try HEVCProfileTierLevel(&reader, maxNumSubLayersMinus1: vpsMaxSubLayersMinus1)
        let ordering = try HEVCSubLayerOrderingInfo(&reader, maxSubLayersMinus1: vpsMaxSubLayersMinus1)
        vpsSubLayerOrderingInfoPresentFlag = ordering.presentFlag
        vpsMaxDecPicBufferingMinus1 = ordering.maxDecPicBufferingMinus1
        vpsMaxNumReorderPics = ordering.maxNumReorderPics
        vpsMaxLatencyIncreasePlus1 = ordering.maxLatencyIncreasePlus1
        timingInfo = try? Self.timingInfo(&reader)
    }

    /// Reads `vps_max_layer_id`, the layer sets and the timing information (clause 7.3.2.1).
    private static func timingInfo(_ reader: inout BitReader) throws(VTError) -> TimingInfo? {
        let maxLayerId = try reader.int(6, "vps_max_layer_id")
        let layerSetsMinus1 = try reader.unsignedExpGolomb("vps_num_layer_sets_minus1")
        guard layerSetsMinus1 <= 1023 else {
            throw VTError.videoDecoderBadData.with("HEVC VPS: vps_num_layer_sets_minus1 is \(layerSetsMinus1)")
        }
        try reader.skip(Int(layerSetsMinus1) * (maxLayerId + 1), "layer_id_included_flag")
        guard try reader.flag("vps_timing_info_present_flag") else { return nil }
        return TimingInfo(
            numUnitsInTick: try reader.bits(32, "vps_num_units_in_tick"),
            timeScale: try reader.bits(32, "vps_time_scale"))
    }
}
