import Foundation
import Testing

@testable import VAToolbox

extension TestData {
    /// A test stream's samples, in decode order: a raw Annex B stream (`.264`, `.265`) through the
    /// library's parser, any other file (IVF, OBU, `.m2v`, containers) through `MediaFileReader`.
    ///
    /// - Parameters:
    ///   - fixture: a file name under `Tests/Fixtures`, or an absolute path.
    ///   - codec: an Annex B stream's codec; by default HEVC for a `.265` file, else H.264.
    ///   - frameDuration: when given, an Annex B stream's samples are time-stamped at this
    ///     duration each.
    ///   - options: the rest of the Annex B parser's options.
    ///   - minimumCount: the fewest samples the test needs (checked with `#require`).
    /// - Throws: when the file cannot be read, and when it gives fewer than `minimumCount` samples.
    static func samples(
        _ fixture: String, codec: VideoCodecType? = nil, frameDuration: MediaTime? = nil,
        options: ElementaryStreamParser.Options = ElementaryStreamParser.Options(), minimumCount: Int = 1
    ) throws -> [SampleBuffer] {
        let url = fixture.hasPrefix("/") ? URL(fileURLWithPath: fixture) : fixtures.appendingPathComponent(fixture)
        let samples: [SampleBuffer]
        if ["264", "265"].contains(url.pathExtension) {
            var options = options
            if let frameDuration { options.frameDuration = frameDuration }
            samples = ElementaryStreamParser.samples(
                in: try bytes(url), codec: codec ?? (url.pathExtension == "265" ? .hevc : .h264), options: options)
        } else {
            samples = try MediaFileReader(path: url.path).readAllSamples()
        }
        try #require(samples.count >= minimumCount, "\(fixture) has \(samples.count) samples")
        return samples
    }
}
