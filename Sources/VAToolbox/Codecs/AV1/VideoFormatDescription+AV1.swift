extension VideoFormatDescription {
    /// A description of an AV1 stream from its sequence header OBU — what
    /// `CMVideoFormatDescriptionCreate` with `kCMVideoCodecType_AV1` and an `av1C` extension atom
    /// describes.
    ///
    /// The size is the sequence's largest frame (`max_frame_width_minus_1 + 1` …); frames may be
    /// smaller, and a decoder follows their own sizes. The description keeps the OBU as its
    /// configuration and an `av1C` record built from it.
    ///
    /// - Parameter av1SequenceHeaderOBU: A whole sequence header OBU (AV1 5.3), with or without
    ///   its size field.
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the bytes are not a sequence
    ///   header OBU or do not parse (the reason names the syntax element).
    public init(av1SequenceHeaderOBU: [UInt8]) throws(VTError) {
        let obu: AV1OBU
        do throws(VTError) {
            obu = try AV1OBU(av1SequenceHeaderOBU[...])
        } catch {
            throw VTError.formatDescriptionInvalidParameter.with("the AV1 sequence header OBU: \(error.reason)")
        }
        guard obu.obuType == .sequenceHeader else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "the OBU is of type \(obu.obuType), not a sequence header")
        }
        let header = try AV1SequenceHeader(obu.payload)
        let record = try AV1CodecConfigurationRecord(sequenceHeaderOBU: obu).bytes
        self.init(av1: header, sequenceHeaderOBU: obu.lowOverheadBytes, record: record)
    }

    /// A description from an `av1C` record (AV1-ISOBMFF 2.3.3), as MP4 and Matroska store it.
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the record is malformed or
    ///   carries no sequence header OBU.
    public init(av1C: [UInt8]) throws(VTError) {
        let record = try AV1CodecConfigurationRecord(av1C[...])
        let obus: [AV1OBU]
        do throws(VTError) {
            obus = try AV1OBU.split(record.configOBUs[...])
        } catch {
            throw VTError.formatDescriptionInvalidParameter.with("the av1C record's configOBUs: \(error.reason)")
        }
        guard let obu = obus.first(where: { $0.obuType == .sequenceHeader }) else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "the av1C record carries no sequence header OBU",
                hint: "build the description from the stream's first sequence header OBU instead")
        }
        self.init(av1: try AV1SequenceHeader(obu.payload), sequenceHeaderOBU: obu.lowOverheadBytes, record: av1C)
    }

    private init(av1 header: AV1SequenceHeader, sequenceHeaderOBU: [UInt8], record: [UInt8]) {
        let color = header.colorConfig
        let chroma = color.monoChrome ? 0 : (color.subsamplingX == 1 ? (color.subsamplingY == 1 ? 1 : 2) : 3)
        var stream = StreamProperties(
            profileName: header.profileName, profileIdc: header.seqProfile, levelIdc: header.seqLevelIdx,
            highTier: header.seqTier == 1, chromaFormatIdc: chroma, bitDepthLuma: color.bitDepth,
            bitDepthChroma: color.bitDepth, maxNumReorderFrames: 0, maxDecFrameBuffering: 8, mayBeInterlaced: false,
            frameDuration: nil)
        stream.statedLevelName = header.levelName
        var extensions = FormatDescriptionExtensions()
        extensions.fullRangeVideo = color.colorRange
        if color.colorDescriptionPresentFlag {
            extensions.colorPrimaries = color.colorPrimaries == 2 ? nil : ColorPrimaries(rawValue: color.colorPrimaries)
            extensions.transferFunction =
                color.transferCharacteristics == 2 ? nil : TransferFunction(rawValue: color.transferCharacteristics)
            extensions.yCbCrMatrix =
                color.matrixCoefficients == 2 ? nil : YCbCrMatrix(rawValue: color.matrixCoefficients)
        }
        extensions.decoderConfigurationRecord = record
        let size = VideoDimensions(width: Int32(header.maxFrameWidth), height: Int32(header.maxFrameHeight))
        self.init(
            codecType: .av1, parameterSets: [sequenceHeaderOBU], nalUnitHeaderLength: 0, codedDimensions: size,
            cleanAperture: CleanAperture(left: 0, top: 0, width: header.maxFrameWidth, height: header.maxFrameHeight),
            stream: stream, extensions: extensions, configurationRecordName: AV1CodecSupport().configurationRecordName)
    }
}
