import Foundation
import Testing

@testable import VAToolbox

/// Where the test data lives: the committed fixtures, and the third-party conformance streams
/// in `../shared/conformance` (or `$VATOOLBOX_CONFORMANCE`).
enum TestData {
    /// The package root, found from this file's path.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `Tests/Fixtures`.
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")

    /// Where the conformance folder should be: `$VATOOLBOX_CONFORMANCE` when set (and then only
    /// there), otherwise `../shared/conformance` beside the package.
    static let conformanceLocation: URL =
        ProcessInfo.processInfo.environment["VATOOLBOX_CONFORMANCE"].map(URL.init(fileURLWithPath:))
        ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared/conformance")

    /// The conformance folder, when present (it holds `vectors.tsv`).
    static let conformance: URL? =
        FileManager.default.fileExists(atPath: conformanceLocation.appendingPathComponent("vectors.tsv").path)
        ? conformanceLocation : nil

    /// Whether the conformance streams are there.
    static var hasConformance: Bool { conformance != nil }

    /// Whether the ffmpeg CLI tools are installed (the oracles for conformance streams).
    static let hasFFprobe: Bool = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffprobe")

    /// Reads a file's bytes.
    static func bytes(_ url: URL) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url))
    }

    /// The rows of a tab-separated file with a header line, as dictionaries.
    static func tsv(_ url: URL) -> [[String: String]] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        let lines = text.split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        guard let header = lines.first else { return [] }
        return lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0)) }
    }
}

/// A raw (Annex B) stream used by the tests: a committed fixture or a conformance stream.
struct StreamFile: Sendable, CustomTestStringConvertible, Hashable {
    /// A short name for test output.
    let name: String
    /// The file.
    let url: URL
    /// H.264 or HEVC.
    let codec: VideoCodecType
    /// Whether it is a committed fixture (with a committed ffprobe oracle beside it).
    let isFixture: Bool

    var testDescription: String { name }

    /// The committed Annex B fixtures (`Tests/Fixtures/manifest.tsv`), corrupt ones excluded.
    static let fixtures: [StreamFile] = TestData.tsv(TestData.fixtures.appendingPathComponent("manifest.tsv"))
        .filter { $0["container"] == "annexb" }
        .compactMap { row in
            guard let file = row["file"], let codec = row["codec"] else { return nil }
            return StreamFile(
                name: file, url: TestData.fixtures.appendingPathComponent(file),
                codec: codec == "hevc" ? .hevc : .h264, isFixture: true)
        }

    /// The fixtures that are valid streams (not the truncated or bit-flipped copies).
    static let validFixtures = fixtures.filter { !$0.name.contains("truncated") && !$0.name.contains("bitflip") }

    /// The conformance streams present: the JVT vectors of `vectors.tsv` and the cros-codecs streams.
    static let conformance: [StreamFile] = {
        guard let root = TestData.conformance else { return [] }
        var streams = TestData.tsv(root.appendingPathComponent("vectors.tsv")).compactMap { row -> StreamFile? in
            guard let file = row["file"], let name = row["name"] else { return nil }
            return StreamFile(name: name, url: root.appendingPathComponent(file), codec: .h264, isFixture: false)
        }
        for (folder, codec) in [("cros-codecs-h264", VideoCodecType.h264), ("cros-codecs-h265", .hevc)] {
            let directory = root.appendingPathComponent(folder)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for file in files.sorted() where file.hasSuffix(".h264") || file.hasSuffix(".h265") {
                streams.append(
                    StreamFile(
                        name: "\(folder)/\(file)", url: directory.appendingPathComponent(file), codec: codec,
                        isFixture: false))
            }
        }
        return streams
    }()

    /// Every valid Annex B stream: fixtures and conformance streams.
    static let allValid = validFixtures + conformance

    /// The file's bytes.
    func bytes() throws -> [UInt8] { try TestData.bytes(url) }
}

/// A deterministic pseudo-random generator (SplitMix64) so that randomised tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Trait where Self == ConditionTrait {
    /// Skips a test when the third-party conformance streams are absent (a plain clone has no
    /// `../shared/conformance`). `Scripts/test` counts the skips by this comment's wording.
    static var needsConformance: Self {
        .enabled(if: TestData.hasConformance, "needs the conformance streams (VATOOLBOX_CONFORMANCE)")
    }
}
