import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// `vatoolbox devices`: the render nodes, their VA drivers and what they decode — or why there is
/// nothing to use.
enum DevicesCommand {
    static let usage = """
        usage: vatoolbox devices [--device PATH] [--json]

        Lists the DRM render nodes, their kernel drivers, the VA-API driver each loads (vendor
        string) and the H.264/HEVC decode profiles with their size limits. When no node is usable,
        says why (no /dev/dri, permission denied, no VA driver).

          --device PATH   describe only this node (default: VATOOLBOX_RENDER_NODE, else all)
          --json          print JSON: [{"path", "kernelDriver", "pciID", "usable", "error",
                          "vendor", "vaVersion", "profiles": [{"name", "codec", "maxWidth",
                          "maxHeight", "bitDepths", "error"}]}]

        exit status: 0 at least one node decodes video, 1 none does, 2 bad usage
        """

    /// One node as listed.
    struct Entry {
        let node: RenderNode
        let device: VADevice?
        let error: VTError?
    }

    static func run(_ arguments: [String]) -> Int32 {
        var json = false
        var path: String?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--json": json = true
            case "--device":
                guard let value = remaining.popFirst() else {
                    printError("vatoolbox devices: --device needs a path")
                    return 2
                }
                path = value
            case "--help", "-h":
                print(usage)
                return 0
            default:
                printError("vatoolbox devices: unexpected argument '\(argument)'\n\n\(usage)")
                return 2
            }
        }
        let nodes =
            (path ?? getenv("VATOOLBOX_RENDER_NODE").map { String(cString: $0) }).map { [RenderNode(path: $0)] }
            ?? RenderNode.all()
        let entries = nodes.map { node -> Entry in
            if let error = node.accessError { return Entry(node: node, device: nil, error: error) }
            do throws(VTError) {
                return Entry(node: node, device: try VADevice.open(path: node.path), error: nil)
            } catch {
                return Entry(node: node, device: nil, error: error)
            }
        }
        let usable = entries.contains { $0.device?.capabilities.decodeProfiles.isEmpty == false }
        if json {
            print(JSON.array(entries.map(describe)).rendered)
        } else if entries.isEmpty {
            print("no render node: \(RenderNode.absenceReason())")
        } else {
            for entry in entries { print(text(entry)) }
        }
        return usable ? 0 : 1
    }

    private static func text(_ entry: Entry) -> String {
        var lines = ["\(entry.node)"]
        if let error = entry.error {
            lines.append("  unusable: \(error.reason)" + (error.cause.map { " (\($0))" } ?? ""))
            if let hint = error.hint { lines.append("  hint: \(hint)") }
        }
        if let device = entry.device {
            lines.append("  VA-API \(device.apiVersion), driver: \(device.vendor)")
            let profiles = device.capabilities.decodeProfiles
            if profiles.isEmpty {
                lines.append("  decodes no H.264/HEVC profile VAToolbox can use")
            } else {
                lines.append("  decode profiles:")
                lines += profiles.map { "    \($0)" }
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func describe(_ entry: Entry) -> JSON {
        var fields: [(String, JSON)] = [
            ("path", .string(entry.node.path)),
            ("kernelDriver", entry.node.kernelDriver.map(JSON.string) ?? .null),
            ("pciID", pciID(entry.node).map(JSON.string) ?? .null),
            ("usable", .bool(entry.device?.capabilities.decodeProfiles.isEmpty == false)),
            ("error", entry.error.map { .string($0.reason) } ?? .null),
        ]
        if let device = entry.device {
            fields.append(("vendor", .string(device.vendor)))
            fields.append(("vaVersion", .string(device.apiVersion)))
            fields.append(
                (
                    "profiles",
                    .array(
                        device.capabilities.decodeProfiles.map { profile in
                            .object([
                                ("name", .string(profile.name)), ("codec", .string("\(profile.codec)")),
                                ("maxWidth", .number(Double(profile.maximumWidth))),
                                ("maxHeight", .number(Double(profile.maximumHeight))),
                                (
                                    "bitDepths",
                                    .array(
                                        (profile.decodes8Bit420 ? [JSON.number(8)] : [])
                                            + (profile.decodes10Bit420 ? [JSON.number(10)] : []))
                                ),
                                ("error", profile.unusableReason.map(JSON.string) ?? .null),
                            ])
                        })
                ))
        }
        return .object(fields)
    }

    private static func pciID(_ node: RenderNode) -> String? {
        guard let vendor = node.vendorID, let device = node.deviceID else { return nil }
        return hex(vendor) + ":" + hex(device)
    }

    private static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// A JSON value, written with stable key order.
enum JSON {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    /// The value as compact JSON text.
    var rendered: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value):
            return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .string(let value): return Self.quoted(value)
        case .array(let values): return "[" + values.map(\.rendered).joined(separator: ",") + "]"
        case .object(let fields):
            return "{" + fields.map { Self.quoted($0.0) + ":" + $0.1.rendered }.joined(separator: ",") + "}"
        }
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 {
                    let digits = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
