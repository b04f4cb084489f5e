import CVAAPI
import Foundation
import Synchronization
import Testing
import VADRMShim

@testable import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// The test VA driver's reference mode (`VATB_REFERENCE_STREAM`, Docs/TestVADriver.md, "Real
/// pixels"): the GPU path decodes real pictures, so its output is checked byte for byte against
/// the software decode of the ffmpeg CLI: `ffmpeg -hwaccel vaapi` and `vatoolbox framemd5 --hwaccel
/// vaapi` on the driver print the `ffmpeg -f framemd5` oracle, and DMA-BUF export carries the same
/// pixels.
///
/// Nested in ``VATestDriverTests`` for its serialisation: the driver's variables are process-wide.
extension VATestDriverTests {
    @Suite(.enabled(if: CommandRunner.hasFFmpeg && CommandRunner.hasTool && TestVADriver.isBuilt))
    struct RealPixels {
        /// A stream the driver's profiles cover, with the pixel format of its software decode.
        struct Stream: Sendable, CustomTestStringConvertible {
            let name: String
            let url: URL
            /// The ffmpeg pixel format of the software decode (`-pix_fmt`): the GPU's NV12/P010 is
            /// converted to it, losslessly, before hashing.
            let pixelFormat: String
            /// `X.framemd5` beside a fixture; nil for a conformance stream, whose oracle is the
            /// ffmpeg CLI's software decode in the same run.
            let oracle: URL?
            /// The libavcodec decoder `ffmpeg -hwaccel vaapi` must be told to use (`-c:v`), or nil
            /// for the default: FFmpeg picks libdav1d for AV1, which has no hwaccel, so AV1 streams
            /// name the native `av1` decoder.
            var hwaccelDecoder: String? = nil

            var testDescription: String { name }

            /// `vatoolbox --pixel-format` for ``pixelFormat``.
            var fourCC: String {
                switch pixelFormat {
                case "yuvj420p": "f420"
                case "yuv420p10le": "y0l0"
                default: "y420"
                }
            }

            /// The `ffmpeg -f framemd5` text of the software decode, made in this run: the GPU path
            /// must print it byte for byte (`#software` header line included). Single-threaded, as
            /// the driver decodes and as Scripts/make-fixtures makes the oracles: on a damaged stream
            /// libavcodec's error concealment depends on the thread count.
            func softwareFrameMD5() throws -> String {
                // The video stream only: mpeg2-bframes.mp4 and .ts carry audio too.
                let run = try CommandRunner.ffmpeg([
                    "-threads", "1", "-i", url.path, "-map", "0:v:0", "-autoscale", "0", "-f", "framemd5", "-",
                ])
                try #require(run.status == 0, "ffmpeg's software decode of \(name): \(run.standardError)")
                return run.text
            }

            /// Checks a GPU run's framemd5 text against the software decode of this run and, for a
            /// fixture, the committed oracle's frame lines (it has no `#software` line).
            func expectSoftwareFrameMD5(_ text: String) throws {
                #expect(text == (try softwareFrameMD5()), "\(name)")
                if let oracle {
                    let committed = try String(contentsOf: oracle, encoding: .utf8)
                    #expect(
                        Self.frameLines(text) == Self.frameLines(committed),
                        "\(name): against \(oracle.lastPathComponent)")
                }
            }

            static func frameLines(_ text: String) -> [Substring] {
                text.split(separator: "\n").filter { !$0.hasPrefix("#") }
            }
        }

        /// A fixture; `checksCommittedOracle` false for one whose committed oracle is not the ffmpeg
        /// CLI's default output (made with `-fps_mode passthrough`).
        static func fixture(
            _ name: String, _ pixelFormat: String = "yuv420p", decoder: String? = nil,
            checksCommittedOracle: Bool = true
        ) -> Stream {
            let url = TestData.fixtures.appendingPathComponent(name)
            return Stream(
                name: name, url: url, pixelFormat: pixelFormat,
                oracle: checksCommittedOracle ? url.appendingPathExtension("framemd5") : nil, hwaccelDecoder: decoder)
        }

        /// Every fixture a VA profile of the driver covers: H.264 (progressive, MBAFF, cropped,
        /// multi-slice, a resolution change, damaged, open GOPs), HEVC 8- and 10-bit (and open
        /// GOPs, and a CRA picture after an end of sequence), MPEG-2 progressive, interlaced and with B-frames
        /// in MP4 and TS beside audio, VP8, VP9 profiles 0 and 2, AV1 8- and 10-bit
        /// (with hidden frames shown later, and with film grain), in every container, and a size
        /// that grows mid-stream in each codec that can change size.
        static let fixtures: [Stream] = [
            fixture("h264-baseline-cavlc.264"), fixture("h264-main-cabac.264", "yuvj420p"),
            fixture("h264-high-bpyramid.264"), fixture("h264-mbaff.264"), fixture("h264-cropped-642x362.264"),
            fixture("h264-slices.264"), fixture("h264-3byte-startcodes.264"), fixture("h264-resolution-change.264"),
            fixture("h264-truncated.264"), fixture("h264-bitflip.264"), fixture("h264-high-bpyramid.mp4"),
            fixture("h264-open-gop.264"), fixture("h264-open-gop.mp4"), fixture("hevc-open-gop.265"),
            fixture("hevc-end-of-sequence.265"), fixture("h264-main-cabac.ts", "yuvj420p"), fixture("hevc-main.265"),
            fixture("hevc-main10.265", "yuv420p10le"),
            fixture("hevc-slices.265"), fixture("hevc-main.mkv"), fixture("mpeg2-progressive.m2v"),
            fixture("mpeg2-interlaced.ts"), fixture("mpeg2-bframes.mp4"), fixture("mpeg2-bframes.ts"),
            fixture("vp8.ivf"), fixture("vp8.webm"), fixture("vp8-temporal-layers.ivf"), fixture("vp9-profile0.ivf"),
            fixture("vp9-temporal-layers.ivf"),
            fixture("vp9-profile2-10bit.webm", "yuv420p10le"), fixture("vp9-resolution-change.ivf"),
            fixture("av1.ivf", decoder: "av1"), fixture("av1.mp4", decoder: "av1"),
            fixture("av1-10bit.mkv", "yuv420p10le", decoder: "av1"), fixture("av1.obu", decoder: "av1"),
            // Several tiles per picture (issue 23): the driver keys a picture by its tile group's
            // data whole, the tile size fields included.
            fixture("av1-tiles-libaom.ivf", decoder: "av1"), fixture("av1-tiles-svtav1.ivf", decoder: "av1"),
            fixture("av1-annexb.obu", decoder: "av1"), fixture("av1-film-grain.ivf", decoder: "av1"),
            // Sizes that grow: libavcodec renews the surfaces itself for H.264, HEVC and VP9, and
            // VAToolbox gives VP8 and AV1 a new decoder (CodecSupport.hardwareSurfaceSize).
            fixture("h264-size-up.264"), fixture("hevc-size-up.265"), fixture("vp9-size-up.ivf"),
            fixture("vp8-size-up.ivf"), fixture("av1-size-up.ivf", decoder: "av1"),
            // Files ffmpeg decoded and VAToolbox did not (issue 21): a smaller MP4 sample entry, an
            // MPEG-2 size change, and MP4s remuxed from raw streams, whose committed oracle has every
            // picture (the CLI's default output drops those whose time goes back).
            fixture("h264-sample-entry-smaller.mp4"), fixture("mpeg2-size-change.m2v"),
            fixture("h264-remuxed-from-annexb.mp4", checksCommittedOracle: false),
            fixture("hevc-remuxed-from-annexb.mp4", checksCommittedOracle: false),
            // Static HDR metadata in the stream (HEVC SEI, AV1 metadata OBUs) or the container.
            fixture("hevc-hdr10.265", "yuv420p10le"), fixture("av1-hdr10.ivf", "yuv420p10le", decoder: "av1"),
            fixture("hevc-hdr10plus.265", "yuv420p10le"), fixture("h264-container-hdr.mp4"),
            fixture("h264-container-hdr.mkv"),
            // Dolby Vision RPUs and an ambient viewing environment (issue 22), H.264 HDR SEI.
            fixture("hevc-dolby-vision.265", "yuv420p10le"),
            fixture("hevc-dolby-vision.mkv", "yuv420p10le", checksCommittedOracle: false),
            fixture("hevc-dolby-vision.mp4", "yuv420p10le", checksCommittedOracle: false),
            fixture("h264-sei-hdr.264"), fixture("vp9-hdr10plus.webm", "yuv420p10le"),
            // An alternative transfer characteristics SEI message and an MP4 ICC profile.
            fixture("hevc-alternative-transfer.265", "yuv420p10le"), fixture("hevc-hlg.265", "yuv420p10le"),
            fixture("h264-icc-profile.mp4"),
        ]

        /// The fixtures left out, and why.
        static let leftOut: [String: String] = [
            "h264-high10.264": "H.264 High 10 has no VA profile",
            "h264-high422.264": "H.264 4:2:2 has no VA profile",
            "vp9-profile1-444.ivf": "VP9 profile 1 (4:4:4) has no VA profile of the driver",
            "vp9-8x8.ivf": "below the driver's 16x16 minimum (HardwareSessions checks that the session says so)",
            "vp9-profile1-440.ivf": "VP9 4:4:0 has no VA profile",
            "vp9-profile3-440-10bit.ivf": "VP9 4:4:0 has no VA profile",
            "vp9-profile3-440-12bit.ivf": "VP9 4:4:0 has no VA profile",
            "mpeg2-vcr2.avi":
                "the session keeps VCR2 on the CPU (MPEG2CodecSupport.hardwareDecodeRefusal; CodecHardwareSessions checks it)",
        ]

        /// A handful of conformance streams (the whole set is listed in Docs/TestVADriver.md with
        /// its cost): H.264 field pictures (PAFF) and frame/field switching, PCM macroblocks, MMCO,
        /// an interlaced cros-codecs stream; HEVC, VP8, VP9 (with hidden frames shown later by
        /// `show_existing_frame`) and AV1 (250 pictures, some of whose tile data equals another's)
        /// from cros-codecs.
        static let conformance: [Stream] = {
            guard let root = TestData.conformance else { return [] }
            let streams = [
                "JVT-FR-EXT/HCAFF1_HHI.264", "JVT-FR-EXT/HCAMFF1_HHI.264", "JVT-AVC_V1/CVPCMNL1_SVA_C.264",
                "JVT-FR-EXT/FRExt_MMCO4_Sony_B.264", "cros-codecs-h264/test-25fps-interlaced.h264",
                "cros-codecs-h265/bear.h265", "cros-codecs-vp8/test-25fps.vp8", "cros-codecs-vp9/test-25fps.vp9",
                "cros-codecs-vp9/vp90-2-10-show-existing-frame.vp9.ivf", "cros-codecs-av1/test-25fps.av1.ivf",
            ]
            return streams.map { name in
                Stream(
                    name: name, url: root.appendingPathComponent(name), pixelFormat: "yuv420p", oracle: nil,
                    hwaccelDecoder: name.hasSuffix(".av1.ivf") ? "av1" : nil)
            }
        }()

        /// The driver's environment for a subprocess: the reference stream, and the live report
        /// that says how many pictures the driver decoded and that nothing leaked.
        static func environment(_ stream: Stream?, personality: String? = nil) -> [String: String] {
            var extra = ["VATB_LIVE_REPORT": "1"]
            extra["VATB_PERSONALITY"] = personality
            if let stream { extra["VATB_REFERENCE_STREAM"] = stream.url.path }
            return TestVADriver.subprocessEnvironment(extra)
        }

        /// `ffmpeg -hwaccel vaapi` on the driver: frames downloaded from the surfaces, converted
        /// to the software decode's pixel format, hashed.
        static func ffmpegOnTheDriver(
            _ stream: Stream, reference: Bool = true, personality: String? = nil, inputOptions: [String] = []
        ) throws -> CommandRunner.Result {
            var arguments =
                [
                    "-v", "error", "-nostdin", "-init_hw_device", "vaapi=va:/dev/null", "-hwaccel", "vaapi",
                    "-hwaccel_device", "va",
                ] + inputOptions
            if let decoder = stream.hwaccelDecoder { arguments += ["-c:v", decoder] }
            arguments += [
                "-i", stream.url.path, "-map", "0:v:0", "-autoscale", "0", "-pix_fmt", stream.pixelFormat, "-f",
                "framemd5", "-",
            ]
            return try CommandRunner.run(
                URL(fileURLWithPath: "/usr/bin/ffmpeg"), arguments,
                environment: environment(reference ? stream : nil, personality: personality))
        }

        /// The driver's `VATB_LIVE_REPORT` line: every count, by name.
        static func liveReport(_ standardError: String) -> [String: Int]? {
            guard let line = standardError.split(separator: "\n").last(where: { $0.hasPrefix("vatb: live ") }) else {
                return nil
            }
            var counts: [String: Int] = [:]
            for field in line.dropFirst("vatb: live ".count).split(separator: " ") {
                let parts = field.split(separator: "=")
                if parts.count == 2, let value = Int(parts[1]) { counts[String(parts[0])] = value }
            }
            return counts
        }

        /// The report says the driver decoded pictures (so the hwaccel ran, not a silent software
        /// fallback), none failed, and every object was destroyed.
        static func expectDecodedOnTheDriver(_ standardError: String, _ name: String) {
            guard let counts = liveReport(standardError) else {
                Issue.record("\(name): no live report from the driver: \(standardError)")
                return
            }
            #expect((counts["end_pictures"] ?? 0) > 0, "\(name): \(counts)")
            #expect(counts["failed_end_pictures"] == 0, "\(name): \(counts)")
            for object in ["drivers", "configs", "contexts", "surfaces", "buffers", "images"] {
                #expect(counts[object] == 0, "\(name): \(object) leaked: \(counts)")
            }
        }

        @Test func everyFixtureIsCheckedOrLeftOutWithAReason() {
            let manifest = TestData.tsv(TestData.fixtures.appendingPathComponent("manifest.tsv")).compactMap {
                $0["file"]
            }
            let listed = Set(Self.fixtures.map(\.name)).union(Self.leftOut.keys)
            #expect(Set(manifest) == listed)
            #expect(Self.fixtures.count + Self.leftOut.count == manifest.count)
        }

        /// Streams the ffmpeg CLI's own hwaccel decodes wrongly, and why (VAToolbox decodes them
        /// exactly: the `vatoolbox` tests below run them).
        static let ffmpegHwaccelFailures: [String: String] = [
            "vp8-size-up.ivf":
                "libavcodec 5.1 decodes the larger key frame into the old surfaces (vp8.c update_dimensions)",
            "av1-size-up.ivf":
                "libavcodec 5.1 decodes the larger sequence into the old surfaces (av1dec.c get_pixel_format)",
        ]

        @Test(arguments: (fixtures + conformance).filter { ffmpegHwaccelFailures[$0.name] == nil })
        func ffmpegHwaccelOnTheDriverPrintsTheSoftwareFrameMD5s(_ stream: Stream) throws {
            let run = try Self.ffmpegOnTheDriver(stream)
            #expect(run.status == 0, "\(stream.name): \(run.standardError)")
            try stream.expectSoftwareFrameMD5(run.text)
            Self.expectDecodedOnTheDriver(run.standardError, stream.name)
        }

        /// Streams whose `vatoolbox framemd5` time stamps differ from the ffmpeg CLI's on the CPU
        /// path as well (a tool matter, not the GPU's): there the GPU output must equal the tool's
        /// CPU output byte for byte, and ffmpeg's in sizes and MD5s.
        static let toolTimestampDifferences: [String: String] = [
            "JVT-FR-EXT/HCAFF1_HHI.264":
                "raw H.264 with field pictures (PAFF): ffmpeg's pts start at 1, vatoolbox's at 0"
        ]

        static func vatoolboxFrameMD5(
            _ stream: Stream, hwaccel: String, personality: String? = nil
        ) throws -> CommandRunner.Result {
            try CommandRunner.vatoolbox(
                [
                    "framemd5", "--hwaccel", hwaccel, "--device", "/dev/null", "--pixel-format", stream.fourCC,
                    stream.url.path,
                ], environment: Self.environment(stream, personality: personality))
        }

        /// The size and MD5 columns of framemd5 text.
        static func sizesAndMD5s(_ text: String) -> [String] {
            Stream.frameLines(text).map { $0.split(separator: ",").suffix(2).joined(separator: ",") }
        }

        @Test(arguments: fixtures + conformance)
        func vatoolboxOnTheDriverPrintsTheSoftwareFrameMD5s(_ stream: Stream) throws {
            let run = try Self.vatoolboxFrameMD5(stream, hwaccel: "vaapi")
            #expect(run.status == 0, "\(stream.name): \(run.standardError)")
            Self.expectDecodedOnTheDriver(run.standardError, stream.name)
            guard Self.toolTimestampDifferences[stream.name] != nil else {
                try stream.expectSoftwareFrameMD5(run.text)
                return
            }
            let cpu = try Self.vatoolboxFrameMD5(stream, hwaccel: "none")
            #expect(run.text == cpu.text, "\(stream.name): the GPU's output against the tool's CPU output")
            #expect(Self.sizesAndMD5s(run.text) == Self.sizesAndMD5s(try stream.softwareFrameMD5()), "\(stream.name)")
        }

        /// Every other conformance stream a profile of the driver covers: the H.264 vectors of
        /// the Constrained Baseline, Main and High profiles (not Baseline with slice groups, not
        /// High 10 Intra), and every cros-codecs H.264, HEVC, VP8, VP9 and AV1 (IVF) stream. Not
        /// the streams above, nor `CVFC1_Sony_C` (its exact left/top crop is checked below), nor
        /// the cros-codecs AV1 Annex B stream in IVF, which the ffmpeg CLI does not decode.
        static let everyOtherConformanceStream: [Stream] = {
            guard let root = TestData.conformance else { return [] }
            let covered: Set = ["Constrained Baseline", "Main", "High"]
            let vectors = TestData.tsv(root.appendingPathComponent("vectors.tsv")).compactMap { row in
                covered.contains(row["profile"] ?? "") ? row["file"] : nil
            }
            let crosCodecs = [
                "h264": ["h264"], "h265": ["h265"], "vp8": ["vp8"], "vp9": ["vp9", "ivf"], "av1": ["ivf"],
            ]
            .flatMap { codec, extensions in
                let folder = "cros-codecs-\(codec)"
                let names =
                    (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path))
                    ?? []
                return names.filter { extensions.contains(($0 as NSString).pathExtension) }.map { "\(folder)/\($0)" }
            }
            let elsewhere = Set(conformance.map(\.name) + ["JVT-AVC_V1/CVFC1_Sony_C.jsv"])
            return (vectors + crosCodecs).filter { !elsewhere.contains($0) }.sorted().map { name in
                Stream(name: name, url: root.appendingPathComponent(name), pixelFormat: "yuv420p", oracle: nil)
            }
        }()

        /// `vatoolbox framemd5 --hwaccel vaapi` on the driver gives the software decode's
        /// pictures, in sizes and MD5s (the tool's time stamps of raw streams are checked by the
        /// CPU path's tests), on every conformance stream above.
        @Test(.needsConformance)
        func vatoolboxOnTheDriverGivesTheSoftwarePicturesOfEveryOtherConformanceStream() throws {
            #expect(Self.everyOtherConformanceStream.count >= 70)
            for stream in Self.everyOtherConformanceStream {
                let run = try Self.vatoolboxFrameMD5(stream, hwaccel: "vaapi")
                #expect(run.status == 0, "\(stream.name): \(run.standardError)")
                Self.expectDecodedOnTheDriver(run.standardError, stream.name)
                let expected = Self.sizesAndMD5s(try stream.softwareFrameMD5())
                #expect(!expected.isEmpty, "\(stream.name)")
                #expect(Self.sizesAndMD5s(run.text) == expected, "\(stream.name)")
            }
        }

        /// Every stream above runs on the driver's own behaviour; under each personality, a
        /// representative few: cropped H.264, 10-bit HEVC (P010), interlaced MPEG-2 (whose
        /// surfaces Mesa refuses to derive), VP9 with hidden frames, AV1 with film grain (a second
        /// output surface) and 10-bit AV1, and the left/top crop of
        /// `CVFC1_Sony_C` through vatoolbox.
        static let personalityStreams: [Stream] =
            [
                fixture("h264-cropped-642x362.264"), fixture("hevc-main10.265", "yuv420p10le"),
                fixture("mpeg2-interlaced.ts"), fixture("vp9-profile0.ivf"),
                fixture("av1-film-grain.ivf", decoder: "av1"), fixture("av1-10bit.mkv", "yuv420p10le", decoder: "av1"),
            ]

        @Test(arguments: personalityStreams, ["ihd", "i965", "mesa", "nvidia"])
        func ffmpegAndVatoolboxPrintTheSoftwareFrameMD5sUnderEachPersonality(
            _ stream: Stream, personality: String
        ) throws {
            let ffmpeg = try Self.ffmpegOnTheDriver(stream, personality: personality)
            #expect(ffmpeg.status == 0, "\(stream.name): \(ffmpeg.standardError)")
            try stream.expectSoftwareFrameMD5(ffmpeg.text)
            Self.expectDecodedOnTheDriver(ffmpeg.standardError, stream.name)
            let vatoolbox = try Self.vatoolboxFrameMD5(stream, hwaccel: "vaapi", personality: personality)
            #expect(vatoolbox.status == 0, "\(stream.name): \(vatoolbox.standardError)")
            try stream.expectSoftwareFrameMD5(vatoolbox.text)
            Self.expectDecodedOnTheDriver(vatoolbox.standardError, stream.name)
        }

        /// Without a reference stream the driver stamps: the same command prints other MD5s for
        /// every frame, so the comparison above can fail.
        @Test func withoutAReferenceStreamTheDriverStamps() throws {
            let stream = Self.fixture("h264-high-bpyramid.264")
            let expected = try FrameMD5Oracle(contentsOf: try #require(stream.oracle)).frames
            let run = try Self.ffmpegOnTheDriver(stream, reference: false)
            #expect(run.status == 0, "\(run.standardError)")
            let lines = run.text.split(separator: "\n").filter { !$0.hasPrefix("#") }
            #expect(lines.count == expected.count)
            for (line, frame) in zip(lines, expected) {
                #expect(!line.hasSuffix(frame.md5), "a stamped frame hashes like the decoded picture: \(line)")
            }
            Self.expectDecodedOnTheDriver(run.standardError, stream.name)
        }

        // MARK: - In process: initialisation and DMA-BUF export

        /// vaInitialize on /dev/null with the driver and `variables`; the status, and the display
        /// terminated again.
        static func initialiseDriver(_ variables: [String: String?]) -> VAStatus {
            let fd = open("/dev/null", O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { return VA_STATUS_ERROR_OPERATION_FAILED }
            defer { close(fd) }
            guard vatb_drm_shim_installed() == 1, let display = vaGetDisplayDRM(fd) else {
                return VA_STATUS_ERROR_INVALID_DISPLAY
            }
            var environment = variables
            environment["LIBVA_DRIVERS_PATH"] = TestVADriver.buildDirectory.path
            environment["LIBVA_DRIVER_NAME"] = TestVADriver.driverName
            environment["LIBVA_MESSAGING_LEVEL"] = "0"
            var major: Int32 = 0
            var minor: Int32 = 0
            let status = TestVADriver.withEnvironment(environment) { vaInitialize(display, &major, &minor) }
            vaTerminate(display)
            return status
        }

        /// AV1 with film grain: the driver writes the picture with grain to the surface FFmpeg
        /// outputs (`current_display_picture`, checked above) and the one without it to the render
        /// target kept for reference (`current_frame`), as a GPU does. With the grain exported as
        /// side data, FFmpeg asks for no grain and outputs the render target: it must equal the
        /// software decode without grain, and differ from the one with it (so the check can fail).
        @Test func av1FilmGrainRenderTargetHoldsThePictureWithoutGrain() throws {
            let stream = Self.fixture("av1-film-grain.ivf", decoder: "av1")
            let exportGrain = ["-export_side_data", "film_grain"]
            let run = try Self.ffmpegOnTheDriver(stream, inputOptions: exportGrain)
            #expect(run.status == 0, "\(run.standardError)")
            Self.expectDecodedOnTheDriver(run.standardError, stream.name)
            let plain = try CommandRunner.ffmpeg(
                ["-threads", "1"] + exportGrain + ["-i", stream.url.path, "-autoscale", "0", "-f", "framemd5", "-"])
            try #require(plain.status == 0, "\(plain.standardError)")
            let gpu = Stream.frameLines(run.text)
            #expect(gpu.count == 15)
            #expect(gpu == Stream.frameLines(plain.text))
            let grained = Stream.frameLines(try stream.softwareFrameMD5())
            #expect(zip(gpu, grained).allSatisfy { $0 != $1 }, "every picture of the stream has grain")
        }

        /// A reference stream the driver cannot use fails vaInitialize: a missing file, and a file
        /// that is not a video. Stamps instead of pictures would be silent wrong output.
        @Test func aReferenceStreamTheDriverCannotUseFailsInitialisation() throws {
            let before = try TestVADriver.liveObjects()
            #expect(Self.initialiseDriver(["VATB_REFERENCE_STREAM": nil]) == VA_STATUS_SUCCESS)
            let fixture = TestData.fixtures.appendingPathComponent("hevc-main.265").path
            #expect(Self.initialiseDriver(["VATB_REFERENCE_STREAM": fixture]) == VA_STATUS_SUCCESS)
            let missing = TestData.fixtures.appendingPathComponent("no-such-stream.264").path
            #expect(Self.initialiseDriver(["VATB_REFERENCE_STREAM": missing]) == VA_STATUS_ERROR_OPERATION_FAILED)
            let av1 = TestData.fixtures.appendingPathComponent("av1.ivf").path
            #expect(Self.initialiseDriver(["VATB_REFERENCE_STREAM": av1]) == VA_STATUS_SUCCESS)
            let grain = TestData.fixtures.appendingPathComponent("av1-film-grain.ivf").path
            #expect(Self.initialiseDriver(["VATB_REFERENCE_STREAM": grain]) == VA_STATUS_SUCCESS)
            let text = TestData.fixtures.appendingPathComponent("manifest.tsv").path
            #expect(Self.initialiseDriver(["VATB_REFERENCE_STREAM": text]) == VA_STATUS_ERROR_OPERATION_FAILED)
            #expect(try TestVADriver.liveObjects().drivers == before.drivers)
        }

        /// The MD5 of a picture read through the exported DMA-BUF: the NV12/P010 planes mapped
        /// from their fds, written as the software decode's planar format (Y, then Cb, then Cr;
        /// P010's 10 bits moved down to little-endian 16-bit words) over the visible area.
        static func md5(of buffer: DMABufDescriptor, width: Int, height: Int) -> String? {
            let left = buffer.visibleRectangle.x
            let top = buffer.visibleRectangle.y
            let planes = buffer.layers.flatMap(\.planes)
            guard planes.count == 2 else { return nil }
            var mappings: [UnsafeRawBufferPointer] = []
            defer {
                for mapping in mappings {
                    munmap(UnsafeMutableRawPointer(mutating: mapping.baseAddress), mapping.count)
                }
            }
            for object in buffer.objects {
                let address = mmap(nil, object.size, PROT_READ, MAP_SHARED, object.fd, 0)
                guard let address, address != MAP_FAILED else { return nil }
                mappings.append(UnsafeRawBufferPointer(start: address, count: object.size))
            }
            let tenBit = DMABufDescriptor.name(ofFourCC: buffer.fourCC) == "P010"
            let bytesPerSample = tenBit ? 2 : 1
            var digest = MD5()
            /// Hashes `count` samples of a row, `step` samples apart, from `first` on.
            func hashRow(
                _ plane: DMABufDescriptor.Plane, row y: Int, first: Int, step: Int, count: Int, into digest: inout MD5
            ) {
                let memory = mappings[plane.objectIndex]
                var row = [UInt8](repeating: 0, count: count * bytesPerSample)
                for x in 0..<count {
                    let at = plane.offset + y * plane.pitch + (first + x * step) * bytesPerSample
                    if tenBit {
                        let value = (UInt16(memory[at]) | UInt16(memory[at + 1]) << 8) >> 6
                        row[2 * x] = UInt8(truncatingIfNeeded: value)
                        row[2 * x + 1] = UInt8(truncatingIfNeeded: value >> 8)
                    } else {
                        row[x] = memory[at]
                    }
                }
                row.withUnsafeBytes { digest.update($0) }
            }
            for y in 0..<height {
                hashRow(planes[0], row: top + y, first: left, step: 1, count: width, into: &digest)
            }
            for component in 0..<2 {
                for y in 0..<(height + 1) / 2 {
                    hashRow(
                        planes[1], row: top / 2 + y, first: (left & ~1) + component, step: 2, count: (width + 1) / 2,
                        into: &digest)
                }
            }
            return digest.finish()
        }

        /// What the output handler read through DMA-BUF, per picture in output order.
        final class ExportedPictures: Sendable {
            struct Picture: Sendable {
                var isGPUSurface: Bool
                /// The MD5 through separate layers, then through composed layers (nil: failed).
                var md5s: [String?]
                /// The pixel buffer's size.
                var width: Int
                var height: Int
                /// The exported visible rectangle (separate layers).
                var visibleRectangle: DMABufDescriptor.Rectangle?
            }
            private let list = Mutex<[Picture]>([])
            var all: [Picture] { list.withLock { $0 } }

            /// Exports each picture as it comes out (the session keeps a bounded pool of surfaces:
            /// a picture held past it is copied to CPU memory) and reads it through mmap.
            var handler: DecompressionSession.OutputHandler {
                { output in
                    guard let image = output.imageBuffer else { return }
                    let md5s = [true, false].map { separateLayers -> String? in
                        guard let buffer = try? image.exportDMABuf(separateLayers: separateLayers) else { return nil }
                        return RealPixels.md5(of: buffer, width: image.width, height: image.height)
                    }
                    let visible = (try? image.exportDMABuf())?.visibleRectangle
                    let picture = Picture(
                        isGPUSurface: image.isGPUSurface, md5s: md5s, width: image.width, height: image.height,
                        visibleRectangle: visible)
                    self.list.withLock { $0.append(picture) }
                }
            }
        }

        /// A session on the driver in reference mode: every picture, exported as DMA-BUF (separate
        /// and composed layers) and read through mmap of the exported fds, has the oracle's MD5.
        @Test(arguments: ["h264-cropped-642x362.264", "hevc-main10.265"])
        func dmaBufExportCarriesTheDecodedPixels(_ name: String) throws {
            let stream = Self.fixture(name)
            let oracle = try FrameMD5Oracle(contentsOf: try #require(stream.oracle)).frames
            var options = ElementaryStreamParser.Options()
            options.frameDuration = MediaTime(value: 1, timescale: 25)
            let samples = ElementaryStreamParser.samples(
                in: try TestData.bytes(stream.url), codec: name.hasPrefix("hevc") ? .hevc : .h264, options: options)
            let first = try #require(samples.first)
            let pictures = ExportedPictures()
            let variables: [String: String?] = [
                "LIBVA_DRIVERS_PATH": TestVADriver.buildDirectory.path, "LIBVA_DRIVER_NAME": TestVADriver.driverName,
                "VATB_REFERENCE_STREAM": stream.url.path,
            ]
            let session = try TestVADriver.withEnvironment(variables) {
                try DecompressionSession(
                    formatDescription: first.formatDescription,
                    decoderSpecification: DecoderSpecification(
                        hardwareAcceleration: .required, renderNodePath: "/dev/null", threadCount: 1),
                    imageBufferAttributes: nil, outputHandler: pictures.handler)
            }
            for (index, sample) in samples.enumerated() { try session.decodeFrame(sample, frameRefcon: index) }
            try session.finishDelayedFrames()
            session.invalidate()
            let exported = pictures.all
            #expect(exported.count == oracle.count)
            for (index, (picture, frame)) in zip(exported, oracle).enumerated() {
                #expect(picture.isGPUSurface, "\(name) picture \(index)")
                #expect(picture.md5s == [frame.md5, frame.md5], "\(name) picture \(index): separate, composed")
            }
        }

        // MARK: - Cropping on the left and top

        /// `CVFC1_Sony_C`: its SPS crops on every edge, the left and top included. libavcodec
        /// crops a VA frame on the right and bottom only, so the GPU path crops the rest itself:
        /// its pictures must be the CPU's, exactly (`-flags unaligned`: exact crop offsets).
        static let leftTopCropped: Stream? = TestData.conformance.map {
            Stream(
                name: "JVT-AVC_V1/CVFC1_Sony_C.jsv", url: $0.appendingPathComponent("JVT-AVC_V1/CVFC1_Sony_C.jsv"),
                pixelFormat: "yuv420p", oracle: nil)
        }

        /// The software decode's framemd5 of ``leftTopCropped``, cropped exactly.
        static func exactlyCroppedSoftwareFrameMD5(_ stream: Stream) throws -> String {
            let run = try CommandRunner.ffmpeg([
                "-threads", "1", "-flags", "unaligned", "-i", stream.url.path, "-f", "framemd5", "-",
            ])
            try #require(run.status == 0, "ffmpeg's software decode: \(run.standardError)")
            return run.text
        }

        @Test(.needsConformance, arguments: TestVADriver.personalities)
        func vatoolboxOnTheDriverCropsTheLeftAndTopLikeTheCPU(personality: String?) throws {
            let stream = try #require(Self.leftTopCropped)
            let run = try Self.vatoolboxFrameMD5(stream, hwaccel: "vaapi", personality: personality)
            #expect(run.status == 0, "\(run.standardError)")
            Self.expectDecodedOnTheDriver(run.standardError, stream.name)
            let expected = try Self.exactlyCroppedSoftwareFrameMD5(stream)
            #expect(Stream.frameLines(expected).count > 0)
            #expect(run.text == expected)
            let cpu = try Self.vatoolboxFrameMD5(stream, hwaccel: "none")
            #expect(run.text == cpu.text, "the GPU's output against the tool's CPU output")
        }

        /// In process: a session on the driver gives pictures of the cropped size (300x168, not
        /// the 326x228 left after libavcodec's right and bottom crop) whose samples are the
        /// software decode's, in the native NV12 (through DMA-BUF, from the exported visible
        /// rectangle) and converted to I420.
        @Test(.needsConformance)
        func aSessionOnTheDriverCropsTheLeftAndTopLikeTheCPU() throws {
            let stream = try #require(Self.leftTopCropped)
            let expected = Stream.frameLines(try Self.exactlyCroppedSoftwareFrameMD5(stream)).map {
                String($0.split(separator: ",").last ?? "").trimmingCharacters(in: .whitespaces)
            }
            var options = ElementaryStreamParser.Options()
            options.frameDuration = MediaTime(value: 1, timescale: 25)
            let samples = ElementaryStreamParser.samples(
                in: try TestData.bytes(stream.url), codec: .h264, options: options)
            let format = try #require(samples.first?.formatDescription)
            let aperture = format.cleanAperture
            #expect(aperture.left > 0 && aperture.top > 0, "the stream crops on the left and top")
            let variables: [String: String?] = [
                "LIBVA_DRIVERS_PATH": TestVADriver.buildDirectory.path, "LIBVA_DRIVER_NAME": TestVADriver.driverName,
                "VATB_REFERENCE_STREAM": stream.url.path,
            ]
            let specification = DecoderSpecification(
                hardwareAcceleration: .required, renderNodePath: "/dev/null", threadCount: 1)
            // Native NV12, read through DMA-BUF from the visible rectangle.
            let pictures = ExportedPictures()
            let native = try TestVADriver.withEnvironment(variables) {
                try DecompressionSession(
                    formatDescription: format, decoderSpecification: specification, imageBufferAttributes: nil,
                    outputHandler: pictures.handler)
            }
            for (index, sample) in samples.enumerated() { try native.decodeFrame(sample, frameRefcon: index) }
            try native.finishDelayedFrames()
            native.invalidate()
            let exported = pictures.all
            #expect(exported.count == expected.count)
            for (index, (picture, md5)) in zip(exported, expected).enumerated() {
                #expect(picture.isGPUSurface, "picture \(index)")
                #expect(picture.width == aperture.width && picture.height == aperture.height)
                #expect(
                    picture.visibleRectangle
                        == DMABufDescriptor.Rectangle(
                            x: aperture.left, y: aperture.top, width: aperture.width,
                            height: aperture.height), "picture \(index)")
                #expect(picture.md5s == [md5, md5], "picture \(index): separate, composed")
            }
            // Converted to I420 from the read-back.
            let converted = Mutex<[(width: Int, height: Int, md5: String)]>([])
            let planar = try TestVADriver.withEnvironment(variables) {
                try DecompressionSession(
                    formatDescription: format, decoderSpecification: specification,
                    imageBufferAttributes: ImageBufferAttributes(pixelFormat: .yuv420Planar)
                ) { output in
                    guard let image = output.imageBuffer else { return }
                    converted.withLock { $0.append((image.width, image.height, image.md5)) }
                }
            }
            for (index, sample) in samples.enumerated() { try planar.decodeFrame(sample, frameRefcon: index) }
            try planar.finishDelayedFrames()
            planar.invalidate()
            let images = converted.withLock { $0 }
            #expect(images.map(\.md5) == expected)
            #expect(images.allSatisfy { $0.width == aperture.width && $0.height == aperture.height })
        }
    }
}
