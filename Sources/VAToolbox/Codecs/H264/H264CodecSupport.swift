/// H.264 / AVC: length-prefixed NAL units with SPS/PPS (`avcC`), decoded by libavcodec's `h264`
/// decoder and, on the GPU, in VA-API's Constrained Baseline, Main and High profiles.
struct H264CodecSupport: NALUnitCodecSupport {
    let codecType = VideoCodecType.h264
    let displayName = "H.264"
    let configurationRecordName: String? = "avcC"
    let ffmpegName = "h264"
    var inBandParameterSets: (any InBandParameterSetRules)? { H264InBandParameterSets() }

    /// libavcodec decodes every H.264 profile; VAToolbox hands out YCbCr up to 10 bits, not RGB.
    func checkSoftwareDecodable(_ format: VideoFormatDescription) throws(VTError) {
        let stream = format.stream
        let depth = max(stream.bitDepthLuma, stream.bitDepthChroma)
        guard depth <= 10 else {
            throw VTError.couldNotFindVideoDecoder.with(
                "the H.264 stream has \(depth)-bit samples; VAToolbox decodes 8- to 10-bit H.264")
        }
        try refuseRGB(format)
    }

    /// Baseline without `constraint_set1_flag` may use FMO, ASO or redundant slices, which no
    /// VA-API profile decodes; with it, it is Constrained Baseline (the VA profile map's row).
    func hardwareDecodeRefusal(for format: VideoFormatDescription) -> VTError? {
        guard format.stream.profileIdc == 66, format.stream.profileName != "Constrained Baseline" else { return nil }
        return VTError.couldNotFindVideoDecoder.with(
            "H.264 Baseline without constraint_set1_flag may use FMO/ASO, which VA-API does not decode")
    }

    /// libavcodec decodes H.264 monochrome (4:0:0) to 4:2:0 with grey chroma.
    func softwarePixelFormat(for format: VideoFormatDescription) -> PixelFormat {
        let stream = format.stream
        return planarPixelFormat(
            chromaFormatIdc: max(1, stream.chromaFormatIdc), bitDepth: stream.bitDepthLuma > 8 ? 10 : 8,
            fullRange: format.extensions.fullRangeVideo)
    }

    func formatDescription(record: [UInt8]) throws(VTError) -> VideoFormatDescription {
        try VideoFormatDescription(avcC: record)
    }

    /// From the `avcC` record (nil for Annex B extradata or none), cropped to the container's
    /// picture size where libavcodec crops to it (``VideoFormatDescription/croppedToContainer(width:height:)``).
    func formatDescription(container parameters: StreamParameters) throws(VTError) -> VideoFormatDescription? {
        let record = parameters.configurationRecord
        guard record.first == 1 else { return nil }
        return try formatDescription(record: record).croppedToContainer(
            width: parameters.width, height: parameters.height)
    }

    func makeReferenceTracker() -> any ReferenceTracker { H264ReferenceContinuity() }

    /// The HDR10+ `user_data_registered_itu_t_t35` message of the sample's SEI NAL units.
    func dynamicHDRMetadata(in sample: SampleBuffer) -> DynamicHDRMetadata {
        DynamicHDRMetadata(
            hdr10Plus: sample.nalUnits.lazy.filter { $0.h264Type == .sei }.compactMap {
                SEIMessages.hdr10PlusPayload(inRBSP: $0.rbsp)
            }.first)
    }

    /// The mastering display colour volume, content light level and ambient viewing environment
    /// SEI messages: libavcodec 5.1's H.264 decoder reads none of them (its `h264_sei.c`; 6.1's
    /// shared `h2645_sei.c` reads the first two).
    func staticHDRMetadata(in data: [UInt8], format: VideoFormatDescription) -> StaticHDRMetadata? {
        staticHDRMetadata(inSEIOf: data, format: format, isSEI: { $0.h264Type == .sei }, includingHDR10: true)
    }

    /// An IDR picture is a closed point. A non-IDR picture is an open one when the container calls
    /// it a sync sample (an MP4 lists an open GOP's I pictures in its sync sample table) or when a
    /// recovery point SEI says decoding from it is exact at once (`recovery_frame_cnt` 0): the
    /// B-frames after it in decoding order may refer to the GOP before. A recovery point exact only
    /// frames later (gradual decoding refresh) is no point to replay from. H.264 does not order
    /// leading pictures before the others, so an open point's GOP keeps the one before it to the
    /// next point.
    func randomAccess(of sample: SampleBuffer) -> RandomAccess {
        let units = sample.nalUnits
        guard let slice = units.first(where: \.isVCL) else { return .none }
        if slice.h264Type?.isIDR == true { return .closed }
        if sample.isSync { return .open }
        let recovery = units.lazy.filter { $0.h264Type == .sei }.compactMap {
            SEIMessages.recoveryFrameCount(inRBSP: $0.rbsp)
        }.first
        return recovery == 0 ? .open : .none
    }
}
