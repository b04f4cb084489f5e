import Foundation
import Testing

@testable import VAToolbox

extension VATestDriverTests {
    /// HDR → SDR tone mapping on the GPU (issue 23, item 4): VA's `VAProcFilterHighDynamicRangeToneMapping`
    /// with the picture's HDR10 metadata, which the test driver processes with the CPU path's
    /// libavfilter chain (Docs/TestVADriver.md, "Video processing"), so the GPU's pictures must
    /// equal the CPU's byte for byte; drivers without the filter (Mesa), without processing
    /// (nvidia) or refused (i965), and HLG pictures, are tone mapped on the CPU, and the tool says why.
    @Suite(.enabled(if: CommandRunner.hasTool && TestVADriver.isBuilt && CommandRunner.hasFFmpeg))
    struct ToneMappingOnTheGPU {
        typealias Stream = RealPixels.Stream
        typealias Processing = VideoProcessing

        static let hdr10 = [
            RealPixels.fixture("hevc-hdr10.265", "yuv420p10le"),
            RealPixels.fixture("av1-hdr10.ivf", "yuv420p10le", decoder: "av1"),
        ]
        static let outputs = [
            ["--pixel-format", "BGRA"], ["--pixel-format", "420v"], ["--pixel-format", "BGRA", "--scale", "160x120"],
        ]

        @Test(arguments: hdr10, [nil, "ihd"] as [String?])
        func hdr10IsToneMappedOnTheGPUToTheCPUsBytes(_ stream: Stream, personality: String?) throws {
            for options in Self.outputs {
                let cpu = try Processing.frameMD5(stream, ["--tonemap"] + options, onGPU: false)
                let gpu = try Processing.frameMD5(
                    stream, ["--tonemap"] + options, onGPU: true, personality: personality)
                let pictures = Stream.frameLines(gpu.text).count
                #expect(pictures == 10, "\(stream.name) \(options): \(gpu.standardError)")
                #expect(gpu.status == 0 && cpu.status == 0, "\(gpu.standardError)")
                #expect(gpu.text == cpu.text, "\(stream.name) \(options) \(personality ?? "")")
                #expect(Processing.conversionLine(gpu.standardError) == Processing.onTheGPU)
                RealPixels.expectDecodedOnTheDriver(gpu.standardError, stream.name)
                let counts = try #require(RealPixels.liveReport(gpu.standardError))
                #expect(counts["processed_pictures"] == pictures, "\(counts)")
                if personality == nil {
                    #expect(counts["got_images"] == pictures, "one read-back per hashed picture: \(counts)")
                }
            }
        }

        /// Where the GPU does not tone map, the CPU does, with the same bytes, and the tool says why.
        @Test(
            arguments: [
                ("hevc-hdr10.265", "mesa", "the Mesa driver's video processing does not tone map HDR10 to SDR"),
                ("hevc-hdr10.265", "nvidia", "the nvidia driver has no video processing (no VAEntrypointVideoProc)"),
                ("hevc-hdr10.265", "i965", "the i965 driver converts every picture as BT.601 limited range"),
                (
                    "hevc-hlg.265", nil,
                    "VA video processing tone maps HDR10 (PQ) pictures only; HLG is tone mapped on the CPU"
                ),
            ] as [(String, String?, String)])
        func otherwiseTheCPUToneMapsAndTheToolSaysWhy(_ fixture: String, _ personality: String?, _ reason: String)
            throws
        {
            let stream = RealPixels.fixture(fixture, "yuv420p10le")
            let options = ["--tonemap", "--pixel-format", "BGRA"]
            let cpu = try Processing.frameMD5(stream, options, onGPU: false)
            let gpu = try Processing.frameMD5(stream, options, onGPU: true, personality: personality)
            #expect(gpu.status == 0, "\(gpu.standardError)")
            #expect(Stream.frameLines(gpu.text).count == 10 && gpu.text == cpu.text)
            let line = Processing.conversionLine(gpu.standardError) ?? ""
            #expect(line.hasPrefix("conversion: libswscale on the CPU — \(reason)"), "\(line)")
            #expect(RealPixels.liveReport(gpu.standardError)?["processed_pictures"] == 0)
        }

        /// A tone mapping call that fails mid-stream (the driver's 4th processed picture) moves it
        /// to the CPU for that picture and the rest, with the same bytes, and the tool says why.
        @Test func aFailedToneMappingCallMovesItToTheCPU() throws {
            let stream = Self.hdr10[0]
            let options = ["--tonemap", "--pixel-format", "BGRA"]
            let cpu = try Processing.frameMD5(stream, options, onGPU: false)
            let gpu = try Processing.frameMD5(
                stream, options, onGPU: true, driverVariables: ["VATB_FAIL_PROCESSING": "4"])
            #expect(gpu.status == 0, "\(gpu.standardError)")
            #expect(Stream.frameLines(gpu.text).count == 10 && gpu.text == cpu.text)
            let line = Processing.conversionLine(gpu.standardError) ?? ""
            #expect(
                line.hasPrefix("conversion: libswscale on the CPU — the driver failed to process the picture"),
                "\(line)")
            #expect(RealPixels.liveReport(gpu.standardError)?["processed_pictures"] == 3)
        }

        /// FFmpeg's own `tonemap_vaapi` on the driver (an independent client of the filter) gives
        /// the ffmpeg CLI's CPU chain when it asks for BT.709 output, and nothing when it keeps
        /// the BT.2020 primaries and matrix (its default), which the driver refuses for HDR → SDR.
        @Test func ffmpegsTonemapVAAPIOnTheDriverIsTheCPUChain() throws {
            let stream = RealPixels.fixture("hevc-hdr10.265", "yuv420p10le")
            let oracle = try CommandRunner.ffmpeg([
                "-threads", "1", "-i", stream.url.path, "-vf", ToneMapping.filters + ",format=nv12", "-f", "framemd5",
                "-",
            ])
            try #require(oracle.status == 0, "\(oracle.standardError)")
            func tonemapVAAPI(_ options: String) throws -> CommandRunner.Result {
                try CommandRunner.run(
                    URL(fileURLWithPath: "/usr/bin/ffmpeg"),
                    [
                        "-v", "error", "-nostdin", "-init_hw_device", "vaapi=va:/dev/null", "-hwaccel", "vaapi",
                        "-hwaccel_device", "va", "-hwaccel_output_format", "vaapi", "-i", stream.url.path, "-vf",
                        "tonemap_vaapi=format=nv12\(options),hwdownload,format=nv12", "-f", "framemd5", "-",
                    ], environment: RealPixels.environment(stream))
            }
            let mapped = try tonemapVAAPI(":p=bt709:t=bt709:m=bt709")
            #expect(mapped.status == 0, "\(mapped.standardError)")
            let expected = Stream.frameLines(oracle.text)
            #expect(expected.count == 10 && Stream.frameLines(mapped.text) == expected)
            let keepsBT2020 = try tonemapVAAPI("")
            #expect(keepsBT2020.status != 0 && Stream.frameLines(keepsBT2020.text).isEmpty)
        }

        /// In process: a session asked only to tone map hands out GPU surfaces in NV12 (the 8-bit
        /// counterpart of P010), converted on the GPU, tagged SDR BT.709 without HDR metadata, the
        /// bytes of the CPU session's pictures; nothing leaks.
        @Test func aSessionToneMapsOnTheGPU() throws {
            let live = try HardwareSessions.liveObjects()
            try {
                let fixture = TestData.fixtures.appendingPathComponent("hevc-hdr10.265")
                let samples = try TestData.samples(fixture.path)
                let outputs = Outputs()
                let session = try HardwareSessions.session(
                    samples[0].formatDescription, attributes: ImageBufferAttributes(toneMapsHDRToSDR: true),
                    referenceStream: fixture.path, outputs: outputs)
                try decode(samples, with: session)
                #expect(session.pixelTransferPath == .gpu)
                session.invalidate()
                let pictures = outputs.all.compactMap(\.imageBuffer)
                let expected = try HardwareSessions.softwareOutputs(
                    samples, attributes: ImageBufferAttributes(pixelFormat: .nv12VideoRange, toneMapsHDRToSDR: true)
                ).compactMap(\.imageBuffer)
                #expect(pictures.count == 10 && expected.count == 10)
                #expect(pictures.map(\.md5) == expected.map(\.md5))
                for picture in pictures {
                    let attachments = picture.attachments
                    #expect(picture.isGPUSurface && picture.pixelFormat == .nv12VideoRange)
                    #expect(attachments.transferFunction == .itu709 && attachments.colorPrimaries == .itu709)
                    #expect(attachments.yCbCrMatrix == .itu709)
                    #expect(attachments.masteringDisplayColorVolume == nil && attachments.contentLightLevel == nil)
                }
            }()
            let after = try HardwareSessions.liveObjects()
            #expect(after == live, "every surface, context and config is gone: \(after) vs \(live)")
        }
    }
}
