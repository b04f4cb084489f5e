import Foundation
import Testing

@testable import VAToolbox

/// Dolby Vision (issue 22): the RPU NAL unit of every access unit handed out with its frame,
/// byte for byte, and the container's configuration record in the format description; the
/// ambient viewing environment SEI message on every picture; and H.264's static HDR SEI
/// messages, which libavcodec 5.1's H.264 decoder does not read.
@Suite struct DolbyVisionTests {
    static let stream = "hevc-dolby-vision.265"

    /// The RPU NAL units of a raw HEVC file in file (decode) order, read independently of the
    /// library: split at start codes, kept when `nal_unit_type` is 62.
    static func rawRPUs() throws -> [[UInt8]] {
        let data = [UInt8](try Data(contentsOf: TestData.fixtures.appendingPathComponent(stream)))
        var starts: [Int] = []
        var index = 0
        while index + 3 <= data.count {
            if data[index] == 0, data[index + 1] == 0, data[index + 2] == 1 {
                starts.append(index + 3)
                index += 3
            } else {
                index += 1
            }
        }
        return starts.enumerated().compactMap { position, start in
            guard start < data.count, (data[start] >> 1) & 0x3F == 62 else { return nil }
            var end = position + 1 < starts.count ? starts[position + 1] - 3 : data.count
            while end > start, data[end - 1] == 0 { end -= 1 }  // a 4-byte start code's zero
            return Array(data[start..<end])
        }
    }

    /// ffprobe's `source_max_pq` of each frame's Dolby Vision metadata, in output order: 3000 + n
    /// for the RPU of the n-th access unit (Scripts/add-dolby-vision-rpu).
    static func oracleDecodeIndices(_ fixture: String) throws -> [Int] {
        let data = try Data(contentsOf: TestData.fixtures.appendingPathComponent(fixture + ".hdr.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frames = try #require(root["frames"] as? [[String: Any]])
        return try frames.map { frame in
            let sideData = try #require(frame["side_data_list"] as? [[String: Any]])
            #expect(sideData.contains { $0["side_data_type"] as? String == "Dolby Vision RPU Data" })
            let metadata = try #require(sideData.first { $0["side_data_type"] as? String == "Dolby Vision Metadata" })
            return try #require(metadata["source_max_pq"] as? Int) - 3000
        }
    }

    /// Decodes a fixture and returns its outputs with pictures, in the order the session hands
    /// them out (the decoder's output order, ffprobe's order of frames).
    static func outputs(
        _ fixture: String,
        _ specification: DecoderSpecification = DecoderSpecification(hardwareAcceleration: .disabled),
        propagating: Bool = true
    ) throws -> [DecompressionOutput] {
        let samples = try TestData.samples(fixture)
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription, decoderSpecification: specification,
            outputHandler: outputs.handler)
        session.propagatesPerFrameHDRDisplayMetadata = propagating
        try decode(samples, with: session)
        return outputs.all.filter { $0.imageBuffer != nil }
    }

    /// Each frame carries the RPU of its own access unit: the one ffprobe's Dolby Vision metadata
    /// of that frame was parsed from, byte for byte as the file has it (NAL header included; in
    /// the Matroska file, remuxed from Annex B, the zero byte after each RPU left out too). In the
    /// order the frames come out: the Matroska file's time stamps are its decode times.
    @Test(arguments: [stream, "hevc-dolby-vision.mkv"])
    func everyFrameCarriesItsOwnRPU(_ fixture: String) throws {
        let rpus = try Self.rawRPUs()
        let indices = try Self.oracleDecodeIndices(fixture)
        #expect(rpus.count == 10 && Set(rpus).count == 10, "one RPU per access unit, each different")
        #expect(rpus.allSatisfy { $0.prefix(3) == [0x7C, 0x01, 0x19] }, "type 62, prefix 25")
        let outputs = try Self.outputs(fixture)
        try #require(outputs.count == indices.count && indices.count == 10)
        for (frame, (output, index)) in zip(outputs, indices).enumerated() {
            #expect(output.dolbyVisionRPU == rpus[index], "\(fixture) frame \(frame): access unit \(index)'s RPU")
        }
        #expect(indices != Array(0..<10), "B-frames: output order is not decode order")
    }

    @Test func noRPUUnlessAsked() throws {
        let outputs = try Self.outputs(Self.stream, propagating: false)
        #expect(
            outputs.count == 10 && outputs.allSatisfy { $0.dolbyVisionRPU == nil && $0.hdr10PlusPerFrameData == nil })
    }

    @Test func aStreamWithoutRPUsHandsOutNone() throws {
        let outputs = try Self.outputs("hevc-hdr10plus.265")
        #expect(
            outputs.count == 10 && outputs.allSatisfy { $0.dolbyVisionRPU == nil && $0.hdr10PlusPerFrameData != nil })
    }

    /// The MP4 `dvvC` box and the Matroska `BlockAdditionMapping` reach the format description as
    /// ffprobe shows the stream's "DOVI configuration record"; a raw stream has none.
    @Test(arguments: ["hevc-dolby-vision.mp4", "hevc-dolby-vision.mkv"])
    func theContainersConfigurationRecordIsInTheDescription(_ fixture: String) throws {
        let data = try Data(contentsOf: TestData.fixtures.appendingPathComponent(fixture + ".hdr.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let streams = try #require(root["streams"] as? [[String: Any]])
        let sideData = try #require(streams.first?["side_data_list"] as? [[String: Any]])
        let record = try #require(sideData.first { $0["side_data_type"] as? String == "DOVI configuration record" })
        func field(_ name: String) throws -> Int { try #require(record[name] as? Int, "\(name)") }
        let expected = DolbyVisionConfiguration(
            versionMajor: UInt8(try field("dv_version_major")), versionMinor: UInt8(try field("dv_version_minor")),
            profile: UInt8(try field("dv_profile")), level: UInt8(try field("dv_level")),
            rpuPresent: try field("rpu_present_flag") == 1, enhancementLayerPresent: try field("el_present_flag") == 1,
            baseLayerPresent: try field("bl_present_flag") == 1,
            baseLayerCompatibilityID: UInt8(try field("dv_bl_signal_compatibility_id")))
        let samples = try TestData.samples(fixture)
        let configuration = try #require(samples[0].formatDescription.extensions.dolbyVisionConfiguration)
        #expect(configuration == expected)
        #expect(configuration.profile == 8 && configuration.boxType == "dvvC")
        #expect(DolbyVisionConfiguration(recordBytes: configuration.recordBytes) == configuration)
        #expect(configuration.recordBytes.count == 24)
        #expect("\(samples[0].formatDescription.extensions)".contains("dvvC (profile 8.1 level 4"))
        #expect(try TestData.samples(Self.stream)[0].formatDescription.extensions.dolbyVisionConfiguration == nil)
    }

    /// The record's bytes as Dolby's syntax lays them out (and the writer of the fixture's box).
    @Test func theRecordsBytesFollowItsSyntax() {
        let record: [UInt8] = [1, 0, 0x10, 0x25, 0x10] + [UInt8](repeating: 0, count: 19)
        let configuration = DolbyVisionConfiguration(recordBytes: record)
        #expect(configuration?.profile == 8 && configuration?.level == 4)
        #expect(configuration?.rpuPresent == true && configuration?.baseLayerPresent == true)
        #expect(configuration?.enhancementLayerPresent == false && configuration?.baseLayerCompatibilityID == 1)
        #expect(configuration?.recordBytes == record)
        #expect(DolbyVisionConfiguration(recordBytes: [1, 0, 0x10]) == nil, "too short")
        let profile5 = DolbyVisionConfiguration(
            versionMajor: 1, versionMinor: 0, profile: 5, level: 6, rpuPresent: true, enhancementLayerPresent: false,
            baseLayerPresent: true, baseLayerCompatibilityID: 0)
        #expect(profile5.boxType == "dvcC")
    }

    // MARK: - Ambient viewing environment

    static let ambient = AmbientViewingEnvironment(
        illuminanceCode: 3140, light: MasteringDisplayColorVolume.Chromaticity(xCode: 15635, yCode: 16450))

    /// The SEI message (libavcodec 5.1 reads none: the oracle is the values the fixture's script
    /// wrote) is on every picture, in all three containers; a stream without one has none.
    @Test(arguments: [stream, "hevc-dolby-vision.mp4", "hevc-dolby-vision.mkv"])
    func everyPictureCarriesTheAmbientViewingEnvironment(_ fixture: String) throws {
        let outputs = try Self.outputs(fixture, propagating: false)
        // As many as ffprobe shows (the MP4's edit list leaves 8 of 10).
        let data = try Data(contentsOf: TestData.fixtures.appendingPathComponent(fixture + ".hdr.json"))
        let frames = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["frames"] as? [Any]
        #expect(outputs.count == frames?.count && outputs.count >= 8)
        for output in outputs {
            #expect(output.imageBuffer?.attachments.ambientViewingEnvironment == Self.ambient)
        }
        let plain = try Self.outputs("hevc-hdr10.265", propagating: false)
        #expect(plain.allSatisfy { $0.imageBuffer?.attachments.ambientViewingEnvironment == nil })
    }

    @Test func ambientBytesAreTheSEIPayload() throws {
        let bytes: [UInt8] = [0x00, 0x00, 0x0C, 0x44, 0x3D, 0x13, 0x40, 0x42]
        #expect(Self.ambient.appleBytes == bytes)
        #expect(AmbientViewingEnvironment(appleBytes: bytes) == Self.ambient)
        #expect(AmbientViewingEnvironment(appleBytes: [0, 0, 0, 0, 0x3D, 0x13, 0x40, 0x42]) == nil, "illuminance 0")
        #expect(AmbientViewingEnvironment(appleBytes: bytes.dropLast()) == nil)
        #expect(abs(Self.ambient.illuminance - 0.314) < 1e-9)
        // The SEI NAL unit the fixture carries, parsed as a unit.
        let rbsp: [UInt8] = [148, 8] + bytes + [0x80]
        #expect(
            SEIMessages.staticHDRMetadata(inRBSP: rbsp, includingHDR10: false)?.ambientViewingEnvironment
                == Self.ambient)
    }

    /// A description's ambient viewing environment (the app's, as for the container's static
    /// metadata) reaches pictures whose stream states none.
    @Test func theDescriptionsAmbientViewingEnvironmentReachesThePictures() throws {
        var samples = try TestData.samples("hevc-main.265")
        var format = samples[0].formatDescription
        format.extensions.ambientViewingEnvironment = Self.ambient
        samples = try samples.map {
            try SampleBuffer(data: $0.data, formatDescription: format, timing: $0.timing, attachments: $0.attachments)
        }
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: format, decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled),
            outputHandler: outputs.handler)
        try decode(samples, with: session)
        let pictures = outputs.all.compactMap(\.imageBuffer)
        #expect(!pictures.isEmpty && pictures.allSatisfy { $0.attachments.ambientViewingEnvironment == Self.ambient })
    }

    // MARK: - H.264 SEI

    /// x264 was given the `master-display` and `max-cll` x265 was given for `hevc-hdr10.265`:
    /// every H.264 picture carries what ffprobe reads from the HEVC stream's SEI messages.
    @Test func h264SEIMessagesReachEveryPicture() throws {
        let (hevcFrames, _) = try HDRMetadataTests.oracle("hevc-hdr10.265")
        let expected = try #require(hevcFrames.first)
        let outputs = try Self.outputs("h264-sei-hdr.264", propagating: false)
        #expect(outputs.count == 10)
        for output in outputs {
            let attachments = try #require(output.imageBuffer?.attachments)
            #expect(HDRMetadataTests.same(attachments.masteringDisplayColorVolume, expected.mastering))
            #expect(HDRMetadataTests.same(attachments.contentLightLevel, expected.light))
        }
    }
}

extension VATestDriverTests {
    /// Dolby Vision RPUs, the ambient viewing environment and H.264's HDR SEI messages on the GPU
    /// path (the test driver, every personality): what the CPU hands out, frame for frame.
    @Suite struct DolbyVisionOnTheGPU {
        @Test(
            arguments: [DolbyVisionTests.stream, "hevc-dolby-vision.mkv", "h264-sei-hdr.264"],
            TestVADriver.personalities)
        func theGPUHandsOutWhatTheCPUHandsOut(_ fixture: String, _ personality: String?) throws {
            let (all, onTheGPU) = try HardwareSessions.decodedOnTheDriver(fixture, personality: personality) {
                $0.propagatesPerFrameHDRDisplayMetadata = true
            }
            let gpu = all.filter { $0.imageBuffer != nil }
            let cpu = try DolbyVisionTests.outputs(fixture)
            #expect(gpu.count == cpu.count && gpu.count == 10, "\(fixture)")
            #expect(gpu.map(\.dolbyVisionRPU) == cpu.map(\.dolbyVisionRPU), "\(fixture)")
            let gpuAttachments = gpu.compactMap { $0.imageBuffer?.attachments }
            let cpuAttachments = cpu.compactMap { $0.imageBuffer?.attachments }
            #expect(gpuAttachments.map(\.ambientViewingEnvironment) == cpuAttachments.map(\.ambientViewingEnvironment))
            #expect(
                gpuAttachments.map(\.masteringDisplayColorVolume) == cpuAttachments.map(\.masteringDisplayColorVolume))
            #expect(gpuAttachments.map(\.contentLightLevel) == cpuAttachments.map(\.contentLightLevel))
            if fixture.hasPrefix("hevc") {
                #expect(cpu.allSatisfy { $0.dolbyVisionRPU != nil }, "the CPU's are there to compare")
            } else {
                #expect(cpuAttachments.allSatisfy { $0.masteringDisplayColorVolume != nil })
            }
            if personality == nil { #expect(onTheGPU, "the test driver's own profiles cover \(fixture)") }
        }
    }
}
