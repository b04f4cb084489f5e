extension NALUnit {
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
