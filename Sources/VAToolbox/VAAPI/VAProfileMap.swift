/// A VA decode profile VAToolbox decodes through: one of libva's `VAProfile` values (``Display``
/// holds the numbering), named as FFmpeg's `vaapi_profile_map[]` names them.
enum HardwareProfile: CaseIterable, Sendable, Hashable {
    /// `VAProfileH264ConstrainedBaseline`.
    case h264ConstrainedBaseline
    /// `VAProfileH264Main`.
    case h264Main
    /// `VAProfileH264High`.
    case h264High
    /// `VAProfileHEVCMain`.
    case hevcMain
    /// `VAProfileHEVCMain10`.
    case hevcMain10
    /// `VAProfileAV1Profile0`.
    case av1Profile0
    /// `VAProfileVP9Profile0`.
    case vp9Profile0
    /// `VAProfileVP9Profile2`.
    case vp9Profile2
    /// `VAProfileVP8Version0_3`.
    case vp8
    /// `VAProfileMPEG2Simple`.
    case mpeg2Simple
    /// `VAProfileMPEG2Main`.
    case mpeg2Main
}

/// One row of the VA profile map: a VA decode profile and the streams it decodes. FFmpeg keeps
/// the same table (`vaapi_profile_map[]` in libavcodec/vaapi_decode.c: codec, codec profile, VA
/// profile); each row here adds the bit depths and chroma formats the profile decodes, and the
/// stream profiles it decodes as a containing profile (H.264 Main in High: libavcodec is then
/// told `AV_HWACCEL_FLAG_ALLOW_PROFILE_MISMATCH`).
struct VAProfileMapRow: Sendable {
    /// The codec.
    let codec: VideoCodecType
    /// The VA profile.
    let profile: HardwareProfile
    /// The stream profiles this VA profile is, in the codec's own numbering
    /// (`StreamProperties.profileIdc`: H.264 `profile_idc`, HEVC `general_profile_idc`, MPEG-2
    /// `profile_and_level_indication`'s profile, AV1 `seq_profile`); nil where the bit depth and
    /// chroma format alone choose the VA profile (VP8, VP9).
    let streamProfiles: Set<Int>?
    /// Stream profiles this VA profile also decodes, as one that contains them.
    let containedProfiles: Set<Int>
    /// The bit depths it decodes.
    let bitDepths: ClosedRange<Int>
    /// The chroma formats it decodes (`chroma_format_idc`: 0 monochrome, 1 4:2:0).
    let chromaFormats: Set<Int>
    /// What it decodes, for messages: `"Main 10 (8- and 10-bit 4:2:0)"`.
    let summary: String

    /// Whether the row decodes `stream` as its own profile.
    func isOwnProfile(of stream: StreamProperties) -> Bool {
        streamProfiles.map { $0.contains(stream.profileIdc) } ?? true
    }

    /// Whether the row's profile numbers take the stream's profile, its own or a contained one.
    func takesProfile(of stream: StreamProperties) -> Bool {
        isOwnProfile(of: stream) || containedProfiles.contains(stream.profileIdc)
    }

    /// Whether the row decodes `stream`'s profile, bit depth and chroma format.
    func decodes(_ stream: StreamProperties) -> Bool {
        takesProfile(of: stream) && bitDepths.contains(max(stream.bitDepthLuma, stream.bitDepthChroma))
            && chromaFormats.contains(stream.chromaFormatIdc)
    }
}

/// The VA profiles VAToolbox decodes through, and which streams each decodes.
enum VAProfileMap {
    /// Every row, each codec's rows best first (its own profile before the ones that contain it).
    static let rows: [VAProfileMapRow] = [
        row(.h264, .h264ConstrainedBaseline, [66], [], 8...8, [0, 1], "Constrained Baseline"),
        row(.h264, .h264Main, [77], [66], 8...8, [0, 1], "Main"),
        row(.h264, .h264High, [100], [66, 77], 8...8, [0, 1], "High"),
        row(.hevc, .hevcMain, [1], [], 8...8, [1], "Main (8-bit 4:2:0)"),
        row(.hevc, .hevcMain10, [2], [1], 8...10, [1], "Main 10 (8- and 10-bit 4:2:0)"),
        row(.av1, .av1Profile0, [0], [], 8...10, [1], "Main (8- and 10-bit 4:2:0)"),
        row(.vp9, .vp9Profile0, nil, [], 8...8, [1], "Profile 0 (8-bit 4:2:0)"),
        row(.vp9, .vp9Profile2, nil, [], 10...10, [1], "Profile 2 (10-bit 4:2:0)"),
        row(.vp8, .vp8, nil, [], 8...8, [1], "VP8"),
        // MPEG-2's profile_and_level_indication profiles (ISO/IEC 13818-2 table 8-2, as libavcodec
        // counts them): 5 Simple, 4 Main.
        row(.mpeg2Video, .mpeg2Simple, [5], [], 8...8, [1], "Simple (4:2:0)"),
        row(.mpeg2Video, .mpeg2Main, [4], [5], 8...8, [1], "Main (4:2:0)"),
    ]

    private static func row(
        _ codec: VideoCodecType, _ profile: HardwareProfile, _ own: Set<Int>?, _ contained: Set<Int>,
        _ depths: ClosedRange<Int>, _ chroma: Set<Int>, _ summary: String
    ) -> VAProfileMapRow {
        VAProfileMapRow(
            codec: codec, profile: profile, streamProfiles: own, containedProfiles: contained, bitDepths: depths,
            chromaFormats: chroma, summary: summary)
    }

    /// The VA profiles that decode `format`, best first (its own profile, then those that contain
    /// it), or why there are none.
    static func candidates(for format: VideoFormatDescription) -> Result<[HardwareProfile], VTError> {
        if let refusal = format.codecSupport.hardwareDecodeRefusal(for: format) { return .failure(refusal) }
        let stream = format.stream
        let codecRows = rows.filter { $0.codec == format.codecType }
        let decoding = codecRows.filter { $0.decodes(stream) }
        guard decoding.isEmpty else {
            return .success(
                decoding.filter { $0.isOwnProfile(of: stream) }.map(\.profile)
                    + decoding.filter { !$0.isOwnProfile(of: stream) }.map(\.profile))
        }
        // The profile number alone rules a stream out ("H.264 High 10"); else its depth or chroma.
        let detail =
            codecRows.contains { $0.takesProfile(of: stream) }
            ? " \(max(stream.bitDepthLuma, stream.bitDepthChroma))-bit \(stream.chromaFormatName)" : ""
        let decodable = codecRows.map(\.summary).joined(separator: ", ")
        return .failure(
            VTError.couldNotFindVideoDecoder.with(
                "\(format.codecType.name) \(stream.profileName)\(detail) has no VA-API decode profile (VA-API decodes "
                    + "\(decodable))"))
    }

    /// Whether `profile` is the stream's own profile rather than one that contains it.
    static func isExact(_ profile: HardwareProfile, for format: VideoFormatDescription) -> Bool {
        rows.first { $0.profile == profile }?.isOwnProfile(of: format.stream) ?? false
    }
}
