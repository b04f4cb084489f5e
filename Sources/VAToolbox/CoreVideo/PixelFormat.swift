/// A pixel format, named by its CoreVideo FourCC (`OSType`, `kCVPixelFormatType_…`).
///
/// Apple's constants cover what VideoToolbox outputs; the decoder here also emits planar
/// high-bit-depth formats CoreVideo has no constant for. Those get FourCCs of this library
/// (documented on each constant) so that every format the decoder can produce has a name.
public struct PixelFormat: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The FourCC packed big-endian, as CoreVideo stores it.
    public let rawValue: UInt32
    /// Wraps a packed FourCC.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Creates a format from its four characters, for example `"420v"`.
    public init(fourCC: StaticString) { self.rawValue = FourCC.pack(fourCC) }

    /// `'y420'` (`kCVPixelFormatType_420YpCbCr8Planar`): I420, video range.
    public static let yuv420Planar = PixelFormat(fourCC: "y420")
    /// `'f420'` (`kCVPixelFormatType_420YpCbCr8PlanarFullRange`): I420, full range.
    public static let yuv420PlanarFullRange = PixelFormat(fourCC: "f420")
    /// `'420v'` (`kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange`): NV12.
    public static let nv12VideoRange = PixelFormat(fourCC: "420v")
    /// `'420f'` (`kCVPixelFormatType_420YpCbCr8BiPlanarFullRange`): NV12, full range.
    public static let nv12FullRange = PixelFormat(fourCC: "420f")
    /// `'x420'` (`kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange`): P010, 10 significant bits high.
    public static let p010VideoRange = PixelFormat(fourCC: "x420")
    /// `'xf20'` (`kCVPixelFormatType_420YpCbCr10BiPlanarFullRange`): P010, full range.
    public static let p010FullRange = PixelFormat(fourCC: "xf20")
    /// `'422v'` (`kCVPixelFormatType_422YpCbCr8BiPlanarVideoRange`): NV16.
    public static let nv16VideoRange = PixelFormat(fourCC: "422v")
    /// `'x422'` (`kCVPixelFormatType_422YpCbCr10BiPlanarVideoRange`): P210.
    public static let p210VideoRange = PixelFormat(fourCC: "x422")
    /// `'444v'` (`kCVPixelFormatType_444YpCbCr8BiPlanarVideoRange`): NV24.
    public static let nv24VideoRange = PixelFormat(fourCC: "444v")
    /// `'x444'` (`kCVPixelFormatType_444YpCbCr10BiPlanarVideoRange`): P410.
    public static let p410VideoRange = PixelFormat(fourCC: "x444")
    /// `'BGRA'` (`kCVPixelFormatType_32BGRA`): packed B, G, R, A bytes.
    public static let bgra = PixelFormat(fourCC: "BGRA")
    /// `0x00000018` (`kCVPixelFormatType_24RGB`, whose FourCC is the number 24): packed R, G, B
    /// bytes (FFmpeg `rgb24`), what ``PixelBuffer/pngData()`` encodes.
    public static let rgb24 = PixelFormat(rawValue: 0x18)

    /// `'y422'` (VAToolbox; CoreVideo has none): planar 4:2:2, 8 bits (FFmpeg `yuv422p`).
    public static let yuv422Planar = PixelFormat(fourCC: "y422")
    /// `'y444'` (VAToolbox): planar 4:4:4, 8 bits (FFmpeg `yuv444p`).
    public static let yuv444Planar = PixelFormat(fourCC: "y444")
    /// `'Y800'` (VAToolbox): luma only, 8 bits (FFmpeg `gray`).
    public static let gray8 = PixelFormat(fourCC: "Y800")
    /// `'y0l0'` (VAToolbox): planar 4:2:0, 10 bits in the low bits of little-endian 16-bit words
    /// (FFmpeg `yuv420p10le`), the native output of 10-bit H.264, HEVC, AV1 and VP9 decoding.
    public static let yuv420Planar10 = PixelFormat(fourCC: "y0l0")
    /// `'y2l0'` (VAToolbox): planar 4:2:2, 10 bits low, little-endian (FFmpeg `yuv422p10le`).
    public static let yuv422Planar10 = PixelFormat(fourCC: "y2l0")
    /// `'y4l0'` (VAToolbox): planar 4:4:4, 10 bits low, little-endian (FFmpeg `yuv444p10le`).
    public static let yuv444Planar10 = PixelFormat(fourCC: "y4l0")
    /// `'y0l2'` (VAToolbox): planar 4:2:0, 12 bits low, little-endian (FFmpeg `yuv420p12le`), the
    /// native output of 12-bit HEVC, VP9 and AV1 decoding.
    public static let yuv420Planar12 = PixelFormat(fourCC: "y0l2")
    /// `'y2l2'` (VAToolbox): planar 4:2:2, 12 bits low, little-endian (FFmpeg `yuv422p12le`).
    public static let yuv422Planar12 = PixelFormat(fourCC: "y2l2")
    /// `'y4l2'` (VAToolbox): planar 4:4:4, 12 bits low, little-endian (FFmpeg `yuv444p12le`).
    public static let yuv444Planar12 = PixelFormat(fourCC: "y4l2")
    /// `'Y010'` (VAToolbox): luma only, 10 bits low, little-endian (FFmpeg `gray10le`).
    public static let gray10 = PixelFormat(fourCC: "Y010")
    /// `'y440'` (VAToolbox): planar 4:4:0, 8 bits (FFmpeg `yuv440p`): chroma planes of the full
    /// width and half the height, the native output of VP9 4:4:0 decoding.
    public static let yuv440Planar = PixelFormat(fourCC: "y440")
    /// `'yvl0'` (VAToolbox): planar 4:4:0, 10 bits low, little-endian (FFmpeg `yuv440p10le`);
    /// `v` for chroma halved vertically only.
    public static let yuv440Planar10 = PixelFormat(fourCC: "yvl0")
    /// `'yvl2'` (VAToolbox): planar 4:4:0, 12 bits low, little-endian (FFmpeg `yuv440p12le`).
    public static let yuv440Planar12 = PixelFormat(fourCC: "yvl2")

    /// The four characters, for example `"420v"`.
    public var fourCC: String { FourCC.string(rawValue) }
    /// `"'420v'"`; a code that is a number rather than four characters (``rgb24``) in hex,
    /// `"0x00000018"`.
    public var description: String {
        let text = fourCC
        guard text.contains("?") else { return "'\(text)'" }
        let digits = String(rawValue, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The FFmpeg pixel layouts behind each FourCC, with the range the FourCC implies.
    /// Full-range 8-bit planar output of libavcodec (`yuvj420p`) maps to `'f420'`.
    static let ffmpegTable: [(format: PixelFormat, ffmpeg: PixelLayout, fullRange: Bool?)] = [
        (.yuv420Planar, .yuv420p, false), (.yuv420PlanarFullRange, .yuvj420p, true),
        (.yuv420PlanarFullRange, .yuv420p, true), (.nv12VideoRange, .nv12, false), (.nv12FullRange, .nv12, true),
        (.p010VideoRange, .p010le, false), (.p010FullRange, .p010le, true), (.nv16VideoRange, .nv16, nil),
        (.p210VideoRange, .p210le, nil), (.nv24VideoRange, .nv24, nil), (.p410VideoRange, .p410le, nil),
        (.bgra, .bgra, nil), (.rgb24, .rgb24, nil), (.yuv422Planar, .yuv422p, nil), (.yuv422Planar, .yuvj422p, nil),
        (.yuv444Planar, .yuv444p, nil), (.yuv444Planar, .yuvj444p, nil), (.gray8, .gray8, nil),
        (.yuv420Planar10, .yuv420p10le, nil), (.yuv422Planar10, .yuv422p10le, nil),
        (.yuv444Planar10, .yuv444p10le, nil), (.yuv420Planar12, .yuv420p12le, nil),
        (.yuv422Planar12, .yuv422p12le, nil), (.yuv444Planar12, .yuv444p12le, nil), (.gray10, .gray10le, nil),
        (.yuv440Planar, .yuv440p, nil), (.yuv440Planar, .yuvj440p, nil), (.yuv440Planar10, .yuv440p10le, nil),
        (.yuv440Planar12, .yuv440p12le, nil),
    ]

    /// The format of a decoded FFmpeg frame, or nil for one this library has no name for.
    static func from(ffmpeg: PixelLayout, fullRange: Bool) -> PixelFormat? {
        ffmpegTable.first { $0.ffmpeg == ffmpeg && ($0.fullRange == nil || $0.fullRange == fullRange) }?.format
    }

    /// The FFmpeg pixel layout that holds this format's samples.
    var ffmpeg: PixelLayout? { Self.ffmpegTable.first { $0.format == self }?.ffmpeg }

    /// The FFmpeg name, for example `"yuv420p"`, as `ffmpeg -pix_fmt` takes it.
    public var ffmpegName: String? { ffmpeg?.name }
}
