import Foundation
import Testing

@testable import VAToolbox

/// `SampleUnitLister`: each codec's units through one entry point, checked against ffprobe's
/// frames (the pictures a stream shows) and the samples' own framing.
@Suite struct SampleUnitListerTests {
    static func listings(_ file: String) throws -> (samples: [SampleBuffer], listings: [SampleUnitListing]) {
        let source = try SampleSource(path: TestData.fixtures.appendingPathComponent(file).path)
        var lister = SampleUnitLister(codecType: source.codecType)
        var samples: [SampleBuffer] = []
        var listings: [SampleUnitListing] = []
        while let sample = try source.nextSample() {
            samples.append(sample)
            listings.append(lister.listUnits(of: sample))
        }
        return (samples, listings)
    }

    static func oracle(_ file: String, _ codec: VideoCodecType) throws -> FFprobeOracle {
        try FFprobeOracle.load(
            for: StreamFile(
                name: file, url: TestData.fixtures.appendingPathComponent(file), codec: codec, isFixture: true))
    }

    static func array(_ listing: SampleUnitListing, _ name: String) -> [SampleUnitListing.Value] {
        guard case .array(let values) = listing.fields.first(where: { $0.name == name })?.value else { return [] }
        return values
    }

    static func field(_ value: SampleUnitListing.Value, _ name: String) -> SampleUnitListing.Value? {
        guard case .object(let fields) = value else { return nil }
        return fields.first { $0.name == name }?.value
    }

    @Test(
        "H.264 and HEVC: one line and one entry per NAL unit", arguments: ["h264-high-bpyramid.264", "hevc-main.mkv"])
    func nalUnits(_ file: String) throws {
        let (samples, listings) = try Self.listings(file)
        for (sample, listing) in zip(samples, listings) {
            #expect(listing.problem == nil)
            #expect(listing.lines == sample.nalUnits.map { "\($0)" })
            let sizes = Self.array(listing, "nal_units").compactMap { value -> Int? in
                guard case .int(let size) = Self.field(value, "size") else { return nil }
                return size
            }
            #expect(sizes == sample.nalUnits.map(\.bytes.count))
        }
    }

    @Test("VP9: the frames shown are ffprobe's frames", arguments: ["vp9-profile0.ivf", "vp9-resolution-change.ivf"])
    func vp9(_ file: String) throws {
        let (_, listings) = try Self.listings(file)
        let frames = listings.flatMap { Self.array($0, "frames") }
        let shown = frames.filter {
            Self.field($0, "show_frame") == .bool(true) || Self.field($0, "show_existing_frame") == .bool(true)
        }
        #expect(listings.allSatisfy { $0.problem == nil })
        #expect(shown.count == (try Self.oracle(file, .vp9)).frameSizes.count)
        // A sample of several frames (a hidden one and the one shown) is noted as a superframe.
        let superframes = listings.filter { $0.note?.hasPrefix("superframe of") == true }
        #expect(superframes.count == listings.filter { $0.lines.count > 1 }.count)
    }

    @Test("AV1: the frames each temporal unit shows add up to ffprobe's frames", arguments: ["av1.ivf", "av1.obu"])
    func av1(_ file: String) throws {
        let (_, listings) = try Self.listings(file)
        let shown = listings.compactMap { $0.note.flatMap { Int($0.split(separator: " ")[0]) } }
        #expect(listings.allSatisfy { $0.problem == nil })
        #expect(shown.reduce(0, +) == (try Self.oracle(file, .av1)).frameSizes.count)
        #expect(Self.array(listings[0], "obus").contains { Self.field($0, "sequence_header") != nil })
    }

    @Test("MPEG-2: one picture per ffprobe packet, the first with its sequence header")
    func mpeg2() throws {
        let file = "mpeg2-progressive.m2v"
        let (_, listings) = try Self.listings(file)
        #expect(
            listings.map { Self.array($0, "pictures").count }.reduce(0, +)
                == (try Self.oracle(file, .mpeg2Video)).packetCount)
        #expect(listings.first?.fields.first?.name == "sequence_header")
    }

    @Test("VP8: the frame header of each sample, key frames where ffprobe flags them")
    func vp8() throws {
        let file = "vp8.ivf"
        let (_, listings) = try Self.listings(file)
        let keys = listings.indices.filter {
            Self.array(listings[$0], "frames").first.flatMap { Self.field($0, "frame_type") } == .string("key")
        }
        #expect(keys == (try Self.oracle(file, .vp8)).keyPacketIndices)
    }

    @Test("a malformed sample gives its problem, not a throw")
    func malformed() throws {
        let (samples, _) = try Self.listings("vp9-profile0.ivf")
        var lister = SampleUnitLister(codecType: .vp9)
        let broken = SampleBuffer(
            damagedData: [0xFF, 0xFF], formatDescription: samples[0].formatDescription, timing: samples[0].timing)
        let listing = lister.listUnits(of: broken)
        #expect(listing.problem != nil)
    }
}
