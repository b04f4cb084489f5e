import Foundation
import Testing

@testable import VAToolbox

/// Streams whose headers declare pictures no real stream has (`Scripts/make-fixtures`,
/// `hostile_sizes`: the coded data of a small fixture under a header rewritten by
/// `Scripts/rewrite-picture-size`). Before ``PictureLimits`` a 6 KB H.264 stream declaring
/// 15360×15360 took the tool to 4.2 GiB; now the session refuses each one with a typed error that
/// names the size and the limit, before it allocates pictures, on the CPU and through the GPU path.
@Suite struct HostilePictureSizeTests {
    /// A hostile fixture, the fixture its coded data comes from, and the size it declares.
    struct Hostile: Sendable, CustomTestStringConvertible {
        let name: String
        let source: String
        let size: String
        var testDescription: String { name }
    }

    static let files = [
        Hostile(name: "h264-15360x15360.264", source: "h264-baseline-cavlc.264", size: "15360x15360"),
        Hostile(name: "hevc-8192x16384.265", source: "hevc-main.265", size: "8192x16384"),
        Hostile(name: "vp9-12288x12288.ivf", source: "vp9-profile1-444.ivf", size: "12288x12288"),
        Hostile(name: "av1-12288x12288.ivf", source: "av1.ivf", size: "12288x12288"),
        Hostile(name: "mpeg2-4095x4095.m2v", source: "mpeg2-progressive.m2v", size: "4095x4095"),
    ]

    static func format(_ name: String) throws -> VideoFormatDescription {
        let url = TestData.fixtures.appendingPathComponent(name)
        if ["264", "265"].contains(url.pathExtension) {
            let samples = try TestData.samples(name)
            return try #require(samples.first).formatDescription
        }
        return try MediaFileReader(path: url.path).formatDescription
    }

    @Test(arguments: files, [DecoderSpecification.HardwareAcceleration.preferred, .disabled])
    func theSessionRefusesTheDeclaredSize(file: Hostile, acceleration: DecoderSpecification.HardwareAcceleration)
        throws
    {
        let format = try Self.format(file.name)
        #expect("\(format.codedDimensions.width)x\(format.codedDimensions.height)" == file.size)
        let error = #expect(throws: VTError.self) {
            _ = try DecompressionSession(
                formatDescription: format,
                decoderSpecification: DecoderSpecification(hardwareAcceleration: acceleration)
            ) { _ in }
        }
        #expect(error?.status == VTError.videoDecoderUnsupportedDataFormat.status)
        #expect(
            error?.reason.contains("the stream's pictures are \(file.size)") == true, "\(String(describing: error))")
        #expect(error?.hint?.contains("pictureLimits") == true)
    }

    @Test func raisingTheLimitLetsTheSessionOpen() throws {
        let format = try Self.format("h264-15360x15360.264")
        let limits = PictureLimits(maximumPixels: 15360 * 15360)
        let session = try DecompressionSession(
            formatDescription: format,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, pictureLimits: limits)
        ) { _ in }
        session.invalidate()
    }

    @Test func defaultsAreTheCodecsAndLegitimateSizesPass() throws {
        #expect(PictureLimits.defaultMaximumPixels(for: .h264) == 8192 * 8192)
        #expect(PictureLimits.defaultMaximumPixels(for: .mpeg2Video) == 4096 * 2304)
        for source in Self.files.map(\.source) {
            try PictureLimits().check(try Self.format(source), decodingThreads: 16)
        }
        // A width past the limit on its own is refused even when the pixels are few.
        let narrow = PictureLimits(maximumWidth: 100)
        let error = #expect(throws: VTError.self) {
            try narrow.check(try Self.format("h264-baseline-cavlc.264"), decodingThreads: 1)
        }
        #expect(error?.reason.contains("past the session's limit of 100x16384") == true, "\(String(describing: error))")
    }

    @Test func theMemoryBudgetIsAnUpperEstimate() throws {
        let format = try Self.format("h264-baseline-cavlc.264")
        let width = Int(format.codedDimensions.width)
        let height = Int(format.codedDimensions.height)
        // 4:2:0, 8 bits: 1.5 bytes a pixel; the DPB, the picture being decoded, one per thread,
        // one the application holds.
        let expected = width * height * 3 / 2 * (format.stream.maxDecFrameBuffering + 2 + 4)
        #expect(PictureLimits.estimatedPictureMemory(for: format, decodingThreads: 4) == expected)
        try PictureLimits(maximumPictureMemory: expected).check(format, decodingThreads: 4)
        let error = #expect(throws: VTError.self) {
            try PictureLimits(maximumPictureMemory: expected - 1).check(format, decodingThreads: 4)
        }
        #expect(error?.reason.contains("past the session's budget of \(expected - 1) bytes") == true)
    }

    /// The frames before a sequence header that grows past the limit decode exactly (ffmpeg's
    /// framemd5 of the stream before it, but for the anchor libavcodec drops at a new sequence
    /// header); every frame after it is an error, none a picture.
    @Test func anMPEG2StreamThatGrowsInBandFailsFrameByFrame() throws {
        let samples = try TestData.samples("mpeg2-grows-to-4095x4095.m2v")
        let oracle = try FrameMD5Oracle(
            contentsOf: TestData.fixtures.appendingPathComponent("mpeg2-progressive.m2v.framemd5"))
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: try #require(samples.first).formatDescription,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled), outputHandler: outputs.handler)
        try decode(samples, with: session)
        let frames = outputs.all
        #expect(frames.count == samples.count)
        let pictures = frames.filter { $0.imageBuffer != nil }
        #expect(pictures.count == oracle.frames.count - 1)
        for (picture, expected) in zip(pictures, oracle.frames) {
            #expect(picture.status == nil)
            #expect(picture.imageBuffer.map(planarMD5) == expected.md5)
        }
        // After the change: no picture; every frame an error but the anchor libavcodec drops at a
        // new sequence header, which comes out as dropped with no error (as ffmpeg counts it).
        let after = frames.dropFirst(pictures.count)
        #expect(after.allSatisfy { $0.imageBuffer == nil })
        #expect(after.filter { $0.status == nil }.count <= 1)
        #expect(after.count > 10)
    }
}

/// The tool on the hostile streams, its peak memory measured against decoding the small stream
/// each was made from (`getrusage` of the child, through python3, which `Scripts/bootstrap`
/// installs): a typed error and less than 32 MiB more, on the CPU and with the test VA driver.
@Suite(.enabled(if: CommandRunner.hasTool && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
struct HostilePictureSizeMemoryTests {
    /// Runs the tool and returns its exit status, its standard error and its peak resident set in KiB.
    static func peak(_ arguments: [String], environment: [String: String]? = nil) throws
        -> (status: Int32, error: String, kibibytes: Int)
    {
        let script = """
            import resource, subprocess, sys
            run = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            sys.stderr.buffer.write(run.stderr)
            print(run.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let result = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, CommandRunner.tool.path] + arguments,
            environment: environment)
        let fields = result.text.split(separator: " ").compactMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard fields.count == 2 else { throw DriverTestError("python3 said: \(result.text) \(result.standardError)") }
        return (Int32(fields[0]), result.standardError, fields[1])
    }

    static let environments: [(name: String, hwaccel: String, environment: [String: String]?)] = [
        ("CPU", "none", nil), ("test VA driver", "auto", TestVADriver.subprocessEnvironment()),
    ]

    @Test(arguments: HostilePictureSizeTests.files.map(\.name) + ["h264-grows-to-15360x15360.264"], [0, 1])
    func theToolRefusesWithLittleMemory(name: String, path: Int) throws {
        let (label, hwaccel, environment) = Self.environments[path]
        if environment != nil && !TestVADriver.isBuilt { return }
        let source =
            HostilePictureSizeTests.files.first { $0.name == name }?.source ?? "h264-baseline-cavlc.264"
        let arguments = ["--hwaccel", hwaccel, "-o", "/dev/null"]
        let hostile = try Self.peak(
            ["decode", TestData.fixtures.appendingPathComponent(name).path] + arguments, environment: environment)
        let baseline = try Self.peak(
            ["decode", TestData.fixtures.appendingPathComponent(source).path] + arguments, environment: environment)
        #expect(hostile.status == 1, "\(label): \(hostile.error)")
        #expect(
            hostile.error.contains("kVTVideoDecoderUnsupportedDataFormatErr (-12910)"), "\(label): \(hostile.error)")
        #expect(baseline.status == 0, "\(label): \(baseline.error)")
        #expect(
            hostile.kibibytes - baseline.kibibytes < 32 * 1024,
            "\(label): \(hostile.kibibytes) KiB against \(baseline.kibibytes) KiB decoding \(source)")
    }
}
