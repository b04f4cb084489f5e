extension VideoFormatDescription {
    /// `CMVideoFormatDescriptionCreateFromH264ParameterSets`: a description from H.264 parameter
    /// set NAL units.
    ///
    /// - Parameters:
    ///   - h264ParameterSets: At least one SPS and one PPS, each a whole NAL unit without start
    ///     code; SPS extensions may be included. The first SPS decides the sizes and colour.
    ///   - nalUnitHeaderLength: The length prefix size of the samples that will be decoded with
    ///     this description: 1, 2 or 4 bytes.
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` with the reason: a set that is not
    ///   an SPS, PPS or SPS extension, a missing SPS or PPS, a set that does not parse (which
    ///   field), a PPS that refers to an SPS not given, or a bad header length.
    public init(h264ParameterSets: [[UInt8]], nalUnitHeaderLength: Int = 4) throws(VTError) {
        try Self.checkNALUnitHeaderLength(nalUnitHeaderLength)
        var spsList: [(bytes: [UInt8], parsed: H264SequenceParameterSet)] = []
        var ppsList: [(bytes: [UInt8], parsed: H264PictureParameterSet)] = []
        var extensions: [[UInt8]] = []
        for (index, bytes) in h264ParameterSets.enumerated() {
            do throws(VTError) {
                let unit = try NALUnit(bytes[...], codec: .h264)
                switch unit.h264Type {
                case .sequenceParameterSet?: spsList.append((bytes, try H264SequenceParameterSet(unit)))
                case .pictureParameterSet?: ppsList.append((bytes, try H264PictureParameterSet(unit)))
                case .sequenceParameterSetExtension?: extensions.append(bytes)
                default:
                    throw VTError.formatDescriptionInvalidParameter.with(
                        "parameter set \(index) is NAL unit type \(unit.typeCode), not an SPS (7), PPS (8) or SPS extension (13)"
                    )
                }
            } catch  where error == .formatDescriptionInvalidParameter {
                throw error
            } catch {
                throw VTError.formatDescriptionInvalidParameter.with("parameter set \(index): \(error.reason)")
            }
        }
        guard let sps = spsList.first?.parsed else {
            throw VTError.formatDescriptionInvalidParameter.with("H.264 parameter sets need at least one SPS")
        }
        guard !ppsList.isEmpty else {
            throw VTError.formatDescriptionInvalidParameter.with("H.264 parameter sets need at least one PPS")
        }
        for pps in ppsList.map(\.parsed)
        where !spsList.contains(where: { $0.parsed.seqParameterSetId == pps.seqParameterSetId }) {
            throw VTError.formatDescriptionInvalidParameter.with(
                "PPS \(pps.picParameterSetId) refers to SPS \(pps.seqParameterSetId), which is not among the parameter sets"
            )
        }
        let crop = sps.cropRectangle
        let stream = StreamProperties(
            profileName: sps.profileName, profileIdc: sps.profileIdc, levelIdc: sps.levelIdc, highTier: false,
            chromaFormatIdc: sps.chromaFormatIdc, bitDepthLuma: sps.bitDepthLuma, bitDepthChroma: sps.bitDepthChroma,
            maxNumReorderFrames: sps.maxNumReorderFrames, maxDecFrameBuffering: sps.maxDpbFrames,
            mayBeInterlaced: !sps.frameMbsOnlyFlag, frameDuration: sps.vui?.frameDuration)
        var formatExtensions = FormatDescriptionExtensions(h264: sps)
        formatExtensions.decoderConfigurationRecord =
            (try? AVCDecoderConfigurationRecord(
                sequenceParameterSets: spsList.map(\.bytes), pictureParameterSets: ppsList.map(\.bytes),
                sequenceParameterSetExtensions: extensions, nalUnitLengthSize: nalUnitHeaderLength
            ).bytes) ?? []
        self.init(
            codecType: .h264, parameterSets: h264ParameterSets, nalUnitHeaderLength: nalUnitHeaderLength,
            codedDimensions: VideoDimensions(width: Int32(sps.codedWidth), height: Int32(sps.codedHeight)),
            cleanAperture: CleanAperture(
                left: crop.left, top: crop.top, width: sps.displayWidth, height: sps.displayHeight),
            stream: stream, extensions: formatExtensions,
            configurationRecordName: H264CodecSupport().configurationRecordName)
    }

    /// A description from an `avcC` record, as stored in MP4/MOV sample descriptions.
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the record or its parameter
    ///   sets are malformed.
    public init(avcC: [UInt8]) throws(VTError) {
        let record = try AVCDecoderConfigurationRecord(bytes: avcC)
        try self.init(
            h264ParameterSets: record.sequenceParameterSets + record.pictureParameterSets
                + (record.highProfileTail?.sequenceParameterSetExtensions ?? []),
            nalUnitHeaderLength: record.nalUnitLengthSize)
        extensions.decoderConfigurationRecord = avcC
    }

    /// The description of a stream whose container states a picture size a little smaller than
    /// the SPS's cropped one (an MP4 `avc1` sample entry, a Matroska `PixelWidth`): the size the
    /// H.264 decoder crops its pictures to, as libavcodec's does (`init_dimensions` in
    /// `h264_slice.c`, "crop to container"), and the file's author asked for. libavcodec does it
    /// when the SPS crops nothing on the left or at the top and the container's size is no
    /// larger than the SPS's and rounds up to the same multiple of 16; otherwise the SPS's
    /// cropping stands, and so does this description.
    ///
    /// - Parameters:
    ///   - width: The container's picture width.
    ///   - height: The container's picture height.
    func croppedToContainer(width: Int, height: Int) -> VideoFormatDescription {
        let aperture = cleanAperture
        func roundedUp(_ value: Int) -> Int { (value + 15) / 16 * 16 }
        guard width > 0, height > 0, aperture.left == 0, aperture.top == 0,
            width <= aperture.width, height <= aperture.height,
            roundedUp(width) == roundedUp(aperture.width), roundedUp(height) == roundedUp(aperture.height),
            width != aperture.width || height != aperture.height
        else { return self }
        return VideoFormatDescription(
            codecType: codecType, parameterSets: parameterSets, nalUnitHeaderLength: nalUnitHeaderLength,
            codedDimensions: codedDimensions,
            cleanAperture: CleanAperture(left: 0, top: 0, width: width, height: height),
            stream: stream, extensions: extensions, configurationRecordName: extensions.decoderConfigurationRecordName)
    }

    /// The first H.264 sequence parameter set, parsed; nil for HEVC.
    public var h264SequenceParameterSet: H264SequenceParameterSet? {
        guard codecType == .h264 else { return nil }
        return parameterSetNALUnits.lazy.filter { $0.h264Type == .sequenceParameterSet }
            .compactMap { try? H264SequenceParameterSet($0) }.first
    }

    /// The H.264 picture parameter sets, parsed; empty for HEVC.
    public var h264PictureParameterSets: [H264PictureParameterSet] {
        guard codecType == .h264 else { return [] }
        return parameterSetNALUnits.filter { $0.h264Type == .pictureParameterSet }
            .compactMap { try? H264PictureParameterSet($0) }
    }
}

extension FormatDescriptionExtensions {
    /// The extensions an H.264 SPS implies.
    init(h264 sps: H264SequenceParameterSet) {
        self.init()
        fieldCount = sps.frameMbsOnlyFlag ? 1 : 2
        guard let vui = sps.vui else { return }
        fullRangeVideo = vui.videoFullRangeFlag
        colorPrimaries = vui.colourPrimaries == 2 ? nil : ColorPrimaries(rawValue: UInt8(vui.colourPrimaries))
        transferFunction =
            vui.transferCharacteristics == 2 ? nil : TransferFunction(rawValue: UInt8(vui.transferCharacteristics))
        yCbCrMatrix = vui.matrixCoefficients == 2 ? nil : YCbCrMatrix(rawValue: UInt8(vui.matrixCoefficients))
        pixelAspectRatio = vui.sampleAspectRatio.map {
            PixelAspectRatio(horizontalSpacing: $0.width, verticalSpacing: $0.height)
        }
        chromaLocation = vui.chromaSampleLocTypeTopField
    }
}

extension H264VUIParameters {
    /// The duration of one frame: two ticks (`2 * num_units_in_tick / time_scale`, clause E.2.1),
    /// when the timing information is present and sane.
    var frameDuration: MediaTime? {
        guard let timing = timingInfo, timing.numUnitsInTick > 0, timing.timeScale > 0,
            timing.timeScale <= UInt32(Int32.max), timing.numUnitsInTick <= UInt32(Int32.max / 2)
        else { return nil }
        return MediaTime(value: Int64(timing.numUnitsInTick) * 2, timescale: Int32(timing.timeScale))
    }
}
