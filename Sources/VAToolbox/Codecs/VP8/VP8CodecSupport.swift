/// VP8: one frame per sample, 8-bit 4:2:0, decoded by libavcodec's `vp8` decoder and, on the GPU,
/// in VA-API's `VP8Version0_3` profile.
struct VP8CodecSupport: CodecSupport {
    let codecType = VideoCodecType.vp8
    let displayName = "VP8"
    let configurationRecordName: String? = nil
    let ffmpegName = "vp8"
    var passesConfigurationRecordToDecoder: Bool { false }

    func formatDescription(container parameters: StreamParameters) throws(VTError) -> VideoFormatDescription? {
        try describedByContainer(
            parameters, profileName: "\(parameters.profile ?? 0)", profileIdc: parameters.profile ?? 0, levelIdc: 0,
            levelName: "unknown")
    }

    /// The frame tag (RFC 6386 9.1) must fit, and a key frame must carry the start code
    /// `9d 01 2a` after it.
    func validateSample(_ data: ArraySlice<UInt8>, format: VideoFormatDescription) throws(VTError) {
        do throws(VTError) {
            _ = try VP8FrameHeader(data)
        } catch {
            throw VTError.sampleBufferInvalidSampleData.with("the sample is not a VP8 frame: \(error.reason)")
        }
    }

    func checkSoftwareDecodable(_ format: VideoFormatDescription) throws(VTError) {
        let stream = format.stream
        guard stream.bitDepthLuma == 8, stream.chromaFormatIdc == 1 else {
            throw VTError.couldNotFindVideoDecoder.with(
                "VP8 is 8-bit 4:2:0; this stream says \(stream.bitDepthLuma)-bit \(stream.chromaFormatName)")
        }
    }

    /// libavcodec's VP8 decoder asks for surfaces for its first key frame only
    /// (`LibavcodecVersion.keepsVP8SurfacesOnLargerKeyFrames`).
    var hardwareSurfaceFault: LibavcodecFault? { .vp8KeepsSurfacesOnLargerKeyFrames }

    /// A key frame's size (RFC 6386 9.1): the size every frame after it has.
    func hardwareSurfaceSize(startedBy data: [UInt8]) -> VideoDimensions? {
        guard let header = try? VP8FrameHeader(data[...]), header.isKeyFrame, let width = header.width,
            let height = header.height
        else { return nil }
        return VideoDimensions(width: Int32(width), height: Int32(height))
    }
}
