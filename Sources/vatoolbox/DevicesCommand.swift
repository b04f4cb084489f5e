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
        string) and the decode profiles VAToolbox can use (H.264, HEVC, AV1, VP9, VP8, MPEG-2) with
        their size limits and bit depths. When no node is usable,
        says why (no /dev/dri, permission denied, no VA driver).

          --device PATH   describe only this node (default: VATOOLBOX_RENDER_NODE, else all)
          --json          print JSON: [{"path", "kernelDriver", "pciID", "usable", "error",
                          "vendor", "vaVersion", "profiles": [{"name", "codec", "maxWidth",
                          "maxHeight", "bitDepths", "error"}]}]

        exit status: 0 at least one node decodes video, 1 none does (the listing says why), 2 bad usage
        """

    /// One node as listed.
    struct Entry {
        let node: RenderNode
        let device: VADevice?
        let error: VTError?
    }

    static func run(_ arguments: [String]) throws(CommandFailure) {
        let parsed = try ParsedArguments.parse(
            arguments, options: [OptionSpec(name: "device"), OptionSpec(name: "json", takesValue: false)])
        if parsed.wantsHelp {
            print(usage)
            return
        }
        if let extra = parsed.positionals.first { throw .usage("unexpected argument '\(extra)'") }
        let path = parsed.values["device"] ?? getenv("VATOOLBOX_RENDER_NODE").map { String(cString: $0) }
        let nodes = path.map { [RenderNode(path: $0)] } ?? RenderNode.all()
        let entries = nodes.map { node -> Entry in
            if let error = node.accessError { return Entry(node: node, device: nil, error: error) }
            do throws(VTError) {
                return Entry(node: node, device: try VADevice.open(path: node.path), error: nil)
            } catch {
                return Entry(node: node, device: nil, error: error)
            }
        }
        if parsed.flags.contains("json") {
            print(JSON.array(entries.map(describe)).rendered())
        } else if entries.isEmpty {
            print("no render node: \(RenderNode.absenceReason())")
        } else {
            for entry in entries { print(text(entry)) }
        }
        guard entries.contains(where: { $0.device?.capabilities.decodeProfiles.isEmpty == false }) else {
            throw CommandFailure(
                message: entries.isEmpty ? "no render node" : "no render node can decode video",
                status: ExitStatus.inputFailure)
        }
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
                lines.append(
                    "  decodes no profile VAToolbox can use (\(VideoCodecType.decodable.map(\.name).joined(separator: ", ")))"
                )
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
            ("kernelDriver", .string(entry.node.kernelDriver)),
            ("pciID", .string(pciID(entry.node))),
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
                                ("maxWidth", .int(profile.maximumWidth)),
                                ("maxHeight", .int(profile.maximumHeight)),
                                (
                                    "bitDepths",
                                    .array(
                                        (profile.decodes8Bit420 ? [JSON.int(8)] : [])
                                            + (profile.decodes10Bit420 ? [JSON.int(10)] : []))
                                ),
                                ("error", .string(profile.unusableReason)),
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
