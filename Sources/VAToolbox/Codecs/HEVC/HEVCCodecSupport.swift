/// HEVC / H.265: length-prefixed NAL units with VPS/SPS/PPS (`hvcC`), decoded by libavcodec's
/// `hevc` decoder and, on the GPU, in VA-API's Main and Main 10 profiles.
struct HEVCCodecSupport: NALUnitCodecSupport {
    let codecType = VideoCodecType.hevc
    let displayName = "HEVC"
    let configurationRecordName: String? = "hvcC"
    let ffmpegName = "hevc"
    var inBandParameterSets: (any InBandParameterSetRules)? { HEVCInBandParameterSets() }

    /// `general_profile_idc` values whose coding tools are those of version 1 and the format range
    /// extensions: none stated (0, decoded from the SPS alone, as libavcodec does), Main, Main 10,
    /// Main Still Picture and the format range extensions (Annex A.3). High throughput, screen
    /// content coding, multiview, scalable and 3D profiles are beyond them.
    static let rangeExtensionProfiles: Set<Int> = [0, 1, 2, 3, 4]

    /// A profile beyond the range extensions, which libavcodec decodes wrongly
    /// (`LibavcodecVersion.misdecodesHEVCProfilesBeyondRangeExtensions`).
    func softwareDecoderFault(for format: VideoFormatDescription) -> (fault: LibavcodecFault, refusal: VTError)? {
        let stream = format.stream
        guard !Self.rangeExtensionProfiles.contains(stream.profileIdc) else { return nil }
        let refusal = VTError.couldNotFindVideoDecoder.with(
            "HEVC profile \(stream.profileName) (general_profile_idc \(stream.profileIdc)) is not supported by "
                + "the software decoder; it decodes Main, Main 10, Main Still Picture and format range extensions")
        return (.hevcMisdecodesProfilesBeyondRangeExtensions, refusal)
    }

    func checkSoftwareDecodable(_ format: VideoFormatDescription) throws(VTError) {
        let stream = format.stream
        let depth = max(stream.bitDepthLuma, stream.bitDepthChroma)
        guard depth <= 12, stream.bitDepthLuma == stream.bitDepthChroma || depth <= 8 else {
            throw VTError.couldNotFindVideoDecoder.with(
                "the HEVC stream has \(stream.bitDepthLuma)-bit luma and \(stream.bitDepthChroma)-bit chroma; "
                    + "VAToolbox decodes 8-, 10- and 12-bit HEVC")
        }
        if stream.chromaFormatIdc == 0 && depth > 10 {
            throw VTError.couldNotFindVideoDecoder.with("monochrome HEVC above 10 bits is not supported")
        }
        try refuseRGB(format)
    }

    func formatDescription(record: [UInt8]) throws(VTError) -> VideoFormatDescription {
        try VideoFormatDescription(hvcC: record)
    }

    func makeReferenceTracker() -> any ReferenceTracker { HEVCReferenceContinuity() }

    /// The HDR10+ `user_data_registered_itu_t_t35` message of the sample's prefix SEI NAL units,
    /// and its Dolby Vision RPU: the NAL unit of type 62 (`UNSPEC62`) that ends the access unit
    /// (the placement libavcodec's `hevcdec.c` `decode_nal_units` requires, as dovi_tool writes it),
    /// without the zero bytes that may follow it.
    func dynamicHDRMetadata(in sample: SampleBuffer) -> DynamicHDRMetadata {
        var found = DynamicHDRMetadata()
        for unit in sample.nalUnits {
            if unit.hevcType == .prefixSEI, found.hdr10Plus == nil {
                found.hdr10Plus = SEIMessages.hdr10PlusPayload(inRBSP: unit.rbsp)
            } else if unit.hevcType == .dolbyVisionRPU, found.dolbyVisionRPU == nil {
                // A NAL unit never ends in a zero byte (clause 7.4.2): zeros after the RPU's
                // trailing bits are the byte stream's `trailing_zero_8bits`, which a remux from
                // Annex B leaves inside the length prefix.
                var end = unit.bytes.endIndex
                while end > unit.bytes.startIndex, unit.bytes[end - 1] == 0 { end -= 1 }
                found.dolbyVisionRPU = Array(unit.bytes[..<end])
            }
        }
        return found
    }

    /// The ambient viewing environment SEI message (libavcodec 5.1's HEVC decoder reads the
    /// mastering display and light level itself).
    func staticHDRMetadata(in data: [UInt8], format: VideoFormatDescription) -> StaticHDRMetadata? {
        staticHDRMetadata(inSEIOf: data, format: format, isSEI: { $0.hevcType == .prefixSEI }, includingHDR10: false)
    }

    /// By the first slice segment's `nal_unit_type` (clause 7.4.2.2): IDR and BLA pictures are
    /// closed points (a BLA picture's RASL pictures are skipped); a CRA picture is an open one, its
    /// RASL pictures refer to the GOP before; a trailing picture (TRAIL, TSA, STSA) follows every
    /// leading picture of its IRAP picture, so it ends them.
    func randomAccess(of sample: SampleBuffer) -> RandomAccess {
        guard let type = sample.nalUnits.first(where: \.isVCL)?.hevcType else { return .none }
        switch type.rawValue {
        case HEVCNALUnitType.cra.rawValue: return .open
        case 16...23: return .closed
        case 0...5: return .endsLeadingPictures
        default: return .none
        }
    }
}
