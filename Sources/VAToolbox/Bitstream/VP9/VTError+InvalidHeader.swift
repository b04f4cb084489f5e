extension VTError {
    /// The same failure reported as a malformed header: ``BitReader`` reports running out of data
    /// as ``videoDecoderBadData``, the bitstream-layer contract says
    /// ``formatDescriptionInvalidParameter`` for a malformed header.
    func asInvalidHeader() -> VTError {
        self == VTError.formatDescriptionInvalidParameter
            ? self : VTError.formatDescriptionInvalidParameter.with(reason, cause: cause, hint: hint)
    }
}
