import CVAAPI
import Foundation
import Testing

@testable import VAToolbox

extension VATestDriverTests {
    /// The test VA driver's MPEG-2, VP8, VP9 and AV1 side (issue 9): profiles, buffers, stamps and
    /// faults, in process and through the `ffmpeg` CLI's VA-API hwaccel. Nested in the serialized
    /// `VATestDriverTests`, so it never runs beside the suites that read the process-wide counters.
    /// Docs/TestVADriver.md says what the driver hashes for each codec.
    @Suite struct CodecTests {
        // MARK: - In process

        @Test func theNewProfilesAreListedWithTheirFormats() throws {
            let display = try TestVADriver.Display()
            let dpy = display.display
            let yuv420 = UInt32(VA_RT_FORMAT_YUV420)
            let yuv420p10 = UInt32(VA_RT_FORMAT_YUV420_10)
            let expected: [(VAProfile, UInt32, [String])] = [
                (VAProfileMPEG2Simple, yuv420, ["NV12"]), (VAProfileMPEG2Main, yuv420, ["NV12"]),
                (VAProfileVP8Version0_3, yuv420, ["NV12"]), (VAProfileVP9Profile0, yuv420, ["NV12"]),
                (VAProfileVP9Profile2, yuv420p10, ["P010"]),
                (VAProfileAV1Profile0, yuv420 | yuv420p10, ["NV12", "P010"]),
            ]
            let listed = Set(try VATestDriverTests.profiles(dpy).map(\.rawValue))
            for (profile, rtFormat, pixelFormats) in expected {
                #expect(listed.contains(profile.rawValue), "\(profile)")
                var entrypoints = [VAEntrypoint](repeating: VAEntrypoint(0), count: Int(vaMaxNumEntrypoints(dpy)))
                var count: Int32 = 0
                try VATestDriverTests.check(
                    vaQueryConfigEntrypoints(dpy, profile, &entrypoints, &count), "vaQueryConfigEntrypoints")
                #expect(Array(entrypoints.prefix(Int(count))) == [VAEntrypointVLD], "\(profile)")
                var attribute = VAConfigAttrib(type: VAConfigAttribRTFormat, value: 0)
                try VATestDriverTests.check(
                    vaGetConfigAttributes(dpy, profile, VAEntrypointVLD, &attribute, 1), "vaGetConfigAttributes")
                #expect(attribute.value == rtFormat, "\(profile)")

                let (status, config) = VATestDriverTests.createConfig(dpy, profile)
                try VATestDriverTests.check(status, "vaCreateConfig")
                defer { vaDestroyConfig(dpy, config) }
                var surfaceCount: UInt32 = 0
                try VATestDriverTests.check(
                    vaQuerySurfaceAttributes(dpy, config, nil, &surfaceCount), "vaQuerySurfaceAttributes")
                var attributes = [VASurfaceAttrib](repeating: VASurfaceAttrib(), count: Int(surfaceCount))
                try VATestDriverTests.check(
                    vaQuerySurfaceAttributes(dpy, config, &attributes, &surfaceCount), "vaQuerySurfaceAttributes")
                let formats = attributes.filter { $0.type == VASurfaceAttribPixelFormat }.map {
                    UInt32(bitPattern: $0.value.value.i)
                }
                #expect(formats == pixelFormats.map(VATestDriverTests.fourCC), "\(profile)")
            }
            // A config asked for one of AV1's two formats offers only that one's surfaces.
            var tenBit = VAConfigAttrib(type: VAConfigAttribRTFormat, value: yuv420p10)
            var config = VAConfigID(CVAAPI_INVALID_ID)
            try VATestDriverTests.check(
                vaCreateConfig(dpy, VAProfileAV1Profile0, VAEntrypointVLD, &tenBit, 1, &config), "vaCreateConfig")
            defer { vaDestroyConfig(dpy, config) }
            var surfaceCount: UInt32 = 8
            var attributes = [VASurfaceAttrib](repeating: VASurfaceAttrib(), count: 8)
            try VATestDriverTests.check(
                vaQuerySurfaceAttributes(dpy, config, &attributes, &surfaceCount), "vaQuerySurfaceAttributes")
            let formats = attributes.prefix(Int(surfaceCount)).filter { $0.type == VASurfaceAttribPixelFormat }
            #expect(formats.map { UInt32(bitPattern: $0.value.value.i) } == [VATestDriverTests.fourCC("P010")])
        }

        /// A VA context with `count` NV12 surfaces of 64×64 for `profile`, destroyed by `body`'s end.
        static func withContext(
            _ display: VADisplay, _ profile: VAProfile, surfaces count: Int,
            _ body: (VAContextID, [VASurfaceID]) throws -> Void
        ) throws {
            let (configStatus, config) = VATestDriverTests.createConfig(display, profile)
            try VATestDriverTests.check(configStatus, "vaCreateConfig")
            defer { vaDestroyConfig(display, config) }
            var (surfaceStatus, surfaces) = VATestDriverTests.createSurfaces(
                display, rtFormat: VA_RT_FORMAT_YUV420, width: 64, height: 64, count: count)
            try VATestDriverTests.check(surfaceStatus, "vaCreateSurfaces")
            defer { vaDestroySurfaces(display, &surfaces, Int32(count)) }
            var context = VAContextID(CVAAPI_INVALID_ID)
            try VATestDriverTests.check(
                vaCreateContext(display, config, 64, 64, VA_PROGRESSIVE, &surfaces, Int32(count), &context),
                "vaCreateContext")
            defer { vaDestroyContext(display, context) }
            try body(context, surfaces)
        }

        /// Renders one picture: `parameters` (destroyed here), then one slice parameter buffer with
        /// an element per slice and one slice data buffer holding the slices. Returns vaEndPicture's
        /// status and the hash the driver should stamp, continuing `hash`.
        static func renderPicture<Slice>(
            _ display: VADisplay, _ context: VAContextID, _ surface: VASurfaceID, parameters: [VABufferID],
            slices: [[UInt8]], hash: FNV1a64 = FNV1a64(), element: (_ offset: UInt32, _ size: UInt32) -> Slice
        ) throws -> (VAStatus, FNV1a64) {
            var hash = hash
            var data: [UInt8] = []
            var elements: [Slice] = []
            for slice in slices {
                elements.append(element(UInt32(data.count), UInt32(slice.count)))
                data += slice + [0xEE]  // bytes between slices are not hashed
                hash.combineSlice(slice[...])
            }
            var buffers =
                parameters + [
                    try VATestDriverTests.buffer(display, context, VASliceParameterBufferType, elements),
                    try VATestDriverTests.buffer(display, context, VASliceDataBufferType, data),
                ]
            try VATestDriverTests.check(vaBeginPicture(display, context, surface), "vaBeginPicture")
            try VATestDriverTests.check(
                vaRenderPicture(display, context, &buffers, Int32(buffers.count)), "vaRenderPicture")
            let status = vaEndPicture(display, context)
            for id in buffers { try VATestDriverTests.check(vaDestroyBuffer(display, id), "vaDestroyBuffer") }
            return (status, hash)
        }

        /// The first `count` bytes of a surface's luma plane, through vaDeriveImage.
        static func surfaceBytes(_ display: VADisplay, _ surface: VASurfaceID, count: Int = 36) throws -> [UInt8] {
            var image = VAImage()
            try VATestDriverTests.check(vaDeriveImage(display, surface, &image), "vaDeriveImage")
            defer { vaDestroyImage(display, image.image_id) }
            var mapped: UnsafeMutableRawPointer?
            try VATestDriverTests.check(vaMapBuffer(display, image.buf, &mapped), "vaMapBuffer")
            defer { vaUnmapBuffer(display, image.buf) }
            let base = try #require(mapped)
            return Array(UnsafeRawBufferPointer(start: base, count: count))
        }

        /// The stamp's u32 at byte 32: how many bytes were hashed.
        static func hashedBytes(_ stamp: some Collection<UInt8>) -> Int {
            Array(stamp.dropFirst(32).prefix(4)).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        }

        /// With film grain, the AV1 picture goes to the render target (`current_frame`) and its
        /// film-grained version to `current_display_picture`, the surface FFmpeg outputs: both carry
        /// the stamp. The POC field is `order_hint`.
        @Test func av1FilmGrainStampsTheDisplayPictureToo() throws {
            let display = try TestVADriver.Display()
            let dpy = display.display
            try Self.withContext(dpy, VAProfileAV1Profile0, surfaces: 3) { context, surfaces in
                var picture = VADecPictureParameterBufferAV1()
                picture.order_hint = 7
                picture.current_frame = surfaces[0]
                picture.current_display_picture = surfaces[1]
                picture.film_grain_info.film_grain_info_fields.value = 1  // apply_grain
                let parameters = [try VATestDriverTests.buffer(dpy, context, VAPictureParameterBufferType, [picture])]
                let tiles: [[UInt8]] = [[0x12, 0x34, 0x00], [0x56]]
                let (status, hash) = try Self.renderPicture(
                    dpy, context, surfaces[0], parameters: parameters, slices: tiles
                ) { offset, size in
                    var tile = VASliceParameterBufferAV1()
                    tile.slice_data_offset = offset
                    tile.slice_data_size = size
                    return tile
                }
                try VATestDriverTests.check(status, "vaEndPicture")
                let decoded = try Self.surfaceBytes(dpy, surfaces[0])
                let shown = try Self.surfaceBytes(dpy, surfaces[1])
                #expect(decoded == shown)
                let stamp = try #require(DriverStamp(shown))
                #expect(
                    stamp
                        == DriverStamp(
                            magic: "VATB", poc: 7, decodeIndex: 1, hash: hash.value, sliceCount: 2,
                            profile: VAProfileAV1Profile0.rawValue))
                #expect(Self.hashedBytes(shown) == 3)
                // Without film grain only the render target is written.
                let untouched = try Self.surfaceBytes(dpy, surfaces[2], count: 4)
                #expect(untouched == [0, 0, 0, 0])
                // A display picture that is not a surface fails the picture.
                picture.current_display_picture = VASurfaceID(0x3fff_fff0)
                let bad = [try VATestDriverTests.buffer(dpy, context, VAPictureParameterBufferType, [picture])]
                let (badStatus, _) = try Self.renderPicture(
                    dpy, context, surfaces[2], parameters: bad, slices: tiles
                ) { offset, size in
                    var tile = VASliceParameterBufferAV1()
                    tile.slice_data_offset = offset
                    tile.slice_data_size = size
                    return tile
                }
                #expect(badStatus == VA_STATUS_ERROR_DECODING_ERROR)
                #expect(DriverStamp(try Self.surfaceBytes(dpy, surfaces[2]))?.magic == "FALT")
            }
        }

        /// MPEG-2 field pictures: the second field, decoded into the first field's surface,
        /// continues its hash, so the frame carries one stamp over both fields' slices. The POC field
        /// is the decode index of the frame's first picture.
        @Test func mpeg2FieldPairsShareOneStamp() throws {
            let display = try TestVADriver.Display()
            let dpy = display.display
            try Self.withContext(dpy, VAProfileMPEG2Main, surfaces: 1) { context, surfaces in
                func field(_ structure: UInt32, first: Bool, slices: [[UInt8]], hash: FNV1a64) throws -> (
                    VAStatus, FNV1a64
                ) {
                    var picture = VAPictureParameterBufferMPEG2()
                    picture.picture_coding_extension.bits.picture_structure = structure
                    picture.picture_coding_extension.bits.is_first_field = first ? 1 : 0
                    let parameters = [
                        try VATestDriverTests.buffer(dpy, context, VAPictureParameterBufferType, [picture]),
                        try VATestDriverTests.buffer(dpy, context, VAIQMatrixBufferType, [VAIQMatrixBufferMPEG2()]),
                    ]
                    return try Self.renderPicture(
                        dpy, context, surfaces[0], parameters: parameters, slices: slices, hash: hash
                    ) { offset, size in
                        var slice = VASliceParameterBufferMPEG2()
                        slice.slice_data_offset = offset
                        slice.slice_data_size = size
                        return slice
                    }
                }
                let top = try field(
                    1, first: true, slices: [[0, 0, 1, 1, 0x10], [0, 0, 1, 2, 0x20]], hash: FNV1a64())
                try VATestDriverTests.check(top.0, "vaEndPicture")
                let topStamp = try #require(DriverStamp(try Self.surfaceBytes(dpy, surfaces[0])))
                #expect(topStamp.hash == top.1.value && topStamp.poc == 1 && topStamp.decodeIndex == 1)
                let bottom = try field(2, first: false, slices: [[0, 0, 1, 1, 0x30, 0, 0]], hash: top.1)
                try VATestDriverTests.check(bottom.0, "vaEndPicture")
                let bytes = try Self.surfaceBytes(dpy, surfaces[0])
                #expect(
                    DriverStamp(bytes)
                        == DriverStamp(
                            magic: "VATB", poc: 1, decodeIndex: 2, hash: bottom.1.value, sliceCount: 3,
                            profile: VAProfileMPEG2Main.rawValue))
                #expect(Self.hashedBytes(bytes) == 15)
                // A frame picture after the pair starts afresh; its POC is its own decode index.
                let frame = try field(3, first: true, slices: [[0, 0, 1, 1, 0x40]], hash: FNV1a64())
                try VATestDriverTests.check(frame.0, "vaEndPicture")
                let frameStamp = try #require(DriverStamp(try Self.surfaceBytes(dpy, surfaces[0])))
                #expect(frameStamp.hash == frame.1.value && frameStamp.poc == 3 && frameStamp.sliceCount == 1)
            }
        }

        /// Each codec takes the buffer types FFmpeg's hwaccel renders for it and refuses the others
        /// with VA_STATUS_ERROR_UNSUPPORTED_BUFFERTYPE, changing nothing; objects are all released.
        @Test func buffersTheCodecDoesNotUseAreRefused() throws {
            let before = try TestVADriver.liveObjects()
            let display = try TestVADriver.Display()
            let dpy = display.display
            let cases: [(VAProfile, VABufferType, Bool)] = [
                (VAProfileVP8Version0_3, VAProbabilityBufferType, true),
                (VAProfileVP8Version0_3, VAIQMatrixBufferType, true),
                (VAProfileVP9Profile0, VAProbabilityBufferType, false),
                (VAProfileVP9Profile0, VAIQMatrixBufferType, false),
                (VAProfileAV1Profile0, VAIQMatrixBufferType, false),
                (VAProfileMPEG2Main, VAIQMatrixBufferType, true),
                (VAProfileMPEG2Main, VAProbabilityBufferType, false),
                (VAProfileH264Main, VAEncSequenceParameterBufferType, false),
            ]
            for (profile, type, accepted) in cases {
                try Self.withContext(dpy, profile, surfaces: 1) { context, surfaces in
                    var buffers = [try VATestDriverTests.buffer(dpy, context, type, [UInt8](repeating: 0, count: 64))]
                    defer { for id in buffers { vaDestroyBuffer(dpy, id) } }
                    try VATestDriverTests.check(vaBeginPicture(dpy, context, surfaces[0]), "vaBeginPicture")
                    let status = vaRenderPicture(dpy, context, &buffers, 1)
                    #expect(
                        status == (accepted ? VA_STATUS_SUCCESS : VA_STATUS_ERROR_UNSUPPORTED_BUFFERTYPE),
                        "\(profile) \(type)")
                    // No slices: the picture is stamped with the empty hash.
                    try VATestDriverTests.check(vaEndPicture(dpy, context), "vaEndPicture")
                    let stamp = try #require(DriverStamp(try Self.surfaceBytes(dpy, surfaces[0])))
                    #expect(stamp.hash == FNV1a64().value && stamp.sliceCount == 0)
                }
            }
            display.terminate()
            #expect(try TestVADriver.liveObjects().buffers == before.buffers)
            #expect(try TestVADriver.liveObjects().surfaces == before.surfaces)
        }

        // MARK: - Streams

        /// A stream the hwaccel decodes through the driver.
        struct CodecStream: Sendable, CustomTestStringConvertible {
            enum Codec: Sendable { case mpeg2, vp8, vp9, av1 }
            enum Source: Sendable {
                /// A file under `TestData.conformance`.
                case conformance(String)
                /// MPEG-2 made at test time from `testsrc2`, interlaced (`+ilme+ildct`) or not.
                case mpeg2(interlaced: Bool)
                /// An IVF file made at test time by `ffmpeg -f lavfi -i INPUT ARGUMENTS`.
                case encoded(input: String, arguments: [String])
            }

            let name: String
            let codec: Codec
            let source: Source
            /// The VA profile FFmpeg should pick.
            let profile: Int32
            /// Decode only this many frames (a long stream).
            var frames: Int? = nil
            /// FFmpeg makes a new VA context when the size changes, which restarts the decode index.
            var changesResolution = false
            /// 10-bit: P010 surfaces.
            var tenBit = false
            /// AV1 with film grain: the output is `current_display_picture`, not the render target.
            var filmGrain = false

            var testDescription: String { name }

            /// FFmpeg 5.1 decodes AV1 with libdav1d unless told otherwise, and libdav1d has no hwaccel.
            var decoderArguments: [String] { codec == .av1 ? ["-c:v", "av1"] : [] }

            /// The VATB_UNSUPPORTED_PROFILES name of `profile`.
            var profileName: String {
                switch codec {
                case .mpeg2: return "MPEG2Main"
                case .vp8: return "VP8Version0_3"
                case .vp9: return "VP9Profile0"
                case .av1: return "AV1Profile0"
                }
            }

            /// The stream's file, made in `directory` if it is generated.
            func file(in directory: URL) throws -> URL {
                switch source {
                case .conformance(let path):
                    let root = try #require(TestData.conformance, "no conformance folder")
                    return root.appendingPathComponent(path)
                case .mpeg2(let interlaced):
                    let url = directory.appendingPathComponent("\(name).m2v")
                    let result = try CommandRunner.ffmpeg(
                        [
                            "-f", "lavfi", "-i", "testsrc2=size=176x144:rate=25", "-frames:v", "20", "-c:v",
                            "mpeg2video",
                            "-g", "8", "-bf", "2",
                        ] + (interlaced ? ["-flags", "+ilme+ildct", "-top", "1"] : []) + [
                            "-y", url.path,
                        ])
                    try #require(result.status == 0, "ffmpeg could not make \(name): \(result.standardError)")
                    return url
                case .encoded(let input, let arguments):
                    let url = directory.appendingPathComponent("\(name).ivf")
                    let result = try CommandRunner.ffmpeg(
                        ["-f", "lavfi", "-i", input, "-frames:v", "8"] + arguments + ["-f", "ivf", "-y", url.path])
                    try #require(result.status == 0, "ffmpeg could not make \(name): \(result.standardError)")
                    return url
                }
            }
        }

        static let streams: [CodecStream] = [
            CodecStream(
                name: "vp8 test-25fps", codec: .vp8, source: .conformance("cros-codecs-vp8/test-25fps.vp8"),
                profile: VAProfileVP8Version0_3.rawValue),
            CodecStream(
                name: "vp9 test-25fps", codec: .vp9, source: .conformance("cros-codecs-vp9/test-25fps.vp9"),
                profile: VAProfileVP9Profile0.rawValue),
            CodecStream(
                name: "vp9 show-existing-frame", codec: .vp9,
                source: .conformance("cros-codecs-vp9/vp90-2-10-show-existing-frame.vp9.ivf"),
                profile: VAProfileVP9Profile0.rawValue),
            CodecStream(
                name: "vp9 resolution change", codec: .vp9,
                source: .conformance("cros-codecs-vp9/resolution_change_500frames-vp9.ivf"),
                profile: VAProfileVP9Profile0.rawValue, frames: 170, changesResolution: true),
            CodecStream(
                name: "av1 test-25fps", codec: .av1, source: .conformance("cros-codecs-av1/test-25fps.ivf.av1"),
                profile: VAProfileAV1Profile0.rawValue),
            CodecStream(
                name: "vp9 profile 2", codec: .vp9,
                source: .encoded(
                    input: "testsrc2=size=96x64:rate=25",
                    arguments: [
                        "-pix_fmt", "yuv420p10le", "-c:v", "libvpx-vp9", "-profile:v", "2", "-deadline", "realtime",
                        "-cpu-used", "8",
                    ]),
                profile: VAProfileVP9Profile2.rawValue, tenBit: true),
            CodecStream(
                name: "av1 10-bit", codec: .av1,
                source: .encoded(
                    input: "testsrc2=size=96x64:rate=25",
                    arguments: [
                        "-pix_fmt", "yuv420p10le", "-c:v", "libaom-av1", "-cpu-used", "8", "-usage", "realtime",
                    ]),
                profile: VAProfileAV1Profile0.rawValue, tenBit: true),
            CodecStream(
                name: "av1 film grain", codec: .av1,
                source: .encoded(
                    input: "color=gray:size=128x128:rate=25,noise=alls=30:allf=t",
                    arguments: [
                        "-c:v", "libaom-av1", "-cpu-used", "8", "-usage", "realtime", "-denoise-noise-level", "50",
                    ]),
                profile: VAProfileAV1Profile0.rawValue, filmGrain: true),
            CodecStream(
                name: "mpeg2 progressive", codec: .mpeg2, source: .mpeg2(interlaced: false),
                profile: VAProfileMPEG2Main.rawValue),
            CodecStream(
                name: "mpeg2 interlaced", codec: .mpeg2, source: .mpeg2(interlaced: true),
                profile: VAProfileMPEG2Main.rawValue),
        ]

        /// The ffmpeg CLI and the built test driver are there (the conformance streams are a
        /// trait of their own, so that their absence is reported as such).
        static var canRun: Bool { CommandRunner.hasFFmpeg && TestVADriver.isBuilt }

        /// What a hardware decode left: exit status, one stamp row per output frame, the log (the
        /// driver's live-object report taken out of it), and that report.
        struct HardwareRun {
            var status: Int32
            var rows: [[UInt8]]
            var log: String
            var live: [String: Int]
        }

        /// Output frames are cropped to their first two rows of 64 bytes (NV12: 64×2 luma + 64×1
        /// chroma; P010: 32 samples of 2 bytes), which hold the stamp: the output stays small
        /// whatever the picture size.
        static let rowBytes = 64
        static let frameBytes = 192

        static func hardwareDecode(
            _ stream: CodecStream, _ url: URL, environment: [String: String] = [:], threads: Int? = nil
        ) throws -> HardwareRun {
            let arguments =
                [
                    "-hide_banner", "-nostdin", "-loglevel", "error", "-init_hw_device", "vaapi=va:/dev/null",
                    "-hwaccel", "vaapi", "-hwaccel_device", "va", "-hwaccel_output_format", "vaapi",
                ] + (threads.map { ["-threads", "\($0)"] } ?? []) + stream.decoderArguments + ["-i", url.path]
                + (stream.frames.map { ["-frames:v", "\($0)"] } ?? []) + [
                    "-fps_mode", "passthrough", "-autoscale", "0", "-vf",
                    "hwdownload,format=\(stream.tenBit ? "p010le" : "nv12"),crop=\(rowBytes / (stream.tenBit ? 2 : 1)):2:0:0",
                    "-f", "rawvideo", "-",
                ]
            var variables = environment
            variables["VATB_LIVE_REPORT"] = "1"
            let result = try CommandRunner.run(
                URL(fileURLWithPath: "/usr/bin/ffmpeg"), arguments,
                environment: TestVADriver.subprocessEnvironment(variables))
            let output = [UInt8](result.standardOutput)
            let rows = stride(from: 0, to: output.count - frameBytes + 1, by: frameBytes).map {
                Array(output[$0..<$0 + rowBytes])
            }
            var live: [String: Int] = [:]
            var log: [String] = []
            for line in result.errorLines {
                guard line.hasPrefix("vatb: live ") else {
                    log.append(line)
                    continue
                }
                for field in line.dropFirst("vatb: live ".count).split(separator: " ") {
                    let parts = field.split(separator: "=")
                    if parts.count == 2, let value = Int(parts[1]) { live[String(parts[0])] = value }
                }
            }
            #expect(output.count % frameBytes == 0)
            return HardwareRun(status: result.status, rows: rows, log: log.joined(separator: "\n"), live: live)
        }

        /// The number of frames the CPU decode (libavcodec's default decoder) outputs.
        static func softwareFrameCount(_ stream: CodecStream, _ url: URL) throws -> Int {
            let result = try CommandRunner.ffmpeg(
                ["-i", url.path] + (stream.frames.map { ["-frames:v", "\($0)"] } ?? []) + [
                    "-fps_mode", "passthrough", "-f", "framecrc", "-",
                ])
            try #require(result.status == 0, "software decode failed: \(result.standardError)")
            return result.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        }

        /// Every VA object the client made was destroyed (the counts after vaTerminate).
        static func expectEverythingReleased(_ run: HardwareRun, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(!run.live.isEmpty, "no live-object report: \(run.log)", sourceLocation: sourceLocation)
            for key in ["drivers", "configs", "contexts", "surfaces", "buffers", "images"] {
                #expect(run.live[key] == 0, "\(key): \(run.live)", sourceLocation: sourceLocation)
            }
        }

        @Test(.enabled(if: canRun), .needsConformance, arguments: streams)
        func ffmpegHwaccelStampsEveryPictureFromItsOwnBytes(stream: CodecStream) throws {
            let directory = try CommandRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = try stream.file(in: directory)
            let run = try Self.hardwareDecode(stream, url)
            try #require(run.status == 0, "ffmpeg failed: \(run.log)")
            #expect(run.log.isEmpty, "\(run.log)")
            #expect(run.rows.count == (try Self.softwareFrameCount(stream, url)))
            Self.expectEverythingReleased(run)

            let stamps = try run.rows.map { try #require(DriverStamp($0), "no stamp") }
            #expect(stamps.allSatisfy { $0.magic == "VATB" && $0.version == 1 && $0.profile == stream.profile })
            let pictures = try StreamPictures.pictures(of: stream.codec, in: try TestData.bytes(url))
            try #require(!pictures.isEmpty)
            if stream.filmGrain {
                // The stream does carry film grain, so what came out was current_display_picture.
                let probe = try CommandRunner.ffprobe(
                    [
                        "-export_side_data", "film_grain", "-show_entries", "frame_side_data=side_data_type", "-of",
                        "csv",
                        url.path,
                    ])
                #expect(probe.text.contains("Film grain parameters"), "\(probe.text)")
            }
            if stream.frames == nil {
                // Every picture in the stream reached the driver, and no other.
                #expect(run.live["end_pictures"] == pictures.count)
            }

            if stream.changesResolution {
                // A new VA context per size: the decode index restarts, so only the bytes are checked.
                let hashes = Set(pictures.map(\.hash))
                #expect(stamps.allSatisfy { hashes.contains($0.hash) })
                #expect(Set(stamps.map(\.decodeIndex)).count < stamps.count)  // it did restart
                return
            }
            // Each stamp is the picture of its decode index, hashed as Docs/TestVADriver.md says.
            for (row, stamp) in zip(run.rows, stamps) {
                let index = Int(stamp.decodeIndex) - 1
                try #require(pictures.indices.contains(index), "decode index \(stamp.decodeIndex)")
                let picture = pictures[index]
                let hashed = Self.hashedBytes(row)
                if let tileData = picture.tileData {
                    // AV1: the picture's one tile is the end of its OBU, after a frame header the test
                    // does not parse; the stamp says how many bytes that is.
                    #expect(stamp.sliceCount == 1)
                    #expect((0...256).contains(tileData.count - hashed), "header of \(tileData.count - hashed) bytes")
                    var hash = FNV1a64()
                    hash.combine(tileData.suffix(hashed))
                    #expect(stamp.hash == hash.value, "AV1 picture \(stamp.decodeIndex)")
                } else {
                    #expect(stamp.hash == picture.hash, "picture \(stamp.decodeIndex)")
                    #expect(stamp.sliceCount == picture.slices && hashed == picture.bytes)
                }
                if stream.codec != .av1 { #expect(stamp.poc == Int32(stamp.decodeIndex)) }
            }
            // Every shown picture came out (show-existing frames repeat one; hidden ones never show).
            let output = Set(stamps.map(\.decodeIndex))
            let shown = pictures.indices.filter { pictures[$0].shown }.map { UInt32($0 + 1) }
            #expect(Set(shown).isSubset(of: output))
            if stream.codec == .vp8 || stream.codec == .mpeg2 {
                // No show-existing frames: nothing hidden comes out.
                #expect(output.isSubset(of: Set(shown)))
            }
        }

        // MARK: - Faults

        /// One stream per codec and source (the generated VP9/AV1 ones add nothing to the faults).
        static let faultStreams = streams.filter {
            ["vp8 test-25fps", "vp9 test-25fps", "vp9 show-existing-frame", "av1 test-25fps", "mpeg2 progressive"]
                .contains($0.name)
        }

        /// When the hwaccel cannot be set up, libavcodec falls back to software frames, which
        /// hwdownload refuses: ffmpeg fails without output, as for H.264.
        @Test(.enabled(if: canRun), .needsConformance, arguments: faultStreams)
        func ffmpegFailsWhenTheHwaccelCannotBeSetUp(stream: CodecStream) throws {
            let directory = try CommandRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = try stream.file(in: directory)
            let faults = [
                ["VATB_FAIL_CREATE_CONTEXT": "1"], ["VATB_FAIL_CREATE_CONFIG": "1"], ["VATB_MAX_SIZE": "64x64"],
                ["VATB_UNSUPPORTED_PROFILES": stream.profileName],
            ]
            for fault in faults {
                let run = try Self.hardwareDecode(stream, url, environment: fault)
                #expect(run.status != 0, "\(fault)")
                #expect(run.rows.isEmpty, "\(fault)")
                #expect(
                    run.log.contains("Failed setup for format vaapi: hwaccel initialisation returned error"),
                    "\(fault): \(run.log)")
                // ffmpeg exits on this error without freeing its VA device, so vaTerminate (and the
                // driver's report) never comes; if it does, nothing may be left.
                if !run.live.isEmpty { Self.expectEverythingReleased(run) }
            }
        }

        /// vaEndPicture failing for the 3rd and 4th pictures: ffmpeg logs it twice, goes on, exits 0
        /// with at most as many frames as the software decode, and releases everything;
        /// vaSyncSurface failing stops hwdownload, as for H.264.
        @Test(.enabled(if: canRun), .needsConformance, arguments: faultStreams)
        func ffmpegAfterFailedEndPicturesAndSyncs(stream: CodecStream) throws {
            let directory = try CommandRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = try stream.file(in: directory)
            let software = try Self.softwareFrameCount(stream, url)

            let run = try Self.hardwareDecode(stream, url, environment: ["VATB_FAIL_END_PICTURE": "3:2"], threads: 1)
            #expect(run.status == 0, "\(run.log)")
            #expect(run.log.components(separatedBy: "Failed to end picture decode issue: 23").count - 1 == 2)
            // Fewer frames, or as many where show-existing frames show older pictures instead (VP9).
            #expect(run.rows.count <= software && run.rows.count >= software - 3, "\(run.rows.count) of \(software)")
            #expect(run.live["failed_end_pictures"] == 2)
            Self.expectEverythingReleased(run)

            let sync = try Self.hardwareDecode(stream, url, environment: ["VATB_FAIL_SYNC": "5"])
            #expect(sync.status != 0)
            #expect(sync.log.contains("Failed to download frame"), "\(sync.log)")
            #expect(sync.rows.count < software)
        }
    }
}

/// What the driver should see of each picture of a stream, in decode order, computed from the
/// file's bytes as Docs/TestVADriver.md describes: no codec header is parsed beyond a flag or two.
enum StreamPictures {
    struct Picture {
        /// FNV-1a 64 of the hashed bytes (unused for AV1, whose bytes depend on `tileData`).
        var hash: UInt64
        var slices: UInt32
        /// How many bytes were hashed.
        var bytes: Int
        /// Whether the picture is shown (not a hidden VP8/VP9/AV1 frame).
        var shown: Bool
        /// AV1: the tile group OBU's payload without trailing zeros; its last `bytes` are the tile.
        var tileData: [UInt8]? = nil
    }

    static func pictures(of codec: VATestDriverTests.CodecTests.CodecStream.Codec, in bytes: [UInt8]) throws
        -> [Picture]
    {
        switch codec {
        case .mpeg2: return mpeg2(bytes)
        case .vp8: return ivfFrames(bytes).map(vp8)
        case .vp9: return ivfFrames(bytes).flatMap(vp9Frames).compactMap(vp9)
        case .av1: return ivfFrames(bytes).flatMap(av1)
        }
    }

    /// A picture of one slice: `bytes` without trailing zeros.
    static func single(_ bytes: ArraySlice<UInt8>, shown: Bool) -> Picture {
        var hash = FNV1a64()
        hash.combineSlice(bytes)
        var end = bytes.endIndex
        while end > bytes.startIndex && bytes[end - 1] == 0 { end -= 1 }
        return Picture(hash: hash.value, slices: 1, bytes: end - bytes.startIndex, shown: shown)
    }

    /// The frames of an IVF file: a 32-byte header (its size at byte 6), then per frame a u32 size,
    /// a u64 timestamp and the data.
    static func ivfFrames(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        guard bytes.count >= 32, bytes.starts(with: Array("DKIF".utf8)) else { return [] }
        var frames: [ArraySlice<UInt8>] = []
        var offset = Int(bytes[6]) | Int(bytes[7]) << 8
        while offset + 12 <= bytes.count {
            let size = (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
            let start = offset + 12
            guard start + size <= bytes.count else { break }
            frames.append(bytes[start..<start + size])
            offset = start + size
        }
        return frames
    }

    /// VP8 (libavcodec/vaapi_vp8.c, vaapi_vp8_decode_slice): the frame without its 3-byte frame
    /// tag, and without the 7 more bytes (start code, sizes) of a key frame. Frame tag bit 0 is 0 on
    /// key frames, bit 4 is show_frame.
    static func vp8(_ frame: ArraySlice<UInt8>) -> Picture {
        let tag = frame.first ?? 0
        let header = tag & 1 == 0 ? 10 : 3
        return single(frame.dropFirst(header), shown: tag & 0x10 != 0)
    }

    /// The frames of a VP9 superframe (its index: the last byte 0b110mmfff, repeated before the
    /// 1 + mm-byte sizes of fff + 1 frames), as libavcodec's vp9_superframe_split does.
    static func vp9Frames(_ packet: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        guard let marker = packet.last, marker & 0xe0 == 0xc0 else { return [packet] }
        let count = Int(marker & 7) + 1
        let magnitude = Int((marker >> 3) & 3) + 1
        let indexSize = 2 + magnitude * count
        guard packet.count >= indexSize, packet[packet.endIndex - indexSize] == marker else { return [packet] }
        var frames: [ArraySlice<UInt8>] = []
        var start = packet.startIndex
        var at = packet.endIndex - indexSize + 1
        for _ in 0..<count {
            let size = (0..<magnitude).reduce(0) { $0 | Int(packet[at + $1]) << (8 * $1) }
            at += magnitude
            guard start + size <= packet.endIndex - indexSize else { break }
            if size > 0 { frames.append(packet[start..<start + size]) }
            start += size
        }
        return frames
    }

    /// VP9 (libavcodec/vp9.c, vp9_decode_frame; vaapi_vp9.c, vaapi_vp9_decode_slice): the whole
    /// frame. A show_existing_frame header is not decoded (nil). The first byte: frame_marker (2
    /// bits), profile_low_bit, profile_high_bit, a reserved bit in profile 3, show_existing_frame,
    /// frame_type, show_frame.
    static func vp9(_ frame: ArraySlice<UInt8>) -> Picture? {
        guard let first = frame.first else { return nil }
        func bit(_ index: Int) -> Bool { (first >> (7 - index)) & 1 == 1 }
        let profile = (bit(2) ? 1 : 0) | (bit(3) ? 2 : 0)
        let at = profile == 3 ? 5 : 4
        if bit(at) { return nil }
        return single(frame, shown: bit(at + 2))
    }

    /// AV1 (libavcodec/av1dec.c, av1_decode_frame; vaapi_av1.c, vaapi_av1_decode_slice): per
    /// OBU_FRAME (6) or OBU_TILE_GROUP (4), its tiles. Only the payload is kept here; the test takes
    /// its last bytes, as many as the stamp says were hashed. An OBU header: forbidden bit, obu_type
    /// (4 bits), extension flag, has_size_field, reserved; then an extension byte, then a LEB128 size.
    /// show_frame is bit 4 of the frame header's first byte (after show_existing_frame and
    /// frame_type), which is where OBU_FRAME's payload starts.
    static func av1(_ temporalUnit: ArraySlice<UInt8>) -> [Picture] {
        var pictures: [Picture] = []
        var at = temporalUnit.startIndex
        var shownByHeader = true
        while at < temporalUnit.endIndex {
            let header = temporalUnit[at]
            let type = (header >> 3) & 0xf
            at += 1 + (header & 4 != 0 ? 1 : 0)
            var size = temporalUnit.endIndex - at
            if header & 2 != 0 {
                size = 0
                var shift = 0
                while at < temporalUnit.endIndex {
                    let byte = temporalUnit[at]
                    at += 1
                    size |= Int(byte & 0x7f) << shift
                    shift += 7
                    if byte & 0x80 == 0 { break }
                }
            }
            let end = min(at + size, temporalUnit.endIndex)
            let payload = temporalUnit[at..<end]
            let first = payload.first ?? 0
            switch type {
            case 3: shownByHeader = first & 0x80 == 0 && first & 0x10 != 0
            case 4, 6:
                var data = Array(payload)
                while data.last == 0 { data.removeLast() }
                let shown = type == 6 ? first & 0x10 != 0 : shownByHeader
                pictures.append(Picture(hash: 0, slices: 1, bytes: data.count, shown: shown, tileData: data))
            default: break
            }
            at = end
        }
        return pictures
    }

    /// MPEG-2 (libavcodec/mpeg12dec.c, mpeg_decode_slice; vaapi_mpeg2.c, vaapi_mpeg2_decode_slice):
    /// per picture (from a picture start code 00 00 01 00), each slice from its start code
    /// (00 00 01 01…AF) to the next start code, without trailing zeros, in stream order.
    static func mpeg2(_ bytes: [UInt8]) -> [Picture] {
        var codes: [(offset: Int, value: UInt8)] = []
        var index = 0
        while index + 3 < bytes.count {
            if bytes[index] == 0 && bytes[index + 1] == 0 && bytes[index + 2] == 1 {
                codes.append((index, bytes[index + 3]))
                index += 4
            } else {
                index += 1
            }
        }
        var pictures: [Picture] = []
        var current: Picture?
        var hash = FNV1a64()
        func close() {
            if var picture = current {
                picture.hash = hash.value
                pictures.append(picture)
            }
            current = nil
        }
        for (position, code) in codes.enumerated() {
            let end = position + 1 < codes.count ? codes[position + 1].offset : bytes.count
            switch code.value {
            case 0x00:
                close()
                current = Picture(hash: 0, slices: 0, bytes: 0, shown: true)
                hash = FNV1a64()
            case 0x01...0xaf where current != nil:
                let slice = single(bytes[code.offset..<end], shown: true)
                hash.combineSlice(bytes[code.offset..<end])
                current?.slices += 1
                current?.bytes += slice.bytes
            case 0xb3, 0xb7, 0xb8: close()
            default: break
            }
        }
        close()
        return pictures
    }
}
