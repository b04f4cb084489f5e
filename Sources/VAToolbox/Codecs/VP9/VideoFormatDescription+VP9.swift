extension VideoFormatDescription {
    /// A description of a VP9 stream from a key frame (or a sample holding one in a
    /// superframe) — what `CMVideoFormatDescriptionCreate` with `kCMVideoCodecType_VP9` and a
    /// `vpcC` extension atom describes, read from the frame itself.
    ///
    /// VP9 frames carry their own configuration, so the description needs no record; the size
    /// is the key frame's decoded size (libavcodec hands out the frame size, not the render
    /// size the header may add), and later frames may change it (a session follows). The
    /// description keeps a `vpcC` record made from the key frame, except for 4:4:0, which a
    /// `vpcC` record cannot state.
    ///
    /// - Parameter vp9KeyFrame: A sample whose frames include a key frame (VP9 6.2).
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when no frame of the sample is a
    ///   key frame or its header does not parse.
    public init(vp9KeyFrame: [UInt8]) throws(VTError) {
        let frames: [ArraySlice<UInt8>]
        do throws(VTError) {
            frames = try VP9Superframe.frames(in: vp9KeyFrame[...])
        } catch {
            throw VTError.formatDescriptionInvalidParameter.with("the VP9 sample: \(error.reason)")
        }
        var keyFrame: VP9UncompressedHeader?
        for frame in frames {
            let header = try VP9UncompressedHeader(frame)
            if header.frameType == .keyFrame && !header.showExistingFrame {
                keyFrame = header
                break
            }
        }
        guard let header = keyFrame, let color = header.colorConfig, let width = header.frameWidth,
            let height = header.frameHeight
        else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "the VP9 sample holds no key frame to describe the stream from")
        }
        let chroma: Int
        switch (color.subsamplingX, color.subsamplingY) {
        case (1, 1): chroma = 1
        case (1, 0): chroma = 2
        case (0, 0): chroma = 3
        default: chroma = StreamProperties.chromaFormat440
        }
        var stream = StreamProperties(
            profileName: "Profile \(header.profile)", profileIdc: header.profile, levelIdc: 0, highTier: false,
            chromaFormatIdc: chroma, bitDepthLuma: color.bitDepth, bitDepthChroma: color.bitDepth,
            maxNumReorderFrames: 0, maxDecFrameBuffering: 8, mayBeInterlaced: false, frameDuration: nil)
        stream.statedLevelName = "unknown"
        var extensions = FormatDescriptionExtensions()
        extensions.fullRangeVideo = color.isFullRange
        // sRGB (color_space 7) is RGB: the identity matrix, which libavcodec decodes to planar GBR.
        if color.colorSpace == VP9ColorConfig.colorSpaceRGB { extensions.yCbCrMatrix = .identity }
        // A vpcC record has no value for 4:4:0: such a stream's description has none.
        if let subsampling = VPCodecConfigurationRecord.ChromaSubsampling(chromaFormatIdc: chroma) {
            extensions.decoderConfigurationRecord =
                VPCodecConfigurationRecord(
                    profile: header.profile, level: 0, bitDepth: color.bitDepth, chromaSubsampling: subsampling,
                    videoFullRangeFlag: color.isFullRange
                ).bytes
        }
        self.init(
            codecType: .vp9, parameterSets: [], nalUnitHeaderLength: 0,
            codedDimensions: VideoDimensions(width: Int32(width), height: Int32(height)),
            cleanAperture: CleanAperture(left: 0, top: 0, width: width, height: height), stream: stream,
            extensions: extensions, configurationRecordName: VP9CodecSupport().configurationRecordName)
    }

    /// A description of a VP9 stream from its `vpcC` record and its size — what
    /// `CMVideoFormatDescriptionCreate(…, kCMVideoCodecType_VP9, width, height, extensions)` with a
    /// `vpcC` sample description extension atom describes.
    ///
    /// - Parameters:
    ///   - vpcC: The `vpcC` atom (with or without its FullBox version and flags).
    ///   - width: The coded width of the first frame.
    ///   - height: The coded height of the first frame.
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` for a malformed record or a size
    ///   outside 1…16384.
    public init(vpcC: [UInt8], width: Int, height: Int) throws(VTError) {
        let record = try VPCodecConfigurationRecord(vpcC)
        guard (1...16384).contains(width), (1...16384).contains(height) else {
            throw VTError.formatDescriptionInvalidParameter.with("the VP9 size \(width)x\(height) is outside 1…16384")
        }
        var stream = StreamProperties(
            profileName: "Profile \(record.profile)", profileIdc: record.profile, levelIdc: record.level,
            highTier: false, chromaFormatIdc: record.chromaFormatIdc, bitDepthLuma: record.bitDepth,
            bitDepthChroma: record.bitDepth, maxNumReorderFrames: 0, maxDecFrameBuffering: 8, mayBeInterlaced: false,
            frameDuration: nil)
        stream.statedLevelName = record.level == 0 ? "unknown" : "\(record.level / 10).\(record.level % 10)"
        var extensions = FormatDescriptionExtensions()
        extensions.fullRangeVideo = record.videoFullRangeFlag
        extensions.colorPrimaries = record.colourPrimaries == 2 ? nil : ColorPrimaries(rawValue: record.colourPrimaries)
        extensions.transferFunction =
            record.transferCharacteristics == 2 ? nil : TransferFunction(rawValue: record.transferCharacteristics)
        extensions.yCbCrMatrix =
            record.matrixCoefficients == 2 ? nil : YCbCrMatrix(rawValue: record.matrixCoefficients)
        extensions.decoderConfigurationRecord = record.bytes
        self.init(
            codecType: .vp9, parameterSets: [], nalUnitHeaderLength: 0,
            codedDimensions: VideoDimensions(width: Int32(width), height: Int32(height)),
            cleanAperture: CleanAperture(left: 0, top: 0, width: width, height: height), stream: stream,
            extensions: extensions, configurationRecordName: VP9CodecSupport().configurationRecordName)
    }
}
