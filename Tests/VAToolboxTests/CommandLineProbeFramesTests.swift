import Foundation
import Testing

@testable import VAToolbox

/// `vatoolbox probe --frames --json` (Docs/CLI.md, "probe --frames"): each picture's fields and
/// side data against `ffprobe -show_frames` run on the same file, frame for frame; on the test VA
/// driver, the same output as on the CPU.
@Suite("vatoolbox probe --frames", .enabled(if: CommandRunner.hasTool))
struct ProbeFramesCommandTests {
    /// Every fixture with an ffprobe oracle (the HDR fixtures, the interlaced ones — MPEG-2 field
    /// pictures, H.264 MBAFF and PAFF —, B-frames in every container and raw, each codec), but
    /// the two whose damaged samples the library skips where libavcodec makes a picture of them
    /// (their frame counts differ by design; the decode tests cover them).
    static let fixtures = StreamsOracle.fixtures.filter {
        !["h264-damaged.mp4", "h264-truncated-faststart.mp4"].contains($0)
    }

    /// ffprobe's frame fields `probe --frames` writes, each compared present-or-absent and by
    /// value.
    static let fields = [
        "media_type", "stream_index", "key_frame", "pts", "pts_time", "width", "height", "sample_aspect_ratio",
        "pict_type", "interlaced_frame",
        "top_field_first", "color_range", "color_space", "color_primaries", "color_transfer", "chroma_location",
    ]

    /// The side data types VAToolbox lists; ffprobe's others (an H.264 stream's "H.26[45] User Data
    /// Unregistered SEI message", MPEG-2's "Pan scan", the "Dolby Vision Metadata" libavcodec parses
    /// from an RPU …) are not compared.
    static let sideDataTypes: Set = [
        "Mastering display metadata", "Content light level metadata", "HDR Dynamic Metadata SMPTE2094-40 (HDR10+)",
        "Dolby Vision RPU Data",
    ]

    /// Side data VAToolbox reads where FFmpeg 5.1 exports none, so that ffprobe 5.1 lists none,
    /// by fixture: H.264's mastering display and content light level SEI messages (libavcodec
    /// reads them from FFmpeg 6.1 on) and a WebM block's HDR10+ `BlockAdditional` (which 5.1's
    /// Matroska demuxer does not read). `probe --frames` lists them on every frame.
    static let beyondFFmpeg51: [String: Set<String>] = [
        "h264-sei-hdr.264": ["Mastering display metadata", "Content light level metadata"],
        "vp9-hdr10plus.webm": ["HDR Dynamic Metadata SMPTE2094-40 (HDR10+)"],
    ]

    /// `probe --frames --json FILE` and its `frames`.
    static func ours(
        _ file: String, _ arguments: [String] = ["--hwaccel", "none"], environment: [String: String]? = nil
    )
        throws -> [OrderedJSON]
    {
        let path = TestData.fixtures.appendingPathComponent(file).path
        let result = try CommandRunner.vatoolbox(
            ["probe", "--frames", "--json", path] + arguments, environment: environment)
        try #require(result.status == 0, "probe --frames \(file): \(result.standardError)")
        return try #require(try OrderedJSON.parse(result.standardOutput)["frames"], "\(file): no frames").elements
    }

    /// `ffprobe -show_frames -of json` on the file's first video stream.
    static func theirs(_ file: String) throws -> [OrderedJSON] {
        let path = TestData.fixtures.appendingPathComponent(file).path
        let result = try CommandRunner.ffprobe(["-show_frames", "-select_streams", "v:0", "-of", "json", path])
        try #require(result.status == 0, "ffprobe \(file): \(result.standardError)")
        return try #require(try OrderedJSON.parse(result.standardOutput)["frames"], "\(file): no frames").elements
    }

    @Test("each frame's fields and side data equal ffprobe -show_frames", arguments: fixtures)
    func framesEqualFFprobe(_ file: String) throws {
        try #require(CommandRunner.hasFFmpeg)
        let ours = try Self.ours(file)
        let theirs = try Self.theirs(file)
        try #require(ours.count == theirs.count, "\(file): \(ours.count) frames, ffprobe \(theirs.count)")
        for (index, (frame, expected)) in zip(ours, theirs).enumerated() {
            for key in Self.fields {
                #expect(
                    frame[key] == expected[key],
                    "\(file) frame \(index) \(key): ours \(frame[key]?.description ?? "absent"), ffprobe \(expected[key]?.description ?? "absent")"
                )
            }
            let listed =
                expected["side_data_list"]?.elements.filter {
                    $0["side_data_type"]?.string.map(Self.sideDataTypes.contains) ?? false
                } ?? []
            let beyond = Self.beyondFFmpeg51[file] ?? []
            let ourList = frame["side_data_list"]?.elements ?? []
            let ourTypes = ourList.compactMap { $0["side_data_type"]?.string }
            #expect(beyond.isSubset(of: ourTypes), "\(file) frame \(index): \(ourTypes)")
            let compared = ourList.filter { !beyond.contains($0["side_data_type"]?.string ?? "") }
            // Member for member, in order, repeated keys (HDR10+'s maxscl …) included.
            #expect(
                compared == listed,
                "\(file) frame \(index) side data: ours \(frame["side_data_list"]?.description ?? "none"), ffprobe \(listed)"
            )
            // An empty list is left out, as ffprobe leaves it out.
            #expect(frame["side_data_list"]?.elements.isEmpty != true)
        }
    }

    @Test(
        "the HDR fixtures' side data equals their committed ffprobe oracle (FILE.hdr.json)",
        arguments: [
            "hevc-hdr10.265", "hevc-hdr10plus.265", "av1-hdr10.ivf", "h264-container-hdr.mp4", "h264-container-hdr.mkv",
            "hevc-dolby-vision.265", "hevc-dolby-vision.mkv",
        ])
    func sideDataEqualsCommittedOracle(_ file: String) throws {
        let oracle = try OrderedJSON.parse(
            try Data(contentsOf: TestData.fixtures.appendingPathComponent(file + ".hdr.json")))
        let expected = try #require(oracle["frames"]).elements
        let ours = try Self.ours(file)
        try #require(ours.count == expected.count)
        for (index, (frame, theirs)) in zip(ours, expected).enumerated() {
            let listed =
                theirs["side_data_list"]?.elements.filter {
                    $0["side_data_type"]?.string.map(Self.sideDataTypes.contains) ?? false
                } ?? []
            #expect(frame["side_data_list"]?.elements ?? [] == listed, "\(file) frame \(index)")
            #expect(frame["pts"] == theirs["pts"], "\(file) frame \(index) pts")
        }
        // The container's static metadata is the stream's side data to ffprobe, not the frames'.
        if file.hasPrefix("h264-container-hdr") {
            #expect(ours.allSatisfy { $0["side_data_list"] == nil })
        }
    }

    @Test("the text form is ffprobe's default writer: [FRAME], key=value, [SIDE_DATA]")
    func textForm() throws {
        let path = TestData.fixtures.appendingPathComponent("hevc-hdr10plus.265").path
        let result = try CommandRunner.vatoolbox(["probe", "--frames", "--hwaccel", "none", path])
        try #require(result.status == 0, "\(result.standardError)")
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0 == "[FRAME]" }.count == 10)
        #expect(lines.filter { $0 == "[/FRAME]" }.count == 10)
        #expect(lines.contains("pict_type=I"))
        #expect(lines.contains("side_data_type=HDR Dynamic Metadata SMPTE2094-40 (HDR10+)"))
        #expect(lines.contains("red_x=34000/50000"))
        #expect(lines.filter { $0 == "maxscl=50000/100000" }.count == 10)
    }

    @Test(
        "the text form's fields equal ffprobe's default writer's, N/A and unknown included",
        arguments: ["h264-mbaff.264", "mpeg2-interlaced.ts", "av1-hdr10.ivf"])
    func textFieldsEqualFFprobe(_ file: String) throws {
        try #require(CommandRunner.hasFFmpeg)
        let path = TestData.fixtures.appendingPathComponent(file).path
        let ours = try CommandRunner.vatoolbox(["probe", "--frames", "--hwaccel", "none", path])
        try #require(ours.status == 0, "\(ours.standardError)")
        let theirs = try CommandRunner.ffprobe(["-show_frames", "-select_streams", "v:0", path])
        try #require(theirs.status == 0, "\(theirs.standardError)")
        let keys = Set(Self.fields)
        func frameLines(_ text: String) -> [String] {
            text.split(separator: "\n").map(String.init).filter {
                $0 == "[FRAME]"
                    || $0.split(separator: "=", maxSplits: 1).first.map { keys.contains(String($0)) } == true
            }
        }
        let expected = frameLines(theirs.text)
        #expect(expected.count > 10)
        #expect(frameLines(ours.text) == expected)
    }

    @Test(
        "on the test driver, the GPU's frames equal the CPU's, under every personality",
        .enabled(if: TestVADriver.isBuilt),
        arguments: [
            "hevc-hdr10plus.265", "av1-hdr10.ivf", "h264-container-hdr.mp4", "mpeg2-interlaced.ts",
            "hevc-dolby-vision.265", "hevc-alternative-transfer.265", "h264-icc-profile.mp4",
        ],
        TestVADriver.personalities)
    func gpuEqualsCPU(_ file: String, personality: String?) throws {
        let cpu = try Self.ours(file)
        let extra = personality.map { ["VATB_PERSONALITY": $0] } ?? [:]
        let gpu = try Self.ours(
            file, ["--hwaccel", "vaapi", "--device", "/dev/null"],
            environment: TestVADriver.subprocessEnvironment(extra))
        try #require(gpu.count == cpu.count, "\(file): \(gpu.count) frames on the GPU, \(cpu.count) on the CPU")
        for (index, (frame, expected)) in zip(gpu, cpu).enumerated() {
            #expect(
                frame == expected, "\(file) frame \(index) (\(personality ?? "default")): GPU \(frame), CPU \(expected)"
            )
        }
    }
}
