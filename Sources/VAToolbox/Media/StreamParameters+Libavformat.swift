extension StreamParameters {
    /// Reads what libavformat found of a stream's codec parameters.
    ///
    /// The stream's sample aspect ratio as the container states it (Matroska display size, MP4
    /// `pasp`) wins over the codec's, as in the ffmpeg CLI.
    init(_ stream: FormatStream) {
        configurationRecord = stream.configurationRecord
        width = stream.width
        height = stream.height
        let stated = stream.profile.flatMap { $0 >= 0 ? $0 : nil }
        profile = stated
        profileName = stated != nil ? stream.profileName : nil
        level = stream.level >= 0 ? stream.level : nil
        pixelFormatName = stream.pixelFormatName ?? "unknown"
        if let layout = stream.pixelLayout {
            bitDepth = layout.bitDepth
            switch (layout.componentCount, layout.log2ChromaWidth, layout.log2ChromaHeight) {
            case _ where layout.isRGB: chromaFormatIdc = nil
            case (1, _, _), (2, _, _): chromaFormatIdc = 0
            case (_, 1, 1): chromaFormatIdc = 1
            case (_, 1, 0): chromaFormatIdc = 2
            case (_, 0, 0): chromaFormatIdc = 3
            case (_, 0, 1): chromaFormatIdc = StreamProperties.chromaFormat440
            default: chromaFormatIdc = nil
            }
        } else {
            bitDepth = 8
            chromaFormatIdc = 1
        }
        fullRange = stream.isFullRange
        colorPrimaries = Self.specified(stream.colorPrimaries)
        transferCharacteristics = Self.specified(stream.transferCharacteristics)
        matrixCoefficients = Self.specified(stream.matrixCoefficients)
        chromaLocation = stream.chromaSampleLocation
        mayBeInterlaced = stream.fieldOrder.map { $0 != .progressive } ?? false
        let ratio = stream.containerAspectRatio.numerator > 0 ? stream.containerAspectRatio : stream.codecAspectRatio
        pixelAspectRatio =
            ratio.numerator > 0 && ratio.denominator > 0
            ? PixelAspectRatio(horizontalSpacing: Int(ratio.numerator), verticalSpacing: Int(ratio.denominator)) : nil
        reorderDepth = max(0, stream.videoDelay)
        codecTag = stream.codecTag
        masteringDisplayColorVolume = stream.masteringDisplay.flatMap(MasteringDisplayColorVolume.init(libav:))
        contentLightLevel = stream.contentLightLevel.map(ContentLightLevel.init(libav:))
        dolbyVisionConfiguration = stream.dolbyVisionConfiguration.map {
            DolbyVisionConfiguration(
                versionMajor: $0.versionMajor, versionMinor: $0.versionMinor, profile: $0.profile, level: $0.level,
                rpuPresent: $0.rpuPresent, enhancementLayerPresent: $0.enhancementLayerPresent,
                baseLayerPresent: $0.baseLayerPresent, baseLayerCompatibilityID: $0.baseLayerCompatibilityID)
        }
        iccProfile = stream.iccProfile
    }

    /// A colour code point, nil for 2 (unspecified) and anything out of range.
    private static func specified(_ code: Int) -> UInt8? {
        code == 2 || code < 0 || code > 255 ? nil : UInt8(code)
    }
}
