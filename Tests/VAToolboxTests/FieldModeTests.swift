import Foundation
import Testing

@testable import VAToolbox

/// A session's field mode (`kVTDecompressionPropertyKey_FieldMode`, issue 23 item 3): each mode's
/// pictures are the ffmpeg CLI's with the filter the mode documents — `pp=lb` (the (1 2 1)/4
/// vertical filter Apple documents for `DeinterlaceMode_VerticalFilter`), `field=type=top`,
/// `field=type=bottom` — on an interlaced H.264 (MBAFF) and MPEG-2 stream.
@Suite(.enabled(if: CommandRunner.hasFFmpeg)) struct FieldModeTests {
    static let fixtures = ["h264-mbaff.264", "mpeg2-interlaced.ts"]
    static let modes: [(mode: String, filter: String)] = [
        (FieldMode.deinterlaceFields, "pp=lb"), (FieldMode.topFieldOnly, "field=type=top"),
        (FieldMode.bottomFieldOnly, "field=type=bottom"), (FieldMode.singleField, "field=type=top"),
    ]

    /// The session's pictures of a fixture in its planar format, with `mode` set before decoding.
    static func pictures(
        _ fixture: String, mode: String?,
        _ specification: DecoderSpecification = DecoderSpecification(hardwareAcceleration: .disabled)
    ) throws -> [PixelBuffer] {
        let samples = try TestData.samples(fixture)
        let outputs = Outputs()
        let format = samples[0].formatDescription
        let session = try DecompressionSession(
            formatDescription: format, decoderSpecification: specification,
            imageBufferAttributes: ImageBufferAttributes(
                pixelFormat: DecompressionSession.planarPixelFormat(for: format)),
            outputHandler: outputs.handler)
        if let mode { try session.setProperty(.fieldMode, to: mode) }
        try decode(samples, with: session)
        #expect(outputs.all.allSatisfy { $0.status == nil })
        return outputs.all.compactMap(\.imageBuffer)
    }

    @Test(arguments: fixtures)
    func eachModeGivesFFmpegsFilteredPictures(_ fixture: String) throws {
        let plain = try Self.pictures(fixture, mode: nil)
        #expect(plain.count >= 20 && plain.allSatisfy { $0.attachments.fieldCount == 2 }, "interlaced")
        for (mode, filter) in Self.modes {
            let pictures = try Self.pictures(fixture, mode: mode)
            let expected = try DeinterlacerTests.ffmpegMD5s(fixture, filter: filter)
            #expect(pictures.count == plain.count, "\(fixture) \(mode)")
            #expect(pictures.map(\.md5) == expected, "\(fixture) \(mode)")
            #expect(pictures.map(\.md5) != plain.map(\.md5), "\(fixture) \(mode) changed the pictures")
            if mode == FieldMode.deinterlaceFields {
                #expect(pictures.allSatisfy { $0.attachments.fieldCount == 1 && $0.height == plain[0].height })
            } else {
                #expect(pictures.allSatisfy { $0.height == plain[0].height / 2 })
            }
        }
    }

    /// A progressive stream goes out as decoded when deinterlacing (only interlaced pictures are
    /// filtered), and one field of each picture in the field modes.
    @Test func progressivePicturesAreLeftAloneByDeinterlacing() throws {
        let plain = try Self.pictures("h264-main-cabac.264", mode: nil)
        let deinterlaced = try Self.pictures("h264-main-cabac.264", mode: FieldMode.deinterlaceFields)
        #expect(!plain.isEmpty && deinterlaced.map(\.md5) == plain.map(\.md5))
        let top = try Self.pictures("h264-main-cabac.264", mode: FieldMode.topFieldOnly)
        #expect(top.map(\.md5) == (try DeinterlacerTests.ffmpegMD5s("h264-main-cabac.264", filter: "field=type=top")))
    }
}

extension VATestDriverTests {
    /// The field modes on the GPU path (the test driver): one field is half the height and
    /// deinterlaced pictures are progressive, none with an error. Deinterlacing runs on the GPU
    /// (VA's Bob) where the driver lists it, the pictures staying GPU surfaces with the bytes of
    /// the CPU's vertical filter (the driver's Bob is that filter); elsewhere they are read back
    /// and filtered on the CPU, and the session says why.
    @Suite struct FieldModesOnTheGPU {
        @Test(arguments: [FieldMode.deinterlaceFields, FieldMode.bottomFieldOnly], TestVADriver.personalities)
        func theModeAppliesToTheGPUsPictures(_ mode: String, _ personality: String?) throws {
            let (all, onTheGPU) = try HardwareSessions.decodedOnTheDriver("h264-mbaff.264", personality: personality) {
                try $0.setProperty(.fieldMode, to: mode)
            }
            let pictures = all.compactMap(\.imageBuffer)
            let decodedHeight = Int(try TestData.samples("h264-mbaff.264")[0].formatDescription.dimensions.height)
            #expect(pictures.count == 30 && all.allSatisfy { $0.status == nil })
            if mode == FieldMode.deinterlaceFields {
                #expect(pictures.allSatisfy { $0.attachments.fieldCount == 1 && $0.height == decodedHeight })
            } else {
                #expect(pictures.allSatisfy { $0.height == decodedHeight / 2 })
            }
            if personality == nil { #expect(onTheGPU) }
        }

        @Test(arguments: TestVADriver.personalities)
        func deinterlacingRunsOnTheGPUWhereTheDriverListsBob(_ personality: String?) throws {
            let live = try HardwareSessions.liveObjects()
            try {
                let samples = try TestData.samples("h264-mbaff.264")
                let outputs = Outputs()
                let session = try HardwareSessions.session(
                    samples[0].formatDescription, faults: personality.map { ["VATB_PERSONALITY": $0] } ?? [:],
                    outputs: outputs)
                try session.setProperty(.fieldMode, to: FieldMode.deinterlaceFields)
                try decode(samples, with: session)
                let pictures = outputs.all.compactMap(\.imageBuffer)
                #expect(pictures.count == 30 && pictures.allSatisfy { $0.attachments.fieldCount == 1 })
                switch personality {
                case "i965", "nvidia":
                    #expect(pictures.allSatisfy { !$0.isGPUSurface })
                    guard case .cpu(let reason?) = session.deinterlacingPath else {
                        Issue.record("\(personality ?? ""): \(String(describing: session.deinterlacingPath))")
                        return
                    }
                    #expect(reason.contains(personality ?? ""), "\(reason)")
                default:
                    // The handler keeps all 30 pictures; the session keeps 24 processed surfaces
                    // (4 pools of 6) for pictures its application holds, then filters on the CPU.
                    #expect(pictures.prefix(24).allSatisfy { $0.isGPUSurface && $0.pixelFormat == .nv12VideoRange })
                    #expect(pictures.dropFirst(24).allSatisfy { !$0.isGPUSurface })
                    #expect(
                        session.deinterlacingPath
                            == .cpu(reason: "the application holds all 24 converted GPU pictures this session keeps"))
                }
                session.invalidate()
            }()
            #expect(try HardwareSessions.liveObjects() == live, "every surface, context and config is gone")
        }
    }
}
