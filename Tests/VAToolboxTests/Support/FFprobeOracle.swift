import Foundation
import Synchronization

@testable import VAToolbox

/// What the `ffprobe` CLI says about a stream: the independent oracle of the parser tests.
///
/// Fixtures carry their oracle beside them (`FILE.ffprobe.json`, made by `Scripts/make-fixtures`);
/// for conformance streams `ffprobe` runs at test time with the same options.
struct FFprobeOracle: Sendable {
    /// The first video stream's fields, as ffprobe prints them (numbers and strings).
    let stream: [String: String]
    /// Each packet's flags (`K` marks a key frame) in stream order.
    let packetFlags: [String]
    /// Each packet's presentation time stamp in the stream's time base (``timeBase``), in stream
    /// order; nil where ffprobe says none.
    let packetPresentationTimes: [Int64?]
    /// Each packet's byte position in the file (`pos`), in stream order; nil where ffprobe says
    /// none.
    let packetPositions: [Int64?]
    /// Each packet's size in bytes, in stream order.
    let packetSizes: [Int?]
    /// Each decoded frame's size, in output order (committed fixture oracles only).
    let frameSizes: [VideoDimensions]

    /// The number of packets: for a raw H.264/HEVC stream, one per access unit.
    var packetCount: Int { packetFlags.count }
    /// The stream's time base (`time_base`, for example 1/12800) as a time of one unit; nil when
    /// ffprobe gives none.
    var timeBase: MediaTime? {
        guard let parts = stream["time_base"]?.split(separator: "/").compactMap({ Int64($0) }), parts.count == 2,
            let denominator = Int32(exactly: parts[1])
        else { return nil }
        return MediaTime(value: parts[0], timescale: denominator)
    }
    /// The indices of the key-frame packets.
    var keyPacketIndices: [Int] { packetFlags.indices.filter { packetFlags[$0].contains("K") } }

    /// Oracles already loaded, by path: several suites ask for the same conformance stream.
    private static let cache = Mutex<[String: FFprobeOracle]>([:])

    /// Loads the committed oracle of a fixture, or runs ffprobe for any other file.
    ///
    /// ffprobe runs with `-count_frames`, as `Scripts/make-fixtures` does: without decoding the
    /// whole stream, its `coded_width`/`coded_height` are sometimes the cropped size.
    static func load(for stream: StreamFile) throws -> FFprobeOracle {
        if let cached = cache.withLock({ $0[stream.url.path] }) { return cached }
        let oracle = try loadUncached(for: stream)
        cache.withLock { $0[stream.url.path] = oracle }
        return oracle
    }

    private static func loadUncached(for stream: StreamFile) throws -> FFprobeOracle {
        let committed = URL(fileURLWithPath: stream.url.path + ".ffprobe.json")
        let data: Data
        if FileManager.default.fileExists(atPath: committed.path) {
            data = try Data(contentsOf: committed)
        } else {
            data = try run([
                "-count_frames", "-show_streams", "-show_packets", "-show_entries", "packet=flags:stream",
                stream.url.path,
            ])
        }
        return try parse(data)
    }

    /// Runs ffprobe with JSON output and returns what it printed.
    static func run(_ arguments: [String]) throws -> Data {
        try CommandRunner.ffprobe(["-of", "json"] + arguments).standardOutput
    }

    static func parse(_ data: Data) throws -> FFprobeOracle {
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let streams = root["streams"] as? [[String: Any]], let first = streams.first
        else { throw OracleError.malformed }
        var fields: [String: String] = [:]
        for (key, value) in first { fields[key] = "\(value)" }
        let packets = (root["packets"] as? [[String: Any]]) ?? []
        let frames = (root["frames"] as? [[String: Any]]) ?? []
        let sizes = frames.map {
            VideoDimensions(width: Int32(($0["width"] as? Int) ?? 0), height: Int32(($0["height"] as? Int) ?? 0))
        }
        return FFprobeOracle(
            stream: fields, packetFlags: packets.map { ($0["flags"] as? String) ?? "" },
            packetPresentationTimes: packets.map { ($0["pts"] as? Int).map(Int64.init) },
            packetPositions: packets.map { ($0["pos"] as? String).flatMap { Int64($0) } },
            packetSizes: packets.map { ($0["size"] as? String).flatMap { Int($0) } }, frameSizes: sizes)
    }

    enum OracleError: Error { case malformed }
}
