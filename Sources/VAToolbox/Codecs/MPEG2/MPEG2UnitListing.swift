extension MPEG2CodecSupport: UnitListingCodecSupport {
    func makeUnitLister() -> any CodecUnitListing { MPEG2UnitLister() }
}

/// Lists an MPEG-2 sample's start-code units: the sequence header with its extensions, the group
/// of pictures header, each picture (type, structure, temporal reference, coding extension
/// flags, slices) and the sequence end, as lines and as `sequence_header`,
/// `group_of_pictures`, `pictures` and `sequence_end`.
struct MPEG2UnitLister: CodecUnitListing {
    func list(_ sample: SampleBuffer, into listing: inout SampleUnitListing) throws(VTError) {
        let info = try MPEG2PictureInfo(sample.data[...])
        if let sequence = info.sequenceHeader { Self.list(sequence, of: info, into: &listing) }
        if let gop = info.groupOfPicturesHeader {
            listing.lines.append(
                "group of pictures\(gop.closedGop ? ", closed" : ", open")\(gop.brokenLink ? ", broken link" : "")")
            listing.fields.append(
                SampleUnitListing.Field(
                    "group_of_pictures",
                    .record([("closed", .bool(gop.closedGop)), ("broken_link", .bool(gop.brokenLink))])
                ))
        }
        var pictures: [SampleUnitListing.Value] = []
        for (number, picture) in info.pictures.enumerated() {
            pictures.append(Self.list(picture, number: number, into: &listing))
        }
        listing.fields.append(SampleUnitListing.Field("pictures", .array(pictures)))
        if info.hasSequenceEnd {
            listing.lines.append("sequence end")
            listing.fields.append(SampleUnitListing.Field("sequence_end", .bool(true)))
        }
    }

    /// Adds the sequence header and its extensions (ISO/IEC 13818-2, 6.2.2).
    private static func list(
        _ sequence: MPEG2SequenceHeader, of info: MPEG2PictureInfo, into listing: inout SampleUnitListing
    ) {
        let ext = info.sequenceExtension
        let rate = sequence.frameRate(with: ext)
        let aspect = sequence.sampleAspectRatio(with: ext, display: info.sequenceDisplayExtension)
        var line =
            "sequence header \(sequence.width(with: ext))x\(sequence.height(with: ext)), "
            + "frame rate \(rate.numerator)/\(rate.denominator), sample aspect \(aspect.horizontal):\(aspect.vertical)"
        var members: [(String, SampleUnitListing.Value)] = [
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
        listing.fields.append(SampleUnitListing.Field("sequence_header", .record(members)))
    }

    /// Adds a picture's line (ISO/IEC 13818-2, 6.2.3: picture header and coding extension) and
    /// returns its value.
    private static func list(
        _ picture: MPEG2Picture, number: Int, into listing: inout SampleUnitListing
    ) -> SampleUnitListing.Value {
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
        return .record([
            ("picture_type", .string(picture.header.pictureCodingType.letter)), ("structure", .string(structure)),
            ("temporal_reference", .int(picture.header.temporalReference)),
            ("progressive_frame", ext.map { .bool($0.progressiveFrame) } ?? .null),
            ("top_field_first", ext.map { .bool($0.topFieldFirst) } ?? .null),
            ("repeat_first_field", ext.map { .bool($0.repeatFirstField) } ?? .null),
            ("frame_pred_frame_dct", ext.map { .bool($0.framePredFrameDct) } ?? .null),
            ("slices", .int(picture.sliceCount)),
        ])
    }
}
