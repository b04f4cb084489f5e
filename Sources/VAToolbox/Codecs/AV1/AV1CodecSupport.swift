/// AV1: one temporal unit of OBUs per sample (low-overhead format, every OBU with its size), a
/// sequence header OBU as configuration (`av1C`). Decoded on the CPU by libdav1d when this
/// libavcodec has it (else the native `av1` decoder) and, on the GPU, by libavcodec's native
/// `av1` decoder with the VA-API hwaccel in VA-API's `AV1Profile0` (Main: 8- and 10-bit 4:2:0).
/// Film grain is applied as libavcodec applies it (libdav1d on the CPU, the driver on the GPU).
struct AV1CodecSupport: CodecSupport {
    let codecType = VideoCodecType.av1
    let displayName = "AV1"
    let configurationRecordName: String? = "av1C"
    let ffmpegName = "av1"
    var preferredSoftwareDecoders: [String] { ["libdav1d"] }
    var hardwareDecoderName: String? { "av1" }

    /// From the container's `av1C` record (MP4, Matroska) or the sequence header OBU libavformat
    /// found in the stream (IVF, OBU files): the description keeps the sequence header as its
    /// configuration and an `av1C` record built from it.
    func formatDescription(container parameters: StreamParameters) throws(VTError) -> VideoFormatDescription? {
        var parameters = parameters
        var configuration: [[UInt8]] = []
        let record = parameters.configurationRecord
        let sequenceHeader: AV1OBU?
        if let marker = record.first, marker & 0x80 != 0 {
            let parsed = try AV1CodecConfigurationRecord(record[...])
            sequenceHeader = try AV1OBU.split(parsed.configOBUs[...]).first { $0.obuType == .sequenceHeader }
        } else {
            sequenceHeader = (try? AV1OBU.split(record[...]))?.first { $0.obuType == .sequenceHeader }
            if let sequenceHeader {
                parameters.configurationRecord = try AV1CodecConfigurationRecord(sequenceHeaderOBU: sequenceHeader)
                    .bytes
            }
        }
        if let sequenceHeader { configuration = [sequenceHeader.lowOverheadBytes] }
        let level = parameters.level ?? 0
        return try describedByContainer(
            parameters, profileName: parameters.profileDisplayName, profileIdc: parameters.profile ?? 0,
            levelIdc: level, levelName: level == 31 ? "max" : "\(2 + level >> 2).\(level & 3)",
            configuration: configuration)
    }

    /// The sample must be a sequence of whole OBUs (AV1 5.3), each with its size field except
    /// possibly the last.
    func validateSample(_ data: ArraySlice<UInt8>, format: VideoFormatDescription) throws(VTError) {
        do throws(VTError) {
            guard !(try AV1OBU.split(data)).isEmpty else {
                throw VTError.sampleBufferInvalidSampleData.with("the AV1 sample holds no OBU")
            }
        } catch {
            throw VTError.sampleBufferInvalidSampleData.with(
                "the AV1 sample is not a temporal unit of OBUs: \(error.reason)",
                hint: "AV1 samples are low-overhead OBUs with size fields (as in MP4, Matroska and IVF); convert "
                    + "Annex B (length-delimited) data first")
        }
    }

    /// The sequence header ahead of the sample, unless the sample carries one itself.
    func inBandConfiguration(for sample: SampleBuffer) -> [UInt8] {
        let obus = (try? AV1OBU.split(sample.data[...])) ?? []
        guard !obus.contains(where: { $0.obuType == .sequenceHeader }) else { return [] }
        return sample.formatDescription.parameterSets.first ?? []
    }

    /// libdav1d decodes every profile at 8, 10 and 12 bits; VAToolbox hands out monochrome up to
    /// 10 bits, and YCbCr, not RGB.
    func checkSoftwareDecodable(_ format: VideoFormatDescription) throws(VTError) {
        let stream = format.stream
        guard [8, 10, 12].contains(stream.bitDepthLuma), (0...3).contains(stream.chromaFormatIdc),
            stream.chromaFormatIdc != 0 || stream.bitDepthLuma <= 10
        else {
            throw VTError.couldNotFindVideoDecoder.with(
                "\(stream.bitDepthLuma)-bit \(stream.chromaFormatName) AV1 is not supported")
        }
        try refuseRGB(format)
    }

    func makeReferenceTracker() -> any ReferenceTracker { AV1ShownFrames() }

    /// The sample's HDR10+ `METADATA_TYPE_ITUT_T35` OBU (``AV1HDRMetadata``).
    func dynamicHDRMetadata(in sample: SampleBuffer) -> DynamicHDRMetadata {
        DynamicHDRMetadata(hdr10Plus: AV1HDRMetadata.hdr10PlusPayload(in: sample.data[...]))
    }

    /// The sample's `METADATA_TYPE_HDR_MDCV` and `HDR_CLL` OBUs (``AV1HDRMetadata``).
    func staticHDRMetadata(in data: [UInt8], format: VideoFormatDescription) -> StaticHDRMetadata? {
        AV1HDRMetadata.staticMetadata(in: data[...])
    }

    /// libavcodec's AV1 decoder sizes its surfaces by the first sequence header's largest frame
    /// (`LibavcodecVersion.keepsAV1SurfacesOnNewSequences`).
    var hardwareSurfaceFault: LibavcodecFault? { .av1KeepsSurfacesOnNewSequences }

    /// The largest frame (`max_frame_width_minus_1`, `max_frame_height_minus_1`, clause 5.5.1)
    /// of a sequence header the sample carries.
    func hardwareSurfaceSize(startedBy data: [UInt8]) -> VideoDimensions? {
        guard let obu = (try? AV1OBU.split(data[...]))?.first(where: { $0.obuType == .sequenceHeader }),
            let header = try? AV1SequenceHeader(obu.payload)
        else { return nil }
        return VideoDimensions(width: Int32(header.maxFrameWidth), height: Int32(header.maxFrameHeight))
    }
}

/// Notes the AV1 temporal units that show no frame (hidden frames alone in their sample).
struct AV1ShownFrames: ReferenceTracker {
    private var sequenceHeader: AV1SequenceHeader?

    mutating func learn(_ format: VideoFormatDescription) {
        guard let bytes = format.parameterSets.first,
            let obu = try? AV1OBU.split(bytes[...]).first(where: { $0.obuType == .sequenceHeader })
        else { return }
        sequenceHeader = try? AV1SequenceHeader(obu.payload)
    }

    mutating func follow(_ sample: SampleBuffer) -> FrameContinuity {
        guard let unit = try? AV1TemporalUnit(sample.data[...], sequenceHeader: sequenceHeader) else {
            return FrameContinuity()
        }
        if let header = unit.sequenceHeader { sequenceHeader = header }
        return FrameContinuity(showsNoPicture: !unit.frameHeaders.isEmpty && unit.shownFrameCount == 0)
    }

    mutating func reset() {}
}
