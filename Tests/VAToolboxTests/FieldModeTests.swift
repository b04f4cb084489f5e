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

/// `DeinterlaceMode` `Temporal` (issue 23, item 3), as Apple documents it: with
/// `DeinterlaceFields`, the frames decoded with `enableTemporalProcessing` go through a temporal
/// filter — bwdif over the pictures around each, interlaced pictures only (the ffmpeg CLI's
/// `-vf bwdif=mode=send_frame:deint=interlaced`) — and come out a picture later, each with its
/// own time and refcon (`finishDelayedFrames()` hands out the last); frames decoded without the
/// flag take the vertical filter.
@Suite(.enabled(if: CommandRunner.hasFFmpeg)) struct TemporalDeinterlaceModeTests {
    static let bwdif = "bwdif=mode=send_frame:parity=auto:deint=interlaced"

    /// The session's outputs of a fixture, in the planar format, with the temporal mode set.
    static func outputs(
        _ fixture: String, flags: DecodeFrameFlags,
        specification: DecoderSpecification = DecoderSpecification(hardwareAcceleration: .disabled),
        attributes: ImageBufferAttributes? = nil, ending: DecodeEnding = [.finish, .invalidate], limit: Int = .max,
        session make: ((VideoFormatDescription, ImageBufferAttributes?, Outputs) throws -> DecompressionSession)? = nil
    ) throws -> (outputs: [DecompressionOutput], session: DecompressionSession) {
        let samples = Array(try TestData.samples(fixture).prefix(limit))
        let outputs = Outputs()
        let format = samples[0].formatDescription
        let planar =
            attributes ?? ImageBufferAttributes(pixelFormat: DecompressionSession.planarPixelFormat(for: format))
        let session =
            try make?(format, attributes, outputs)
            ?? DecompressionSession(
                formatDescription: format, decoderSpecification: specification, imageBufferAttributes: planar,
                outputHandler: outputs.handler)
        try session.setProperty(.fieldMode, to: FieldMode.deinterlaceFields)
        try session.setProperty(.deinterlaceMode, to: DeinterlaceMode.temporal)
        #expect(try session.property(.deinterlaceMode) as? String == DeinterlaceMode.temporal)
        try decode(samples, with: session, flags: flags, then: ending)
        return (outputs.all, session)
    }

    @Test(arguments: FieldModeTests.fixtures)
    func temporalFramesAreFFmpegsBwdifPictures(_ fixture: String) throws {
        let plain = try FieldModeTests.pictures(fixture, mode: nil)
        let outputs = try Self.outputs(fixture, flags: .enableTemporalProcessing).outputs
        #expect(outputs.count == plain.count && outputs.allSatisfy { $0.status == nil })
        let pictures = outputs.compactMap(\.imageBuffer)
        #expect(pictures.map(\.md5) == (try DeinterlacerTests.ffmpegMD5s(fixture, filter: Self.bwdif)))
        #expect(pictures.allSatisfy { $0.attachments.fieldCount == 1 })
        // Each output carries its own frame's time and refcon, in presentation order.
        let times = outputs.map(\.presentationTimeStamp)
        if times.allSatisfy(\.isNumeric) { #expect(times == times.sorted() && Set(times).count == times.count) }
        #expect(Set(outputs.compactMap { $0.frameRefcon as? Int }).count == outputs.count)
    }

    /// Without `enableTemporalProcessing` the mode is the vertical filter, as Apple documents:
    /// "otherwise a non-temporal mode will be used instead".
    @Test func framesWithoutTheFlagTakeTheVerticalFilter() throws {
        let outputs = try Self.outputs("mpeg2-interlaced.ts", flags: []).outputs
        let expected = try DeinterlacerTests.ffmpegMD5s("mpeg2-interlaced.ts", filter: "pp=lb")
        #expect(outputs.compactMap(\.imageBuffer).map(\.md5) == expected)
    }

    /// The output lags: before `finishDelayedFrames()` the last frame is still held; invalidating
    /// instead reports it as dropped by invalidation, after every frame before it.
    @Test func theLastFrameWaitsForFinishDelayedFramesOrIsDroppedByInvalidate() throws {
        let all = try Self.outputs("mpeg2-interlaced.ts", flags: .enableTemporalProcessing).outputs
        let (outputs, _) = try Self.outputs(
            "mpeg2-interlaced.ts", flags: .enableTemporalProcessing, ending: [.invalidate])
        #expect(outputs.count == all.count)
        let last = try #require(outputs.last)
        #expect(last.status == .invalidSession && last.imageBuffer == nil)
        #expect(last.presentationTimeStamp == all.last?.presentationTimeStamp)
        let earlier = outputs.dropLast().filter { $0.imageBuffer != nil }
        #expect(earlier.count >= all.count - 3, "all but the frames the decoder and the filter held")
        #expect(earlier.map { $0.imageBuffer?.md5 } == all.prefix(earlier.count).map { $0.imageBuffer?.md5 })
    }

    /// The mode can be set back: the frames held go out first, then the vertical filter applies.
    @Test func turningTheModeOffHandsOutTheHeldFrame() throws {
        let samples = try TestData.samples("mpeg2-interlaced.ts")
        let outputs = Outputs()
        let format = samples[0].formatDescription
        let session = try DecompressionSession(
            formatDescription: format, decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled),
            imageBufferAttributes: ImageBufferAttributes(pixelFormat: .yuv420Planar), outputHandler: outputs.handler)
        try session.setProperty(.fieldMode, to: FieldMode.deinterlaceFields)
        try session.setProperty(.deinterlaceMode, to: DeinterlaceMode.temporal)
        for (index, sample) in samples.prefix(8).enumerated() {
            try session.decodeFrame(sample, flags: .enableTemporalProcessing, frameRefcon: index)
        }
        try session.finishDelayedFrames()
        #expect(outputs.all.count == 8)
        try session.setProperty(.deinterlaceMode, to: DeinterlaceMode.verticalFilter)
        try decode(Array(samples.dropFirst(8)), with: session, flags: .enableTemporalProcessing)
        #expect(outputs.all.count == samples.count && outputs.all.allSatisfy { $0.status == nil })
    }
}

extension VATestDriverTests {
    /// The temporal mode on the GPU path (the test driver): the pictures are deinterlaced on the
    /// GPU (VA's motion-adaptive deinterlacing, which the test driver models with bwdif) and
    /// stay GPU surfaces, with the CPU session's bytes.
    @Suite(.enabled(if: CommandRunner.hasFFmpeg && TestVADriver.isBuilt))
    struct TemporalDeinterlaceModeOnTheGPU {
        @Test(arguments: FieldModeTests.fixtures)
        func theGPUDeinterlacesWithTheCPUsBytes(_ fixture: String) throws {
            let live = try HardwareSessions.liveObjects()
            try {
                let path = TestData.fixtures.appendingPathComponent(fixture).path
                // Twenty pictures: the test holds every one, and the deinterlacer's GPU pools
                // hold 24 (beyond, the pictures would go to the CPU).
                let (outputs, session) = try TemporalDeinterlaceModeTests.outputs(
                    fixture, flags: .enableTemporalProcessing, ending: [.finish], limit: 20
                ) { format, attributes, collected in
                    try HardwareSessions.session(
                        format, attributes: attributes, referenceStream: path, outputs: collected)
                }
                #expect(session.usingHardwareAcceleratedVideoDecoder)
                #expect(session.deinterlacingPath == .gpu)
                session.invalidate()
                let pictures = outputs.compactMap(\.imageBuffer)
                #expect(pictures.count == outputs.count && outputs.allSatisfy { $0.status == nil })
                #expect(pictures.allSatisfy { $0.isGPUSurface && $0.pixelFormat == .nv12VideoRange })
                let planar = PixelTransferSession(convertsOnGPU: false)
                let md5s = try pictures.map { try planar.transferImage($0, pixelFormat: .yuv420Planar).md5 }
                let cpu = try TemporalDeinterlaceModeTests.outputs(
                    fixture, flags: .enableTemporalProcessing,
                    attributes: ImageBufferAttributes(pixelFormat: .yuv420Planar),
                    limit: 20
                ).outputs
                #expect(pictures.count == 20 && md5s == cpu.compactMap(\.imageBuffer).map(\.md5))
            }()
            let after = try HardwareSessions.liveObjects()
            #expect(after == live, "every surface, context and config is gone: \(after) vs \(live)")
        }
    }
}
