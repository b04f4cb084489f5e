import Foundation
import Testing

@testable import VAToolbox

/// AV1, VP9, VP8 and MPEG-2 through the session's VA-API path on the test VA driver: each
/// picture comes back on the surface the driver stamped from that picture's own data, in the
/// CPU's order, and nothing is left behind; a stream the GPU cannot take goes to the CPU.
///
/// Nested in ``VATestDriverTests`` for its serialisation: the driver's fault variables and
/// counters are process-wide.
extension VATestDriverTests {
    @Suite struct CodecHardwareSessions {
        typealias Sessions = HardwareSessions

        /// The files the test driver's profiles decode: every new-codec fixture but the 4:4:4
        /// one, and the cros-codecs streams.
        static let gpuFiles = (CodecFile.fixtures + CodecFile.conformance).filter(\.decodesOnTheGPU)

        /// The hash the driver stamps on the picture a sample shows, computed from the sample's
        /// own bytes as Docs/TestVADriver.md defines it; nil where it cannot be computed from
        /// the sample alone (AV1 tile data; VP9 show-existing frames show an older picture).
        static func expectedHash(_ sample: SampleBuffer) -> UInt64? {
            var hash = FNV1a64()
            switch sample.formatDescription.codecType {
            case .vp9:
                guard let frames = try? VP9Superframe.frames(in: sample.data[...]),
                    let shown = frames.last(where: {
                        guard let header = try? VP9UncompressedHeader($0) else { return false }
                        return header.showFrame && !header.showExistingFrame
                    })
                else { return nil }
                hash.combineSlice(shown)
            case .vp8:
                let isKeyFrame = sample.data.first.map { $0 & 1 == 0 } ?? false
                hash.combineSlice(sample.data[...].dropFirst(isKeyFrame ? 10 : 3))
            case .mpeg2Video:
                let units = MPEG2StartCodeUnit.split(sample.data[...])
                for (index, unit) in units.enumerated() where unit.isSlice {
                    let end = index + 1 < units.count ? units[index + 1].prefixIndex : sample.data.endIndex
                    hash.combineSlice(sample.data[unit.prefixIndex..<end])
                }
            default:
                return nil
            }
            return hash.value
        }

        @Test(arguments: gpuFiles, TestVADriver.personalities)
        func everyCodecDecodesOnTheGPUInTheCPUsOrder(file: CodecFile, personality: String?) throws {
            try #require(TestVADriver.isBuilt)
            let before = try Sessions.liveObjects()
            let samples = try TestData.samples(file.url.path)
            let software = try Sessions.softwareOutputs(samples)
            do {
                let outputs = Outputs()
                let session = try Sessions.session(
                    samples[0].formatDescription, faults: personality.map { ["VATB_PERSONALITY": $0] } ?? [:],
                    attributes: ImageBufferAttributes(minimumBufferCount: samples.count), outputs: outputs)
                #expect(session.usingHardwareAcceleratedVideoDecoder)
                let tenBit = samples[0].formatDescription.stream.bitDepthLuma > 8
                let native: PixelFormat = tenBit ? .p010VideoRange : .nv12VideoRange
                #expect(session.nativePixelFormat == native)
                try decode(samples, with: session)
                let results = outputs.all
                #expect(results.count == samples.count, "\(file.name): one output per sample")
                #expect(
                    results.allSatisfy { $0.status == nil },
                    "\(file.name): \(results.compactMap(\.status).first.map { "\($0)" } ?? "")")
                // The same pictures, in the same order, for the same samples, as on the CPU.
                let shown = results.filter { $0.imageBuffer != nil }
                let softwareShown = software.filter { $0.imageBuffer != nil }
                #expect(shown.count == softwareShown.count, "\(file.name): pictures")
                #expect(
                    shown.map { $0.frameRefcon as? Int } == softwareShown.map { $0.frameRefcon as? Int },
                    "\(file.name): the same samples show pictures")
                var stamped = 0
                for output in shown {
                    guard let refcon = output.frameRefcon as? Int, let image = output.imageBuffer else { continue }
                    // nvidia's 32-surface limit leaves fewer spares than asked: later pictures
                    // are CPU copies.
                    #expect(image.isGPUSurface || personality == "nvidia", "\(file.name) refcon \(refcon)")
                    #expect(image.pixelFormat == native)
                    let stamp = Sessions.stamp(image)
                    #expect(stamp?.magic == "VATB", "\(file.name) refcon \(refcon)")
                    if let expected = Self.expectedHash(samples[refcon]) {
                        #expect(stamp?.hash == expected, "\(file.name) refcon \(refcon): the picture of its own sample")
                        stamped += 1
                    }
                }
                if file.codec != .av1 { #expect(stamped > 0, "\(file.name): stamps checked") }
            }
            #expect(try Sessions.liveObjects() == before, "\(file.name): every VA object destroyed")
        }

        /// The one VP9 fixture no VA profile covers (4:4:4) decodes on the CPU and says why; a
        /// session that requires the GPU is refused with the reason.
        @Test func aProfileTheGPULacksGoesToTheCPUWithTheReason() throws {
            let file = try #require(CodecFile.fixtures.first { $0.name == "vp9-profile1-444.ivf" })
            let samples = try TestData.samples(file.url.path)
            let outputs = Outputs()
            let session = try Sessions.session(samples[0].formatDescription, acceleration: .preferred, outputs: outputs)
            #expect(!session.usingHardwareAcceleratedVideoDecoder)
            #expect(session.hardwareUnavailableReason?.contains("VP9") == true)
            try decode(samples, with: session)
            let oracle = try FrameMD5Oracle(contentsOf: file.url.appendingPathExtension("framemd5")).frames
            #expect(outputs.all.compactMap(\.imageBuffer?.md5) == oracle.map(\.md5))
            do {
                _ = try Sessions.session(samples[0].formatDescription, outputs: Outputs())
                Issue.record("a 4:4:4 VP9 stream was accepted on the GPU")
            } catch let error as VTError {
                #expect(error == .couldNotFindVideoDecoder)
                #expect(error.reason.contains("4:4:4"))
            }
        }

        /// Streams the session keeps off the GPU whatever the driver offers: VCR2 MPEG-2 (its chroma
        /// blocks come in the other order, which only libavcodec's software decoder undoes) and VP9
        /// 4:4:0 (no VA profile). Preferred, they decode on the CPU as ffmpeg does and say why;
        /// required, the session is refused with the reason.
        @Test(arguments: [("mpeg2-vcr2.avi", "VCR2"), ("vp9-profile1-440.ivf", "VP9")])
        func streamsTheGPUMustNotDecodeGoToTheCPUWithTheReason(name: String, reason: String) throws {
            let file = try #require(CodecFile.fixtures.first { $0.name == name })
            #expect(!file.decodesOnTheGPU)
            let samples = try TestData.samples(file.url.path)
            let outputs = Outputs()
            let session = try Sessions.session(samples[0].formatDescription, acceleration: .preferred, outputs: outputs)
            #expect(!session.usingHardwareAcceleratedVideoDecoder)
            #expect(
                session.hardwareUnavailableReason?.contains(reason) == true,
                "\(session.hardwareUnavailableReason ?? "")")
            try decode(samples, with: session)
            let oracle = try FrameMD5Oracle(contentsOf: file.url.appendingPathExtension("framemd5")).frames
            #expect(outputs.all.allSatisfy { $0.status == nil })
            #expect(outputs.all.compactMap(\.imageBuffer).map(planarMD5) == oracle.map(\.md5))
            let refusal = #expect(throws: VTError.couldNotFindVideoDecoder) {
                _ = try Sessions.session(samples[0].formatDescription, outputs: Outputs())
            }
            #expect(refusal?.reason.contains(reason) == true, "\(String(describing: refusal))")
        }

        /// A VP9 stream that grows past the driver's largest picture at a key frame: the GPU
        /// decodes up to there, the CPU from there on, and every frame comes out once.
        @Test(arguments: TestVADriver.personalities)
        func aVP9SizeChangeTheGPUCannotFollowContinuesOnTheCPU(personality: String?) throws {
            let file = try #require(CodecFile.fixtures.first { $0.name == "vp9-resolution-change.ivf" })
            let read = try TestData.samples(file.url.path)
            try #require(read.count == 30 && read[15].isSync)
            // 176x144 first (from the second key frame on), then 322x242, on a driver that
            // decodes up to 200x200.
            let small = try VideoFormatDescription(vp9KeyFrame: read[15].data)
            #expect(small.dimensions == VideoDimensions(width: 176, height: 144))
            let samples = try (Array(read[15...]) + Array(read[..<15])).map {
                try SampleBuffer(
                    data: $0.data, formatDescription: small, timing: $0.timing, attachments: $0.attachments)
            }
            let oracle = try FrameMD5Oracle(contentsOf: file.url.appendingPathExtension("framemd5")).frames
            let outputs = Outputs()
            let session = try Sessions.session(
                small, acceleration: .preferred,
                faults: Sessions.personality(personality).merging(["VATB_MAX_SIZE": "200x200"]) { $1 },
                attributes: ImageBufferAttributes(minimumBufferCount: 30), outputs: outputs)
            #expect(session.usingHardwareAcceleratedVideoDecoder)
            try decode(samples, with: session)
            #expect(!session.usingHardwareAcceleratedVideoDecoder)
            #expect(session.hardwareUnavailableReason?.contains("could not decode the stream") == true)
            let results = outputs.all
            #expect(results.count == 30)
            #expect(results.allSatisfy { $0.status == nil }, "\(results.compactMap(\.status))")
            var cpuPictures: [String] = []
            for output in results {
                guard let refcon = output.frameRefcon as? Int, let image = output.imageBuffer else { continue }
                if refcon < 15 {
                    #expect(image.isGPUSurface && image.width == 176, "refcon \(refcon)")
                    #expect(Sessions.stamp(image)?.hash == Self.expectedHash(samples[refcon]))
                } else {
                    #expect(!image.isGPUSurface && image.width == 322, "refcon \(refcon)")
                    #expect(image.pixelFormat == session.nativePixelFormat, "the GPU's layout holds")
                    cpuPictures.append(try i420MD5(image))
                }
            }
            #expect(cpuPictures == oracle.prefix(15).map(\.md5))
        }

        /// One failed `vaEndPicture` on each codec: that frame is -12911 without an image, and the
        /// session goes on.
        @Test(
            arguments: ["vp9-profile0.ivf", "vp8.ivf", "av1.ivf", "mpeg2-progressive.m2v"], TestVADriver.personalities)
        func aFailedEndPictureIsAMalfunctionOfThatFrame(name: String, personality: String?) throws {
            let file = try #require(CodecFile.fixtures.first { $0.name == name })
            let samples = try TestData.samples(file.url.path)
            let before = try Sessions.liveObjects()
            do {
                let outputs = Outputs()
                let session = try Sessions.session(
                    samples[0].formatDescription,
                    faults: Sessions.personality(personality).merging(["VATB_FAIL_END_PICTURE": "3"]) { $1 },
                    outputs: outputs)
                try decode(samples, with: session)
                let results = outputs.all
                #expect(results.count == samples.count, "\(name)")
                let failed = results.filter { $0.status == .videoDecoderMalfunction }
                #expect(failed.count == 1, "\(name): \(failed.map(\.frameRefcon))")
                #expect(failed.first?.imageBuffer == nil)
                #expect(results.contains { $0.imageBuffer.flatMap(Sessions.stamp)?.magic == "VATB" })
            }
            #expect(try Sessions.liveObjects() == before, "\(name): every VA object destroyed")
        }

        /// AV1 inter frames smaller than their key frame stay on the GPU, one picture per frame;
        /// every picture is held, so as many are surfaces as the pool leaves the application
        /// (all 20, except within nvidia's 32 surfaces).
        @Test(arguments: TestVADriver.personalities)
        func av1ReferenceScalingStaysOnTheGPU(personality: String?) throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "vatoolbox-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = try CodecSessionTests.makeAV1ReferenceScalingStream(in: directory)
            let samples = try MediaFileReader(path: url.path).readAllSamples()
            let before = try Sessions.liveObjects()
            do {
                let outputs = Outputs()
                let session = try Sessions.session(
                    samples[0].formatDescription, faults: Sessions.personality(personality),
                    attributes: ImageBufferAttributes(minimumBufferCount: samples.count), outputs: outputs)
                for (index, sample) in samples.enumerated() { try session.decodeFrame(sample, frameRefcon: index) }
                try session.finishDelayedFrames()
                #expect(session.usingHardwareAcceleratedVideoDecoder)
                let spares = try #require(session.hardwareDecisions?.applicationSurfaces)
                session.invalidate()
                let images = outputs.all.compactMap(\.imageBuffer)
                #expect(outputs.all.allSatisfy { $0.status == nil })
                #expect(images.count == 20)
                #expect(
                    images.filter(\.isGPUSurface).count == min(20, spares), "\(spares) surfaces for the application")
                if personality != "nvidia" { #expect(spares >= 20) }
                #expect(Set(images.map(\.width)) == [320, 213])
            }
            #expect(try Sessions.liveObjects() == before)
        }

        /// Mutated samples of every codec through the GPU path, required and preferred: one
        /// output per accepted sample, never a trap, and every VA object destroyed.
        @Test(arguments: [DecoderSpecification.HardwareAcceleration.required, .preferred], TestVADriver.personalities)
        func mutatedSamplesOnTheGPUNeverTrapOrLeak(
            acceleration: DecoderSpecification.HardwareAcceleration, personality: String?
        ) throws {
            var generator = SeededGenerator(seed: 41)
            let before = try Sessions.liveObjects()
            for file in CodecFile.fixtures where file.decodesOnTheGPU {
                let mutated = try file.mutatedSamples(using: &generator)
                guard !mutated.isEmpty else { continue }
                do {
                    let outputs = Outputs()
                    let session = try Sessions.session(
                        mutated[0].formatDescription, acceleration: acceleration,
                        faults: Sessions.personality(personality), outputs: outputs)
                    try decode(mutated, with: session)
                    #expect(outputs.all.count == mutated.count, "\(file.name): one output per accepted sample")
                }
                #expect(try Sessions.liveObjects() == before, "\(file.name): every VA object destroyed")
            }
        }
    }
}
