extension VideoFormatDescription {
    /// A description of a VP8 stream from a key frame (RFC 6386 9.1): its size and version.
    ///
    /// - Parameter vp8KeyFrame: A key frame, whole.
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the frame is not a key frame
    ///   or its header does not parse.
    public init(vp8KeyFrame: [UInt8]) throws(VTError) {
        let header = try VP8FrameHeader(vp8KeyFrame[...])
        guard header.isKeyFrame, let width = header.width, let height = header.height, width > 0, height > 0 else {
            throw VTError.formatDescriptionInvalidParameter.with("the VP8 frame is not a key frame with a size")
        }
        var stream = StreamProperties(
            profileName: "\(header.version)", profileIdc: header.version, levelIdc: 0, highTier: false,
            chromaFormatIdc: 1, bitDepthLuma: 8, bitDepthChroma: 8, maxNumReorderFrames: 0, maxDecFrameBuffering: 4,
            mayBeInterlaced: false, frameDuration: nil)
        stream.statedLevelName = "unknown"
        var extensions = FormatDescriptionExtensions()
        // color_space 0 is YUV (BT.601); clamping_type does not change the range.
        extensions.fullRangeVideo = false
        self.init(
            codecType: .vp8, parameterSets: [], nalUnitHeaderLength: 0,
            codedDimensions: VideoDimensions(width: Int32(width), height: Int32(height)),
            cleanAperture: CleanAperture(left: 0, top: 0, width: width, height: height), stream: stream,
            extensions: extensions, configurationRecordName: VP8CodecSupport().configurationRecordName)
    }
}
