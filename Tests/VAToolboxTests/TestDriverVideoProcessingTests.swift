import Foundation
import Testing

@testable import VAToolbox

extension VATestDriverTests {
    /// VA video processing (issue 23): a GPU session asked for BGRA or another size converts on
    /// the GPU (`VAEntrypointVideoProc`), and the test driver's processing is the CPU path's
    /// libswscale conversion (Docs/TestVADriver.md, "Video processing"), so the GPU's pictures
    /// must equal the CPU's byte for byte — with the colour standard, range and scaling flag the
    /// picture calls for, or they differ. Under personalities without usable processing (i965,
    /// nvidia) the CPU converts, and the tool says why.
    @Suite(.enabled(if: CommandRunner.hasTool && TestVADriver.isBuilt))
    struct VideoProcessing {
        typealias Stream = RealPixels.Stream

        /// `vatoolbox framemd5` options that convert: to BGRA, and to BGRA at another size and shape.
        static let conversions = [["--pixel-format", "BGRA"], ["--pixel-format", "BGRA", "--scale", "320x180"]]

        static let onTheGPU = "conversion: on the GPU (VA-API video processing)"

        /// `vatoolbox framemd5` with `options` on the GPU (the driver in reference mode, under
        /// `personality`) or on the CPU (one thread: libavcodec conceals damage as the driver's
        /// single-threaded reference decode does), with `driverVariables` (faults) for the driver.
        static func frameMD5(
            _ stream: Stream, _ options: [String], onGPU: Bool, personality: String? = nil,
            driverVariables: [String: String] = [:]
        ) throws -> CommandRunner.Result {
            let path =
                onGPU ? ["--hwaccel", "vaapi", "--device", "/dev/null"] : ["--hwaccel", "none", "--threads", "1"]
            var environment = RealPixels.environment(onGPU ? stream : nil, personality: personality)
            environment.merge(driverVariables) { _, new in new }
            return try CommandRunner.vatoolbox(
                ["framemd5"] + path + options + [stream.url.path], environment: environment)
        }

        /// The tool's line saying where it converted.
        static func conversionLine(_ standardError: String) -> String? {
            standardError.split(separator: "\n").last { $0.hasPrefix("conversion: ") }.map(String.init)
        }

        @Test(arguments: RealPixels.fixtures)
        func everyFixtureConvertsOnTheGPUToTheCPUsBytes(_ stream: Stream) throws {
            for options in Self.conversions {
                let cpu = try Self.frameMD5(stream, options, onGPU: false)
                let gpu = try Self.frameMD5(stream, options, onGPU: true)
                let pictures = Stream.frameLines(gpu.text).count
                #expect(pictures > 0, "\(stream.name) \(options): \(gpu.standardError)")
                // The driver's reference decode reports no damage: the CPU's status may be 1.
                #expect(gpu.status == 0, "\(stream.name) \(options): \(gpu.standardError)")
                #expect(gpu.text == cpu.text, "\(stream.name) \(options)")
                #expect(Self.conversionLine(gpu.standardError) == Self.onTheGPU, "\(stream.name)")
                RealPixels.expectDecodedOnTheDriver(gpu.standardError, stream.name)
                // Every picture hashed was processed by the driver (framemd5 leaves out those whose
                // time goes back, as ffmpeg does), and read back once for its hash: none was read
                // back to be converted on the CPU.
                let counts = try #require(RealPixels.liveReport(gpu.standardError))
                #expect((counts["processed_pictures"] ?? 0) >= pictures, "\(stream.name) \(options): \(counts)")
                #expect(counts["got_images"] == pictures, "\(stream.name) \(options): \(counts)")
            }
        }

        /// iHD and Mesa process; i965 lists only BT.601 and converts every picture as BT.601
        /// limited range whatever it is told, so VAToolbox does not use it; nvidia has no
        /// processing. Each gives the CPU's bytes, and the tool says where and why.
        @Test(arguments: RealPixels.personalityStreams, ["ihd", "i965", "mesa", "nvidia"])
        func eachPersonalityConvertsOnTheGPUOrSaysWhyNot(_ stream: Stream, personality: String) throws {
            let options = Self.conversions[1]
            let cpu = try Self.frameMD5(stream, options, onGPU: false)
            let gpu = try Self.frameMD5(stream, options, onGPU: true, personality: personality)
            #expect(gpu.status == 0, "\(stream.name): \(gpu.standardError)")
            #expect(gpu.text == cpu.text, "\(stream.name) under \(personality)")
            RealPixels.expectDecodedOnTheDriver(gpu.standardError, stream.name)
            let counts = try #require(RealPixels.liveReport(gpu.standardError))
            let line = Self.conversionLine(gpu.standardError) ?? ""
            switch personality {
            case "ihd", "mesa":
                #expect(line == Self.onTheGPU, "\(personality)")
                #expect(counts["processed_pictures"] == Stream.frameLines(gpu.text).count, "\(counts)")
            case "i965":
                #expect(
                    line.hasPrefix(
                        "conversion: libswscale on the CPU — the i965 driver converts every picture as BT.601"))
                #expect(counts["processed_pictures"] == 0, "\(counts)")
            default:
                #expect(
                    line
                        == "conversion: libswscale on the CPU — the nvidia driver has no video processing (no VAEntrypointVideoProc)"
                )
                #expect(counts["processed_pictures"] == 0, "\(counts)")
            }
        }

        /// The driver's processing follows the pipeline it is given, so a client that passes the
        /// wrong parameters gets the wrong picture: FFmpeg's own `scale_vaapi` on the driver gives
        /// the ffmpeg CLI's CPU conversion (`-s 160x120 -pix_fmt bgra`, an independent oracle)
        /// with its default high-quality scaling, and other pictures with fast scaling, with the
        /// pictures tagged BT.601 instead of BT.709 (`setparams`), or under i965 (which converts a
        /// full-range BT.709 picture as limited BT.601).
        @Test(.enabled(if: CommandRunner.hasFFmpeg))
        func theDriversPicturesFollowTheParametersItIsGiven() throws {
            let stream = RealPixels.fixture("h264-main-cabac.264", "yuvj420p")
            let oracle = try CommandRunner.ffmpeg([
                "-threads", "1", "-i", stream.url.path, "-s", "160x120", "-pix_fmt", "bgra", "-f", "framemd5", "-",
            ])
            try #require(oracle.status == 0, "\(oracle.standardError)")
            func scaleVAAPI(_ filters: String, personality: String? = nil) throws -> [Substring] {
                let run = try CommandRunner.run(
                    URL(fileURLWithPath: "/usr/bin/ffmpeg"),
                    [
                        "-v", "error", "-nostdin", "-init_hw_device", "vaapi=va:/dev/null", "-hwaccel", "vaapi",
                        "-hwaccel_device", "va", "-hwaccel_output_format", "vaapi", "-i", stream.url.path, "-vf",
                        "\(filters),hwdownload,format=bgra", "-f", "framemd5", "-",
                    ], environment: RealPixels.environment(stream, personality: personality))
                #expect(run.status == 0, "\(filters): \(run.standardError)")
                let counts = RealPixels.liveReport(run.standardError)
                #expect(counts?["processed_pictures"] == 30, "\(filters): \(counts ?? [:])")
                return Stream.frameLines(run.text).map { $0.split(separator: ",").last ?? "" }
            }
            let expected = Stream.frameLines(oracle.text).map { $0.split(separator: ",").last ?? "" }
            #expect(expected.count == 30)
            let scale = "scale_vaapi=w=160:h=120:format=bgra"
            #expect(try scaleVAAPI(scale) == expected)
            #expect(try scaleVAAPI(scale, personality: "mesa") == expected)
            let wrong: [(String, String?)] = [
                ("\(scale):mode=fast", nil), ("setparams=colorspace=bt470bg,\(scale)", nil), (scale, "i965"),
            ]
            for (filters, personality) in wrong {
                let pictures = try scaleVAAPI(filters, personality: personality)
                #expect(pictures.count == expected.count)
                #expect(
                    zip(pictures, expected).allSatisfy { $0 != $1 },
                    "\(filters) \(personality ?? ""): every picture differs")
            }
        }

        /// A processing call that fails mid-stream (the driver's 5th processed picture) moves the
        /// conversion to the CPU for that picture and the rest: every picture is still the CPU's,
        /// the tool says why, and nothing leaks.
        @Test func aFailedProcessingCallMovesTheConversionToTheCPU() throws {
            let stream = RealPixels.fixture("h264-high-bpyramid.264")
            let options = Self.conversions[1]
            let cpu = try Self.frameMD5(stream, options, onGPU: false)
            let gpu = try Self.frameMD5(stream, options, onGPU: true, driverVariables: ["VATB_FAIL_PROCESSING": "5"])
            #expect(gpu.status == 0, "\(gpu.standardError)")
            #expect(gpu.text == cpu.text)
            let line = Self.conversionLine(gpu.standardError) ?? ""
            #expect(
                line.hasPrefix(
                    "conversion: libswscale on the CPU — the driver failed to process the picture (vaEndPicture:"),
                "\(line)")
            RealPixels.expectDecodedOnTheDriver(gpu.standardError, stream.name)
            #expect(RealPixels.liveReport(gpu.standardError)?["processed_pictures"] == 4)
        }

        /// A failed query of what the driver processes (`vaQueryVideoProcPipelineCaps`, injected)
        /// keeps the conversion on the CPU, says why, and leaves no configuration or context.
        @Test func aFailedProcessingQueryKeepsTheConversionOnTheCPU() throws {
            let stream = RealPixels.fixture("h264-main-cabac.264", "yuvj420p")
            let options = Self.conversions[0]
            let cpu = try Self.frameMD5(stream, options, onGPU: false)
            let gpu = try Self.frameMD5(
                stream, options, onGPU: true, driverVariables: ["VATB_FAIL_CALL": "QueryVideoProcPipelineCaps:1"])
            #expect(gpu.status == 0, "\(gpu.standardError)")
            #expect(gpu.text == cpu.text)
            #expect(
                Self.conversionLine(gpu.standardError)
                    == "conversion: libswscale on the CPU — the driver did not say what it processes "
                    + "(vaQueryVideoProcPipelineCaps: operation failed)")
            RealPixels.expectDecodedOnTheDriver(gpu.standardError, stream.name)
            #expect(RealPixels.liveReport(gpu.standardError)?["processed_pictures"] == 0)
        }

        /// A converted picture stays a GPU surface: when reading it back to hash it fails (the 3rd
        /// `vaGetImage`, injected), framemd5 leaves it out and counts it as a frame with an error
        /// — it never hashes an empty picture — and `decode -o` fails rather than write nothing.
        @Test func aConvertedPictureThatCannotBeReadBackIsAnError() throws {
            let stream = RealPixels.fixture("h264-main-cabac.264", "yuvj420p")
            var environment = RealPixels.environment(stream)
            environment["VATB_FAIL_CALL"] = "GetImage:3"
            let gpu = try CommandRunner.vatoolbox(
                ["framemd5", "--hwaccel", "vaapi", "--device", "/dev/null", "--pixel-format", "BGRA", stream.url.path],
                environment: environment)
            #expect(gpu.status == 1, "\(gpu.standardError)")
            #expect(Stream.frameLines(gpu.text).count == 29)
            let cpu = try Self.frameMD5(stream, Self.conversions[0], onGPU: false)
            #expect(Set(Stream.frameLines(gpu.text)).isSubset(of: Set(Stream.frameLines(cpu.text))))
            #expect(gpu.standardError.contains("frames with errors: 1"), "\(gpu.standardError)")
            #expect(gpu.standardError.contains("picture 2: it could not be read back from the GPU"))
            RealPixels.expectDecodedOnTheDriver(gpu.standardError, stream.name)
            let directory = try CommandRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let decode = try CommandRunner.vatoolbox(
                [
                    "decode", "--hwaccel", "vaapi", "--device", "/dev/null", "--pixel-format", "BGRA", stream.url.path,
                    "-o", directory.appendingPathComponent("out.bgra").path,
                ], environment: environment)
            #expect(decode.status == 1, "\(decode.standardError)")
            #expect(decode.standardError.contains("vaGetImage"), "\(decode.standardError)")
        }

        /// A GPU session asked for BGRA makes no read-back and no CPU conversion: the driver
        /// processes every picture, and serves no `vaGetImage` and only the `vaDeriveImage` of
        /// each frames context libavutil makes (`hwcontext_vaapi.c` `vaapi_frames_init` tries one:
        /// the decoder's and the processor's). Under nvidia each picture is read back once and
        /// converted on the CPU.
        @Test(arguments: [nil, "ihd", "mesa", "nvidia"] as [String?])
        func aSessionAskedForBGRAReadsNothingBack(personality: String?) throws {
            let stream = RealPixels.fixture("h264-high-bpyramid.264")
            let run = try CommandRunner.vatoolbox(
                ["decode", "--pixel-format", "BGRA", "--hwaccel", "vaapi", "--device", "/dev/null", stream.url.path],
                environment: RealPixels.environment(stream, personality: personality))
            #expect(run.status == 0, "\(run.standardError)")
            let counts = try #require(RealPixels.liveReport(run.text + run.standardError))
            let frames = try FrameMD5Oracle(contentsOf: try #require(stream.oracle)).frames.count
            if personality == "nvidia" {
                #expect(counts["processed_pictures"] == 0 && counts["got_images"] == frames, "\(counts)")
                #expect(
                    run.text.contains("conversion: libswscale on the CPU — the nvidia driver has no video processing"))
            } else {
                #expect(counts["processed_pictures"] == frames, "\(counts)")
                #expect(counts["got_images"] == 0 && counts["derived_images"] == 2, "\(counts)")
                #expect(run.text.contains(Self.onTheGPU), "\(run.text)")
            }
        }

        // MARK: - In process: the session and PixelTransferSession

        /// A session's BGRA pictures are GPU surfaces — one plane of 4 bytes a pixel when locked,
        /// exported as one ARGB8888 layer — holding the bytes the CPU makes from the same GPU
        /// pictures, up to the 24 surfaces (4 pools of 6) a session keeps for converted pictures
        /// its application holds: this handler keeps all 30, so the last 6 are converted into CPU
        /// memory, and the session says why. `PixelTransferSession` converts a GPU picture on the
        /// GPU too, into a new surface or into a buffer in CPU memory, and on the CPU when told
        /// to. Nothing leaks.
        @Test func sessionAndPixelTransferSessionConvertOnTheGPU() throws {
            let live = try HardwareSessions.liveObjects()
            try {
                let fixture = "h264-main-cabac.264"
                let samples = try TestData.samples(fixture)
                let bgra = Outputs()
                let session = try HardwareSessions.session(
                    samples[0].formatDescription, attributes: ImageBufferAttributes(pixelFormat: .bgra), outputs: bgra)
                try decode(samples, with: session)
                #expect(
                    session.pixelTransferPath
                        == .cpu(reason: "the application holds all 24 converted GPU pictures this session keeps"))
                let (native, nativeOnGPU) = try HardwareSessions.decodedOnTheDriver(fixture, personality: nil)
                #expect(nativeOnGPU)
                let converted = bgra.all.compactMap(\.imageBuffer)
                let decoded = native.compactMap(\.imageBuffer)
                #expect(converted.count == 30 && decoded.count == 30)
                // The session downloads the pictures held beyond its surface allowance: the
                // first few stay GPU surfaces, for PixelTransferSession to convert on the GPU.
                #expect(decoded.contains { $0.isGPUSurface })
                let onCPU = PixelTransferSession(convertsOnGPU: false)
                let onGPU = PixelTransferSession()
                for (index, (picture, source)) in zip(converted, decoded).enumerated() {
                    #expect(picture.isGPUSurface == (index < 24) && picture.pixelFormat == .bgra, "\(index)")
                    let expected = try onCPU.transferImage(source, pixelFormat: .bgra)
                    #expect(picture.md5 == expected.md5)
                    picture.withLockedPlanes { planes in
                        #expect(planes.count == 1 && planes.first?.bytesPerRowOfPixels == picture.width * 4)
                    }
                    guard source.isGPUSurface else { continue }
                    #expect(
                        !expected.isGPUSurface && onCPU.lastTransferPath == .cpu(reason: "GPU conversion turned off"))
                    let again = try onGPU.transferImage(source, pixelFormat: .bgra)
                    #expect(again.isGPUSurface && onGPU.lastTransferPath == .gpu)
                    #expect(again.md5 == expected.md5)
                    let destination = try PixelBufferPool(
                        pixelFormat: .bgra, width: source.width, height: source.height
                    ).makePixelBuffer()
                    try onGPU.transferImage(source, to: destination)
                    #expect(onGPU.lastTransferPath == .gpu && destination.md5 == expected.md5)
                }
                let export = try #require(converted.first).exportDMABuf(separateLayers: false)
                #expect(export.layers.count == 1 && export.layers.first?.planes.count == 1)
                #expect(export.layers.first?.drmFormat == FourCC.pack("AR24").byteSwapped)
                session.invalidate()
            }()
            #expect(try HardwareSessions.liveObjects() == live, "every surface, context and config is gone")
        }

        /// Under nvidia the session converts on the CPU and says why.
        @Test func withoutProcessingTheSessionConvertsOnTheCPU() throws {
            let samples = try TestData.samples("h264-main-cabac.264")
            let outputs = Outputs()
            let session = try HardwareSessions.session(
                samples[0].formatDescription, faults: ["VATB_PERSONALITY": "nvidia"],
                attributes: ImageBufferAttributes(pixelFormat: .bgra), outputs: outputs)
            try decode(samples, with: session)
            #expect(session.usingHardwareAcceleratedVideoDecoder)
            #expect(
                session.pixelTransferPath
                    == .cpu(reason: "the nvidia driver has no video processing (no VAEntrypointVideoProc)"))
            let pictures = outputs.all.compactMap(\.imageBuffer)
            #expect(pictures.count == 30 && pictures.allSatisfy { !$0.isGPUSurface && $0.pixelFormat == .bgra })
            session.invalidate()
        }
    }
}
