import Foundation
import Testing

@testable import VAToolbox

/// `vatoolbox frames` (issue 25, item 3): pictures by number and time, written as PNG or raw, and
/// the same pictures on the test VA driver, where disposable samples are never submitted.
@Suite(.enabled(if: CommandRunner.hasTool && CommandRunner.hasFFmpeg))
struct CommandLineFramesTests {
    static func fixture(_ name: String) -> String { TestData.fixtures.appendingPathComponent(name).path }

    /// `N PTS MD5` lines → [N: MD5].
    static func hashes(_ text: String) -> [Int: String] {
        var hashes: [Int: String] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 3, let number = Int(fields[0]) { hashes[number] = String(fields[2]) }
        }
        return hashes
    }

    @Test func md5sOfPicturesByNumberAreFFmpegs() throws {
        let path = Self.fixture("h264-high-bpyramid.mp4")
        let oracle = try FrameSamplerTests.oracle(path)
        let result = try CommandRunner.vatoolbox(["frames", path, "--at", "47,3,20,3", "--md5", "--hwaccel", "none"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.text.split(separator: "\n")
        #expect(lines.map { $0.split(separator: " ").first.map(String.init) } == ["47", "3", "20", "3"])
        for (number, md5) in Self.hashes(result.text) { #expect(md5 == oracle[number], "picture \(number)") }
        #expect(result.standardError.contains("4 pictures of 48 (48 samples)"), "\(result.standardError)")
        #expect(result.standardError.contains("on the CPU"))
    }

    @Test func rawFilesHoldFFmpegsSamplesAndPNGsAreWritten() throws {
        let path = Self.fixture("mpeg2-bframes.ts")
        let oracle = try FrameSamplerTests.oracle(path)
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let raw = directory.appendingPathComponent("raw")
        let result = try CommandRunner.vatoolbox([
            "frames", path, "--every", "7", "--format", "raw", "-o", raw.path, "--hwaccel", "none",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let expectedNumbers = Array(stride(from: 0, to: oracle.count, by: 7))
        for number in expectedNumbers {
            let file = raw.appendingPathComponent(String(format: "frame-%06d.yuv", number))
            let sum = try CommandRunner.run(URL(fileURLWithPath: "/usr/bin/md5sum"), [file.path])
            #expect(sum.text.split(separator: " ").first.map(String.init) == oracle[number], "picture \(number)")
        }

        let png = directory.appendingPathComponent("png")
        let times = try CommandRunner.vatoolbox([
            "frames", path, "--times", "0.5,0", "--width", "64", "-o", png.path, "--hwaccel", "none",
        ])
        #expect(times.status == 0, "\(times.standardError)")
        let written = try FileManager.default.contentsOfDirectory(atPath: png.path).sorted()
        #expect(
            written.count == 2 && written.allSatisfy { $0.hasPrefix("frame-") && $0.hasSuffix(".png") }, "\(written)")
        let first = try Data(contentsOf: png.appendingPathComponent(written[0]))
        #expect(first.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
    }

    /// A file cut short: the pictures in it are written, and the cut is reported with status 1.
    @Test func aTruncatedFileIsReportedAfterItsPictures() throws {
        let path = Self.fixture("h264-truncated-faststart.mp4")
        let result = try CommandRunner.vatoolbox(["frames", path, "--at", "0,20", "--md5", "--hwaccel", "none"])
        #expect(result.status == 1, "\(result.standardError)")
        #expect(Self.hashes(result.text).count == 2, "\(result.text)")
        #expect(result.standardError.contains("is truncated: "), "\(result.standardError)")
        #expect(result.standardError.contains("(partial file)"), "\(result.standardError)")
    }

    @Test func badRequestsAreRefusedBeforeDecoding() throws {
        let path = Self.fixture("h264-high-bpyramid.mp4")
        let outOfRange = try CommandRunner.vatoolbox(["frames", path, "--at", "48", "--md5"])
        #expect(outOfRange.status == 1)
        #expect(outOfRange.standardError.contains("has 48 pictures, numbered from 0: there is no picture 48"))
        let past = try CommandRunner.vatoolbox(["frames", path, "--times", "99", "--md5"])
        #expect(past.status == 1, "\(past.standardError)")
        let both = try CommandRunner.vatoolbox(["frames", path, "--at", "1", "--every", "2", "--md5"])
        #expect(both.status == 2)
        let nowhere = try CommandRunner.vatoolbox(["frames", path, "--at", "1"])
        #expect(nowhere.status == 2)
        #expect(nowhere.standardError.contains("give -o DIR or --md5"))
    }

    /// On the GPU (the test VA driver, real pixels in its reference mode) under each personality:
    /// the pictures are the CPU's, the disposable samples are skipped, and the tool says the GPU
    /// decoded.
    @Test(
        .enabled(if: TestVADriver.isBuilt),
        arguments: [
            "h264-high-bpyramid.mp4", "hevc-open-gop.265", "mpeg2-bframes.ts", "av1.ivf", "vp8-temporal-layers.ivf",
            "vp9-temporal-layers.ivf",
        ],
        ["test", "ihd", "mesa"])
    func onTheTestDriverThePicturesAreTheCPUs(_ name: String, personality: String) throws {
        let path = Self.fixture(name)
        let oracle = try FrameSamplerTests.oracle(path)
        let asked = [oracle.count - 1, oracle.count / 2, 1]
        var environment = ["VATB_REFERENCE_STREAM": path]
        if personality != "test" { environment["VATB_PERSONALITY"] = personality }
        let result = try CommandRunner.vatoolbox(
            [
                "frames", path, "--at", asked.map(String.init).joined(separator: ","), "--md5", "--hwaccel", "vaapi",
                "--device", "/dev/null",
            ], environment: TestVADriver.subprocessEnvironment(environment))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("on the GPU"), "\(result.standardError)")
        #expect(!result.standardError.contains("skipped 0 disposable"), "\(result.standardError)")
        let hashes = Self.hashes(result.text)
        #expect(hashes.count == asked.count)
        for (number, md5) in hashes { #expect(md5 == oracle[number], "\(name), \(personality): picture \(number)") }
    }
}
