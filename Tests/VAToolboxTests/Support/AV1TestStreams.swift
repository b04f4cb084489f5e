import Foundation
import Testing

@testable import VAToolbox

/// The frames of an IVF file (32-byte file header, then a 12-byte header and the payload per frame).
/// Test-only: the library's IVF reader is another engineer's.
enum IVFFile {
    /// The payload of each frame, in order; nil when the file is not IVF or a frame is cut short.
    static func frames(_ bytes: [UInt8]) -> [ArraySlice<UInt8>]? {
        guard bytes.count >= 32, bytes[0..<4].elementsEqual(Array("DKIF".utf8)) else { return nil }
        let headerSize = Int(bytes[6]) | Int(bytes[7]) << 8
        var frames: [ArraySlice<UInt8>] = []
        var index = headerSize
        while index + 12 <= bytes.count {
            let size = (0..<4).reduce(0) { $0 | Int(bytes[index + $1]) << (8 * $1) }
            guard index + 12 + size <= bytes.count else { return nil }
            frames.append(bytes[(index + 12)..<(index + 12 + size)])
            index += 12 + size
        }
        return frames
    }
}

/// What `ffmpeg -c copy -bsf:v trace_headers` prints: libavcodec's own AV1 parser (CBS) listing
/// every syntax element it reads, per packet. An oracle independent of the parsers under test.
struct AV1Trace {
    /// One OBU as traced: its type and the first value of each syntax element.
    struct OBU {
        var type: Int
        var elements: [String: Int]
    }
    /// One packet: its key flag and OBUs.
    struct Packet {
        var key: Bool
        var obus: [OBU] = []
    }

    var packets: [Packet] = []

    /// Runs the trace over `url` (in `format` when given) and parses it.
    init(_ url: URL, format: String? = nil) throws {
        let input = (format.map { ["-f", $0] } ?? []) + ["-i", url.path]
        let result = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/ffmpeg"),
            ["-hide_banner", "-nostats", "-nostdin", "-v", "info"] + input
                + ["-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"])
        try #require(result.status == 0, "ffmpeg trace_headers failed: \(result.errorLines.suffix(3))")
        let element = #/^\d+\s+(\S+)\s+[01]*\s*= (-?\d+)$/#
        for rawLine in result.standardError.split(separator: "\n") {
            let line = rawLine.replacing(#/^\[trace_headers @ 0x[0-9a-f]+\] /#, with: "")
            if line.hasPrefix("Packet:") {
                packets.append(Packet(key: line.contains("key frame")))
            } else if line == "OBU header", !packets.isEmpty {
                packets[packets.count - 1].obus.append(OBU(type: -1, elements: [:]))
            } else if let match = line.wholeMatch(of: element), let value = Int(match.2),
                let packet = packets.indices.last, let obu = packets[packet].obus.indices.last
            {
                let name = String(match.1)
                if name == "obu_type" { packets[packet].obus[obu].type = value }
                if packets[packet].obus[obu].elements[name] == nil {
                    packets[packet].obus[obu].elements[name] = value
                }
            }
        }
    }
}

/// Streams made with the ffmpeg CLI at test time (176×144, 10 frames), in a temporary folder.
struct AV1TestStream: Sendable, Hashable, CustomTestStringConvertible {
    /// A short name, also the file's base name.
    let name: String
    /// The ffmpeg arguments between the input and the output file.
    let arguments: [String]
    /// The output extension: `ivf`, `obu` (low-overhead, `-f obu`) or `mp4`.
    let container: String

    var testDescription: String { name }

    static let libaom = ["-c:v", "libaom-av1", "-cpu-used", "8"]

    /// libaom 8-bit with a key frame every 5 frames; alt-ref frames (hidden, then shown with
    /// show_existing_frame) come with libaom's defaults.
    static let aom8 = AV1TestStream(name: "aom-8bit", arguments: libaom + ["-g", "5"], container: "ivf")
    /// libaom 10-bit with a colour description and full range.
    static let aom10 = AV1TestStream(
        name: "aom-10bit",
        arguments: libaom + [
            "-pix_fmt", "yuv420p10le", "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709",
            "-color_range", "pc",
        ], container: "ivf")
    /// libaom 4:4:4 (High profile).
    static let aom444 = AV1TestStream(
        name: "aom-444", arguments: libaom + ["-pix_fmt", "yuv444p"], container: "ivf")
    /// libaom 12-bit 4:2:2 (Professional profile: subsampling coded explicitly).
    static let aom12 = AV1TestStream(
        name: "aom-12bit-422", arguments: libaom + ["-pix_fmt", "yuv422p12le"], container: "ivf")
    /// libaom monochrome.
    static let aomGray = AV1TestStream(name: "aom-gray", arguments: libaom + ["-pix_fmt", "gray"], container: "ivf")
    /// libaom with film grain synthesis.
    static let aomGrain = AV1TestStream(
        name: "aom-film-grain", arguments: libaom + ["-denoise-noise-level", "10"], container: "ivf")
    /// libaom still pictures: reduced still picture headers.
    static let aomStill = AV1TestStream(
        name: "aom-still", arguments: libaom + ["-still-picture", "1"], container: "ivf")
    /// libaom with timing info and a decoder model: frame headers carry `frame_presentation_time`
    /// and `buffer_removal_time`.
    static let aomDecoderModel = AV1TestStream(
        name: "aom-decoder-model", arguments: libaom + ["-aom-params", "timing-info=model"], container: "ivf")
    /// libaom in error resilient mode, which also turns frame ids on.
    static let aomErrorResilient = AV1TestStream(
        name: "aom-error-resilient", arguments: libaom + ["-aom-params", "error-resilient=1"], container: "ivf")
    /// libaom without order hints.
    static let aomNoOrderHint = AV1TestStream(
        name: "aom-no-order-hint", arguments: libaom + ["-aom-params", "enable-order-hint=0"], container: "ivf")
    /// rav1e.
    static let rav1e = AV1TestStream(name: "rav1e", arguments: ["-c:v", "librav1e", "-speed", "10"], container: "ivf")
    /// SVT-AV1.
    static let svt = AV1TestStream(
        name: "svt-av1", arguments: ["-c:v", "libsvtav1", "-preset", "12"], container: "ivf")
    /// libaom in the low-overhead `.obu` format.
    static let aomOBU = AV1TestStream(name: "aom-obu", arguments: libaom + ["-f", "obu"], container: "obu")
    /// libaom in MP4 (for the av1C).
    static let aomMP4 = AV1TestStream(name: "aom-mp4", arguments: libaom + ["-g", "5"], container: "mp4")
    /// libaom 10-bit 4:4:4 in MP4.
    static let aomMP4High = AV1TestStream(
        name: "aom-mp4-444-10bit", arguments: libaom + ["-pix_fmt", "yuv444p10le"], container: "mp4")

    /// SVT-AV1 with super-resolution: `use_superres` and `coded_denom` in frame headers.
    static let svtSuperres = AV1TestStream(
        name: "svt-superres",
        arguments: ["-c:v", "libsvtav1", "-preset", "12", "-svtav1-params", "superres-mode=1:superres-denom=16"],
        container: "ivf")
    /// SVT-AV1 with reference scaling: frames smaller than the sequence maximum
    /// (`frame_size_override_flag`, `frame_width_minus_1`, a render size).
    static let svtResize = AV1TestStream(
        name: "svt-resize",
        arguments: ["-c:v", "libsvtav1", "-preset", "12", "-svtav1-params", "resize-mode=1:resize-denom=12"],
        container: "ivf")

    /// The IVF streams.
    static let ivf = [
        aom8, aom10, aom12, aom444, aomGray, aomGrain, aomStill, aomDecoderModel, aomErrorResilient, aomNoOrderHint,
        svt, svtSuperres, svtResize, rav1e,
    ]
    /// The MP4 streams.
    static let mp4 = [aomMP4, aomMP4High]
    /// Every stream.
    static let all = ivf + [aomOBU] + mp4

    /// The folder holding every stream, made once per test run; nil without ffmpeg.
    static let made: URL? = {
        guard CommandRunner.hasFFmpeg, let directory = try? CommandRunner.temporaryDirectory() else { return nil }
        for stream in all {
            let output = directory.appendingPathComponent("\(stream.name).\(stream.container)")
            _ = try? CommandRunner.ffmpeg(
                ["-f", "lavfi", "-i", "testsrc2=size=176x144:rate=25", "-frames:v", "10"] + stream.arguments
                    + [output.path])
        }
        return directory
    }()

    /// The stream's file, when it could be made.
    var url: URL? {
        guard let url = Self.made?.appendingPathComponent("\(name).\(container)"),
            let size = try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int, size > 0
        else { return nil }
        return url
    }
}

/// The cros-codecs AV1 streams in the conformance folder.
enum AV1Conformance {
    /// `cros-codecs-av1/NAME`, when the conformance folder is there.
    static func url(_ name: String) -> URL? {
        TestData.conformance?.appendingPathComponent("cros-codecs-av1/\(name)")
    }
}

/// ffprobe's view of a stream: its fields and the key flag of each packet.
struct AV1Probe {
    var stream: [String: String] = [:]
    var packetKeys: [Bool] = []
    var frameCount: Int?

    init(_ url: URL, format: String? = nil, countFrames: Bool = false) throws {
        let input = (format.map { ["-f", $0] } ?? []) + [url.path]
        let result = try CommandRunner.ffprobe(
            ["-show_streams", "-show_packets", "-of", "compact"] + (countFrames ? ["-count_frames"] : []) + input)
        try #require(result.status == 0)
        for line in result.text.split(separator: "\n") {
            let fields = line.split(separator: "|").dropFirst()
            let pairs = fields.compactMap { field -> (String, String)? in
                let parts = field.split(separator: "=", maxSplits: 1).map(String.init)
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            }
            let dictionary = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
            if line.hasPrefix("packet|") {
                packetKeys.append(dictionary["flags"]?.hasPrefix("K") == true)
            } else if line.hasPrefix("stream|") {
                stream = dictionary
                frameCount = dictionary["nb_read_frames"].flatMap { Int($0) }
            }
        }
    }
}

/// Finds the payload of the first `av1C` box in an ISOBMFF file (the box's 4-byte size precedes
/// its type).
func av1CPayload(in file: [UInt8]) -> ArraySlice<UInt8>? {
    let type = Array("av1C".utf8)
    guard file.count >= 8 else { return nil }
    for index in 4..<(file.count - 4) where file[index..<(index + 4)].elementsEqual(type) {
        let size = (0..<4).reduce(0) { $0 << 8 | Int(file[index - 4 + $1]) }
        guard size >= 8, index - 4 + size <= file.count else { return nil }
        return file[(index + 4)..<(index - 4 + size)]
    }
    return nil
}

/// The packets of a file as libavformat's demuxer hands them out (`ffprobe -show_packets -show_data`):
/// their bytes and key flags.
func demuxedPackets(_ url: URL) throws -> [(data: [UInt8], key: Bool)] {
    let result = try CommandRunner.ffprobe(["-show_packets", "-show_data", "-of", "json", url.path])
    try #require(result.status == 0)
    let json = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
    let packets = try #require(json["packets"] as? [[String: Any]])
    return try packets.map { packet in
        let dump = try #require(packet["data"] as? String)
        // "00000000: 0a0b 0000 ...  ascii": the hex sits in columns 10 to 49 of each line.
        let hex = dump.split(separator: "\n").flatMap { line -> [Character] in
            let characters = Array(line)
            guard characters.count > 10 else { return [] }
            return characters[10..<min(characters.count, 49)].filter(\.isHexDigit)
        }
        let bytes = stride(from: 0, to: hex.count - 1, by: 2).compactMap {
            UInt8(String(hex[$0...($0 + 1)]), radix: 16)
        }
        return (bytes, (packet["flags"] as? String)?.hasPrefix("K") == true)
    }
}
