import Foundation
import Testing

@testable import VAToolbox

/// The colour signalling beyond the three code points (issue 22): the alternative transfer
/// characteristics SEI message kept apart from the transfer the parameter sets state, as Apple
/// keeps them, and an MP4's ICC profile (`colr` of type `prof`) in the format description and on
/// every picture.
@Suite struct ColourSignallingTests {
    static let alternativeStream = "hevc-alternative-transfer.265"
    static let iccFile = "h264-icc-profile.mp4"
    static let ffprobe = URL(fileURLWithPath: "/usr/bin/ffprobe")

    /// What ffmpeg's `trace_headers` reads from the stream: the SPS's `transfer_characteristics`
    /// and every `preferred_transfer_characteristics`.
    static func tracedTransfers() throws -> (stated: Int, preferred: [Int]) {
        let units = try TraceHeaders.units(
            of: TestData.fixtures.appendingPathComponent(alternativeStream), startingAt: nil)
        let stated = try #require(units.lazy.compactMap { $0["transfer_characteristics"] }.first)
        return (stated, units.compactMap { $0["preferred_transfer_characteristics"] })
    }

    static func pictures(
        _ fixture: String,
        _ specification: DecoderSpecification = DecoderSpecification(hardwareAcceleration: .disabled),
        format: ((VideoFormatDescription) -> VideoFormatDescription)? = nil
    ) throws -> [PixelBuffer] {
        var samples = try TestData.samples(fixture)
        if let format {
            let changed = format(samples[0].formatDescription)
            samples = try samples.map {
                try SampleBuffer(
                    data: $0.data, formatDescription: changed, timing: $0.timing, attachments: $0.attachments)
            }
        }
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription, decoderSpecification: specification,
            outputHandler: outputs.handler)
        try decode(samples, with: session)
        return outputs.all.compactMap(\.imageBuffer)
    }

    // MARK: - Alternative transfer characteristics

    /// Every picture's transfer is the video usability information's (BT.2020, 14, as Apple's
    /// `kCVImageBufferTransferFunctionKey`), the SEI's preferred HLG (18) apart; libavcodec and
    /// ffprobe put the preferred one in its place.
    @Test func theStatedTransferStaysAndThePreferredOneIsApart() throws {
        let traced = try Self.tracedTransfers()
        #expect(traced.stated == 14)
        #expect(!traced.preferred.isEmpty && Set(traced.preferred) == [18])
        let frames = try CommandRunner.run(
            Self.ffprobe,
            [
                "-v", "error", "-show_entries", "frame=color_transfer", "-of", "csv=p=0",
                TestData.fixtures.appendingPathComponent(Self.alternativeStream).path,
            ]
        ).standardOutput
        let ffprobeTransfers = String(decoding: frames, as: UTF8.self).split(separator: "\n")
        #expect(ffprobeTransfers.count == 10 && ffprobeTransfers.allSatisfy { $0 == "arib-std-b67" }, "libavcodec's")
        let pictures = try Self.pictures(Self.alternativeStream)
        #expect(pictures.count == 10)
        for picture in pictures {
            #expect(picture.attachments.transferFunction?.rawValue == UInt8(traced.stated))
            #expect(picture.attachments.alternativeTransferCharacteristics?.rawValue == UInt8(traced.preferred[0]))
        }
        let samples = try TestData.samples(Self.alternativeStream)
        #expect(samples[0].formatDescription.extensions.transferFunction == .itu2020TenBit)
        #expect(samples[0].formatDescription.extensions.alternativeTransferCharacteristics == nil, "the app's")
        // A stream without the message: the transfer libavcodec reports, nothing apart.
        let plain = try Self.pictures("hevc-hdr10.265")
        #expect(!plain.isEmpty && plain.allSatisfy { $0.attachments.transferFunction == .pq })
        #expect(plain.allSatisfy { $0.attachments.alternativeTransferCharacteristics == nil })
    }

    /// The description's alternative transfer (the app's) reaches the pictures of a stream that
    /// states none, and leaves their transfer alone.
    @Test func theDescriptionsAlternativeTransferReachesThePictures() throws {
        let pictures = try Self.pictures("hevc-hdr10.265") { format in
            var format = format
            format.extensions.alternativeTransferCharacteristics = .hlg
            return format
        }
        #expect(pictures.count == 10)
        #expect(pictures.allSatisfy { $0.attachments.alternativeTransferCharacteristics == .hlg })
        #expect(pictures.allSatisfy { $0.attachments.transferFunction == .pq })
    }

    @Test func theSEIPayloadIsOneTransferCodePoint() {
        func preferred(_ payload: [UInt8]) -> TransferFunction? {
            SEIMessages.staticHDRMetadata(
                inRBSP: [147, UInt8(payload.count)] + payload + [0x80], includingHDR10: false)?
                .alternativeTransferCharacteristics
        }
        #expect(preferred([18]) == .hlg)
        #expect(preferred([16]) == .pq)
        #expect(preferred([2]) == nil, "unspecified: libavcodec ignores it too")
        #expect(preferred([19]) == nil, "not an H.273 transfer")
        #expect(preferred([]) == nil, "empty")
    }

    // MARK: - ICC profile

    /// The profile's bytes as the fixture's `colr` box holds them, read by this test: the
    /// payload after `prof`, as long as the box says; and as the fixture script wrote them.
    static func containerProfile() throws -> [UInt8] {
        let file = [UInt8](try Data(contentsOf: TestData.fixtures.appendingPathComponent(iccFile)))
        let marker = Array("colrprof".utf8)
        let at = try #require(
            (4..<(file.count - marker.count)).first { Array(file[$0..<($0 + marker.count)]) == marker })
        let size = file[(at - 4)..<at].reduce(0) { $0 << 8 | Int($1) }
        let profile = Array(file[(at + marker.count)..<(at - 4 + size)])
        let hex = try String(
            contentsOf: TestData.fixtures.appendingPathComponent(iccFile + ".icc.hex"), encoding: .utf8)
        let written = stride(from: 0, to: hex.trimmingCharacters(in: .whitespacesAndNewlines).count, by: 2).compactMap {
            let start = hex.index(hex.startIndex, offsetBy: $0)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)
        }
        #expect(profile == written)
        #expect(Array(profile[36..<40]) == Array("acsp".utf8), "an ICC profile's signature")
        return profile
    }

    /// libavformat reads the box (ffprobe lists it as the stream's `ICC Profile` side data); the
    /// description and every picture carry its bytes as they are, marked as the container's.
    @Test func theContainersICCProfileIsInTheDescriptionAndOnEveryPicture() throws {
        let profile = try Self.containerProfile()
        let streams = try CommandRunner.run(
            Self.ffprobe,
            [
                "-v", "error", "-show_streams", "-of", "json",
                TestData.fixtures.appendingPathComponent(Self.iccFile).path,
            ]
        ).standardOutput
        #expect(String(decoding: streams, as: UTF8.self).contains("\"side_data_type\": \"ICC Profile\""))
        let samples = try TestData.samples(Self.iccFile)
        #expect(samples[0].formatDescription.extensions.iccProfile == profile)
        let pictures = try Self.pictures(Self.iccFile)
        #expect(pictures.count == 10)
        #expect(
            pictures.allSatisfy { $0.attachments.iccProfile == profile && $0.attachments.iccProfileIsFromContainer })
        let plain = try Self.pictures("h264-container-hdr.mp4")
        #expect(!plain.isEmpty && plain.allSatisfy { $0.attachments.iccProfile == nil })
    }

    /// An app's profile in the description reaches a raw stream's pictures.
    @Test func theDescriptionsICCProfileReachesThePictures() throws {
        let profile = try Self.containerProfile()
        let pictures = try Self.pictures("h264-main-cabac.264") { format in
            var format = format
            format.extensions.iccProfile = profile
            return format
        }
        #expect(!pictures.isEmpty && pictures.allSatisfy { $0.attachments.iccProfile == profile })
    }
}

extension VATestDriverTests {
    /// The alternative transfer and the ICC profile on the GPU path (the test driver, every
    /// personality): what the CPU hands out, picture for picture.
    @Suite struct ColourSignallingOnTheGPU {
        @Test(
            arguments: [ColourSignallingTests.alternativeStream, ColourSignallingTests.iccFile],
            TestVADriver.personalities)
        func theGPUHandsOutWhatTheCPUHandsOut(_ fixture: String, _ personality: String?) throws {
            let (all, onTheGPU) = try HardwareSessions.decodedOnTheDriver(fixture, personality: personality)
            let gpu = all.compactMap { $0.imageBuffer?.attachments }
            let cpu = try ColourSignallingTests.pictures(fixture).map(\.attachments)
            #expect(gpu.count == cpu.count && gpu.count == 10, "\(fixture)")
            #expect(gpu.map(\.transferFunction) == cpu.map(\.transferFunction))
            #expect(gpu.map(\.alternativeTransferCharacteristics) == cpu.map(\.alternativeTransferCharacteristics))
            #expect(gpu.map(\.iccProfile) == cpu.map(\.iccProfile))
            #expect(
                cpu.allSatisfy { $0.alternativeTransferCharacteristics != nil || $0.iccProfile != nil },
                "the CPU's are there to compare")
            if personality == nil { #expect(onTheGPU, "the test driver's own profiles cover \(fixture)") }
        }
    }
}
