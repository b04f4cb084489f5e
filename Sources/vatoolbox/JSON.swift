import VAToolbox

/// A JSON value with its keys kept in the order they were written, so output is stable.
///
/// The tool's machine output (`probe`, `devices`, `bench` with `--json`) follows one convention,
/// documented in Docs/CLI.md: one object per run that opens with ``header(schema:)``; keys in
/// snake_case; codecs as ffprobe's `codec_name` plus the FourCC (``codec(_:)``); fractions as
/// `"num/den"` strings; absent values as null, never left out.
enum JSON: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    /// An optional string, null when absent.
    static func string(_ value: String?) -> JSON { value.map { .string($0) } ?? .null }

    /// The version of every schema below; raised when a key changes meaning or goes away (new keys
    /// may appear without a new version).
    static let schemaVersion = 1

    /// The keys every report opens with: `schema` (the command: `"probe"`, `"devices"`,
    /// `"bench"`) and `schema_version`.
    static func header(schema: String) -> [(String, JSON)] {
        [("schema", .string(schema)), ("schema_version", .int(schemaVersion))]
    }

    /// A codec as two keys: `codec`, ffprobe's `codec_name` (`"h264"`, `"hevc"`, `"av1"`, `"vp9"`,
    /// `"vp8"`, `"mpeg2video"`), and `codec_fourcc`, the `CMVideoCodecType` (`"avc1"`, `"hvc1"`,
    /// `"av01"`, `"vp09"`, `"vp08"`, `"mp2v"`).
    static func codec(_ codec: VideoCodecType) -> [(String, JSON)] {
        [("codec", .string(codec.ffmpegName ?? codec.fourCC)), ("codec_fourcc", .string(codec.fourCC))]
    }

    /// The text, indented by two spaces per level.
    func rendered(indent: Int = 0) -> String {
        let pad = String(repeating: "  ", count: indent)
        let inner = String(repeating: "  ", count: indent + 1)
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .double(let value): return value.isFinite ? fixed(value, 6).trimmingTrailingZeros : "null"
        case .string(let value): return Self.quoted(value)
        case .array(let values):
            if values.isEmpty { return "[]" }
            return "[\n" + values.map { inner + $0.rendered(indent: indent + 1) }.joined(separator: ",\n") + "\n\(pad)]"
        case .object(let members):
            if members.isEmpty { return "{}" }
            return "{\n"
                + members.map { inner + Self.quoted($0.0) + ": " + $0.1.rendered(indent: indent + 1) }
                .joined(separator: ",\n") + "\n\(pad)}"
        }
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

extension String {
    /// `"1.500000"` → `"1.5"`, `"2.000000"` → `"2.0"`.
    var trimmingTrailingZeros: String {
        guard contains(".") else { return self }
        var text = self
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text += "0" }
        return text
    }
}
