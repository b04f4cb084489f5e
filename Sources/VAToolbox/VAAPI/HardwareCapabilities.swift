/// One decode profile a VA-API driver offers (a `VAProfile` with the `VAEntrypointVLD` entry point).
public struct HardwareDecodeProfile: Sendable, Hashable, CustomStringConvertible {
    /// The codec.
    public let codec: VideoCodecType
    /// libva's name without its prefix: `"H264High"`, `"HEVCMain10"`.
    public let name: String
    /// The VA profile (internal: no C value in the public API; ``name`` is libva's).
    let profile: HardwareProfile
    /// The narrowest picture the driver decodes in this profile (`VASurfaceAttribMinWidth`; 1
    /// when the driver does not say).
    public let minimumWidth: Int
    /// The lowest picture height the driver decodes in this profile (`VASurfaceAttribMinHeight`).
    public let minimumHeight: Int
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
    /// The decode profiles of the codecs VAToolbox knows that libavcodec's VA-API hwaccel can
    /// drive, in libva's order.
    public let decodeProfiles: [HardwareDecodeProfile]

    /// The VA profiles VAToolbox can decode through, and their codec: the rows of
    /// ``VAProfileMap``.
    static var knownProfiles: [(HardwareProfile, VideoCodecType)] {
        VAProfileMap.rows.map { ($0.profile, $0.codec) }
    }

    /// Whether some usable profile decodes `codec`.
    public func decodes(_ codec: VideoCodecType) -> Bool {
        decodeProfiles.contains { $0.codec == codec && $0.unusableReason == nil }
    }

    /// The profile to decode a stream with, or why there is none.
    ///
    /// The codec's support names the VA profiles that decode the stream, best first (a profile
    /// the driver lacks may be replaced by one that contains it); the first the driver lists
    /// and can use wins, when it decodes the stream's bit depth in 4:2:0 within its size limits.
    func profile(for format: VideoFormatDescription) -> Result<HardwareDecodeProfile, VTError> {
        let stream = format.stream
        let wanted: [HardwareProfile]
        switch VAProfileMap.candidates(for: format) {
        case .success(let profiles): wanted = profiles
        case .failure(let error): return .failure(error)
        }
        let bitDepth = max(stream.bitDepthLuma, stream.bitDepthChroma)
        let candidates = wanted.compactMap { profile in decodeProfiles.first { $0.profile == profile } }
        guard let listed = candidates.first else {
            return .failure(
                Self.unsupported(
                    "the driver offers no VA profile for \(format.codecType) \(stream.profileName) (it "
                        + "decodes " + (decodeProfiles.map(\.name).joined(separator: ", ").nonEmpty ?? "nothing") + ")")
            )
        }
        guard let usable = candidates.first(where: { $0.unusableReason == nil }) else {
            return .failure(Self.unsupported("VA profile \(listed.name) is unusable: \(listed.unusableReason ?? "")"))
        }
        guard bitDepth == 8 ? usable.decodes8Bit420 : usable.decodes10Bit420 else {
            return .failure(Self.unsupported("the driver's \(usable.name) does not decode \(bitDepth)-bit 4:2:0"))
        }
        let size = format.codedDimensions
        guard size.width >= usable.minimumWidth, size.height >= usable.minimumHeight else {
            return .failure(
                Self.unsupported(
                    "\(size.width)x\(size.height) is below the driver's \(usable.name) minimum of "
                        + "\(usable.minimumWidth)x\(usable.minimumHeight)"))
        }
        guard size.width <= usable.maximumWidth, size.height <= usable.maximumHeight else {
            return .failure(
                Self.unsupported(
                    "\(size.width)x\(size.height) exceeds the driver's \(usable.name) limit of "
                        + "\(usable.maximumWidth)x\(usable.maximumHeight)"))
        }
        return .success(usable)
    }

    /// What the driver on `display` decodes, of the profiles VAToolbox knows (asked once, when
    /// the display is opened).
    static func query(_ display: Display) -> HardwareCapabilities {
        guard let listed = display.listedProfiles() else { return HardwareCapabilities(decodeProfiles: []) }
        var decodeProfiles: [HardwareDecodeProfile] = []
        for (profile, codec) in knownProfiles where listed.contains(profile) {
            guard display.decodes(profile) else { continue }
            decodeProfiles.append(HardwareDecodeProfile(display, profile, codec))
        }
        return HardwareCapabilities(decodeProfiles: decodeProfiles)
    }

    private static func unsupported(_ reason: String) -> VTError {
        VTError.couldNotFindVideoDecoder.with(reason)
    }
}

extension HardwareDecodeProfile {
    /// What the driver on `display` says of `profile`: its formats and size limits, and whether
    /// a decode configuration can be made.
    fileprivate init(_ display: Display, _ profile: HardwareProfile, _ codec: VideoCodecType) {
        let attributes = display.decodeAttributes(profile)
        let formats = attributes.formats ?? []
        var maximumWidth = attributes.maximumWidth ?? 0
        var maximumHeight = attributes.maximumHeight ?? 0
        var minimumSize = (width: 1, height: 1)
        var unusable: String?
        switch display.createConfig(profile) {
        case .success(let config):
            let limits = display.surfaceLimits(config)
            maximumWidth = limits.maximum.width ?? maximumWidth
            maximumHeight = limits.maximum.height ?? maximumHeight
            minimumSize = (limits.minimum.width ?? 1, limits.minimum.height ?? 1)
            display.destroyConfig(config)
        case .failure(let failure):
            unusable = "\(failure.cause)"
        }
        self.init(
            codec: codec, name: display.name(of: profile), profile: profile, minimumWidth: minimumSize.width,
            minimumHeight: minimumSize.height, maximumWidth: maximumWidth, maximumHeight: maximumHeight,
            decodes8Bit420: formats.contains(.yuv420), decodes10Bit420: formats.contains(.yuv420TenBit),
            unusableReason: unusable)
    }
}

extension String {
    /// Nil for the empty string.
    var nonEmpty: String? { isEmpty ? nil : self }
}
