import VAToolbox

/// `vatoolbox probe`: the format descriptions of a stream and, with `--nal`, its access units.
enum ProbeCommand {
    static let usage = """
        usage: vatoolbox probe INPUT [--nal] [--json]

        Describes INPUT — a raw H.264/HEVC Annex B stream (or - for standard input) or a container
        (MP4, MKV, TS …): each format description (codec, profile and level, coded and displayed size,
        cropping, bit depth, chroma format, colour, sample aspect, reorder depth, frame rate when the
        stream gives it) and the number of access units. Nothing is decoded.

              --nal    list every access unit with its NAL units: type, name and size in bytes
              --json   the same as JSON (keys documented in Docs/CLI.md)
        """

    static func run(_ arguments: [String]) throws(CommandFailure) {
        let parsed = try ParsedArguments.parse(
            arguments,
            options: [OptionSpec(name: "nal", takesValue: false), OptionSpec(name: "json", takesValue: false)])
        if parsed.wantsHelp {
            print(usage)
            return
        }
        let path = try parsed.singleInput()
        let listNALUnits = parsed.flags.contains("nal")
        let json = parsed.flags.contains("json")
        let source = try SampleSource(path: path)

        var formats: [(firstAccessUnit: Int, format: VideoFormatDescription)] = []
        var accessUnits: [JSON] = []
        var count = 0
        var syncCount = 0
        while let sample = try source.next() {
            if formats.last?.format != sample.formatDescription {
                formats.append((count, sample.formatDescription))
                if !json { describe(sample.formatDescription, number: formats.count, firstAccessUnit: count) }
            }
            if sample.isSync { syncCount += 1 }
            if listNALUnits {
                let units = sample.nalUnits
                if json {
                    accessUnits.append(
                        .object([
                            ("index", .int(count)), ("sync", .bool(sample.isSync)), ("size", .int(sample.data.count)),
                            ("nal_units", .array(units.map(nalJSON))),
                        ]))
                } else {
                    print("  access unit \(count)\(sample.isSync ? " sync" : ""), \(sample.data.count) bytes")
                    for unit in units { print("    \(unit)") }
                }
            }
            count += 1
        }
        if json {
            var members: [(String, JSON)] = [
                ("input", .string(path)), ("container", .string(source.containerName)),
                ("codec", .string(source.codec == .h264 ? "h264" : "hevc")),
                ("access_units", .int(count)), ("sync_access_units", .int(syncCount)),
                ("formats", .array(formats.map { formatJSON($0.format, firstAccessUnit: $0.firstAccessUnit) })),
            ]
            if listNALUnits { members.append(("access_unit_list", .array(accessUnits))) }
            print(JSON.object(members).rendered())
        } else {
            print("access units: \(count) (sync: \(syncCount)), format descriptions: \(formats.count)")
            for problem in source.diagnostics.prefix(10) { print("warning: \(problem.reason)") }
        }
    }

    private static func describe(_ format: VideoFormatDescription, number: Int, firstAccessUnit: Int) {
        let stream = format.stream
        let ext = format.extensions
        let crop = format.cleanAperture
        print("format description \(number) (from access unit \(firstAccessUnit)):")
        print(
            "  codec: \(format.codecType == .h264 ? "H.264" : "HEVC") \(stream.profileName) profile, level \(stream.levelName)\(format.codecType == .hevc ? (stream.highTier ? ", high tier" : ", main tier") : "")"
        )
        print("  size: \(format.dimensions) (coded \(format.codedDimensions), crop left \(crop.left) top \(crop.top))")
        print(
            "  samples: \(stream.chromaFormatName), \(stream.bitDepthLuma)-bit luma, \(stream.bitDepthChroma)-bit chroma"
        )
        var colour = ["range \(ext.fullRangeVideo ? "full" : "video")"]
        if let primaries = ext.colorPrimaries { colour.append("primaries \(primaries)") }
        if let transfer = ext.transferFunction { colour.append("transfer \(transfer)") }
        if let matrix = ext.yCbCrMatrix { colour.append("matrix \(matrix)") }
        print("  colour: \(colour.joined(separator: ", "))")
        print(
            "  pixel aspect: \(ext.pixelAspectRatio.map { "\($0)" } ?? "unknown"), \(stream.mayBeInterlaced ? "may be interlaced" : "progressive")"
        )
        print(
            "  reorder: up to \(stream.maxNumReorderFrames) frames, decoded picture buffer \(stream.maxDecFrameBuffering)"
        )
        if let rate = frameRate(format) {
            print("  frame rate: \(rate.num)/\(rate.den) (from the stream's timing information)")
        }
        print("  parameter sets: " + format.parameterSetNALUnits.map { "\($0)" }.joined(separator: "; "))
    }

    /// The frame rate the stream's timing information gives, as a reduced fraction.
    static func frameRate(_ format: VideoFormatDescription) -> (num: Int, den: Int)? {
        guard let duration = format.stream.frameDuration, duration.value > 0, duration.timescale > 0 else { return nil }
        return reduced(Int(duration.timescale), Int(duration.value))
    }

    private static func nalJSON(_ unit: NALUnit) -> JSON {
        .object([
            ("type", .int(Int(unit.typeCode))),
            ("name", .string(unit.h264Type?.name ?? unit.hevcType?.name ?? "unknown")),
            ("size", .int(unit.bytes.count)),
        ])
    }

    static func formatJSON(_ format: VideoFormatDescription, firstAccessUnit: Int) -> JSON {
        let stream = format.stream
        let ext = format.extensions
        let crop = format.cleanAperture
        return .object([
            ("first_access_unit", .int(firstAccessUnit)),
            ("codec", .string(format.codecType == .h264 ? "h264" : "hevc")),
            ("profile", .string(stream.profileName)), ("profile_idc", .int(stream.profileIdc)),
            ("level", .string(stream.levelName)), ("level_idc", .int(stream.levelIdc)),
            ("tier", format.codecType == .hevc ? .string(stream.highTier ? "high" : "main") : .null),
            ("width", .int(Int(format.dimensions.width))), ("height", .int(Int(format.dimensions.height))),
            ("coded_width", .int(Int(format.codedDimensions.width))),
            ("coded_height", .int(Int(format.codedDimensions.height))),
            (
                "crop",
                .object([
                    ("left", .int(crop.left)), ("top", .int(crop.top)), ("width", .int(crop.width)),
                    ("height", .int(crop.height)),
                ])
            ),
            ("chroma_format", .string(stream.chromaFormatName)),
            ("bit_depth_luma", .int(stream.bitDepthLuma)), ("bit_depth_chroma", .int(stream.bitDepthChroma)),
            ("full_range", .bool(ext.fullRangeVideo)),
            ("color_primaries", .string(ext.colorPrimaries.map { "\($0)" })),
            ("transfer_function", .string(ext.transferFunction.map { "\($0)" })),
            ("ycbcr_matrix", .string(ext.yCbCrMatrix.map { "\($0)" })),
            ("pixel_aspect_ratio", .string(ext.pixelAspectRatio.map { "\($0)" })),
            ("may_be_interlaced", .bool(stream.mayBeInterlaced)),
            ("max_num_reorder_frames", .int(stream.maxNumReorderFrames)),
            ("max_dec_frame_buffering", .int(stream.maxDecFrameBuffering)),
            ("frame_rate", .string(frameRate(format).map { "\($0.num)/\($0.den)" })),
            ("parameter_sets", .int(format.parameterSetCount)),
        ])
    }
}
