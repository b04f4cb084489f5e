import Testing

@testable import VAToolbox

/// Checks a format description against the fields ffprobe printed for the same stream.
///
/// The mapping from ffprobe's words to numbers is written here, independently of the library's
/// own name tables.
enum OracleExpectations {
    /// ffprobe's `pix_fmt` → (chroma_format_idc, bit depth, full range).
    static let pixelFormats: [String: (chroma: Int, depth: Int, fullRange: Bool)] = [
        "yuv420p": (1, 8, false), "yuvj420p": (1, 8, true), "yuv422p": (2, 8, false), "yuvj422p": (2, 8, true),
        "yuv444p": (3, 8, false), "yuvj444p": (3, 8, true), "gray": (0, 8, false),
        "yuv420p10le": (1, 10, false), "yuv422p10le": (2, 10, false), "yuv444p10le": (3, 10, false),
        "yuv420p12le": (1, 12, false), "yuv422p12le": (2, 12, false), "yuv444p12le": (3, 12, false),
        "gray10le": (0, 10, false), "gray12le": (0, 12, false), "yuv420p9le": (1, 9, false),
        "yuv422p9le": (2, 9, false), "yuv444p9le": (3, 9, false), "yuv444p14le": (3, 14, false),
        // 4:4:0 has no chroma_format_idc: VAToolbox's own number for it.
        "yuv440p": (4, 8, false), "yuv440p10le": (4, 10, false), "yuv440p12le": (4, 12, false),
    ]

    /// ffprobe's `color_primaries` / `color_transfer` / `color_space` names → H.273 code points.
    static let primaries: [String: Int] = [
        "bt709": 1, "bt470m": 4, "bt470bg": 5, "smpte170m": 6, "smpte240m": 7, "film": 8, "bt2020": 9,
    ]
    static let transfers: [String: Int] = [
        "bt709": 1, "gamma22": 4, "gamma28": 5, "smpte170m": 6, "smpte240m": 7, "linear": 8,
        "iec61966-2-1": 13, "bt2020-10": 14, "bt2020-12": 15, "smpte2084": 16, "arib-std-b67": 18,
    ]
    static let matrices: [String: Int] = [
        "gbr": 0, "bt709": 1, "fcc": 4, "bt470bg": 5, "smpte170m": 6, "smpte240m": 7, "ycgco": 8, "bt2020nc": 9,
    ]

    /// Compares everything a format description says with ffprobe's stream fields.
    static func check(_ format: VideoFormatDescription, against oracle: FFprobeOracle, _ name: String) {
        let stream = oracle.stream
        // ffprobe leaves out a profile libavcodec does not know (an MPEG-2 stream without a
        // sequence extension, VCR2); VAToolbox calls it unknown.
        #expect((stream["profile"] ?? "unknown") == format.stream.profileName, "\(name): profile")
        if stream["level"] == "-99" {
            // FF_LEVEL_UNKNOWN: VP8 and VP9 streams state no level.
            #expect(format.stream.levelName == "unknown", "\(name): level")
        } else {
            #expect(stream["level"] == "\(format.stream.levelIdc)", "\(name): level")
        }
        #expect(stream["width"] == "\(format.dimensions.width)", "\(name): width after cropping")
        #expect(stream["height"] == "\(format.dimensions.height)", "\(name): height after cropping")
        // With -count_frames ffprobe reports the coded size of the last frame it decoded: the
        // description's (the first frame's) only when the frames keep one size.
        if Set(oracle.frameSizes).count <= 1 {
            #expect(stream["coded_width"] == "\(format.codedDimensions.width)", "\(name): coded width")
            #expect(stream["coded_height"] == "\(format.codedDimensions.height)", "\(name): coded height")
        }
        if let pixelFormat = stream["pix_fmt"], let expected = pixelFormats[pixelFormat] {
            // libavcodec decodes monochrome H.264 as 4:2:0 with grey chroma.
            let chroma =
                format.codecType == .h264 && format.stream.chromaFormatIdc == 0 ? 1 : format.stream.chromaFormatIdc
            #expect(chroma == expected.chroma, "\(name): chroma format for \(pixelFormat)")
            #expect(format.stream.bitDepthLuma == expected.depth, "\(name): bit depth for \(pixelFormat)")
        } else {
            Issue.record("\(name): ffprobe pix_fmt \(stream["pix_fmt"] ?? "none") is not in the test's table")
        }
        let ext = format.extensions
        #expect((stream["color_range"] == "pc") == ext.fullRangeVideo, "\(name): colour range")
        check(
            stream["color_primaries"], table: primaries, ext.colorPrimaries.map { Int($0.rawValue) },
            "\(name): primaries")
        // libavcodec reports the transfer an alternative_transfer_characteristics SEI message
        // prefers in the parameter sets' place; the description keeps the parameter sets' (as
        // Apple's does: ColourSignallingTests checks both against trace_headers).
        let statesAlternativeTransfer = name.hasSuffix("hevc-alternative-transfer.265")
        check(
            statesAlternativeTransfer ? "bt2020-10" : stream["color_transfer"], table: transfers,
            ext.transferFunction.map { Int($0.rawValue) }, "\(name): transfer")
        check(stream["color_space"], table: matrices, ext.yCbCrMatrix.map { Int($0.rawValue) }, "\(name): matrix")
        if let sar = stream["sample_aspect_ratio"], sar != "0:1", sar != "1:1" {
            let parts = sar.split(separator: ":").compactMap { Int($0) }
            let ours = ext.pixelAspectRatio.map { reduce($0.horizontalSpacing, $0.verticalSpacing) }
            #expect(ours.map { [$0.0, $0.1] } == parts, "\(name): sample aspect ratio")
        } else if let ratio = ext.pixelAspectRatio {
            #expect(ratio.horizontalSpacing == ratio.verticalSpacing, "\(name): ffprobe has no SAR, ours is \(ratio)")
        }
        if let fieldOrder = stream["field_order"], ["tt", "bb", "tb", "bt"].contains(fieldOrder) {
            #expect(format.stream.mayBeInterlaced, "\(name): ffprobe reports \(fieldOrder) fields")
            #expect(ext.fieldCount == 2)
        }
    }

    private static func check(_ ffprobeName: String?, table: [String: Int], _ ours: Int?, _ label: String) {
        guard let ffprobeName, ffprobeName != "unknown" else {
            #expect(ours == nil || ours == 2, "\(label): ffprobe says unknown, ours is \(ours ?? -1)")
            return
        }
        guard let expected = table[ffprobeName] else {
            Issue.record("\(label): ffprobe name \(ffprobeName) is not in the test's table")
            return
        }
        #expect(ours == expected, "\(label): ffprobe \(ffprobeName)")
    }

    static func reduce(_ a: Int, _ b: Int) -> (Int, Int) {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x == 0 ? (a, b) : (a / x, b / x)
    }
}
