extension VideoFormatDescription {
    /// A description of an MPEG-2 video stream from its sequence header — what
    /// `CMVideoFormatDescriptionCreate` with `kCMVideoCodecType_MPEG2Video` describes, read from
    /// the stream itself.
    ///
    /// - Parameter mpeg2SequenceHeader: Bytes that start with a `sequence_header()` and its
    ///   `sequence_extension()` (ISO/IEC 13818-2 6.2.2), with start codes — the start of an
    ///   elementary stream, or a sample that repeats them; a sequence display extension is read
    ///   too when present. The description keeps the units up to the first picture as its
    ///   configuration.
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when there is no sequence header,
    ///   no sequence extension (MPEG-1 video, which VAToolbox does not decode), or a header does
    ///   not parse.
    public init(mpeg2SequenceHeader: [UInt8]) throws(VTError) {
        let units = MPEG2StartCodeUnit.split(mpeg2SequenceHeader[...])
        guard let first = units.first(where: { $0.startCode == MPEG2StartCodeUnit.sequenceHeaderCode }) else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "the bytes hold no MPEG-2 sequence header (00 00 01 B3)")
        }
        let header = try MPEG2SequenceHeader(first)
        // The first picture or slice after the sequence header (one before it is not part of it).
        let configurationEnd =
            units.first {
                $0.prefixIndex > first.prefixIndex
                    && ($0.startCode == MPEG2StartCodeUnit.pictureStartCode || $0.isSlice)
            }?.prefixIndex ?? mpeg2SequenceHeader.endIndex
        let following = units.drop { $0.prefixIndex <= first.prefixIndex }
            .prefix { $0.startCode == MPEG2StartCodeUnit.extensionStartCode || $0.startCode == 0xB2 }
        var sequenceExtension: MPEG2SequenceExtension?
        var display: MPEG2SequenceDisplayExtension?
        for unit in following {
            switch unit.extensionStartCodeIdentifier {
            case MPEG2SequenceExtension.identifier: sequenceExtension = try MPEG2SequenceExtension(unit)
            case MPEG2SequenceDisplayExtension.identifier: display = try MPEG2SequenceDisplayExtension(unit)
            default: continue
            }
        }
        guard let sequenceExtension else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "the sequence header has no sequence extension: this is MPEG-1 video, which VAToolbox does not decode")
        }
        let width = header.width(with: sequenceExtension)
        let height = header.height(with: sequenceExtension)
        guard width > 0, height > 0 else {
            throw VTError.formatDescriptionInvalidParameter.with("the MPEG-2 picture size is \(width)x\(height)")
        }
        let indication = sequenceExtension.profileAndLevelIndication
        // libavcodec's profile numbers: profile_identification, and 0 for the escaped 4:2:2 profile.
        let profile = indication & 0x80 != 0 ? 0 : (indication >> 4) & 7
        var stream = StreamProperties(
            profileName: sequenceExtension.profileName ?? "\(profile)", profileIdc: profile,
            levelIdc: sequenceExtension.levelCode, highTier: false, chromaFormatIdc: sequenceExtension.chromaFormat,
            bitDepthLuma: 8, bitDepthChroma: 8, maxNumReorderFrames: sequenceExtension.lowDelay ? 0 : 1,
            maxDecFrameBuffering: 3, mayBeInterlaced: !sequenceExtension.progressiveSequence,
            frameDuration: Self.frameDuration(header.frameRate(with: sequenceExtension)))
        stream.statedLevelName = sequenceExtension.levelName ?? "unknown"
        var extensions = FormatDescriptionExtensions()
        extensions.fieldCount = sequenceExtension.progressiveSequence ? 1 : 2
        let ratio = header.sampleAspectRatio(with: sequenceExtension, display: display)
        extensions.pixelAspectRatio = PixelAspectRatio(
            horizontalSpacing: ratio.horizontal, verticalSpacing: ratio.vertical)
        if let display, display.colourDescription {
            extensions.colorPrimaries = Self.code(display.colourPrimaries).map(ColorPrimaries.init(rawValue:))
            extensions.transferFunction = Self.code(display.transferCharacteristics).map(
                TransferFunction.init(rawValue:))
            extensions.yCbCrMatrix = Self.code(display.matrixCoefficients).map(YCbCrMatrix.init(rawValue:))
        }
        let configuration = Array(mpeg2SequenceHeader[first.prefixIndex..<configurationEnd])
        extensions.decoderConfigurationRecord = configuration
        self.init(
            codecType: .mpeg2Video, parameterSets: [configuration], nalUnitHeaderLength: 0,
            codedDimensions: VideoDimensions(width: Int32(width), height: Int32(height)),
            cleanAperture: CleanAperture(left: 0, top: 0, width: width, height: height), stream: stream,
            extensions: extensions, configurationRecordName: MPEG2CodecSupport().configurationRecordName)
    }

    /// A colour code point, nil for unspecified (2), reserved (0) or out of range.
    private static func code(_ value: Int) -> UInt8? {
        (1...255).contains(value) && value != 2 ? UInt8(value) : nil
    }

    /// The duration of a frame at a frame rate, nil for a rate of 0.
    private static func frameDuration(_ rate: (numerator: Int, denominator: Int)) -> MediaTime? {
        guard rate.numerator > 0, rate.numerator <= Int(Int32.max) else { return nil }
        return MediaTime(value: Int64(rate.denominator), timescale: Int32(rate.numerator))
    }
}
