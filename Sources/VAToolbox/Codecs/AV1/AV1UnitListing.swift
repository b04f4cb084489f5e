extension AV1CodecSupport: UnitListingCodecSupport {
    func makeUnitLister() -> any CodecUnitListing { AV1UnitLister() }
}

/// Lists an AV1 temporal unit's OBUs, with the sequence header and each frame header, as lines
/// and as `obus`; keeps the sequence header in force, which the next units' frame headers need.
struct AV1UnitLister: CodecUnitListing {
    private var sequenceHeader: AV1SequenceHeader?

    mutating func list(_ sample: SampleBuffer, into listing: inout SampleUnitListing) throws(VTError) {
        let unit = try AV1TemporalUnit(sample.data[...], sequenceHeader: sequenceHeader)
        if let active = unit.activeSequenceHeader { sequenceHeader = active }
        var headers = unit.frameHeaders[...]
        var objects: [SampleUnitListing.Value] = []
        var active = sequenceHeader
        for obu in unit.obus {
            // Sizes of the whole OBU (header, size field, payload): they add up to the sample.
            var line = "\(obu.obuType) \(obu.bytes.count) bytes (payload \(obu.payload.count))"
            if obu.hasExtension { line += " T\(obu.temporalId)S\(obu.spatialId)" }
            var members: [(String, SampleUnitListing.Value)] = [
                ("type", .int(Int(obu.obuType.rawValue))), ("name", .string("\(obu.obuType)")),
                ("size", .int(obu.bytes.count)), ("payload_size", .int(obu.payload.count)),
            ]
            if obu.hasExtension {
                members += [("temporal_id", .int(obu.temporalId)), ("spatial_id", .int(obu.spatialId))]
            }
            if obu.obuType == .sequenceHeader, let sequence = try? AV1SequenceHeader(obu.payload) {
                active = sequence
                line += ": \(sequence)"
                members.append(("sequence_header", Self.object(sequence)))
            } else if obu.obuType.startsFrame, active != nil, let header = headers.popFirst() {
                line += ": \(header)"
                members.append(("frame_header", Self.object(header)))
            }
            listing.lines.append(line)
            objects.append(.record(members))
        }
        listing.note = "\(unit.shownFrameCount) shown"
        listing.fields = [SampleUnitListing.Field("obus", .array(objects))]
    }

    private static func object(_ header: AV1FrameHeaderSummary) -> SampleUnitListing.Value {
        .record([
            ("frame_type", .string(header.showExistingFrame ? "show-existing" : "\(header.frameType ?? .key)")),
            ("show_frame", .bool(header.showFrame)), ("show_existing_frame", .bool(header.showExistingFrame)),
            ("showable_frame", .bool(header.showableFrame)),
            ("frame_to_show", header.showExistingFrame ? .int(header.frameToShowMapIdx) : .null),
        ])
    }

    private static func object(_ sequence: AV1SequenceHeader) -> SampleUnitListing.Value {
        .record([
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
}
