/// A description of a compressed video stream: codec, parameter sets, sizes and colour —
/// `CMVideoFormatDescription`.
///
/// Create one from the parameter sets of an H.264 stream (SPS and PPS), of an HEVC stream (VPS,
/// SPS and PPS), or from an `avcC` / `hvcC` record as MP4 files store them. The parameter sets are
/// parsed and checked on creation, so a description that exists is one a decoder can start from.
///
/// ```swift
/// let format = try VideoFormatDescription(h264ParameterSets: [sps, pps], nalUnitHeaderLength: 4)
/// print(format.dimensions)          // 1920x1080 (after cropping)
/// print(format.codedDimensions)     // 1920x1088
/// ```
public struct VideoFormatDescription: Sendable, Hashable, CustomStringConvertible {
    /// The codec (`CMFormatDescriptionGetMediaSubType`): ``VideoCodecType/h264``,
    /// ``VideoCodecType/hevc``, ``VideoCodecType/av1``, ``VideoCodecType/vp9``,
    /// ``VideoCodecType/vp8`` or ``VideoCodecType/mpeg2Video``.
    public let codecType: VideoCodecType
    /// The parameter set NAL units in the order they were given: for H.264 the SPSs, PPSs and SPS
    /// extensions; for HEVC the VPSs, SPSs and PPSs. For AV1 the sequence header OBU when the
    /// description was made from one, for MPEG-2 the sequence header and its extensions when
    /// known; empty for VP8 and VP9, whose frames carry their own configuration.
    public let parameterSets: [[UInt8]]
    /// The size of the length prefix of each NAL unit in samples: 1, 2 or 4 bytes; 0 for codecs
    /// whose samples are not NAL units (AV1, VP9, VP8, MPEG-2).
    public let nalUnitHeaderLength: Int
    /// The picture size after cropping (`CMVideoFormatDescriptionGetDimensions`).
    public let dimensions: VideoDimensions
    /// The size of the decoded pictures before cropping (whole macroblocks or coding blocks).
    public let codedDimensions: VideoDimensions
    /// The part of the coded picture that is displayed: the SPS cropping window or the HEVC
    /// conformance window, in luma samples.
    public let cleanAperture: CleanAperture
    /// What the sequence parameter set says about the stream: profile, level, bit depth,
    /// chroma format, reordering.
    public let stream: StreamProperties
    /// Colour, range, aspect ratio and field information, as CoreMedia format description
    /// extensions.
    public var extensions: FormatDescriptionExtensions
    /// The container's FourCC of the stream (an AVI's `biCompression`), for descriptions made
    /// from a container's parameters; 0 otherwise. The decoder is told it, as the ffmpeg CLI
    /// tells it: libavcodec's MPEG-2 decoder starts streams tagged `VCR2`, which carry no
    /// sequence header, from the container's size.
    var containerCodecTag: UInt32 = 0

    /// `CMVideoFormatDescriptionGetH264ParameterSetAtIndex` and its HEVC twin: the parameter set
    /// at `index` of ``parameterSets``.
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when `index` is out of range.
    public func parameterSet(at index: Int) throws(VTError) -> [UInt8] {
        guard parameterSets.indices.contains(index) else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "parameter set index \(index) is out of range: the description has \(parameterSets.count)")
        }
        return parameterSets[index]
    }

    /// The number of parameter sets.
    public var parameterSetCount: Int { parameterSets.count }

    /// `CMVideoFormatDescriptionGetPresentationDimensions`: the display size, optionally
    /// stretched by the pixel aspect ratio (the width is scaled, as CoreMedia does).
    public func presentationDimensions(usePixelAspectRatio: Bool = true) -> (width: Double, height: Double) {
        var width = Double(dimensions.width)
        if usePixelAspectRatio, let ratio = extensions.pixelAspectRatio, ratio.verticalSpacing > 0 {
            width = width * Double(ratio.horizontalSpacing) / Double(ratio.verticalSpacing)
        }
        return (width, Double(dimensions.height))
    }

    /// `CMFormatDescriptionEqualIgnoringExtensionKeys` with every extension ignored: whether the
    /// two describe the same codec, parameter sets and NAL unit header length.
    public func isEqualIgnoringExtensions(_ other: VideoFormatDescription) -> Bool {
        codecType == other.codecType && parameterSets == other.parameterSets
            && nalUnitHeaderLength == other.nalUnitHeaderLength
    }

    /// `"avc1 High@4.0 1920x1080 (coded 1920x1088) 4:2:0 8-bit, reorder 2"`.
    public var description: String {
        "\(codecType) \(stream.profileName)@\(stream.levelName) \(dimensions) (coded \(codedDimensions)) "
            + "\(stream.chromaFormatName) \(stream.bitDepthLuma)-bit, reorder \(stream.maxNumReorderFrames)"
    }

    /// The sizes a NAL unit length prefix can have (ISO/IEC 14496-15: 1, 2 or 4 bytes).
    static let validNALUnitHeaderLengths: Set<Int> = [1, 2, 4]

    /// Checks the NAL unit header length shared by every initialiser.
    static func checkNALUnitHeaderLength(_ length: Int) throws(VTError) {
        guard validNALUnitHeaderLengths.contains(length) else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "nalUnitHeaderLength is \(length); NAL unit lengths are 1, 2 or 4 bytes")
        }
    }

    /// The memberwise initialiser the codec-specific initialisers end in.
    ///
    /// - Parameter configurationRecordName: The name of the record the codec keeps in
    ///   ``FormatDescriptionExtensions/decoderConfigurationRecord`` (the codec support's
    ///   `configurationRecordName`); nil for none.
    init(
        codecType: VideoCodecType, parameterSets: [[UInt8]], nalUnitHeaderLength: Int,
        codedDimensions: VideoDimensions, cleanAperture: CleanAperture, stream: StreamProperties,
        extensions: FormatDescriptionExtensions, configurationRecordName: String? = nil
    ) {
        self.codecType = codecType
        self.parameterSets = parameterSets
        self.nalUnitHeaderLength = nalUnitHeaderLength
        self.codedDimensions = codedDimensions
        self.cleanAperture = cleanAperture
        self.dimensions = VideoDimensions(width: Int32(cleanAperture.width), height: Int32(cleanAperture.height))
        self.stream = stream
        self.extensions = extensions
        self.extensions.decoderConfigurationRecordName = configurationRecordName
    }
}

/// A picture size in pixels (`CMVideoDimensions`).
public struct VideoDimensions: Sendable, Hashable, CustomStringConvertible {
    /// The width in pixels.
    public var width: Int32
    /// The height in pixels.
    public var height: Int32

    /// Creates a size.
    public init(width: Int32, height: Int32) {
        self.width = width
        self.height = height
    }

    /// `"1920x1080"`.
    public var description: String { "\(width)x\(height)" }
}

/// The displayed part of a coded picture (`kCMFormatDescriptionExtension_CleanAperture`), as
/// offsets from the top-left corner and a size, in luma samples.
public struct CleanAperture: Sendable, Hashable {
    /// The number of columns cropped on the left.
    public var left: Int
    /// The number of rows cropped at the top.
    public var top: Int
    /// The displayed width.
    public var width: Int
    /// The displayed height.
    public var height: Int

    /// Creates a clean aperture.
    public init(left: Int, top: Int, width: Int, height: Int) {
        self.left = left
        self.top = top
        self.width = width
        self.height = height
    }
}

/// The stream facts a format description reads from its sequence parameter set.
public struct StreamProperties: Sendable, Hashable {
    /// The profile's name as FFmpeg prints it, for example `"High"` or `"Main 10"`.
    public var profileName: String
    /// `profile_idc` (H.264), `general_profile_idc` (HEVC), `seq_profile` (AV1), the profile
    /// (VP9: 0–3; VP8: the version, 0–3), or MPEG-2's `profile_and_level_indication` profile
    /// (4 Main, 5 Simple, 1 High, 2 Spatial, 3 SNR, 0 for 4:2:2).
    public var profileIdc: Int
    /// `level_idc` (H.264: 10 × the level), `general_level_idc` (HEVC: 30 × the level),
    /// `seq_level_idx` (AV1), the level code of MPEG-2 (4 High, 6 High 1440, 8 Main, 10 Low), or
    /// 0 when the stream states none.
    public var levelIdc: Int
    /// Whether the HEVC stream uses the High tier (always false for H.264).
    public var highTier: Bool
    /// `chroma_format_idc`: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4; and for a layout no
    /// `chroma_format_idc` names, VP9's 4:4:0 (chroma halved vertically only),
    /// ``chromaFormat440``.
    public var chromaFormatIdc: Int
    /// The luma bit depth, 8 to 16.
    public var bitDepthLuma: Int
    /// The chroma bit depth, 8 to 16.
    public var bitDepthChroma: Int
    /// How many frames a decoder holds back to output in presentation order
    /// (`max_num_reorder_frames`, `sps_max_num_reorder_pics`).
    public var maxNumReorderFrames: Int
    /// The decoded picture buffer size the stream needs, in frames.
    public var maxDecFrameBuffering: Int
    /// Whether pictures may be coded as fields (H.264 `frame_mbs_only_flag` 0) or are sent as
    /// fields (HEVC `field_seq_flag`).
    public var mayBeInterlaced: Bool
    /// The duration of a frame from the VUI timing information, when the stream gives one.
    public var frameDuration: MediaTime?

    /// The level as a number: `"4.1"` (H.264 `level_idc` 41, HEVC `general_level_idc` 123), `"1b"`;
    /// for AV1 the level of `seq_level_idx` (`"4.0"`), for MPEG-2 its name (`"Main"`), and
    /// `"unknown"` for VP8 and VP9, whose streams state none.
    public var levelName: String {
        if let statedLevelName { return statedLevelName }
        if !isHEVC && levelIdc == 9 { return "1b" }
        let tenths = isHEVC ? levelIdc / 3 : levelIdc
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }

    /// `"4:2:0"`, `"4:2:2"`, `"4:4:4"`, `"4:0:0"` or `"4:4:0"`.
    public var chromaFormatName: String {
        ["4:0:0", "4:2:0", "4:2:2", "4:4:4", "4:4:0"][min(max(chromaFormatIdc, 0), Self.chromaFormat440)]
    }

    /// The ``chromaFormatIdc`` of 4:4:0 streams (VP9 profiles 1 and 3 with `subsampling_x` 0 and
    /// `subsampling_y` 1: chroma of full width and half height), 4. No `chroma_format_idc` of
    /// H.264, HEVC, AV1 or MPEG-2 names this layout, so no VA-API profile matches it either.
    public static let chromaFormat440 = 4

    /// Whether the properties came from an HEVC SPS.
    var isHEVC = false
    /// The level's name for codecs that do not number levels the H.264 way.
    var statedLevelName: String?
}

/// The extensions of a format description (`kCMFormatDescriptionExtension_…`).
///
/// It prints as CoreMedia's keys with their values, the configuration record by its name and
/// size: `[FullRangeVideo: false, FieldCount: 1, ColorPrimaries: bt709, …,
/// SampleDescriptionExtensionAtoms: avcC (42 bytes)]`.
public struct FormatDescriptionExtensions: Sendable, Hashable, CustomStringConvertible {
    /// `kCMFormatDescriptionExtension_FullRangeVideo`: samples use the full 0…2ⁿ-1 range.
    public var fullRangeVideo = false
    /// `kCMFormatDescriptionExtension_ColorPrimaries`, nil when the stream does not say.
    public var colorPrimaries: ColorPrimaries?
    /// `kCMFormatDescriptionExtension_TransferFunction`, nil when the stream does not say.
    public var transferFunction: TransferFunction?
    /// `kCMFormatDescriptionExtension_YCbCrMatrix`, nil when the stream does not say.
    public var yCbCrMatrix: YCbCrMatrix?
    /// `kCMFormatDescriptionExtension_PixelAspectRatio`, nil when the stream does not say.
    public var pixelAspectRatio: PixelAspectRatio?
    /// `kCMFormatDescriptionExtension_FieldCount`: 1 for progressive, 2 for interlaced streams.
    public var fieldCount = 1
    /// `kCMFormatDescriptionExtension_ChromaLocationTopField` as `chroma_sample_loc_type`, nil
    /// when the stream does not say.
    public var chromaLocation: Int?
    /// `kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms`: the codec's
    /// configuration record (`avcC`, `hvcC`, `av1C` or `vpcC`; for MPEG-2 the sequence header)
    /// that describes the same stream.
    public var decoderConfigurationRecord: [UInt8] = []
    /// The name of ``decoderConfigurationRecord``: the sample description extension atom
    /// (`"avcC"`, `"hvcC"`, `"av1C"`, `"vpcC"`), or `"sequence header"` for MPEG-2; set by the
    /// description it belongs to from its codec, nil for VP8 and for extensions made by hand.
    public internal(set) var decoderConfigurationRecordName: String?
    /// `kCMFormatDescriptionExtension_MasteringDisplayColorVolume`: the mastering display the
    /// container states (MP4 `mdcv`, Matroska `MasteringMetadata`), nil when it states none.
    /// Pictures whose stream carries its own (an HEVC or H.264 SEI message, an AV1 metadata OBU)
    /// have that one attached instead (``ImageBufferAttachments/masteringDisplayColorVolume``).
    public var masteringDisplayColorVolume: MasteringDisplayColorVolume?
    /// `kCMFormatDescriptionExtension_ContentLightLevelInfo`: the content light level the
    /// container states (MP4 `clli`, Matroska `MaxCLL` and `MaxFALL`), nil when it states none.
    public var contentLightLevel: ContentLightLevel?
    /// `kCMFormatDescriptionExtension_AmbientViewingEnvironment`: the viewing environment the
    /// description states (set by the app; no container libavformat 5.1 reads carries one), nil
    /// when it states none. Pictures whose stream carries an `ambient_viewing_environment` SEI
    /// message have that one attached instead (``ImageBufferAttachments/ambientViewingEnvironment``).
    public var ambientViewingEnvironment: AmbientViewingEnvironment?
    /// `kCMFormatDescriptionExtension_AlternativeTransferCharacteristics`: the transfer a display
    /// that knows it should use instead of ``transferFunction`` (HLG for a stream whose video
    /// usability information says BT.2020 so that older displays show it as SDR), as the
    /// description states it (set by the app; no container carries one); nil when it states
    /// none. Pictures whose stream carries an `alternative_transfer_characteristics` SEI message
    /// have that one attached (``ImageBufferAttachments/alternativeTransferCharacteristics``).
    public var alternativeTransferCharacteristics: TransferFunction?
    /// `kCMFormatDescriptionExtension_ICCProfile`: the ICC colour profile the container states
    /// (an MP4 or QuickTime `colr` box of type `prof` or `rICC`, libavformat's
    /// `AV_PKT_DATA_ICC_PROFILE`), its bytes as they are; nil when it states none. Every picture
    /// has it attached (``ImageBufferAttachments/iccProfile``).
    public var iccProfile: [UInt8]?
    /// The Dolby Vision configuration record the container states (MP4 `dvcC`/`dvvC`/`dvwC`,
    /// Matroska's `BlockAdditionMapping`), kept by Apple under the box's name
    /// (``DolbyVisionConfiguration/boxType``) in
    /// `kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms`; nil when it states none.
    public var dolbyVisionConfiguration: DolbyVisionConfiguration?

    /// Creates empty extensions.
    public init() {}

    /// The extensions that are set, by CoreMedia's key without its prefix, each with a short
    /// value: `[FullRangeVideo: false, FieldCount: 2, ColorPrimaries: bt709, TransferFunction:
    /// bt709, YCbCrMatrix: bt709, PixelAspectRatio: 16:11, ChromaLocationTopField: Left,
    /// SampleDescriptionExtensionAtoms: avcC (42 bytes)]`. The record is summarised by its name
    /// and size, not listed byte by byte.
    public var description: String {
        var parts = ["FullRangeVideo: \(fullRangeVideo)", "FieldCount: \(fieldCount)"]
        if let colorPrimaries { parts.append("ColorPrimaries: \(colorPrimaries)") }
        if let transferFunction { parts.append("TransferFunction: \(transferFunction)") }
        if let yCbCrMatrix { parts.append("YCbCrMatrix: \(yCbCrMatrix)") }
        if let pixelAspectRatio { parts.append("PixelAspectRatio: \(pixelAspectRatio)") }
        if let chromaLocation {
            parts.append("ChromaLocationTopField: \(Self.chromaLocationNames[chromaLocation] ?? "\(chromaLocation)")")
        }
        if let masteringDisplayColorVolume {
            parts.append("MasteringDisplayColorVolume: \(masteringDisplayColorVolume)")
        }
        if let contentLightLevel { parts.append("ContentLightLevelInfo: \(contentLightLevel)") }
        if let ambientViewingEnvironment { parts.append("AmbientViewingEnvironment: \(ambientViewingEnvironment)") }
        if let alternativeTransferCharacteristics {
            parts.append("AlternativeTransferCharacteristics: \(alternativeTransferCharacteristics)")
        }
        if let iccProfile { parts.append("ICCProfile: \(iccProfile.count) bytes") }
        if !decoderConfigurationRecord.isEmpty {
            let size = "\(decoderConfigurationRecord.count) bytes"
            parts.append(
                "SampleDescriptionExtensionAtoms: " + (decoderConfigurationRecordName.map { "\($0) (\(size))" } ?? size)
            )
        }
        if let dolbyVisionConfiguration {
            parts.append(
                "SampleDescriptionExtensionAtoms: \(dolbyVisionConfiguration.boxType) (\(dolbyVisionConfiguration))")
        }
        return "[" + parts.joined(separator: ", ") + "]"
    }

    /// `chroma_sample_loc_type` → the suffix of CoreMedia's `kCMFormatDescriptionChromaLocation_…`
    /// (H.264 figure E-1).
    private static let chromaLocationNames = [
        0: "Left", 1: "Center", 2: "TopLeft", 3: "Top", 4: "BottomLeft", 5: "Bottom",
    ]
}

/// `kCMFormatDescriptionExtension_PixelAspectRatio`: the shape of a pixel.
public struct PixelAspectRatio: Sendable, Hashable, CustomStringConvertible {
    /// `kCMFormatDescriptionKey_PixelAspectRatioHorizontalSpacing`.
    public var horizontalSpacing: Int
    /// `kCMFormatDescriptionKey_PixelAspectRatioVerticalSpacing`.
    public var verticalSpacing: Int

    /// Creates a ratio.
    public init(horizontalSpacing: Int, verticalSpacing: Int) {
        self.horizontalSpacing = horizontalSpacing
        self.verticalSpacing = verticalSpacing
    }

    /// `"16:11"`.
    public var description: String { "\(horizontalSpacing):\(verticalSpacing)" }
}
