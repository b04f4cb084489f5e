internal import CVAAPI

/// One decode profile a VA-API driver offers (a `VAProfile` with the `VAEntrypointVLD` entry point).
public struct HardwareDecodeProfile: Sendable, Hashable, CustomStringConvertible {
    /// The codec.
    public let codec: VideoCodecType
    /// libva's name without its prefix: `"H264High"`, `"HEVCMain10"`.
    public let name: String
    /// The `VAProfile` value.
    public let vaProfile: Int32
    /// The largest picture the driver decodes in this profile.
    public let maximumWidth: Int
    /// The largest picture height the driver decodes in this profile.
    public let maximumHeight: Int
    /// Whether the driver decodes 8-bit 4:2:0 (`VA_RT_FORMAT_YUV420`) in this profile.
    public let decodes8Bit420: Bool
    /// Whether the driver decodes 10-bit 4:2:0 (`VA_RT_FORMAT_YUV420_10`) in this profile.
    public let decodes10Bit420: Bool
    /// Why the profile is listed but cannot be used (creating a decode configuration failed);
    /// nil when it works.
    public let unusableReason: String?

    /// `"HEVCMain10 up to 8192x8192, 4:2:0 8/10-bit"`.
    public var description: String {
        let depths = [decodes8Bit420 ? "8" : nil, decodes10Bit420 ? "10" : nil].compactMap { $0 }
        let formats = depths.isEmpty ? "no 4:2:0 format" : "4:2:0 \(depths.joined(separator: "/"))-bit"
        let limits = "\(name) up to \(maximumWidth)x\(maximumHeight), \(formats)"
        return unusableReason.map { "\(limits) (unusable: \($0))" } ?? limits
    }
}

/// What a VA-API driver can decode, queried once when its display is opened.
public struct HardwareCapabilities: Sendable, Hashable {
    /// The decode profiles of H.264 and HEVC that libavcodec's VA-API hwaccel can drive, in
    /// libva's order.
    public let decodeProfiles: [HardwareDecodeProfile]

    /// The VA profiles VAToolbox can decode through, and their codec.
    static let knownProfiles: [(VAProfile, VideoCodecType)] = [
        (VAProfileH264ConstrainedBaseline, .h264), (VAProfileH264Main, .h264), (VAProfileH264High, .h264),
        (VAProfileHEVCMain, .hevc), (VAProfileHEVCMain10, .hevc),
    ]

    /// Whether some usable profile decodes `codec`.
    public func decodes(_ codec: VideoCodecType) -> Bool {
        decodeProfiles.contains { $0.codec == codec && $0.unusableReason == nil }
    }

    /// The profile to decode a stream with, or why there is none.
    ///
    /// H.264 Baseline is decoded as Constrained Baseline when `constraint_set1_flag` says the
    /// stream uses none of Baseline's extra tools (FMO, ASO, redundant slices); a profile the
    /// driver lacks is replaced by one that contains it (Constrained Baseline ⊂ Main ⊂ High,
    /// HEVC Main ⊂ Main 10). Only 4:2:0 at 8 bits (10 for HEVC Main 10) within the driver's
    /// size limits is accepted.
    func profile(for format: VideoFormatDescription) -> Result<HardwareDecodeProfile, VTError> {
        let stream = format.stream
        let wanted: [VAProfile]
        switch format.codecType {
        case .h264:
            switch stream.profileIdc {
            case 66 where stream.profileName == "Constrained Baseline":  // constraint_set1_flag
                wanted = [VAProfileH264ConstrainedBaseline, VAProfileH264Main, VAProfileH264High]
            case 66:
                return .failure(
                    Self.unsupported(
                        "H.264 Baseline without constraint_set1_flag may use FMO/ASO, which VA-API does not decode"))
            case 77: wanted = [VAProfileH264Main, VAProfileH264High]
            case 100: wanted = [VAProfileH264High]
            default:
                return .failure(
                    Self.unsupported(
                        "H.264 \(stream.profileName) has no VA-API decode profile (VA-API decodes Constrained "
                            + "Baseline, Main and High)"))
            }
        case .hevc:
            switch stream.profileIdc {
            case 1 where stream.bitDepthLuma == 8: wanted = [VAProfileHEVCMain, VAProfileHEVCMain10]
            case 2: wanted = [VAProfileHEVCMain10]
            default:
                return .failure(
                    Self.unsupported(
                        "HEVC \(stream.profileName) has no VA-API decode profile libavcodec can use (Main and "
                            + "Main 10)"))
            }
        default:
            return .failure(Self.unsupported("VA-API decoding in VAToolbox covers H.264 and HEVC"))
        }
        let bitDepth = max(stream.bitDepthLuma, stream.bitDepthChroma)
        let chroma = format.codecType == .h264 && stream.chromaFormatIdc == 0 ? 1 : stream.chromaFormatIdc
        guard chroma == 1, bitDepth == 8 || (bitDepth == 10 && format.codecType == .hevc) else {
            return .failure(
                Self.unsupported("\(bitDepth)-bit \(stream.chromaFormatName) is not decoded by VA-API here"))
        }
        let candidates = wanted.compactMap { profile in decodeProfiles.first { $0.vaProfile == profile.rawValue } }
        guard let listed = candidates.first else {
            return .failure(
                Self.unsupported(
                    "the driver offers no VA profile for \(format.codecType) \(stream.profileName) (it decodes "
                        + (decodeProfiles.map(\.name).joined(separator: ", ").nonEmpty ?? "nothing") + ")"))
        }
        guard let usable = candidates.first(where: { $0.unusableReason == nil }) else {
            return .failure(Self.unsupported("VA profile \(listed.name) is unusable: \(listed.unusableReason ?? "")"))
        }
        guard bitDepth == 8 ? usable.decodes8Bit420 : usable.decodes10Bit420 else {
            return .failure(Self.unsupported("the driver's \(usable.name) does not decode \(bitDepth)-bit 4:2:0"))
        }
        let size = format.codedDimensions
        guard size.width <= usable.maximumWidth, size.height <= usable.maximumHeight else {
            return .failure(
                Self.unsupported(
                    "\(size.width)x\(size.height) exceeds the driver's \(usable.name) limit of "
                        + "\(usable.maximumWidth)x\(usable.maximumHeight)"))
        }
        return .success(usable)
    }

    private static func unsupported(_ reason: String) -> VTError {
        VTError.couldNotFindVideoDecoder.with(reason)
    }
}

extension String {
    /// Nil for the empty string.
    var nonEmpty: String? { isEmpty ? nil : self }
}
