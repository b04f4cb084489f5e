import Foundation
import Synchronization

@testable import VAToolbox

/// What ffprobe and ffmpeg's `trace_headers` bitstream filter say about a VP8, VP9, AV1 or MPEG-2
/// stream: the independent oracles of the bitstream tests for the codecs beyond H.264/HEVC.
///
/// Committed fixtures carry `FILE.ffprobe.json` (streams, packets, frames; see
/// `Tests/Fixtures/README.md`); for other files ffprobe runs at test time with the same fields.
struct ProbeOracle: Sendable {
    /// The first video stream's fields, as strings.
    let stream: [String: String]
    /// Every packet's fields (`pts`, `dts`, `size`, `pos`, `flags`, …), in stream order.
    let packets: [[String: String]]
    /// Every decoded frame's fields (`key_frame`, `pict_type`, `width`, `height`, `pix_fmt`, …), in output order.
    let frames: [[String: String]]

    /// Oracles already loaded, by path.
    private static let cache = Mutex<[String: ProbeOracle]>([:])

    /// The committed oracle beside `url`, or one made by running ffprobe.
    static func load(_ url: URL) throws -> ProbeOracle {
        if let cached = cache.withLock({ $0[url.path] }) { return cached }
        let committed = URL(fileURLWithPath: url.path + ".ffprobe.json")
        let oracle: ProbeOracle
        if FileManager.default.fileExists(atPath: committed.path) {
            let root = try JSONSerialization.jsonObject(with: try Data(contentsOf: committed)) as? [String: Any] ?? [:]
            oracle = ProbeOracle(
                stream: strings((root["streams"] as? [[String: Any]])?.first ?? [:]),
                packets: ((root["packets"] as? [[String: Any]]) ?? []).map(strings),
                frames: ((root["frames"] as? [[String: Any]]) ?? []).map(strings))
        } else {
            func run(_ arguments: [String], _ key: String) throws -> [[String: String]] {
                let result = try CommandRunner.ffprobe(
                    ["-threads", "1", "-of", "json", "-select_streams", "v:0"] + arguments + [url.path])
                let root = try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any] ?? [:]
                return ((root[key] as? [[String: Any]]) ?? []).map(strings)
            }
            oracle = ProbeOracle(
                stream: try run(["-count_frames", "-count_packets", "-show_streams"], "streams").first ?? [:],
                packets: try run(["-show_packets"], "packets"),
                frames: try run(["-show_frames"], "frames"))
        }
        cache.withLock { $0[url.path] = oracle }
        return oracle
    }

    private static func strings(_ dictionary: [String: Any]) -> [String: String] {
        dictionary.compactMapValues { value in value is [Any] || value is [String: Any] ? nil : "\(value)" }
    }
}

/// The syntax elements ffmpeg's `trace_headers` bitstream filter prints (its CBS parsers for
/// VP9, AV1, MPEG-2, …), grouped into units: an independent parser to check ours against.
enum TraceHeaders {
    /// One traced unit: the syntax elements in order, as (name, value).
    struct Unit: Sendable {
        var elements: [(name: String, value: Int)] = []

        /// The value of the first element called `name`.
        subscript(name: String) -> Int? { elements.first { $0.name == name }?.value }
        /// Whether the unit has an element called `name`.
        func has(_ name: String) -> Bool { elements.contains { $0.name == name } }
    }

    /// Runs `ffmpeg -i FILE -c:v copy -bsf:v trace_headers -f null -` and splits the trace into
    /// units, a new one at every element called `first` (for VP9 `frame_marker`) or, when `first`
    /// is nil, at every packet.
    static func units(of url: URL, startingAt first: String?) throws -> [Unit] {
        let result = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/ffmpeg"),
            [
                "-hide_banner", "-nostdin", "-i", url.path, "-map", "0:v:0", "-c:v", "copy", "-bsf:v", "trace_headers",
                "-f", "null", "-",
            ])
        var units: [Unit] = []
        var seenPacket = false
        for fullLine in result.standardError.split(separator: "\n") {
            // ffmpeg's progress line ("frame=    1 fps=…") can precede a trace line on the same line.
            guard let start = fullLine.range(of: "[trace_headers") else { continue }
            let line = fullLine[start.lowerBound...]
            if line.contains("] Packet:") {
                seenPacket = true
                if first == nil { units.append(Unit()) }
                continue
            }
            // Elements before the first packet are the codec extradata, not a sample.
            guard seenPacket, let element = parse(line) else { continue }
            if element.name == first || units.isEmpty { units.append(Unit()) }
            units[units.count - 1].elements.append(element)
        }
        return units
    }

    /// `[trace_headers @ 0x…] 36          frame_width_minus_1        0000000100111111 = 319`
    private static func parse(_ line: Substring) -> (name: String, value: Int)? {
        guard let close = line.firstIndex(of: "]") else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 4, Int(fields[0]) != nil, fields[fields.count - 2] == "=",
            let value = Int(fields[fields.count - 1])
        else { return nil }
        return (String(fields[1]), value)
    }
}

/// Stream files of the codecs beyond H.264/HEVC: committed fixtures (`manifest.tsv`) and the
/// cros-codecs conformance streams.
enum CodecStreams {
    /// The fixtures of `codec` (`vp8`, `vp9`, `av1`, `mpeg2`) from the manifest.
    static func fixtures(_ codec: String) -> [URL] {
        TestData.tsv(TestData.fixtures.appendingPathComponent("manifest.tsv"))
            .filter { $0["codec"] == codec }
            .compactMap { $0["file"] }
            .map { TestData.fixtures.appendingPathComponent($0) }
    }

    /// The IVF conformance streams in `cros-codecs-<folder>` (checked by signature, not extension);
    /// none without ffprobe, their oracle.
    static func conformanceIVF(_ folder: String) -> [URL] {
        guard let root = TestData.conformance, TestData.hasFFprobe else { return [] }
        let directory = root.appendingPathComponent(folder)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.sorted().map { directory.appendingPathComponent($0) }.filter { url in
            guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
            defer { try? handle.close() }
            return (try? handle.read(upToCount: 4)) == Data("DKIF".utf8)
        }
    }

    /// The file's samples in IVF form: the file itself when it is IVF, else remuxed at test time
    /// with `ffmpeg -c copy -f ivf` (WebM, MP4, Matroska).
    static func ivfBytes(_ url: URL) throws -> [UInt8] {
        let bytes = try TestData.bytes(url)
        if bytes.starts(with: Array("DKIF".utf8)) { return bytes }
        let result = try CommandRunner.ffmpeg(["-i", url.path, "-map", "0:v:0", "-c", "copy", "-f", "ivf", "-"])
        return [UInt8](result.standardOutput)
    }
}
