internal import CFFmpeg
internal import CVAAPI

/// H.264 / AVC: length-prefixed NAL units with SPS/PPS (`avcC`), decoded by libavcodec's `h264`
/// decoder and, on the GPU, in VA-API's Constrained Baseline, Main and High profiles.
struct H264CodecSupport: NALUnitCodecSupport {
    let codecType = VideoCodecType.h264
    let displayName = "H.264"
    let ffmpegName = "h264"
    var libavcodecID: AVCodecID { AV_CODEC_ID_H264 }
    var hardwareProfiles: [VAProfile] { [VAProfileH264ConstrainedBaseline, VAProfileH264Main, VAProfileH264High] }

    /// libavcodec decodes every H.264 profile; VAToolbox hands out up to 10 bits.
    func checkSoftwareDecodable(_ format: VideoFormatDescription) throws(VTError) {
        let stream = format.stream
        let depth = max(stream.bitDepthLuma, stream.bitDepthChroma)
        guard depth <= 10 else {
            throw VTError.couldNotFindVideoDecoder.with(
                "the H.264 stream has \(depth)-bit samples; VAToolbox decodes 8- to 10-bit H.264")
        }
    }

    /// Baseline with `constraint_set1_flag` is decoded as Constrained Baseline (it uses none of
    /// FMO, ASO or redundant slices); a profile the driver lacks is replaced by one that contains
    /// it (Constrained Baseline ⊂ Main ⊂ High). 8-bit 4:2:0 only.
    func hardwareProfileCandidates(for format: VideoFormatDescription) -> Result<[VAProfile], VTError> {
        let stream = format.stream
        let candidates: [VAProfile]
        switch stream.profileIdc {
        case 66 where stream.profileName == "Constrained Baseline":
            candidates = [VAProfileH264ConstrainedBaseline, VAProfileH264Main, VAProfileH264High]
        case 66:
            return .failure(
                VTError.couldNotFindVideoDecoder.with(
                    "H.264 Baseline without constraint_set1_flag may use FMO/ASO, which VA-API does not decode"))
        case 77: candidates = [VAProfileH264Main, VAProfileH264High]
        case 100: candidates = [VAProfileH264High]
        default:
            return .failure(
                VTError.couldNotFindVideoDecoder.with(
                    "H.264 \(stream.profileName) has no VA-API decode profile (VA-API decodes Constrained "
                        + "Baseline, Main and High)"))
        }
        guard max(stream.bitDepthLuma, stream.bitDepthChroma) == 8, stream.chromaFormatIdc <= 1 else {
            return .failure(
                VTError.couldNotFindVideoDecoder.with(
                    "\(max(stream.bitDepthLuma, stream.bitDepthChroma))-bit \(stream.chromaFormatName) is not decoded "
                        + "by VA-API here"))
        }
        return .success(candidates)
    }

    func isExactHardwareProfile(_ profile: VAProfile, for format: VideoFormatDescription) -> Bool {
        switch profile {
        case VAProfileH264ConstrainedBaseline: return format.stream.profileIdc == 66
        case VAProfileH264Main: return format.stream.profileIdc == 77
        case VAProfileH264High: return format.stream.profileIdc == 100
        default: return false
        }
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

    func makeReferenceTracker() -> any ReferenceTracker { H264ReferenceContinuity() }

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
