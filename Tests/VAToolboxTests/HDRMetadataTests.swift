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
        ("hevc-hdr10.265", false), ("av1-hdr10.ivf", false), ("hevc-hdr10plus.265", false),
        ("h264-container-hdr.mp4", true),
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

/// HDR10+ dynamic metadata (issue 22, item 2): each frame's ITU-T T.35 message, passed through
/// as its sample carried it when the session propagates per-frame HDR metadata, against ffprobe's
/// reading of the same frames (`hevc-hdr10plus.265.hdr.json`: each frame's `average_maxrgb`
/// differs).
@Suite struct HDR10PlusTests {
    static let fixture = "hevc-hdr10plus.265"
    static let webmFixture = "vp9-hdr10plus.webm"

    /// ffprobe's `average_maxrgb` numerator of each frame, in output order.
    static func oracleAverages() throws -> [Int] {
        let data = try Data(contentsOf: TestData.fixtures.appendingPathComponent(fixture + ".hdr.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frames = try #require(root["frames"] as? [[String: Any]])
        return try frames.map { frame in
            let sideData = try #require(frame["side_data_list"] as? [[String: Any]])
            let hdr10Plus = try #require(
                sideData.first { ($0["side_data_type"] as? String)?.contains("2094-40") == true })
            let text = try #require(hdr10Plus["average_maxrgb"] as? String)
            return try #require(text.split(separator: "/").first.flatMap { Int($0) })
        }
    }

    /// `average_maxrgb` of a message: 17 bits after the T.35 header (country, provider, oriented
    /// codes, application identifier and version: 56 bits), `num_windows` (2),
    /// `targeted_system_display_maximum_luminance` (27), its flag (1) and `maxscl[3]` (51).
    static func averageMaxRGB(_ message: [UInt8]) -> Int? {
        let offset = 56 + 2 + 27 + 1 + 51
        guard message.count * 8 >= offset + 17 else { return nil }
        return (offset..<(offset + 17)).reduce(0) { value, bit in
            value << 1 | Int((message[bit / 8] >> (7 - UInt8(bit % 8))) & 1)
        }
    }

    /// Decodes the fixture and returns each picture's message, in presentation order.
    static func messages(
        _ specification: DecoderSpecification, propagating: Bool, fixture: String = fixture
    ) throws -> [[UInt8]?] {
        let samples = try TestData.samples(fixture)
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription, decoderSpecification: specification,
            outputHandler: outputs.handler)
        #expect(!session.propagatesPerFrameHDRDisplayMetadata, "off by default, as VideoToolbox's")
        session.propagatesPerFrameHDRDisplayMetadata = propagating
        #expect(try session.property(.propagatePerFrameHDRDisplayMetadata) as? Bool == propagating)
        try decode(samples, with: session)
        return outputs.all.filter { $0.imageBuffer != nil }.sorted {
            $0.presentationTimeStamp < $1.presentationTimeStamp
        }
        .map(\.hdr10PlusPerFrameData)
    }

    @Test func everyFrameCarriesItsOwnMessage() throws {
        let messages = try Self.messages(DecoderSpecification(hardwareAcceleration: .disabled), propagating: true)
        let expected = try Self.oracleAverages()
        #expect(messages.count == expected.count && expected.count == 10)
        #expect(
            messages.allSatisfy { $0.map { HDR10Plus.isHDR10Plus($0[...]) } == true }, "starts 0xB5 0x003C 0x0001 4")
        #expect(messages.map { $0.flatMap(Self.averageMaxRGB) } == expected.map { $0 }, "frame for frame")
        #expect(Set(expected).count == 10, "the oracle tells the frames apart")
    }

    @Test func noMessageUnlessAsked() throws {
        let messages = try Self.messages(DecoderSpecification(hardwareAcceleration: .disabled), propagating: false)
        #expect(messages.count == 10 && messages.allSatisfy { $0 == nil })
    }

    /// VP9's HDR10+ rides in WebM's BlockAdditional (BlockAddID 4): each frame carries its
    /// block's message, which the fixture's script took from `hevc-hdr10plus.265` (average_maxrgb
    /// 1000 + 100 n for the n-th block), byte for byte the message the HEVC stream's frame with
    /// that average carries (checked against ffprobe by `everyFrameCarriesItsOwnMessage`).
    @Test func webmBlockAdditionalsCarryTheMessage() throws {
        let webm = try Self.messages(
            DecoderSpecification(hardwareAcceleration: .disabled), propagating: true, fixture: Self.webmFixture)
        #expect(webm.count == 10)
        #expect(webm.map { $0.flatMap(Self.averageMaxRGB) } == (0..<10).map { 1000 + 100 * $0 })
        let hevc = try Self.messages(DecoderSpecification(hardwareAcceleration: .disabled), propagating: true)
        for message in webm {
            let average = message.flatMap(Self.averageMaxRGB)
            #expect(message != nil && message == hevc.first { $0.flatMap(Self.averageMaxRGB) == average } ?? nil)
        }
        let samples = try TestData.samples(Self.webmFixture)
        #expect(samples.allSatisfy { $0.hdr10PlusPerFrameData != nil }, "the file reader keeps the block additional")
        let off = try Self.messages(
            DecoderSpecification(hardwareAcceleration: .disabled), propagating: false, fixture: Self.webmFixture)
        #expect(off.count == 10 && off.allSatisfy { $0 == nil })
    }

    /// An AV1 `METADATA_TYPE_ITUT_T35` OBU's HDR10+ message, from the country code on; other T.35
    /// messages and metadata types are not HDR10+.
    @Test func av1MetadataOBUsCarryTheMessage() throws {
        let message: [UInt8] = [0xB5, 0x00, 0x3C, 0x00, 0x01, 0x04, 0x01, 0x40, 0x00, 0x0C, 0x80]
        func metadataOBU(type: UInt8, _ body: [UInt8]) -> [UInt8] {
            let payload = [type] + body
            return [0x2A, UInt8(payload.count)] + payload  // OBU_METADATA with obu_has_size_field
        }
        let temporalDelimiter: [UInt8] = [0x12, 0x00]
        let sample = temporalDelimiter + metadataOBU(type: 1, [0x03, 0xE8, 0x01, 0x90]) + metadataOBU(type: 4, message)
        #expect(AV1HDRMetadata.hdr10PlusPayload(in: sample[...]) == message)
        let other = temporalDelimiter + metadataOBU(type: 4, [0xB5, 0x00, 0x31, 0x00, 0x01, 0x04, 0x01])
        #expect(AV1HDRMetadata.hdr10PlusPayload(in: other[...]) == nil, "another provider's T.35 message")
        let light = AV1HDRMetadata.staticMetadata(in: sample[...])?.contentLightLevel
        #expect(light == ContentLightLevel(maximumContentLightLevel: 1000, maximumFrameAverageLightLevel: 400))
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

        /// HDR10+ on the GPU: the same messages as on the CPU, frame for frame, from HEVC SEI
        /// messages and from WebM block additionals.
        @Test(arguments: [HDR10PlusTests.fixture, HDR10PlusTests.webmFixture], TestVADriver.personalities)
        func hdr10PlusOnTheGPU(_ fixture: String, _ personality: String?) throws {
            let samples = try TestData.samples(fixture)
            let outputs = Outputs()
            let session = try HardwareSessions.session(
                samples[0].formatDescription, acceleration: .preferred,
                faults: personality.map { ["VATB_PERSONALITY": $0] } ?? [:], outputs: outputs)
            session.propagatesPerFrameHDRDisplayMetadata = true
            try decode(samples, with: session)
            let gpu = outputs.all.sorted { $0.presentationTimeStamp < $1.presentationTimeStamp }.map(
                \.hdr10PlusPerFrameData)
            let cpu = try HDR10PlusTests.messages(
                DecoderSpecification(hardwareAcceleration: .disabled), propagating: true, fixture: fixture)
            #expect(gpu.count == 10 && gpu == cpu && cpu.allSatisfy { $0 != nil }, "\(fixture)")
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
