/// VP9: one frame per sample, or a superframe of several (hidden alt-reference frames with the
/// frame that shows), decoded by libavcodec's `vp9` decoder and, on the GPU, in VA-API's
/// Profile 0 (8-bit 4:2:0) and Profile 2 (10-bit 4:2:0). Profiles 1 and 3 (4:2:2, 4:4:0, 4:4:4)
/// decode on the CPU. Frames carry their own configuration, so a stream changes size, bit depth or
/// chroma format in band (reference scaling included) and a session follows.
struct VP9CodecSupport: CodecSupport {
    let codecType = VideoCodecType.vp9
    let displayName = "VP9"
    let configurationRecordName: String? = "vpcC"
    let ffmpegName = "vp9"

    /// libavcodec's VP9 decoder reads its configuration from the frames; the `vpcC` record is for
    /// the application.
    var passesConfigurationRecordToDecoder: Bool { false }

    /// From the container's parameters, with a `vpcC` record made from them (libavformat keeps
    /// the MP4's `vpcC` as parameters, not as extradata).
    func formatDescription(container parameters: StreamParameters) throws(VTError) -> VideoFormatDescription? {
        var parameters = parameters
        let level = parameters.level ?? 0
        if parameters.configurationRecord.isEmpty,
            let subsampling = parameters.chromaFormatIdc.flatMap({
                VPCodecConfigurationRecord.ChromaSubsampling(chromaFormatIdc: $0)
            })
        {
            parameters.configurationRecord =
                VPCodecConfigurationRecord(
                    profile: parameters.profile ?? 0, level: level, bitDepth: parameters.bitDepth,
                    chromaSubsampling: subsampling,
                    videoFullRangeFlag: parameters.fullRange, colourPrimaries: parameters.colorPrimaries ?? 2,
                    transferCharacteristics: parameters.transferCharacteristics ?? 2,
                    matrixCoefficients: parameters.matrixCoefficients ?? 2
                ).bytes
        }
        return try describedByContainer(
            parameters, profileName: parameters.profileDisplayName, profileIdc: parameters.profile ?? 0,
            levelIdc: level, levelName: level == 0 ? "unknown" : "\(level / 10).\(level % 10)")
    }

    /// Every frame of the sample (after the superframe index is split off) starts with the frame
    /// marker `0b10` (VP9 bitstream specification 6.2, `frame_marker`).
    func validateSample(_ data: ArraySlice<UInt8>, format: VideoFormatDescription) throws(VTError) {
        for frame in try VP9Superframe.frames(in: data) where frame.first.map({ $0 >> 6 != 2 }) ?? true {
            throw VTError.sampleBufferInvalidSampleData.with(
                "a frame of the VP9 sample does not start with the frame marker (0b10): it is not VP9 data")
        }
    }

    /// libavcodec decodes every VP9 profile; VAToolbox hands out its YCbCr layouts (4:4:0
    /// included), not RGB.
    func checkSoftwareDecodable(_ format: VideoFormatDescription) throws(VTError) {
        let stream = format.stream
        guard [8, 10, 12].contains(stream.bitDepthLuma),
            (0...StreamProperties.chromaFormat440).contains(stream.chromaFormatIdc)
        else {
            throw VTError.couldNotFindVideoDecoder.with(
                "\(stream.bitDepthLuma)-bit \(stream.chromaFormatName) VP9 is not supported")
        }
        try refuseRGB(format)
    }
}

extension VP9CodecSupport {
    func makeReferenceTracker() -> any ReferenceTracker { VP9ShownFrames() }
}

/// Notes the VP9 samples that show no frame (a hidden frame alone in its sample).
struct VP9ShownFrames: ReferenceTracker {
    mutating func learn(_ format: VideoFormatDescription) {}

    mutating func follow(_ sample: SampleBuffer) -> FrameContinuity {
        guard let frames = try? VP9Superframe.frames(in: sample.data[...]) else { return FrameContinuity() }
        let headers = frames.compactMap { try? VP9UncompressedHeader($0) }
        let shows = headers.contains { $0.showFrame || $0.showExistingFrame }
        return FrameContinuity(showsNoPicture: headers.count == frames.count && !shows)
    }

    mutating func reset() {}
}
