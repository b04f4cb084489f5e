/// One coded picture of an MPEG-2 sample: its picture header, picture coding extension and slices.
public struct MPEG2Picture: Sendable, Hashable {
    /// `picture_header()`.
    public var header: MPEG2PictureHeader
    /// `picture_coding_extension()`; nil only in an MPEG-1 stream.
    public var codingExtension: MPEG2PictureCodingExtension?
    /// The number of slices that follow the picture's headers.
    public var sliceCount: Int

    /// Whether the picture is a single field (`picture_structure` 1 or 2).
    public var isFieldPicture: Bool { codingExtension?.isFieldPicture ?? false }
}

/// What one MPEG-2 sample holds: the headers found in it and its coded pictures (ISO/IEC
/// 13818-2 §6.2).
///
/// A sample is what a demuxer hands over as one packet: one coded frame, that is one frame
/// picture or two field pictures of the same frame, with the sequence header, extensions and
/// group of pictures header that precede it.
///
/// **Sync samples.** ``isSyncSample`` is true when the first picture of the sample is an I
/// picture (an I frame picture, or an I first field). That is FFmpeg's rule (its `key_frame`
/// flag is set for I pictures, with or without a sequence header in the packet), and the only
/// one that holds in a stream that repeats its sequence header less often than its I pictures.
/// A decoder can start at such a sample given the sequence header out of band (the format
/// description). In an open GOP (``groupOfPicturesHeader`` `closedGop` 0) the B pictures that
/// follow the I picture in decoding order refer to the previous GOP and cannot be decoded when
/// starting there.
public struct MPEG2PictureInfo: Sendable, Hashable, CustomStringConvertible {
    /// `sequence_header()`, when the sample has one.
    public var sequenceHeader: MPEG2SequenceHeader?
    /// `sequence_extension()`, when the sample has one (after the sequence header).
    public var sequenceExtension: MPEG2SequenceExtension?
    /// `sequence_display_extension()`, when the sample has one.
    public var sequenceDisplayExtension: MPEG2SequenceDisplayExtension?
    /// `group_of_pictures_header()`, when the sample has one.
    public var groupOfPicturesHeader: MPEG2GroupOfPicturesHeader?
    /// The coded pictures, in decoding order: one frame picture, or two field pictures.
    public var pictures: [MPEG2Picture] = []
    /// Whether the sample ends with `sequence_end_code`.
    public var hasSequenceEnd = false

    /// Parses the headers of one sample.
    ///
    /// Slices are counted, not parsed; user data, quant matrix and other extensions are skipped.
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when a header is malformed;
    ///   ``VTError/sampleBufferInvalidSampleData`` when the sample holds no picture, a slice comes
    ///   before any picture header, or it holds more than two pictures or two pictures that are
    ///   not the two fields of one frame.
    public init(_ sample: ArraySlice<UInt8>) throws(VTError) {
        try self.init(units: MPEG2StartCodeUnit.split(sample))
    }

    /// Parses the headers of one sample already split into start-code units.
    ///
    /// - Throws: As ``init(_:)``.
    public init(units: [MPEG2StartCodeUnit]) throws(VTError) {
        // Which header an extension belongs to (§6.2.2: extension_and_user_data(0/1/2)).
        var lastHeader: UInt8?
        for unit in units {
            switch unit.startCode {
            case MPEG2StartCodeUnit.sequenceHeaderCode:
                sequenceHeader = try MPEG2SequenceHeader(unit)
                lastHeader = unit.startCode
            case MPEG2StartCodeUnit.groupStartCode:
                groupOfPicturesHeader = try MPEG2GroupOfPicturesHeader(unit)
                lastHeader = unit.startCode
            case MPEG2StartCodeUnit.pictureStartCode:
                pictures.append(MPEG2Picture(header: try MPEG2PictureHeader(unit), codingExtension: nil, sliceCount: 0))
                lastHeader = unit.startCode
            case MPEG2StartCodeUnit.extensionStartCode:
                try addExtension(unit, after: lastHeader)
            case MPEG2StartCodeUnit.sequenceEndCode:
                hasSequenceEnd = true
            case let code where unit.isSlice:
                guard !pictures.isEmpty else {
                    throw VTError.sampleBufferInvalidSampleData.with(
                        "MPEG-2 sample: slice \(code) comes before any picture header")
                }
                pictures[pictures.count - 1].sliceCount += 1
                lastHeader = code
            default:
                continue
            }
        }
        try checkPictures()
    }

    private mutating func addExtension(_ unit: MPEG2StartCodeUnit, after lastHeader: UInt8?) throws(VTError) {
        switch (lastHeader, unit.extensionStartCodeIdentifier) {
        case (MPEG2StartCodeUnit.sequenceHeaderCode, MPEG2SequenceExtension.identifier):
            sequenceExtension = try MPEG2SequenceExtension(unit)
        case (MPEG2StartCodeUnit.sequenceHeaderCode, MPEG2SequenceDisplayExtension.identifier):
            sequenceDisplayExtension = try MPEG2SequenceDisplayExtension(unit)
        case (MPEG2StartCodeUnit.pictureStartCode, MPEG2PictureCodingExtension.identifier):
            pictures[pictures.count - 1].codingExtension = try MPEG2PictureCodingExtension(unit)
        default:
            break
        }
    }

    private func checkPictures() throws(VTError) {
        guard let first = pictures.first else {
            throw VTError.sampleBufferInvalidSampleData.with("MPEG-2 sample: no picture header")
        }
        guard pictures.count <= 2 else {
            throw VTError.sampleBufferInvalidSampleData.with(
                "MPEG-2 sample: \(pictures.count) pictures, more than the two fields of one frame")
        }
        if pictures.count == 2 {
            let second = pictures[1]
            guard let a = first.codingExtension?.pictureStructure, let b = second.codingExtension?.pictureStructure,
                a != .frame, b != .frame, a != b
            else {
                throw VTError.sampleBufferInvalidSampleData.with(
                    "MPEG-2 sample: two pictures that are not the two fields of one frame")
            }
        }
    }

    /// The picture coding type of the sample: that of its first picture.
    public var pictureCodingType: MPEG2PictureHeader.PictureCodingType {
        pictures.first?.header.pictureCodingType ?? .intra
    }

    /// Whether a decoder can start at this sample: its first picture is an I picture (see the
    /// type's discussion for the rule and why).
    public var isSyncSample: Bool { pictureCodingType == .intra }

    /// Whether the sample's pictures are field pictures.
    public var isFieldPicture: Bool { pictures.first?.isFieldPicture ?? false }

    /// For field pictures, the field coded first (`topField` or `bottomField`); nil for a frame picture.
    public var firstField: MPEG2PictureCodingExtension.PictureStructure? {
        guard isFieldPicture else { return nil }
        return pictures.first?.codingExtension?.pictureStructure
    }

    /// Whether the sample holds both fields of its frame (or a frame picture).
    public var isComplete: Bool { !isFieldPicture || pictures.count == 2 }

    /// Whether the top field is output first: `top_field_first` of a frame picture, or, for field
    /// pictures, whether the top field is coded first (§6.3.10).
    public var topFieldFirst: Bool {
        if let first = firstField { return first == .topField }
        return pictures.first?.codingExtension?.topFieldFirst ?? false
    }

    /// Whether the frame is interlaced: `progressive_frame` is 0 (FFmpeg's `interlaced_frame`).
    public var isInterlaced: Bool { !(pictures.first?.codingExtension?.progressiveFrame ?? true) }

    /// One line for `vatoolbox probe`, such as `MPEG-2 I frame picture (temporal reference 0),
    /// interlaced, top field first, sequence header 720x576`.
    public var description: String {
        var text = "MPEG-2 \(pictureCodingType.letter) "
        text += isFieldPicture ? "field pair \(pictures.count == 2 ? "" : "(first field only) ")" : "frame picture "
        text += "(temporal reference \(pictures.first?.header.temporalReference ?? 0))"
        text += isInterlaced ? ", interlaced, \(topFieldFirst ? "top" : "bottom") field first" : ", progressive"
        if let sequenceHeader {
            text +=
                ", sequence header \(sequenceHeader.width(with: sequenceExtension))x\(sequenceHeader.height(with: sequenceExtension))"
        }
        if isSyncSample { text += ", sync" }
        return text
    }

    /// Splits an MPEG-2 video elementary stream (a `.m2v` file, or MPEG-TS/PS payload) into samples.
    ///
    /// A sample starts at a sequence header, a group of pictures header, or a picture header,
    /// whichever comes first before a picture; the second field of a field pair stays in the
    /// sample of the first (so a sample is one coded frame); a `sequence_end_code` belongs to the
    /// sample it ends. Bytes before the first start code are skipped.
    ///
    /// - Returns: The samples, as slices of `stream`.
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when a picture coding extension
    ///   (read to pair fields) is malformed.
    public static func samples(in stream: ArraySlice<UInt8>) throws(VTError) -> [ArraySlice<UInt8>] {
        let units = MPEG2StartCodeUnit.split(stream)
        var starts: [Int] = []
        var pendingHeaders = false
        var openField: MPEG2PictureCodingExtension.PictureStructure?
        for (i, unit) in units.enumerated() {
            switch unit.startCode {
            case MPEG2StartCodeUnit.sequenceHeaderCode, MPEG2StartCodeUnit.groupStartCode:
                if !pendingHeaders {
                    starts.append(unit.prefixIndex)
                    pendingHeaders = true
                    openField = nil
                }
            case MPEG2StartCodeUnit.pictureStartCode:
                let structure = try Self.pictureStructure(following: i, in: units)
                if let field = openField, let structure, structure != .frame, structure != field {
                    openField = nil  // the second field of the pair: same sample
                } else {
                    if !pendingHeaders { starts.append(unit.prefixIndex) }
                    openField = structure == .frame ? nil : structure
                }
                pendingHeaders = false
            default:
                continue
            }
        }
        var samples: [ArraySlice<UInt8>] = []
        for (i, start) in starts.enumerated() {
            let end = i + 1 < starts.count ? starts[i + 1] : stream.endIndex
            samples.append(stream[start..<end])
        }
        return samples
    }

    /// The `picture_structure` of the picture whose header is `units[index]`, from the picture
    /// coding extension among the extension and user data units after it; nil when there is none.
    private static func pictureStructure(
        following index: Int, in units: [MPEG2StartCodeUnit]
    ) throws(VTError) -> MPEG2PictureCodingExtension.PictureStructure? {
        var i = index + 1
        while i < units.count,
            units[i].startCode == MPEG2StartCodeUnit.extensionStartCode
                || units[i].startCode == MPEG2StartCodeUnit.userDataStartCode
        {
            if units[i].extensionStartCodeIdentifier == MPEG2PictureCodingExtension.identifier {
                return try MPEG2PictureCodingExtension(units[i]).pictureStructure
            }
            i += 1
        }
        return nil
    }
}
