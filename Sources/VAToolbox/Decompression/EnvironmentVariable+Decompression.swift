// The checks that need the session's vocabulary (``DecoderSpecification``): the variables
// themselves live in Configuration, below every layer that reads them.
extension EnvironmentVariable {
    /// Checks every variable VAToolbox reads.
    ///
    /// - Throws: ``VTError/parameter`` for the first variable whose value is not one it takes; the
    ///   reason names the variable, its value and the values it takes, in one line.
    public static func validateAll() throws(VTError) {
        try validateAll(lookup)
    }

    /// ``validateAll()`` against another environment (tests).
    static func validateAll(_ environment: (String) -> String?) throws(VTError) {
        _ = try hardwareAcceleration(environment)
        if let path = environment(renderNode.name), !path.isEmpty, !path.hasPrefix("/") {
            throw invalid(.renderNode, path)
        }
        for variable in [ffmpegLog, vaLog, sharedVADisplay] {
            _ = try switchValue(variable, environment(variable.name))
        }
    }

    /// The policy `VATOOLBOX_HWACCEL` asks for; nil when unset or empty.
    ///
    /// - Throws: ``VTError/parameter`` for a value it does not take.
    static func hardwareAcceleration(
        _ environment: (String) -> String?
    ) throws(VTError) -> DecoderSpecification.HardwareAcceleration? {
        guard let value = environment(hardwareAcceleration.name), !value.isEmpty else { return nil }
        switch value.lowercased() {
        case "auto", "preferred": return .preferred
        case "vaapi", "gpu", "required": return .required
        case "none", "cpu", "software", "disabled", "off", "0": return .disabled
        default: throw invalid(.hardwareAcceleration, value)
        }
    }
}
