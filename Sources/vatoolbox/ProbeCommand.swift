import Synchronization
import VAToolbox

/// `vatoolbox probe`: the format descriptions of a stream and, with `--units`, its samples'
/// coded units (NAL units, VP9 frames, AV1 OBUs, MPEG-2 headers and pictures, the VP8 frame header).
enum ProbeCommand {
    static let usage = """
        usage: vatoolbox probe INPUT [--units] [--frames] [--json] [--frame-rate RATE]
                               [--hwaccel auto|vaapi|none] [--device PATH]

        Describes INPUT — a raw H.264/HEVC Annex B stream (or - for standard input), an IVF (VP8, VP9,
        AV1), AV1 OBU (.obu, low-overhead or Annex B) or MPEG-2 (.m2v) stream, or a container (MP4,
        MKV/WebM, TS …): each format description (codec, profile and level, coded and displayed size,
        cropping, bit depth, chroma format, colour, sample aspect, reorder depth, frame rate when the
        stream gives it) and the number of samples. Nothing is decoded, but with --frames.

              --units  list every sample (in decode order) with its coded units: H.264/HEVC NAL units
                       (type, name, size); VP9 frames after the superframe split (key/inter/intra-only,
                       shown/hidden/show-existing, size, profile, bit depth); the VP8 frame header;
                       AV1 OBUs with the sequence header and each frame header (type, shown/hidden);
                       MPEG-2 sequence header and extensions, GOP, and each picture's type, structure
                       and field flags
              --nal    the same as --units (its name from when only H.264 and HEVC were read)
              --frames decode, and list every picture (in presentation order) as ffprobe's
                       -show_frames shows it: pts, pict_type, key_frame, interlaced_frame,
                       top_field_first, the colour fields, and side data (mastering display,
                       content light level, HDR10+ dynamic metadata) with ffprobe's names
              --json   the same as JSON (schema "probe", version 1, in Docs/CLI.md), with the
                       container's time base, frame rates, duration and frame count
              --frame-rate RATE
                       the frame rate of a raw stream that states none (24, 30000/1001), like
                       ffprobe's -framerate; 25 by default
              --hwaccel MODE, --device PATH, --threads N, --gpu-timeout MS
                       the decoder, with --frames, as for decode
        """

    static func run(_ arguments: [String]) throws(CommandFailure) {
        let parsed = try ParsedArguments.parse(
            arguments,
            options: [
                OptionSpec(name: "units", takesValue: false), OptionSpec(name: "nal", takesValue: false),
                OptionSpec(name: "json", takesValue: false), OptionSpec(name: "frame-rate"),
                OptionSpec(name: "frames", takesValue: false),
            ] + decoderOptions)
        if parsed.wantsHelp {
            print(usage)
            return
        }
        let path = try parsed.singleInput()
        let listUnits = parsed.flags.contains("units") || parsed.flags.contains("nal")
        let json = parsed.flags.contains("json")
        let listFrames = parsed.flags.contains("frames")
        let specification = try parsed.decoderSpecification()
        let source = try openInput(path, frameRate: try parsed.frameRate())
        let containerAspect = source.streamTiming.containerAspectRatio

        var formats: [(firstAccessUnit: Int, format: VideoFormatDescription)] = []
        var accessUnits: [JSON] = []
        var lister = SampleUnitLister(codecType: source.codecType)
        var count = 0
        var syncCount = 0
        func take(_ sample: SampleBuffer) {
            if formats.last?.format != sample.formatDescription {
                formats.append((count, sample.formatDescription))
                if !json {
                    describe(
                        sample.formatDescription, number: formats.count, firstAccessUnit: count,
                        containerAspect: containerAspect)
                }
            }
            if sample.isSync { syncCount += 1 }
            if listUnits {
                let listing = UnitListing(
                    index: count, noun: source.codecType.sampleNoun, sample: sample,
                    listing: lister.listUnits(of: sample))
                if json {
                    accessUnits.append(listing.json)
                } else {
                    for line in listing.text { print(line) }
                }
            }
            count += 1
        }
        var frames: [[(String, JSON)]] = []
        if listFrames {
            let listing = FrameListing(source: source)
            let listed = Mutex<[[(String, JSON)]]>([])
            let report = try DecodeLoop.run(
                source: source, specification: specification, attributes: nil,
                onFrame: { frame throws(CommandFailure) in
                    let fields = listing.fields(of: frame, placeholders: !json)
                    listed.withLock { $0.append(fields) }
                },
                onSample: { take($0) }, perFrameHDRMetadata: true)
            frames = listed.withLock { $0 }
            // As ffprobe, a damaged picture is listed and the run still succeeds; what went wrong
            // goes to standard error.
            for line in report.problemLines { printError(line) }
        } else {
            while let sample = try source.next() { take(sample) }
        }
        let streams = try StreamListing.streams(of: source)
        // The stream read: the reader's track; a raw stream file's one stream.
        let selected = source.trackIndex ?? (source.path == nil ? nil : 0)
        if json {
            var members: [(String, JSON)] =
                JSON.header(schema: "probe") + [("input", .string(path)), ("container", .string(source.containerName))]
                + JSON.codec(source.codecType) + [("track", selected.map { .int($0) } ?? .null)]
                + timingJSON(source.mediaTrack(), frameCount: count) + [
                    ("access_units", .int(count)), ("sync_access_units", .int(syncCount)),
                    (
                        "formats",
                        .array(
                            formats.map {
                                formatJSON(
                                    $0.format, firstAccessUnit: $0.firstAccessUnit, containerAspect: containerAspect)
                            })
                    ),
                    (
                        "streams",
                        streams.map { .array($0.map { StreamListing.json($0, selectedIndex: selected) }) } ?? .null
                    ),
                ]
            if listUnits { members.append(("access_unit_list", .array(accessUnits))) }
            if listFrames { members.append(("frames", .array(frames.map { .object($0) }))) }
            print(JSON.object(members).rendered())
        } else {
            print(
                "\(source.codecType.sampleNoun)s: \(count) (sync: \(syncCount)), format descriptions: \(formats.count)"
            )
            if let track = source.trackPropertiesLine { print(track) }
            if let streams {
                print("streams: \(streams.count)")
                for stream in streams { print(StreamListing.line(stream, selectedIndex: selected)) }
            }
            for problem in source.diagnostics.prefix(10) { print("warning: \(problem.reason)") }
            for frame in frames { for line in FrameListing.text(frame) { print(line) } }
        }
    }

    /// The keys `probe --json` prints from the library's view of the track (ffprobe's stream
    /// fields): `time_base`, `r_frame_rate`, `avg_frame_rate`, `duration` (the stream's, else the
    /// file's), `nb_frames` (the count the container states) — null when unknown, as ffprobe's
    /// "N/A" or "0/0", and for standard input — and `frame_count`, the samples counted.
    static func timingJSON(_ track: MediaTrack?, frameCount: Int) -> [(String, JSON)] {
        let statedCount = track.flatMap { $0.isFrameCountExact ? $0.frameCount : nil }
        return [
            ("time_base", .string(track.map { "\($0.timeBase.value)/\($0.timeBase.timescale)" })),
            ("r_frame_rate", .string(track?.realFrameRate?.description)),
            ("avg_frame_rate", .string(track?.averageFrameRate?.description)),
            ("duration", track?.duration.map { .double($0.seconds) } ?? .null),
            ("nb_frames", statedCount.map { .int($0) } ?? .null), ("frame_count", .int(frameCount)),
        ]
    }

    /// The codec as ffprobe's `codec_name` says it: `h264`, `hevc`, `av1`, `vp9`, `vp8`, `mpeg2video`.
    static func codecName(_ codec: VideoCodecType) -> String { codec.ffmpegName ?? codec.fourCC }

    /// The sample aspect ratio as ffprobe reports it: the container's when it states one, else
    /// the format description's.
    static func aspectRatio(_ format: VideoFormatDescription, containerAspect: PixelAspectRatio?) -> PixelAspectRatio? {
        containerAspect ?? format.extensions.pixelAspectRatio
    }

    /// `"Main profile"`, `"Profile 2"` (VP9), `"profile 0"` (VP8, whose profile is a number).
    static func profileText(_ name: String) -> String {
        if name.hasPrefix("Profile") { return name }
        if !name.isEmpty && name.allSatisfy(\.isNumber) { return "profile \(name)" }
        return "\(name) profile"
    }

    /// Whether the codec numbers levels (VP8 and VP9 streams state none).

    private static func describe(
        _ format: VideoFormatDescription, number: Int, firstAccessUnit: Int, containerAspect: PixelAspectRatio?
    ) {
        let stream = format.stream
        let ext = format.extensions
        let crop = format.cleanAperture
        print("format description \(number) (from \(format.codecType.sampleNoun) \(firstAccessUnit)):")
        var codec = "\(format.codecType.name) " + profileText(stream.profileName)
        if format.codecType.statesLevel { codec += ", level \(stream.levelName)" }
        if format.codecType.statesTier { codec += stream.highTier ? ", high tier" : ", main tier" }
        print("  codec: \(codec)")
        print("  size: \(format.dimensions) (coded \(format.codedDimensions), crop left \(crop.left) top \(crop.top))")
        print(
            "  samples: \(stream.chromaFormatName), \(stream.bitDepthLuma)-bit luma, \(stream.bitDepthChroma)-bit chroma"
        )
        var colour = ["range \(ext.fullRangeVideo ? "full" : "video")"]
        if let primaries = ext.colorPrimaries { colour.append("primaries \(primaries)") }
        if let transfer = ext.transferFunction { colour.append("transfer \(transfer)") }
        if let matrix = ext.yCbCrMatrix { colour.append("matrix \(matrix)") }
        print("  colour: \(colour.joined(separator: ", "))")
        if let display = ext.masteringDisplayColorVolume { print("  mastering display: \(display)") }
        if let light = ext.contentLightLevel { print("  content light level: \(light)") }
        if let profile = ext.iccProfile { print("  ICC profile: \(profile.count) bytes (from the container)") }
        var aspect = ext.pixelAspectRatio.map { "\($0)" } ?? "unknown"
        if ext.pixelAspectRatio == nil, let containerAspect { aspect = "\(containerAspect) (from the container)" }
        print("  pixel aspect: \(aspect), \(stream.mayBeInterlaced ? "may be interlaced" : "progressive")")
        print(
            "  reorder: up to \(stream.maxNumReorderFrames) frames, decoded picture buffer \(stream.maxDecFrameBuffering)"
        )
        if let rate = frameRate(format) {
            print("  frame rate: \(rate.num)/\(rate.den) (from the stream's timing information)")
        }
        if format.nalUnitHeaderLength > 0 {
            print("  parameter sets: " + format.parameterSetNALUnits.map { "\($0)" }.joined(separator: "; "))
        } else if !ext.decoderConfigurationRecord.isEmpty {
            print("  configuration record: \(ext.decoderConfigurationRecord.count) bytes")
        }
    }

    /// The frame rate the stream's timing information gives, as a reduced fraction.
    static func frameRate(_ format: VideoFormatDescription) -> (num: Int, den: Int)? {
        guard let duration = format.stream.frameDuration, duration.value > 0, duration.timescale > 0 else { return nil }
        return reduced(Int(duration.timescale), Int(duration.value))
    }

    static func formatJSON(
        _ format: VideoFormatDescription, firstAccessUnit: Int, containerAspect: PixelAspectRatio? = nil
    ) -> JSON {
        let stream = format.stream
        // Null where the stream states no level (VP8, VP9, an MPEG-2 stream without a sequence
        // extension), as ffprobe prints FF_LEVEL_UNKNOWN (-99).
        let levels = format.codecType.statesLevel && stream.levelName != "unknown"
        let ext = format.extensions
        let crop = format.cleanAperture
        return .object(
            [("first_access_unit", .int(firstAccessUnit))] + JSON.codec(format.codecType) + [
                ("profile", .string(stream.profileName)), ("profile_idc", .int(stream.profileIdc)),
                ("level", levels ? .string(stream.levelName) : .null),
                ("level_idc", levels ? .int(stream.levelIdc) : .null),
                ("tier", format.codecType.statesTier ? .string(stream.highTier ? "high" : "main") : .null),
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
                ("pixel_aspect_ratio", .string(aspectRatio(format, containerAspect: containerAspect).map { "\($0)" })),
                ("may_be_interlaced", .bool(stream.mayBeInterlaced)),
                ("max_num_reorder_frames", .int(stream.maxNumReorderFrames)),
                ("max_dec_frame_buffering", .int(stream.maxDecFrameBuffering)),
                ("frame_rate", .string(frameRate(format).map { "\($0.num)/\($0.den)" })),
                ("parameter_sets", .int(format.parameterSetCount)),
                ("mastering_display", ext.masteringDisplayColorVolume.map(masteringJSON) ?? .null),
                (
                    "content_light_level",
                    ext.contentLightLevel.map {
                        .object([
                            ("max_content", .int(Int($0.maximumContentLightLevel))),
                            ("max_average", .int(Int($0.maximumFrameAverageLightLevel))),
                        ])
                    } ?? .null
                ),
                ("icc_profile_size", ext.iccProfile.map { .int($0.count) } ?? .null),
            ])
    }

    /// The mastering display colour volume with ffprobe's side-data field names, as numbers
    /// (chromaticities, luminance in cd/m²).
    static func masteringJSON(_ display: MasteringDisplayColorVolume) -> JSON {
        .object([
            ("red_x", .double(display.red.x)), ("red_y", .double(display.red.y)),
            ("green_x", .double(display.green.x)), ("green_y", .double(display.green.y)),
            ("blue_x", .double(display.blue.x)), ("blue_y", .double(display.blue.y)),
            ("white_point_x", .double(display.whitePoint.x)), ("white_point_y", .double(display.whitePoint.y)),
            ("min_luminance", .double(display.minimumLuminance)),
            ("max_luminance", .double(display.maximumLuminance)),
        ])
    }
}
