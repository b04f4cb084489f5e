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
        their size limits and bit depths, and its video processing: the formats VAToolbox converts
        to on the GPU (or why it does not), whether it tone maps HDR10 to SDR there, what the
        driver writes, its filters, deinterlacers and colour standards. When no node is usable, says why (no /dev/dri, permission denied, no VA driver).

          --device PATH   describe only this node (default: VATOOLBOX_RENDER_NODE, else all)
          --json          print one JSON object (schema "devices", version 1, in Docs/CLI.md):
                          {"schema", "schema_version", "usable", "reason", "nodes": [{"path",
                          "kernel_driver", "pci_id", "usable", "error", "hint", "vendor",
                          "va_version", "profiles": [{"name", "codec", "codec_fourcc",
                          "max_width", "max_height", "bit_depths", "error"}], "video_processing":
                          {"converts_to", "unavailable_reason", "output_fourccs", "filters",
                          "input_color_standards", "output_color_standards", "min_size",
                          "max_size", "tone_maps_hdr10_to_sdr", "deinterlacing",
                          "motion_adaptive_references": {"before", "after"},
                          "deinterlaces_with_bwdif"}}]}

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
            print(json(entries).rendered())
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
            lines += processingLines(device.videoProcessingCapabilities())
        }
        return lines.joined(separator: "\n")
    }

    /// "  video processing: converts to 'BGRA', '420v' on the GPU; the driver writes NV12, … ;
    /// filters …; colour standards …", or why it converts nothing there.
    private static func processingLines(_ processing: VideoProcessingCapabilities) -> [String] {
        var lines: [String] = []
        if let reason = processing.unavailableReason {
            lines.append("  video processing: conversions on the CPU — \(reason)")
        } else {
            let formats = processing.outputPixelFormats.map(\.description).joined(separator: ", ")
            let toneMapping = processing.toneMapsHDR10ToSDR ? ", tone maps HDR10 to SDR" : ""
            lines.append("  video processing: converts to \(formats)\(toneMapping) on the GPU")
        }
        guard !processing.outputFourCCs.isEmpty else { return lines }
        let sizes =
            processing.maximumSize.map { maximum in
                "; sizes \(processing.minimumSize.map(String.init) ?? "?")…\(maximum)"
            } ?? ""
        lines.append("    writes \(processing.outputFourCCs.joined(separator: ", "))\(sizes)")
        lines.append(
            "    filters: \(processing.filters.isEmpty ? "none" : processing.filters.joined(separator: ", "))")
        if !processing.deinterlacingAlgorithms.isEmpty {
            var line = "    deinterlacing: " + processing.deinterlacingAlgorithms.joined(separator: ", ")
            if let references = processing.motionAdaptiveReferences {
                line +=
                    " (motion adaptive: \(references.before) before, \(references.after) after; bwdif on the "
                    + (processing.deinterlacesWithBwdif ? "GPU)" : "CPU)")
            }
            lines.append(line)
        }
        lines.append(
            "    colour standards in: \(processing.inputColorStandards.joined(separator: ", ")); out: "
                + processing.outputColorStandards.joined(separator: ", "))
        return lines
    }

    /// The report: whether some node decodes video and, when none does, why — then every node.
    static func json(_ entries: [Entry]) -> JSON {
        let usable = entries.contains { $0.device?.capabilities.decodeProfiles.isEmpty == false }
        let reason: String?
        if usable {
            reason = nil
        } else if entries.isEmpty {
            reason = RenderNode.absenceReason()
        } else {
            reason =
                "no render node can decode video: "
                + entries.map { "\($0.node.path): \($0.error?.reason ?? "decodes no profile VAToolbox can use")" }
                .joined(separator: "; ")
        }
        return .object(
            JSON.header(schema: "devices") + [
                ("usable", .bool(usable)), ("reason", .string(reason)),
                ("nodes", .array(entries.map(describe))),
            ])
    }

    private static func describe(_ entry: Entry) -> JSON {
        var fields: [(String, JSON)] = [
            ("path", .string(entry.node.path)),
            ("kernel_driver", .string(entry.node.kernelDriver)),
            ("pci_id", .string(pciID(entry.node))),
            ("usable", .bool(entry.device?.capabilities.decodeProfiles.isEmpty == false)),
            ("error", .string(entry.error?.reason)),
            ("hint", .string(entry.error?.hint)),
        ]
        if let device = entry.device {
            fields.append(("vendor", .string(device.vendor)))
            fields.append(("va_version", .string(device.apiVersion)))
            let profiles = device.capabilities.decodeProfiles.map { profile in
                JSON.object(
                    [("name", .string(profile.name))] + JSON.codec(profile.codec) + [
                        ("min_width", .int(profile.minimumWidth)),
                        ("min_height", .int(profile.minimumHeight)),
                        ("max_width", .int(profile.maximumWidth)),
                        ("max_height", .int(profile.maximumHeight)),
                        (
                            "bit_depths",
                            .array(
                                (profile.decodes8Bit420 ? [JSON.int(8)] : [])
                                    + (profile.decodes10Bit420 ? [JSON.int(10)] : []))
                        ),
                        ("error", .string(profile.unusableReason)),
                    ])
            }
            fields.append(("profiles", .array(profiles)))
            let processing = device.videoProcessingCapabilities()
            let strings = { (values: [String]) in JSON.array(values.map { JSON.string($0) }) }
            fields.append(
                (
                    "video_processing",
                    .object([
                        ("converts_to", strings(processing.outputPixelFormats.map(\.fourCC))),
                        ("unavailable_reason", .string(processing.unavailableReason)),
                        ("output_fourccs", strings(processing.outputFourCCs)),
                        ("filters", strings(processing.filters)),
                        ("input_color_standards", strings(processing.inputColorStandards)),
                        ("output_color_standards", strings(processing.outputColorStandards)),
                        ("min_size", processing.minimumSize.map { JSON.int($0) } ?? .null),
                        ("max_size", processing.maximumSize.map { JSON.int($0) } ?? .null),
                        ("tone_maps_hdr10_to_sdr", .bool(processing.toneMapsHDR10ToSDR)),
                        ("deinterlacing", strings(processing.deinterlacingAlgorithms)),
                        (
                            "motion_adaptive_references",
                            processing.motionAdaptiveReferences.map { references in
                                .object([("before", .int(references.before)), ("after", .int(references.after))])
                            } ?? .null
                        ),
                        ("deinterlaces_with_bwdif", .bool(processing.deinterlacesWithBwdif)),
                    ])
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
