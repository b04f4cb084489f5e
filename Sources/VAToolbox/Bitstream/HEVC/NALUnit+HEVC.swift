// The HEVC fields of a NAL unit, in the codec's folder.
extension NALUnit {
    /// The HEVC type, or nil for an H.264 unit.
    public var hevcType: HEVCNALUnitType? { (header as? HEVCNALUnitHeader)?.type }

    /// HEVC `nuh_layer_id`; 0 for H.264 units.
    public var nuhLayerId: UInt8 { (header as? HEVCNALUnitHeader)?.nuhLayerId ?? 0 }

    /// HEVC `nuh_temporal_id_plus1 - 1`; 0 for H.264 units.
    public var temporalId: UInt8 { (header as? HEVCNALUnitHeader)?.temporalId ?? 0 }

    /// The RBSP of an HEVC NAL unit of the given type, for the parameter-set initialisers.
    ///
    /// - Parameters:
    ///   - type: The `nal_unit_type` the caller parses (VPS_NUT, SPS_NUT, PPS_NUT).
    ///   - what: The structure's name for the error message, for example `"an HEVC SPS"`.
    /// - Throws: ``VTError/parameter`` when the unit is an H.264 unit or of another type.
    func hevcRBSP(of type: HEVCNALUnitType, for what: String) throws(VTError) -> [UInt8] {
        guard let actual = hevcType else {
            throw VTError.parameter.with("\(what) must be an HEVC NAL unit, not a \(codec) one")
        }
        guard actual == type else {
            throw VTError.parameter.with("\(what) must be a NAL unit of type \(type), not \(actual)")
        }
        return rbsp
    }
}
