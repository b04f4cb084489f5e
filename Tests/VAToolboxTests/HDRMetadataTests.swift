import Foundation
import Testing

@testable import VAToolbox

/// Static HDR metadata (issue 22): the mastering display colour volume and content light level a
/// stream carries in band (HEVC SEI, AV1 metadata OBUs) or its container states (MP4 `mdcv`/`clli`,
/// Matroska `Colour`), on every decoded picture and in the format description, against ffprobe's
/// side data of the same frames and stream (`FILE.hdr.json`, Scripts/make-fixtures).
@Suite struct HDRMetadataTests {
    /// ffprobe's static HDR side data of one frame or stream.
    struct Expected: CustomStringConvertible {
        /// The mastering display: the `red_x` … `max_luminance` fields as numbers.
        var mastering: [String: Double]?
        /// `max_content`, `max_average`.
        var light: (Int, Int)?

        init(_ sideData: [[String: Any]]) {
            for entry in sideData {
                switch entry["side_data_type"] as? String {
                case "Mastering display metadata":
                    var values: [String: Double] = [:]
                    for (key, value) in entry where key != "side_data_type" {
                        values[key] = (value as? String).flatMap(HDRMetadataTests.rational)
                    }
                    mastering = values
                case "Content light level metadata":
                    if let maximum = entry["max_content"] as? Int, let average = entry["max_average"] as? Int {
                        light = (maximum, average)
                    }
                default: break
                }
            }
        }

        var description: String {
            "mastering \(mastering.map { "\($0)" } ?? "none"), light \(light.map { "\($0)" } ?? "none")"
        }
    }

    /// `"34000/50000"` → 0.68.
    static func rational(_ text: String) -> Double? {
        let parts = text.split(separator: "/").compactMap { Double($0) }
        return parts.count == 2 && parts[1] != 0 ? parts[0] / parts[1] : nil
    }

    /// The oracle of a fixture: each frame's side data in output order, and the stream's.
    static func oracle(_ fixture: String) throws -> (frames: [Expected], stream: Expected) {
        let data = try Data(contentsOf: TestData.fixtures.appendingPathComponent(fixture + ".hdr.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frames = try #require(root["frames"] as? [[String: Any]])
        let stream = (root["streams"] as? [[String: Any]])?.first?["side_data_list"] as? [[String: Any]]
        return (frames.map { Expected(($0["side_data_list"] as? [[String: Any]]) ?? []) }, Expected(stream ?? []))
    }

    /// Whether ours equals ffprobe's, within half a step of the SEI message's units (AV1's and
    /// Matroska's values are rounded to them).
    static func same(_ ours: MasteringDisplayColorVolume?, _ theirs: [String: Double]?) -> Bool {
        guard let ours, let theirs else { return ours == nil && theirs == nil }
        let chromaticities: [(String, Double)] = [
            ("red_x", ours.red.x), ("red_y", ours.red.y), ("green_x", ours.green.x), ("green_y", ours.green.y),
            ("blue_x", ours.blue.x), ("blue_y", ours.blue.y), ("white_point_x", ours.whitePoint.x),
            ("white_point_y", ours.whitePoint.y),
        ]
        let luminances = [("max_luminance", ours.maximumLuminance), ("min_luminance", ours.minimumLuminance)]
        return chromaticities.allSatisfy { name, value in theirs[name].map { abs($0 - value) <= 0.00001 } ?? false }
            && luminances.allSatisfy { name, value in theirs[name].map { abs($0 - value) <= 0.00005 } ?? false }
    }

    static func same(_ ours: ContentLightLevel?, _ theirs: (Int, Int)?) -> Bool {
        guard let ours, let theirs else { return ours == nil && theirs == nil }
        return Int(ours.maximumContentLightLevel) == theirs.0 && Int(ours.maximumFrameAverageLightLevel) == theirs.1
    }

    /// The fixtures, and whether the container (rather than the stream) states the metadata.
    static let fixtures: [(name: String, fromContainer: Bool)] = [
        ("hevc-hdr10.265", false), ("av1-hdr10.ivf", false), ("h264-container-hdr.mp4", true),
        ("h264-container-hdr.mkv", true),
    ]

    @Test(arguments: fixtures.map(\.name))
    func everyPictureCarriesWhatFFprobeShows(_ fixture: String) throws {
        let fromContainer = try #require(Self.fixtures.first { $0.name == fixture }).fromContainer
        let (frames, stream) = try Self.oracle(fixture)
        let samples = try TestData.samples(fixture)
        let format = samples[0].formatDescription
        if fromContainer {
            #expect(Self.same(format.extensions.masteringDisplayColorVolume, stream.mastering), "\(format.extensions)")
            #expect(Self.same(format.extensions.contentLightLevel, stream.light), "\(format.extensions)")
            #expect(stream.mastering != nil && stream.light != nil, "the container states both")
        } else {
            #expect(format.extensions.masteringDisplayColorVolume == nil, "no container states any")
        }
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: format, decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled),
            outputHandler: outputs.handler)
        try decode(samples, with: session)
        let pictures = outputs.all.sorted { $0.presentationTimeStamp < $1.presentationTimeStamp }
            .compactMap(\.imageBuffer)
        try #require(pictures.count == frames.count, "\(pictures.count) pictures, ffprobe shows \(frames.count)")
        for (index, (picture, frame)) in zip(pictures, frames).enumerated() {
            // A picture whose stream says nothing says what its container says.
            let expected = fromContainer ? stream : frame
            let attachments = picture.attachments
            #expect(
                Self.same(attachments.masteringDisplayColorVolume, expected.mastering),
                "\(fixture) frame \(index): \(attachments.masteringDisplayColorVolume.map { "\($0)" } ?? "none") vs \(expected)"
            )
            #expect(
                Self.same(attachments.contentLightLevel, expected.light),
                "\(fixture) frame \(index): \(attachments.contentLightLevel.map { "\($0)" } ?? "none") vs \(expected)")
        }
        #expect(frames.allSatisfy { fromContainer || $0.mastering != nil }, "the stream carries it on every frame")
    }

    /// `vatoolbox probe --json` shows the container's metadata as ffprobe's stream side data does,
    /// and none for a stream whose metadata is in band only.
    @Test(.enabled(if: CommandRunner.hasTool), arguments: fixtures.map(\.name))
    func probeShowsTheContainersMetadata(_ fixture: String) throws {
        let fromContainer = try #require(Self.fixtures.first { $0.name == fixture }).fromContainer
        let path = TestData.fixtures.appendingPathComponent(fixture).path
        let run = try CommandRunner.vatoolbox(["probe", "--json", path])
        try #require(run.status == 0, "\(run.standardError)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(run.text.utf8)) as? [String: Any])
        let format = try #require((root["formats"] as? [[String: Any]])?.first)
        let stream = try Self.oracle(fixture).stream
        if fromContainer {
            let shown = try #require(format["mastering_display"] as? [String: Double], "\(format)")
            let expected = try #require(stream.mastering)
            #expect(Set(shown.keys) == Set(expected.keys))
            for (name, value) in expected {
                #expect(abs((shown[name] ?? .nan) - value) <= 0.00005, "\(fixture) \(name)")
            }
            let light = try #require(format["content_light_level"] as? [String: Int])
            #expect(light["max_content"] == stream.light?.0 && light["max_average"] == stream.light?.1)
        } else {
            #expect(format["mastering_display"] is NSNull && format["content_light_level"] is NSNull, "\(format)")
        }
    }

    /// Pictures of a stream without HDR metadata carry none.
    @Test func aStreamWithoutMetadataCarriesNone() throws {
        let samples = try TestData.samples("hevc-main.265")
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled), outputHandler: outputs.handler)
        try decode(samples, with: session)
        let pictures = outputs.all.compactMap(\.imageBuffer)
        #expect(!pictures.isEmpty)
        #expect(pictures.allSatisfy { $0.attachments.masteringDisplayColorVolume == nil })
        #expect(pictures.allSatisfy { $0.attachments.contentLightLevel == nil })
    }

    /// Apple's bytes are the HEVC SEI payloads, big-endian: primaries green, blue, red.
    @Test func appleBytesAreTheSEIPayloads() throws {
        let mastering = MasteringDisplayColorVolume(
            red: .init(xCode: 34000, yCode: 16000), green: .init(xCode: 13250, yCode: 34500),
            blue: .init(xCode: 7500, yCode: 3000), whitePoint: .init(xCode: 15635, yCode: 16450),
            maximumLuminanceCode: 10_000_000, minimumLuminanceCode: 1)
        #expect(
            mastering.appleBytes == [
                0x33, 0xC2, 0x86, 0xC4, 0x1D, 0x4C, 0x0B, 0xB8, 0x84, 0xD0, 0x3E, 0x80, 0x3D, 0x13, 0x40, 0x42,
                0x00, 0x98, 0x96, 0x80, 0x00, 0x00, 0x00, 0x01,
            ])
        #expect(MasteringDisplayColorVolume(appleBytes: mastering.appleBytes) == mastering)
        #expect(MasteringDisplayColorVolume(appleBytes: Array(mastering.appleBytes.dropLast())) == nil)
        #expect(mastering.maximumLuminance == 1000 && mastering.minimumLuminance == 0.0001)
        #expect(mastering.red.x == 0.68 && mastering.whitePoint.y == 0.329)

        let light = ContentLightLevel(maximumContentLightLevel: 1000, maximumFrameAverageLightLevel: 400)
        #expect(light.appleBytes == [0x03, 0xE8, 0x01, 0x90])
        #expect(ContentLightLevel(appleBytes: light.appleBytes) == light)
        #expect(ContentLightLevel(appleBytes: [1, 2, 3]) == nil)
    }
}

extension VATestDriverTests {
    /// The same metadata on the GPU path (the test driver, every personality) as on the CPU,
    /// frame for frame: libavcodec's hwaccel parses the SEI messages and OBUs the driver never
    /// sees, and the container's reach the pictures the same way.
    @Suite struct HDRMetadataOnTheGPU {
        static func attachments(_ outputs: [DecompressionOutput]) -> [ImageBufferAttachments] {
            outputs.sorted { $0.presentationTimeStamp < $1.presentationTimeStamp }.compactMap(\.imageBuffer)
                .map(\.attachments)
        }

        @Test(arguments: HDRMetadataTests.fixtures.map(\.name), TestVADriver.personalities)
        func theGPUHandsOutWhatTheCPUHandsOut(_ fixture: String, _ personality: String?) throws {
            let samples = try TestData.samples(fixture)
            let outputs = Outputs()
            let session = try HardwareSessions.session(
                samples[0].formatDescription, acceleration: .preferred,
                faults: personality.map { ["VATB_PERSONALITY": $0] } ?? [:], outputs: outputs)
            let onTheGPU = session.usingHardwareAcceleratedVideoDecoder
            try decode(samples, with: session)
            let gpu = Self.attachments(outputs.all)
            let cpu = Self.attachments(try HardwareSessions.softwareOutputs(samples))
            #expect(gpu.count == cpu.count && gpu.count == 10, "\(fixture)")
            #expect(cpu.allSatisfy { $0.masteringDisplayColorVolume != nil && $0.contentLightLevel != nil })
            #expect(gpu.map(\.masteringDisplayColorVolume) == cpu.map(\.masteringDisplayColorVolume), "\(fixture)")
            #expect(gpu.map(\.contentLightLevel) == cpu.map(\.contentLightLevel), "\(fixture)")
            if personality == nil { #expect(onTheGPU, "the test driver's own profiles cover \(fixture)") }
        }
    }
}
