import VAToolbox

/// What `vatoolbox probe --units` says about one sample: its coded units as the codec frames
/// them — NAL units (H.264, HEVC), frames after the superframe split (VP9), the frame header
/// (VP8), OBUs with their frame headers (AV1), headers and pictures (MPEG-2) — as text lines and
/// as JSON members. Parsed with the library's public bitstream parsers; nothing is decoded.
struct UnitListing {
    /// The sample's number, in decode order.
    let index: Int
    /// The codec's word for a sample: "access unit", "temporal unit" or "sample".
    let noun: String
    /// Whether the sample is a sync sample.
    let sync: Bool
    /// The sample's size in bytes.
    let size: Int
    /// An addition to the heading line, such as ", superframe of 2 frames".
    var headingNote = ""
    /// One line per unit, without indentation.
    var lines: [String] = []
    /// The codec's members of the sample's JSON object (`nal_units`, `frames`, `obus`, …).
    var members: [(String, JSON)] = []
    /// Why the sample could not be parsed, if it could not.
    var problem: String?

    /// The heading line and the unit lines, indented.
    var text: [String] {
        ["  \(noun) \(index)\(sync ? " sync" : ""), \(size) bytes\(headingNote)"] + lines.map { "    \($0)" }
            + (problem.map { ["    malformed: \($0)"] } ?? [])
    }

    /// The sample as a JSON object.
    var json: JSON {
        var all: [(String, JSON)] = [("index", .int(index)), ("sync", .bool(sync)), ("size", .int(size))]
        all += members
        if let problem { all.append(("error", .string(problem))) }
        return .object(all)
    }
}

/// Lists the units of each sample in turn, keeping what the next sample's parse needs (VP9
/// reference frame sizes, the AV1 sequence header in force).
struct UnitLister {
    let codec: VideoCodecType
    private var vp9Sizes = VP9ReferenceFrameSizes()
    private var vp9BitDepth: Int?
    private var av1SequenceHeader: AV1SequenceHeader?

    init(codec: VideoCodecType) { self.codec = codec }

    /// The listing of `sample`, the `index`th in decode order.
    mutating func list(_ sample: SampleBuffer, index: Int) -> UnitListing {
        var listing = UnitListing(
            index: index, noun: codec.sampleNoun, sync: sample.isSync, size: sample.data.count)
        do throws(VTError) {
            switch codec {
            case .h264, .hevc: Self.listNALUnits(sample, into: &listing)
            case .vp9: try listVP9(sample, into: &listing)
            case .vp8: try Self.listVP8(sample, into: &listing)
            case .av1: try listAV1(sample, into: &listing)
            case .mpeg2Video: try Self.listMPEG2(sample, into: &listing)
            default: listing.problem = "\(codec.name) has no unit parser"
            }
        } catch {
            listing.problem = error.reason.isEmpty ? error.summary : error.reason
        }
        return listing
    }

    private static func listNALUnits(_ sample: SampleBuffer, into listing: inout UnitListing) {
        let units = sample.nalUnits
        listing.lines = units.map { "\($0)" }
        listing.members = [
            (
                "nal_units",
                .array(
                    units.map { unit in
                        .object([
                            ("type", .int(Int(unit.typeCode))),
                            ("name", .string(unit.h264Type?.name ?? unit.hevcType?.name ?? "unknown")),
                            ("size", .int(unit.bytes.count)),
                        ])
                    })
            )
        ]
    }

    private mutating func listVP9(_ sample: SampleBuffer, into listing: inout UnitListing) throws(VTError) {
        let frames = try VP9Superframe.frames(in: sample.data[...])
        if frames.count > 1 { listing.headingNote = ", superframe of \(frames.count) frames" }
        var objects: [JSON] = []
        for (number, frame) in frames.enumerated() {
            let header = try VP9UncompressedHeader(frame, referenceFrameSizes: vp9Sizes)
            vp9Sizes.update(after: header)
            if let depth = header.bitDepth { vp9BitDepth = depth }
            listing.lines.append("frame \(number): \(header), \(frame.count) bytes")
            let kind: String
            if header.showExistingFrame {
                kind = "show-existing"
            } else if header.isKeyFrame {
                kind = "key"
            } else {
                kind = header.intraOnly ? "intra-only" : "inter"
            }
            let size = header.showExistingFrame ? nil : header.frameSize
            objects.append(
                .object([
                    ("size", .int(frame.count)), ("profile", .int(header.profile)), ("frame_type", .string(kind)),
                    ("show_frame", .bool(header.showFrame)), ("show_existing_frame", .bool(header.showExistingFrame)),
                    ("frame_to_show", header.showExistingFrame ? .int(header.frameToShowMapIdx ?? 0) : .null),
                    ("width", size.map { .int($0.width) } ?? .null), ("height", size.map { .int($0.height) } ?? .null),
                    ("bit_depth", vp9BitDepth.map { .int($0) } ?? .null),
                    ("refresh_frame_flags", .int(Int(header.refreshFrameFlags))),
                ]))
        }
        listing.members = [("frames", .array(objects))]
    }

    private static func listVP8(_ sample: SampleBuffer, into listing: inout UnitListing) throws(VTError) {
        let header = try VP8FrameHeader(sample.data[...])
        listing.lines = ["\(header)"]
        listing.members = [
            (
                "frames",
                .array([
                    .object([
                        ("size", .int(sample.data.count)), ("frame_type", .string(header.isKeyFrame ? "key" : "inter")),
                        ("show_frame", .bool(header.showFrame)), ("version", .int(header.version)),
                        ("width", header.width.map { .int($0) } ?? .null),
                        ("height", header.height.map { .int($0) } ?? .null),
                        ("first_partition_size", .int(header.firstPartitionSize)),
                        ("dct_partitions", .int(header.numberOfDctPartitions)),
                    ])
                ])
            )
        ]
    }

    private mutating func listAV1(_ sample: SampleBuffer, into listing: inout UnitListing) throws(VTError) {
        let unit = try AV1TemporalUnit(sample.data[...], sequenceHeader: av1SequenceHeader)
        if let active = unit.activeSequenceHeader { av1SequenceHeader = active }
        var headers = unit.frameHeaders[...]
        var objects: [JSON] = []
        var active = av1SequenceHeader
        for obu in unit.obus {
            // Sizes of the whole OBU (header, size field, payload): they add up to the sample.
            var line = "\(obu.obuType) \(obu.bytes.count) bytes (payload \(obu.payload.count))"
            if obu.hasExtension { line += " T\(obu.temporalId)S\(obu.spatialId)" }
            var members: [(String, JSON)] = [
                ("type", .int(Int(obu.obuType.rawValue))), ("name", .string("\(obu.obuType)")),
                ("size", .int(obu.bytes.count)), ("payload_size", .int(obu.payload.count)),
            ]
            if obu.hasExtension {
                members += [("temporal_id", .int(obu.temporalId)), ("spatial_id", .int(obu.spatialId))]
            }
            if obu.obuType == .sequenceHeader, let sequence = try? AV1SequenceHeader(obu.payload) {
                active = sequence
                line += ": \(sequence)"
                members.append(("sequence_header", Self.json(sequence)))
            } else if obu.obuType.startsFrame, active != nil, let header = headers.popFirst() {
                line += ": \(header)"
                members.append(
                    (
                        "frame_header",
                        .object([
                            (
                                "frame_type",
                                .string(header.showExistingFrame ? "show-existing" : "\(header.frameType ?? .key)")
                            ),
                            ("show_frame", .bool(header.showFrame)),
                            ("show_existing_frame", .bool(header.showExistingFrame)),
                            ("showable_frame", .bool(header.showableFrame)),
                            ("frame_to_show", header.showExistingFrame ? .int(header.frameToShowMapIdx) : .null),
                        ])
                    ))
            }
            listing.lines.append(line)
            objects.append(.object(members))
        }
        listing.headingNote = ", \(unit.shownFrameCount) shown"
        listing.members = [("obus", .array(objects))]
    }

    private static func json(_ sequence: AV1SequenceHeader) -> JSON {
        .object([
            ("profile", .string(sequence.profileName)), ("seq_profile", .int(sequence.seqProfile)),
            ("level", .string(sequence.levelName)), ("seq_level_idx", .int(sequence.seqLevelIdx)),
            ("tier", .string(sequence.seqTier == 1 ? "high" : "main")),
            ("max_width", .int(sequence.maxFrameWidth)), ("max_height", .int(sequence.maxFrameHeight)),
            ("bit_depth", .int(sequence.colorConfig.bitDepth)),
            ("chroma_format", .string(sequence.colorConfig.chromaFormatName)),
            ("still_picture", .bool(sequence.stillPicture)),
            ("film_grain_params_present", .bool(sequence.filmGrainParamsPresent)),
        ])
    }

    private static func listMPEG2(_ sample: SampleBuffer, into listing: inout UnitListing) throws(VTError) {
        let info = try MPEG2PictureInfo(sample.data[...])
        if let sequence = info.sequenceHeader {
            let ext = info.sequenceExtension
            let rate = sequence.frameRate(with: ext)
            let aspect = sequence.sampleAspectRatio(with: ext, display: info.sequenceDisplayExtension)
            var line =
                "sequence header \(sequence.width(with: ext))x\(sequence.height(with: ext)), "
                + "frame rate \(rate.numerator)/\(rate.denominator), sample aspect \(aspect.horizontal):\(aspect.vertical)"
            var members: [(String, JSON)] = [
                ("width", .int(sequence.width(with: ext))), ("height", .int(sequence.height(with: ext))),
                ("frame_rate", .string("\(rate.numerator)/\(rate.denominator)")),
                ("aspect_ratio_information", .int(sequence.aspectRatioInformation)),
                ("sample_aspect_ratio", .string("\(aspect.horizontal):\(aspect.vertical)")),
            ]
            if let ext {
                let chroma = ["reserved", "4:2:0", "4:2:2", "4:4:4"][min(max(ext.chromaFormat, 0), 3)]
                line +=
                    "; sequence extension \(ext.profileName ?? "reserved")@\(ext.levelName ?? "reserved"), "
                    + "\(ext.progressiveSequence ? "progressive" : "interlaced") sequence, \(chroma)"
                    + (ext.lowDelay ? ", low delay" : "")
                members += [
                    ("profile", .string(ext.profileName)), ("level", .string(ext.levelName)),
                    ("level_code", .int(ext.levelCode)), ("progressive_sequence", .bool(ext.progressiveSequence)),
                    ("chroma_format", .string(chroma)), ("low_delay", .bool(ext.lowDelay)),
                ]
            }
            if let display = info.sequenceDisplayExtension {
                line +=
                    "; display extension \(display.displayHorizontalSize)x\(display.displayVerticalSize)"
                    + (display.colourDescription
                        ? ", colour \(display.colourPrimaries)/\(display.transferCharacteristics)/\(display.matrixCoefficients)"
                        : "")
            }
            listing.lines.append(line)
            listing.members.append(("sequence_header", .object(members)))
        }
        if let gop = info.groupOfPicturesHeader {
            listing.lines.append(
                "group of pictures\(gop.closedGop ? ", closed" : ", open")\(gop.brokenLink ? ", broken link" : "")")
            listing.members.append(
                (
                    "group_of_pictures",
                    .object([("closed", .bool(gop.closedGop)), ("broken_link", .bool(gop.brokenLink))])
                ))
        }
        var pictures: [JSON] = []
        for (number, picture) in info.pictures.enumerated() {
            let ext = picture.codingExtension
            let structure: String
            switch ext?.pictureStructure ?? .frame {
            case .frame: structure = "frame"
            case .topField: structure = "top field"
            case .bottomField: structure = "bottom field"
            }
            var flags: [String] = []
            if let ext {
                flags.append(ext.progressiveFrame ? "progressive frame" : "interlaced")
                if ext.topFieldFirst { flags.append("top field first") }
                if ext.repeatFirstField { flags.append("repeat first field") }
                if !ext.framePredFrameDct { flags.append("field prediction/DCT") }
            }
            listing.lines.append(
                "picture \(number): \(picture.header.pictureCodingType.letter) \(structure), temporal reference "
                    + "\(picture.header.temporalReference)\(flags.isEmpty ? "" : ", " + flags.joined(separator: ", ")), "
                    + "\(picture.sliceCount) slices")
            pictures.append(
                .object([
                    ("picture_type", .string(picture.header.pictureCodingType.letter)),
                    ("structure", .string(structure)),
                    ("temporal_reference", .int(picture.header.temporalReference)),
                    ("progressive_frame", ext.map { .bool($0.progressiveFrame) } ?? .null),
                    ("top_field_first", ext.map { .bool($0.topFieldFirst) } ?? .null),
                    ("repeat_first_field", ext.map { .bool($0.repeatFirstField) } ?? .null),
                    ("frame_pred_frame_dct", ext.map { .bool($0.framePredFrameDct) } ?? .null),
                    ("slices", .int(picture.sliceCount)),
                ]))
        }
        listing.members.append(("pictures", .array(pictures)))
        if info.hasSequenceEnd {
            listing.lines.append("sequence end")
            listing.members.append(("sequence_end", .bool(true)))
        }
    }
}
