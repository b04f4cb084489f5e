/// A video codec, identified by its FourCC (`CMVideoCodecType`).
public struct VideoCodecType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The FourCC packed big-endian into 32 bits, as CoreMedia stores it.
    public let rawValue: UInt32

    /// Creates a codec type from a packed FourCC.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Creates a codec type from a four-character string such as `"avc1"`.
    ///
    /// - Precondition: `fourCC` has exactly four ASCII characters.
    public init(fourCC: StaticString) {
        self.rawValue = FourCC.pack(fourCC)
    }

    /// H.264 / AVC, `'avc1'` (`kCMVideoCodecType_H264`).
    public static let h264 = VideoCodecType(fourCC: "avc1")
    /// HEVC / H.265, `'hvc1'` (`kCMVideoCodecType_HEVC`).
    public static let hevc = VideoCodecType(fourCC: "hvc1")
    /// AV1, `'av01'` (`kCMVideoCodecType_AV1`).
    public static let av1 = VideoCodecType(fourCC: "av01")
    /// VP9, `'vp09'` (`kCMVideoCodecType_VP9`).
    public static let vp9 = VideoCodecType(fourCC: "vp09")
    /// VP8, `'vp08'` (the sample entry name of VP8 in ISOBMFF; CoreMedia has no constant).
    public static let vp8 = VideoCodecType(fourCC: "vp08")
    /// MPEG-2 video (H.262), `'mp2v'` (`kCMVideoCodecType_MPEG2Video`).
    public static let mpeg2Video = VideoCodecType(fourCC: "mp2v")

    /// The four characters, for example `"avc1"`.
    public var fourCC: String { FourCC.string(rawValue) }

    /// The FourCC: `"avc1"`, `"hvc1"`, `"av01"`, `"vp09"`, `"vp08"`, `"mp2v"`.
    public var description: String { fourCC }
}

/// Packing and printing of four-character codes.
enum FourCC {
    /// Packs four ASCII characters big-endian: `"avc1"` → `0x61766331`.
    static func pack(_ text: StaticString) -> UInt32 {
        precondition(text.utf8CodeUnitCount == 4, "a FourCC has four characters")
        return text.withUTF8Buffer { $0.reduce(0) { ($0 << 8) | UInt32($1) } }
    }

    /// The four characters of a packed code; bytes outside printable ASCII print as `?`.
    static func string(_ code: UInt32) -> String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: code >> (24 - 8 * UInt32($0))) }
        return String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}
