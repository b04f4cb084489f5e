#if canImport(Glibc)
    import Glibc
#endif

/// An environment variable VAToolbox reads, with the values it takes.
///
/// VideoToolbox has no environment variables; these let a user change what an application does
/// without rebuilding it. Every value is checked the same way: an empty variable counts as
/// unset, names are case-insensitive, and anything else is refused with
/// ``VTError/parameter`` naming the variable and its values, never ignored.
/// ``DecompressionSession/init(formatDescription:decoderSpecification:imageBufferAttributes:outputHandler:)``
/// checks them all; an application or tool can call ``validateAll()`` at start-up.
public enum EnvironmentVariable: String, CaseIterable, Sendable {
    /// `VATOOLBOX_HWACCEL`: changes ``DecoderSpecification/HardwareAcceleration/preferred``, the
    /// default, to another policy. `auto` keeps it (alias `preferred`); `vaapi` makes it
    /// ``DecoderSpecification/HardwareAcceleration/required`` (aliases `gpu`, `required`); `none`
    /// makes it ``DecoderSpecification/HardwareAcceleration/disabled`` (aliases `cpu`,
    /// `software`, `disabled`, `off`, `0`). An explicit `.required` or `.disabled` stands.
    case hardwareAcceleration = "VATOOLBOX_HWACCEL"
    /// `VATOOLBOX_RENDER_NODE`: the DRM render node to use when the decoder specification names
    /// none; an absolute path, for example `/dev/dri/renderD129`.
    case renderNode = "VATOOLBOX_RENDER_NODE"
    /// `VATOOLBOX_FFMPEG_LOG`: the `vatoolbox` tool's switch that prints libav's log on standard
    /// error (the tool silences it by default); the library only validates it and never changes
    /// libav's log level (see ``LibavLog``). A switch: `1`, `true`, `yes`, `on` or `0`, `false`,
    /// `no`, `off`.
    case ffmpegLog = "VATOOLBOX_FFMPEG_LOG"
    /// `VATOOLBOX_VA_LOG`: `1` lets libva print its informational messages (dropped by default).
    /// A switch, as ``ffmpegLog``.
    case vaLog = "VATOOLBOX_VA_LOG"
    /// `VATOOLBOX_SHARED_VA_DISPLAY`: `1` makes every GPU session on a render node decode on the
    /// one VA display opened for the node, instead of a display of its own (the default; see
    /// ``VADevice``). For measuring the choice: sessions then share the driver's per-display
    /// lock (Mesa's, the test driver's) and its fault records — a failed picture in one session
    /// counts toward another's (Docs/Hardware.md, "Sessions and displays"). A switch, as
    /// ``ffmpegLog``.
    case sharedVADisplay = "VATOOLBOX_SHARED_VA_DISPLAY"

    /// The variable's name, for example `"VATOOLBOX_HWACCEL"`.
    public var name: String { rawValue }

    /// The values the variable takes, as the error message lists them.
    public var allowedValues: String {
        switch self {
        case .hardwareAcceleration:
            "auto, vaapi or none (aliases: preferred = auto; gpu, required = vaapi; "
                + "cpu, software, disabled, off, 0 = none)"
        case .renderNode: "an absolute path to a DRM render node, for example /dev/dri/renderD128"
        case .ffmpegLog, .vaLog, .sharedVADisplay: "1, true, yes, on or 0, false, no, off"
        }
    }

    /// The variable's value in this process's environment; nil when unset or empty.
    public var value: String? { Self.lookup(name) }

    /// Whether a switch variable (``ffmpegLog``, ``vaLog``, ``sharedVADisplay``) is on. Unset, empty or a value it does
    /// not take (which ``validateAll()`` refuses) count as off.
    public var isOn: Bool { (try? Self.switchValue(self, value)) == true }

    /// A switch variable's state; nil when unset or empty.
    static func switchValue(_ variable: EnvironmentVariable, _ value: String?) throws(VTError) -> Bool? {
        guard let value, !value.isEmpty else { return nil }
        switch value.lowercased() {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw invalid(variable, value)
        }
    }

    /// The error for a value `variable` does not take.
    static func invalid(_ variable: EnvironmentVariable, _ value: String) -> VTError {
        VTError.parameter.with(
            "\(variable.name)=\(value) is not a value it takes: \(variable.allowedValues)",
            hint: "set \(variable.name) to one of those values, or unset it")
    }

    /// The process environment's value of `name`; nil when unset or empty.
    static func lookup(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}
