extension HEVCCodecSupport: AnnexBStreamCodecSupport {
    /// The extensions ffmpeg's `hevc` demuxer claims, and the JCT-VC conformance suite's `.bit`.
    var annexBFileExtensions: [String] { [".265", ".h265", ".hevc", ".bit"] }

    /// A video, sequence or picture parameter set, or an access unit delimiter (`nal_unit_type`
    /// 32 to 35), of the base layer and the lowest sub-layer (`nuh_layer_id` 0,
    /// `nuh_temporal_id_plus1` 1: a second header byte of 1) — 7.3.1.2.
    func opensAnnexBStream(_ nalUnit: ArraySlice<UInt8>) -> Bool {
        guard nalUnit.count >= 2 else { return false }
        let type = HEVCNALUnitType(rawValue: nalUnit[nalUnit.startIndex] >> 1)
        let opening: [HEVCNALUnitType] = [
            .videoParameterSet, .sequenceParameterSet, .pictureParameterSet, .accessUnitDelimiter,
        ]
        return opening.contains(type) && nalUnit[nalUnit.startIndex + 1] == 1
    }
}
