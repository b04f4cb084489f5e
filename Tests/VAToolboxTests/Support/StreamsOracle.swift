import Foundation

/// What `ffprobe -v error -show_streams -of json FILE` says of every stream of a fixture: the
/// oracle `Scripts/make-fixtures` commits beside it as `FILE.streams.json`, so that no test needs
/// ffprobe to compare with it.
enum StreamsOracle {
    /// Every fixture with a streams oracle: the streams of `manifest.tsv` and the real-file
    /// cases of `media-files.tsv`.
    static let fixtures: [String] = ["manifest.tsv", "media-files.tsv"].flatMap { list in
        TestData.tsv(TestData.fixtures.appendingPathComponent(list)).compactMap { $0["file"] }
    }

    /// The `streams` array of the committed oracle beside `url`, each stream's keys as ffprobe
    /// wrote them (numbers as `NSNumber`, the rest as `String`; keys ffprobe leaves out absent).
    static func streams(of url: URL) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: url.path + ".streams.json"))
        let root = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        guard let streams = root?["streams"] as? [[String: Any]] else { throw OracleError.malformed(url.path) }
        return streams
    }

    /// Whether two values parsed from JSON are the same JSON value: the same string, or the same
    /// number (a number never equals a string, `"48"` is not `48`).
    static func same(_ ours: Any?, _ theirs: Any?) -> Bool {
        switch (ours, theirs) {
        case (let a as String, let b as String): return a == b
        case (is String, _), (_, is String): return false
        case (let a as NSNumber, let b as NSNumber): return a == b
        default: return false
        }
    }

    enum OracleError: Error { case malformed(String) }
}
