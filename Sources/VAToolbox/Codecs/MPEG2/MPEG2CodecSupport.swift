/// MPEG-2 video (H.262): one picture per sample (a field picture is a sample of its own),
/// start-code delimited, with the sequence header in band. Decoded by libavcodec's `mpeg2video`
/// decoder and, on the GPU, in VA-API's `MPEG2Simple` and `MPEG2Main` profiles (4:2:0).
struct MPEG2CodecSupport: CodecSupport {
    let codecType = VideoCodecType.mpeg2Video
    let displayName = "MPEG-2"
    let configurationRecordName: String? = "sequence header"
    let ffmpegName = "mpeg2video"
    /// 4096 × 2304: four times the High level's 1920 × 1152, the largest picture any MPEG-2 level
    /// defines, with room for 4K UHD (libavcodec takes up to 4095 × 4095, 16 times it).
    let defaultMaximumPixels = 4096 * 2304

    /// `profile_and_level_indication`'s level names (table 8-3).
    private static let levelNames = [4: "High", 6: "High 1440", 8: "Main", 10: "Low"]

    func formatDescription(container parameters: StreamParameters) throws(VTError) -> VideoFormatDescription? {
        let level = parameters.level ?? 0
        let record = parameters.configurationRecord
        return try describedByContainer(
            parameters, profileName: parameters.profileDisplayName, profileIdc: parameters.profile ?? 0,
            levelIdc: level, levelName: Self.levelNames[level] ?? "unknown",
            configuration: record.isEmpty ? [] : [record])
    }

    /// The sample must start with a start code (`00 00 01`), as every MPEG-2 picture does.
    func validateSample(_ data: ArraySlice<UInt8>, format: VideoFormatDescription) throws(VTError) {
        let start = data.firstIndex { $0 != 0 } ?? data.endIndex
        guard start - data.startIndex >= 2, start < data.endIndex, data[start] == 1,
            !MPEG2StartCodeUnit.split(data).isEmpty
        else {
            throw VTError.sampleBufferInvalidSampleData.with(
                "the MPEG-2 sample does not start with a start code (00 00 01): it is not an MPEG-2 picture")
        }
    }

    /// libavcodec decodes 8-bit 4:2:0, 4:2:2 and 4:4:4.
    func checkSoftwareDecodable(_ format: VideoFormatDescription) throws(VTError) {
        let stream = format.stream
        guard stream.bitDepthLuma == 8, (1...3).contains(stream.chromaFormatIdc) else {
            throw VTError.couldNotFindVideoDecoder.with(
                "\(stream.bitDepthLuma)-bit \(stream.chromaFormatName) MPEG-2 is not supported")
        }
    }

    /// Whether the stream is ATI's VCR2, by its container FourCC (libavformat's little-endian
    /// `codec_tag`, in capitals as libavcodec's `ff_toupper4` compares it): MPEG-2 pictures without
    /// sequence headers, started from the container's size (`vcr2_init_sequence` in `mpeg12dec.c`).
    static func isVCR2(_ format: VideoFormatDescription) -> Bool {
        FourCC.string(format.containerCodecTag.byteSwapped).uppercased() == "VCR2"
    }

    /// VCR2 codes each macroblock's Cr block before its Cb block: libavcodec exchanges them in its
    /// own reconstruction (`swap_uv`); a VA-API driver decodes them in the standard's order, into
    /// the other plane.
    func hardwareDecodeRefusal(for format: VideoFormatDescription) -> VTError? {
        guard Self.isVCR2(format) else { return nil }
        return VTError.couldNotFindVideoDecoder.with(
            "the MPEG-2 stream is tagged VCR2, whose chroma blocks come in the other order: only libavcodec's "
                + "software decoder exchanges them")
    }

    func makeReferenceTracker() -> any ReferenceTracker { MPEG2Pictures() }

    /// An I picture is a closed point after a GOP header with `closed_gop` 1, an open one
    /// otherwise (the B pictures after it in decoding order may refer to the previous GOP's last
    /// anchor, clause 6.3.8); a P picture ends the leading B pictures (those after it refer to it
    /// and to the anchor before it, both of its GOP).
    func randomAccess(of sample: SampleBuffer) -> RandomAccess {
        guard let info = try? MPEG2PictureInfo(sample.data[...]) else { return .none }
        switch info.pictureCodingType {
        case .intra: return info.groupOfPicturesHeader?.closedGop == true ? .closed : .open
        case .predictive: return .endsLeadingPictures
        default: return .none
        }
    }
}

/// Notes what libavcodec's MPEG-2 decoder outputs no picture for, and rightly: a sample that
/// holds one field of a pair (two such samples make one output picture, which comes out with one
/// of them), and the anchor picture still waiting for output when a sequence header restarts
/// the decoder.
struct MPEG2Pictures: ReferenceTracker {
    /// What libavcodec restarts its decoder on when a sequence header changes it
    /// (`mpeg_decode_postinit` in `mpeg12dec.c`): the picture size, the sample aspect ratio, and
    /// whether the sequence is progressive where that changes the rows of macroblocks.
    struct Sequence: Hashable {
        var size: VideoDimensions
        var aspectRatio: PixelAspectRatio?
        var interlacedRows: Bool?

        init(_ format: VideoFormatDescription) {
            size = format.codedDimensions
            aspectRatio = format.extensions.pixelAspectRatio
            // A field has half the rows: the change matters when the height's multiple of 16 is
            // not one of 32.
            let height = Int(size.height)
            interlacedRows = (height + 15) / 16 * 16 != (height + 31) / 32 * 32 ? format.stream.mayBeInterlaced : nil
        }
    }

    /// The last sequence header's facts, nil before the first.
    private var sequence: Sequence?

    mutating func learn(_ format: VideoFormatDescription) {}

    mutating func follow(_ sample: SampleBuffer) -> FrameContinuity {
        var continuity = FrameContinuity()
        if let info = try? MPEG2PictureInfo(sample.data[...]) {
            continuity.isFieldPicture = info.isFieldPicture && !info.isComplete
        }
        // libavcodec frees its pictures when it restarts: the anchor it held back for output
        // (the last I or P picture before the new sequence) never comes out.
        if let format = try? VideoFormatDescription(mpeg2SequenceHeader: sample.data) {
            let next = Sequence(format)
            continuity.discardsPriorPictures = sequence.map { $0 != next } ?? false
            sequence = next
        }
        return continuity
    }

    mutating func reset() { sequence = nil }
}
