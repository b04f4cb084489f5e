extension VideoFormatDescription {
    /// `CMVideoFormatDescriptionCreateFromHEVCParameterSets`: a description from HEVC parameter
    /// set NAL units.
    ///
    /// - Parameters:
    ///   - hevcParameterSets: At least one VPS, one SPS and one PPS, each a whole NAL unit
    ///     without start code (prefix SEI units are not parameter sets and are refused). The first
    ///     SPS decides the sizes and colour.
    ///   - nalUnitHeaderLength: The length prefix size of the samples: 1, 2 or 4 bytes.
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` with the reason: a unit that is not
    ///   a VPS, SPS or PPS, a kind missing, a set that does not parse (which field), an SPS whose
    ///   VPS or a PPS whose SPS is not given, or a bad header length.
    public init(hevcParameterSets: [[UInt8]], nalUnitHeaderLength: Int = 4) throws(VTError) {
        try Self.checkNALUnitHeaderLength(nalUnitHeaderLength)
        var vpsList: [HEVCVideoParameterSet] = []
        var spsList: [HEVCSequenceParameterSet] = []
        var ppsList: [HEVCPictureParameterSet] = []
        for (index, bytes) in hevcParameterSets.enumerated() {
            do throws(VTError) {
                let unit = try NALUnit(bytes[...], codec: .hevc)
                switch unit.hevcType {
                case .videoParameterSet?: vpsList.append(try HEVCVideoParameterSet(unit))
                case .sequenceParameterSet?: spsList.append(try HEVCSequenceParameterSet(unit))
                case .pictureParameterSet?: ppsList.append(try HEVCPictureParameterSet(unit))
                default:
                    throw VTError.formatDescriptionInvalidParameter.with(
                        "parameter set \(index) is NAL unit type \(unit.typeCode), not a VPS (32), SPS (33) or PPS (34)"
                    )
                }
            } catch  where error == .formatDescriptionInvalidParameter {
                throw error
            } catch {
                throw VTError.formatDescriptionInvalidParameter.with("parameter set \(index): \(error.reason)")
            }
        }
        guard !vpsList.isEmpty else {
            throw VTError.formatDescriptionInvalidParameter.with("HEVC parameter sets need at least one VPS")
        }
        guard let sps = spsList.first else {
            throw VTError.formatDescriptionInvalidParameter.with("HEVC parameter sets need at least one SPS")
        }
        guard !ppsList.isEmpty else {
            throw VTError.formatDescriptionInvalidParameter.with("HEVC parameter sets need at least one PPS")
        }
        for candidate in spsList
        where !vpsList.contains(where: { $0.vpsVideoParameterSetId == candidate.spsVideoParameterSetId }) {
            throw VTError.formatDescriptionInvalidParameter.with(
                "SPS \(candidate.spsSeqParameterSetId) refers to VPS \(candidate.spsVideoParameterSetId), which is not among the parameter sets"
            )
        }
        for pps in ppsList where !spsList.contains(where: { $0.spsSeqParameterSetId == pps.ppsSeqParameterSetId }) {
            throw VTError.formatDescriptionInvalidParameter.with(
                "PPS \(pps.ppsPicParameterSetId) refers to SPS \(pps.ppsSeqParameterSetId), which is not among the parameter sets"
            )
        }
        let ptl = sps.profileTierLevel
        let stream = StreamProperties(
            profileName: ptl.profileName ?? "general_profile_idc \(ptl.generalProfileIdc)",
            profileIdc: Int(ptl.inferredProfileIdc), levelIdc: Int(ptl.generalLevelIdc), highTier: ptl.generalTierFlag,
            chromaFormatIdc: sps.chromaFormatIdc, bitDepthLuma: sps.bitDepthLuma, bitDepthChroma: sps.bitDepthChroma,
            maxNumReorderFrames: sps.maxNumReorderPics, maxDecFrameBuffering: sps.maxDecPicBuffering,
            mayBeInterlaced: sps.vuiParameters?.fieldSeqFlag ?? false,
            // The SPS's timing, else its VPS's, as ffmpeg's HEVC parser takes a raw stream's rate.
            frameDuration: sps.vuiParameters?.frameDuration
                ?? vpsList.first { $0.vpsVideoParameterSetId == sps.spsVideoParameterSetId }?.frameDuration,
            isHEVC: true)
        var extensions = FormatDescriptionExtensions(hevc: sps)
        extensions.decoderConfigurationRecord =
            (try? HEVCDecoderConfigurationRecord(
                parameterSets: hevcParameterSets, nalUnitHeaderLength: nalUnitHeaderLength
            ).bytes) ?? []
        self.init(
            codecType: .hevc, parameterSets: hevcParameterSets, nalUnitHeaderLength: nalUnitHeaderLength,
            codedDimensions: VideoDimensions(width: Int32(sps.codedWidth), height: Int32(sps.codedHeight)),
            cleanAperture: CleanAperture(
                left: sps.displayLeft, top: sps.displayTop, width: sps.displayWidth, height: sps.displayHeight),
            stream: stream, extensions: extensions, configurationRecordName: HEVCCodecSupport().configurationRecordName)
    }

    /// A description from an `hvcC` record, as stored in MP4/MOV/MKV sample descriptions.
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the record or its parameter
    ///   sets are malformed.
    public init(hvcC: [UInt8]) throws(VTError) {
        let record = try HEVCDecoderConfigurationRecord(bytes: hvcC)
        let parameterSets = [HEVCNALUnitType.videoParameterSet, .sequenceParameterSet, .pictureParameterSet]
            .flatMap { record.nalUnits(ofType: $0) }
        try self.init(hevcParameterSets: parameterSets, nalUnitHeaderLength: record.nalUnitHeaderLength)
        extensions.decoderConfigurationRecord = hvcC
    }

    /// The first HEVC sequence parameter set, parsed; nil for H.264.
    public var hevcSequenceParameterSet: HEVCSequenceParameterSet? {
        guard codecType == .hevc else { return nil }
        return parameterSetNALUnits.lazy.filter { $0.hevcType == .sequenceParameterSet }
            .compactMap { try? HEVCSequenceParameterSet($0) }.first
    }
}

extension FormatDescriptionExtensions {
    /// The extensions an HEVC SPS implies.
    init(hevc sps: HEVCSequenceParameterSet) {
        self.init()
        guard let vui = sps.vuiParameters else { return }
        fieldCount = vui.fieldSeqFlag ? 2 : 1
        fullRangeVideo = vui.videoFullRangeFlag
        colorPrimaries = vui.colourPrimaries == 2 ? nil : ColorPrimaries(rawValue: vui.colourPrimaries)
        transferFunction =
            vui.transferCharacteristics == 2 ? nil : TransferFunction(rawValue: vui.transferCharacteristics)
        yCbCrMatrix = vui.matrixCoeffs == 2 ? nil : YCbCrMatrix(rawValue: vui.matrixCoeffs)
        pixelAspectRatio = vui.sampleAspectRatio.map {
            PixelAspectRatio(horizontalSpacing: $0.width, verticalSpacing: $0.height)
        }
        chromaLocation = vui.chromaLocInfoPresentFlag ? vui.chromaSampleLocTypeTopField : nil
    }
}

extension HEVCVUIParameters {
    /// The duration of one picture, `vui_num_units_in_tick / vui_time_scale`, when present and sane.
    var frameDuration: MediaTime? {
        guard vuiTimingInfoPresentFlag, vuiNumUnitsInTick > 0, vuiTimeScale > 0,
            vuiTimeScale <= UInt32(Int32.max)
        else { return nil }
        return MediaTime(value: Int64(vuiNumUnitsInTick), timescale: Int32(vuiTimeScale))
    }
}
