/// Everything VAToolbox knows about one codec, in one place: how its samples are framed and
/// checked, which of them start decoding, how a format description follows from its
/// configuration record or its bitstream, how lost references are noticed, which libavcodec
/// decoder and which VA-API profiles decode it, and which pixel format it decodes to.
///
/// The session, the decoder back ends, the file reader and the tool ask the codec's support
/// (``CodecRegistry/support(for:)``) and never test for a codec themselves. Adding a codec is one
/// conforming type and a row in ``CodecRegistry``. The model is cros-codecs' split between the
/// parser (here), the stateless decoder logic and the back ends.
protocol CodecSupport: Sendable {
    /// The codec.
    var codecType: VideoCodecType { get }
    /// The codec's name for people: `"H.264"`, `"VP9"`.
    var displayName: String { get }
    /// FFmpeg's name of the codec (`"h264"`, `"vp9"`), the name the tool's JSON uses.
    var ffmpegName: String { get }
    /// The name of the record a description of this codec keeps in
    /// ``FormatDescriptionExtensions/decoderConfigurationRecord``: the sample description
    /// extension atom (`avcC`, `hvcC`, `av1C`, `vpcC`), or for MPEG-2 the sequence header; nil for
    /// VP8, whose record is whatever the container had.
    var configurationRecordName: String? { get }
    /// The libavcodec decoders to try on the CPU, by name, before the codec's native one
    /// (libdav1d for AV1); empty for the native decoder.
    var preferredSoftwareDecoders: [String] { get }
    /// The most pixels a picture may have unless the application raises the limit
    /// (``PictureLimits/defaultMaximumPixels(for:)``).
    var defaultMaximumPixels: Int { get }
    /// The codec's word for one sample (``VideoCodecType/sampleNoun``).
    var sampleNoun: String { get }
    /// Whether the codec's streams state a level (``VideoCodecType/statesLevel``).
    var statesLevel: Bool { get }
    /// Whether the codec's streams state a tier (``VideoCodecType/statesTier``).
    var statesTier: Bool { get }
    /// A counter of the pictures the codec's samples show (``PictureCounter``).
    func makeShownPictureCounter() -> any ShownPictureCounting
    /// The chroma siting the codec's libavcodec decoder gives pictures when the stream states none.
    func inferredChromaSiting(for format: VideoFormatDescription) -> ChromaSiting
    /// Whether libavcodec states the colour range of the stream's pictures.
    func statesColorRange(for format: VideoFormatDescription) -> Bool
    /// Whether libavcodec needs the format description's configuration record to start.
    var needsConfigurationRecord: Bool { get }
    /// Whether libavcodec is given the configuration record as `extradata` (false for codecs
    /// whose decoder reads everything from the frames and whose record is for the application).
    var passesConfigurationRecordToDecoder: Bool { get }
    /// The libavcodec decoder the VA-API hwaccel runs inside, by name, when the codec's default
    /// decoder is another (libdav1d has no hwaccel: AV1 on the GPU needs the native `av1`).
    var hardwareDecoderName: String? { get }

    /// A format description from what a container says of the stream (its configuration record
    /// and codec parameters); nil when the description must come from the stream's own in-band
    /// headers (H.264 and HEVC carried as Annex B).
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the configuration record is
    ///   malformed; ``VTError/couldNotFindVideoDecoder`` for a sample layout VAToolbox cannot
    ///   hand out.
    func formatDescription(container parameters: StreamParameters) throws(VTError) -> VideoFormatDescription?

    /// Checks that a sample's data is framed the way this codec's samples are (length-prefixed
    /// NAL units, OBUs, frames); a check that catches the common mistakes (Annex B start codes
    /// where lengths are expected), not a decode.
    ///
    /// - Throws: ``VTError/sampleBufferInvalidSampleData`` with the reason.
    func validateSample(_ data: ArraySlice<UInt8>, format: VideoFormatDescription) throws(VTError)

    /// Whether libavcodec decodes the stream on the CPU and VAToolbox can hand out its pictures,
    /// whatever libavcodec's version (see ``softwareDecoderFault(for:)`` for what depends on it).
    ///
    /// - Throws: ``VTError/couldNotFindVideoDecoder`` naming what is not supported.
    func checkSoftwareDecodable(_ format: VideoFormatDescription) throws(VTError)

    /// The libavcodec fault a stream of this description would meet on the CPU, with the error
    /// that refuses the stream where the linked libavcodec has the fault; nil when no known fault
    /// concerns the stream. The decoders decide (`SoftwareBackend.checkDecodable`).
    func softwareDecoderFault(for format: VideoFormatDescription) -> (fault: LibavcodecFault, refusal: VTError)?

    /// Whether a session decoding `current` can go on with samples of `next` by reconfiguring in
    /// band (the decoder reads the new configuration from the stream).
    func canFollow(_ current: VideoFormatDescription, with next: VideoFormatDescription) -> Bool

    /// The bytes to send the decoder ahead of `sample` when the stream changes to the sample's
    /// description: the new configuration the sample does not carry itself.
    func inBandConfiguration(for sample: SampleBuffer) -> [UInt8]

    /// Why the GPU cannot decode a stream whatever the driver offers, beyond what the VA profile
    /// map says (``VAProfileMap``); nil when the map decides.
    func hardwareDecodeRefusal(for format: VideoFormatDescription) -> VTError?
    /// The pixel format libavcodec decodes the stream to on the CPU.
    func softwarePixelFormat(for format: VideoFormatDescription) -> PixelFormat

    /// A fresh tracker of the stream's reference pictures, for the frames libavcodec damages
    /// silently.
    func makeReferenceTracker() -> any ReferenceTracker

    /// What the sample is to the stream's random access: a point a replay after a finish may
    /// start at (closed, or open with leading pictures that refer before it), the end of the last
    /// open point's leading pictures, or neither.
    func randomAccess(of sample: SampleBuffer) -> RandomAccess
    /// The libavcodec fault by which its VA-API hwaccel keeps its surfaces when the codec's
    /// pictures grow (the decoder does not call `get_format` again); nil for codecs whose decoder
    /// asks again on every size change (H.264, HEVC, VP9, MPEG-2).
    var hardwareSurfaceFault: LibavcodecFault? { get }
    /// The picture size a sample's data starts, for a codec with a ``hardwareSurfaceFault``:
    /// where the linked libavcodec has the fault, the GPU back end gives a sample whose size
    /// exceeds its surfaces a decoder of its own. Nil for samples that start no new size.
    func hardwareSurfaceSize(startedBy data: [UInt8]) -> VideoDimensions?
    /// The static HDR metadata a sample carries where libavcodec's decoder on the GPU path does
    /// not export it (AV1 metadata OBUs); nil for codecs whose decoder does (H.264, HEVC SEI) and
    /// for samples that carry none.
    /// The ambient viewing environment too, which no libavcodec decoder before 6.1 exports (H.264,
    /// HEVC SEI), and for H.264 the mastering display and light level, which libavcodec 5.1's
    /// H.264 decoder does not read. `data` is the sample as `format` frames it.
    func staticHDRMetadata(in data: [UInt8], format: VideoFormatDescription) -> StaticHDRMetadata?
    /// The dynamic HDR metadata a sample carries (an HDR10+ SEI message or AV1 metadata OBU, an
    /// HEVC Dolby Vision RPU), for ``DecompressionSession/propagatesPerFrameHDRDisplayMetadata``;
    /// empty for codecs that carry none and samples without any.
    func dynamicHDRMetadata(in sample: SampleBuffer) -> DynamicHDRMetadata
    /// The in-band parameter-set rules of a container whose configuration record lacks some of
    /// the stream's parameter sets (an `avcC` without SPS/PPS): nil for codecs whose records are
    /// always complete or that configure themselves in band.
    var inBandParameterSets: (any InBandParameterSetRules)? { get }
}

/// How a file reader describes a stream whose configuration record lacks parameter sets: it reads
/// packets until their parameter sets, with the record's, describe the stream.
protocol InBandParameterSetRules: Sendable {
    /// The record's name, for messages (`"avcC"`).
    var recordName: String { get }
    /// The NAL unit length size of a record that lacks some parameter sets; nil for a complete
    /// record, or one that is not this codec's (Annex B extradata).
    func lengthSizeOfIncompleteRecord(_ record: [UInt8]) -> Int?
    /// The parameter sets a record carries (some, not all of them).
    func parameterSets(inRecord record: [UInt8]) -> [[UInt8]]
    /// A description from parameter sets, once there is every kind the codec needs; nil before.
    func formatDescription(parameterSets: [[UInt8]], nalUnitHeaderLength: Int) -> VideoFormatDescription?
}

extension CodecSupport {
    var preferredSoftwareDecoders: [String] { [] }
    var sampleNoun: String { "sample" }
    var statesLevel: Bool { true }
    var statesTier: Bool { false }
    func makeShownPictureCounter() -> any ShownPictureCounting { OnePicturePerSample() }
    func inferredChromaSiting(for format: VideoFormatDescription) -> ChromaSiting { .unspecified }
    /// Every decoder but H.264's states it (the HEVC, MPEG-2, VP8 and VP9 decoders and libdav1d
    /// always set `color_range`).
    func statesColorRange(for format: VideoFormatDescription) -> Bool { true }
    /// 8192 × 8192: above 8K UHD and every level's largest picture (35,651,584 pixels in H.264
    /// level 6.2, HEVC 6.2, VP9 6.2 and AV1 6.3).
    var defaultMaximumPixels: Int { 8192 * 8192 }
    var hardwareDecoderName: String? { nil }
    var needsConfigurationRecord: Bool { false }
    var passesConfigurationRecordToDecoder: Bool { true }

    /// A description of a stream whose frames configure the decoder themselves, from the
    /// container's parameters: sizes, sample format, colour, and the configuration record kept
    /// as the sample description's extension atom.
    ///
    /// - Parameters:
    ///   - parameters: The container's parameters.
    ///   - profileName: The profile's name as FFmpeg prints it.
    ///   - profileIdc: The profile's number in the codec's own terms.
    ///   - levelIdc: The level's number in the codec's own terms, 0 when unknown.
    ///   - levelName: The level's name.
    ///   - configuration: In-band configuration units (AV1 sequence header, MPEG-2 sequence header).
    /// - Throws: ``VTError/couldNotFindVideoDecoder`` for a sample layout with no chroma format
    ///   (RGB, 4:1:1).
    func describedByContainer(
        _ parameters: StreamParameters, profileName: String, profileIdc: Int, levelIdc: Int, levelName: String,
        configuration: [[UInt8]] = []
    ) throws(VTError) -> VideoFormatDescription {
        guard let chroma = parameters.chromaFormatIdc else {
            throw VTError.couldNotFindVideoDecoder.with(
                "the \(displayName) stream's samples are \(parameters.pixelFormatName), a layout VAToolbox does not "
                    + "hand out (it decodes 4:0:0, 4:2:0, 4:2:2, 4:4:4 and VP9's 4:4:0 YCbCr)")
        }
        guard parameters.width > 0, parameters.height > 0, parameters.width <= 16384, parameters.height <= 16384 else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "the \(displayName) stream's size \(parameters.width)x\(parameters.height) is not one a decoder can start from"
            )
        }
        var stream = StreamProperties(
            profileName: profileName, profileIdc: profileIdc, levelIdc: levelIdc, highTier: false,
            chromaFormatIdc: chroma, bitDepthLuma: parameters.bitDepth, bitDepthChroma: parameters.bitDepth,
            maxNumReorderFrames: parameters.reorderDepth, maxDecFrameBuffering: parameters.reorderDepth + 1,
            mayBeInterlaced: parameters.mayBeInterlaced, frameDuration: nil)
        stream.statedLevelName = levelName
        let size = VideoDimensions(width: Int32(parameters.width), height: Int32(parameters.height))
        var format = VideoFormatDescription(
            codecType: codecType, parameterSets: configuration, nalUnitHeaderLength: 0, codedDimensions: size,
            cleanAperture: CleanAperture(left: 0, top: 0, width: parameters.width, height: parameters.height),
            stream: stream, extensions: parameters.extensions, configurationRecordName: configurationRecordName)
        format.containerCodecTag = parameters.codecTag
        return format
    }

    func canFollow(_ current: VideoFormatDescription, with next: VideoFormatDescription) -> Bool {
        current.codecType == next.codecType
    }

    func inBandConfiguration(for sample: SampleBuffer) -> [UInt8] { [] }

    var hardwareSurfaceFault: LibavcodecFault? { nil }

    func hardwareSurfaceSize(startedBy data: [UInt8]) -> VideoDimensions? { nil }
    func staticHDRMetadata(in data: [UInt8], format: VideoFormatDescription) -> StaticHDRMetadata? { nil }
    func dynamicHDRMetadata(in sample: SampleBuffer) -> DynamicHDRMetadata { DynamicHDRMetadata() }

    func softwareDecoderFault(for format: VideoFormatDescription) -> (fault: LibavcodecFault, refusal: VTError)? {
        nil
    }

    var inBandParameterSets: (any InBandParameterSetRules)? { nil }

    func hardwareDecodeRefusal(for format: VideoFormatDescription) -> VTError? { nil }

    func makeReferenceTracker() -> any ReferenceTracker { UntrackedReferences() }

    /// A sync sample is a closed random access point: VP8, VP9 and AV1 sync samples are key
    /// frames, which reset every reference (AV1 clause 7.20, VP9 clause 8.4.1 `refresh_frame_flags`).
    func randomAccess(of sample: SampleBuffer) -> RandomAccess { sample.isSync ? .closed : .none }

    /// The planar format of a chroma format and bit depth, the way libavcodec's software
    /// decoders name theirs.
    func planarPixelFormat(chromaFormatIdc: Int, bitDepth: Int, fullRange: Bool) -> PixelFormat {
        switch (chromaFormatIdc, bitDepth) {
        case (0, 8): return .gray8
        case (0, 10): return .gray10
        case (1, 8): return fullRange ? .yuv420PlanarFullRange : .yuv420Planar
        case (2, 8): return .yuv422Planar
        case (3, 8): return .yuv444Planar
        case (2, 10): return .yuv422Planar10
        case (3, 10): return .yuv444Planar10
        case (1, 12): return .yuv420Planar12
        case (2, 12): return .yuv422Planar12
        case (3, 12): return .yuv444Planar12
        case (StreamProperties.chromaFormat440, 8): return .yuv440Planar
        case (StreamProperties.chromaFormat440, 10): return .yuv440Planar10
        case (StreamProperties.chromaFormat440, 12): return .yuv440Planar12
        default: return .yuv420Planar10
        }
    }

    /// Refuses an RGB stream: 4:4:4 with the identity matrix (`matrix_coefficients` 0; VP9's
    /// `color_space` sRGB), which libavcodec decodes to planar GBR (`gbrp`), a layout VAToolbox
    /// does not hand out.
    ///
    /// - Throws: ``VTError/couldNotFindVideoDecoder`` for such a stream.
    func refuseRGB(_ format: VideoFormatDescription) throws(VTError) {
        guard format.stream.chromaFormatIdc == 3, format.extensions.yCbCrMatrix == .identity else { return }
        throw VTError.couldNotFindVideoDecoder.with(
            "the \(displayName) stream is RGB (4:4:4 with the identity matrix, matrix_coefficients 0), which "
                + "libavcodec decodes to planar GBR; VAToolbox hands out YCbCr pictures only",
            hint: "convert it first, e.g. ffmpeg -i INPUT -pix_fmt yuv444p -c:v libx264 OUTPUT")
    }

    func softwarePixelFormat(for format: VideoFormatDescription) -> PixelFormat {
        let stream = format.stream
        return planarPixelFormat(
            chromaFormatIdc: stream.chromaFormatIdc, bitDepth: stream.bitDepthLuma,
            fullRange: format.extensions.fullRangeVideo)
    }
}

/// What following one sample tells about its frame, beyond what libavcodec reports.
struct FrameContinuity: Sendable, Hashable {
    /// Why the frame may be wrong for want of a reference picture; nil when its references are there.
    var missingReference: String?
    /// Whether the sample is a field picture (half of a frame): a second field comes out inside
    /// the first field's picture, so no picture of its own is no loss.
    var isFieldPicture = false
    /// Whether the sample is a leading picture that decoders skip because decoding started at
    /// its random access point (an HEVC RASL picture).
    var isSkippedLeadingPicture = false
    /// Whether the sample shows no picture of its own (a hidden VP9 or AV1 frame alone in its
    /// sample, decoded only as a reference; an HEVC RASL picture that an end of sequence before
    /// its CRA picture tells decoders to skip): no picture for it is no loss.
    var showsNoPicture = false
    /// Whether decoders discard, without output, the pictures of the samples before this one
    /// that they have not output yet (HEVC `NoOutputOfPriorPicsFlag`, clause C.5.2.2: a CRA
    /// picture after an end of sequence; libavcodec's MPEG-2 decoder restarting at a sequence
    /// header of another size): no picture for those samples is no loss.
    var discardsPriorPictures = false
}

/// Follows a stream's reference pictures to notice a lost one, for codecs whose libavcodec
/// decoder conceals the loss without flagging the frames it damages.
protocol ReferenceTracker: Sendable {
    /// Learns the configuration (parameter sets) of a format description.
    mutating func learn(_ format: VideoFormatDescription)
    /// Follows one sample in decode order.
    mutating func follow(_ sample: SampleBuffer) -> FrameContinuity
    /// Forgets the reference state (after a drain, decoding restarts at a sync sample).
    mutating func reset()
}

/// The tracker of codecs whose decoder flags lost references itself.
struct UntrackedReferences: ReferenceTracker {
    mutating func learn(_ format: VideoFormatDescription) {}
    mutating func follow(_ sample: SampleBuffer) -> FrameContinuity { FrameContinuity() }
    mutating func reset() {}
}
