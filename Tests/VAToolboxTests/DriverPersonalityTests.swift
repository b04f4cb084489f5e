import Foundation
import Synchronization
import Testing

@testable import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// The GPU path under each of the test driver's personalities (`VATB_PERSONALITY`: iHD, i965,
/// Mesa, nvidia), which reproduce the real drivers' documented differences: vendor strings, image
/// calls, export layouts and modifiers, render-target limits, decode error reporting.
///
/// Nested in ``VATestDriverTests`` for its serialisation (the driver's variables are process-wide).
extension VATestDriverTests {
    @Suite struct DriverPersonalities {
        typealias Sessions = HardwareSessions

        /// A device opened under `personality` (and `extra` variables), released by the caller.
        static func device(_ personality: String?, _ extra: [String: String] = [:]) throws -> VADevice {
            var variables: [String: String?] = [
                "LIBVA_DRIVERS_PATH": TestVADriver.buildDirectory.path, "LIBVA_DRIVER_NAME": TestVADriver.driverName,
                "VATB_PERSONALITY": personality, "NVD_BACKEND": extra["NVD_BACKEND"],
            ]
            for (key, value) in extra { variables[key] = value }
            return try TestVADriver.withEnvironment(variables) { try VADevice.open(path: Sessions.node) }
        }

        /// The variables for a session under `personality`.
        static func faults(_ personality: String?, _ extra: [String: String] = [:]) -> [String: String] {
            var faults = extra
            faults["VATB_PERSONALITY"] = personality
            return faults
        }

        // MARK: - Vendor strings and quirks

        @Test(arguments: TestVADriver.personalities)
        func eachPersonalityNamesItsDriverAsTheRealOneDoes(personality: String?) throws {
            let device = try Self.device(personality)
            let expected: (prefix: String, driver: DriverQuirks.Driver) =
                switch personality {
                case "ihd": ("Intel iHD driver for Intel(R) Gen Graphics - ", .intelIHD)
                case "i965": ("Intel i965 driver for Intel(R) ", .intelI965)
                case "mesa": ("Mesa Gallium driver ", .mesa)
                case "nvidia": ("VA-API NVDEC driver [direct backend]", .nvidia)
                default: (TestVADriver.vendor, .other)
                }
            #expect(device.vendor.hasPrefix(expected.prefix), "\(device.vendor)")
            #expect(device.quirks.driver == expected.driver)
            #expect(device.quirks.readBack == (personality == "ihd" ? .deriveImage : .getImage))
            #expect(device.quirks.reportsDecodeErrorsAtSync == (personality == nil || personality == "ihd"))
            #expect(device.quirks.renderTargetLimit == (personality == "nvidia" ? 32 : nil))
            #expect(device.quirks.exportsComposedLayers == (personality != "nvidia"))
            #expect(device.quirks.exportsInterlacedSurfaces == (personality != "mesa"))
        }

        /// nvidia-vaapi-driver needs `NVD_BACKEND=direct` on current NVIDIA drivers: set when the
        /// caller set nothing, left alone when the caller chose.
        @Test func nvidiaGetsTheDirectBackendUnlessTheCallerChose() throws {
            try TestVADriver.withEnvironment(["NVD_BACKEND": nil]) {
                let device = try Self.device("nvidia")
                #expect(device.vendor.contains("[direct backend]"), "\(device.vendor)")
            }
            let egl = try Self.device("nvidia", ["NVD_BACKEND": "egl"])
            #expect(egl.vendor.contains("[egl backend]"), "\(egl.vendor)")
        }

        @Test func intelsXeKernelDriverLoadsIHDWithAHintNamingLibva221() {
            #expect(DriverLoading.driverName(kernelDriver: "xe", libvaDriverName: nil) == "iHD")
            #expect(DriverLoading.driverName(kernelDriver: "xe", libvaDriverName: "") == "iHD")
            #expect(DriverLoading.driverName(kernelDriver: "xe", libvaDriverName: "i965") == nil)
            #expect(DriverLoading.driverName(kernelDriver: "i915", libvaDriverName: nil) == nil)
            #expect(DriverLoading.installHint(kernelDriver: "xe").contains("libva 2.21"))
            #expect(!DriverLoading.installHint(kernelDriver: "i915").contains("2.21"))
            #expect(DriverLoading.isNVIDIA(kernelDriver: "nvidia-drm", libvaDriverName: nil))
            #expect(DriverLoading.isNVIDIA(kernelDriver: nil, libvaDriverName: "nvidia"))
            #expect(!DriverLoading.isNVIDIA(kernelDriver: "nvidia-drm", libvaDriverName: "iHD"))
        }

        // MARK: - Decoding under every personality

        /// Every fixture, under every personality: the same frames in the same order as on the
        /// CPU, no status, each picture's stamp its own sample's, read back by the driver's path.
        @Test(arguments: VATestDriverTests.hardwareFixtures, TestVADriver.personalities)
        func everyFixtureDecodesUnderEveryPersonality(fixture: HardwareFixture, personality: String?) throws {
            let before = try Sessions.liveObjects()
            let samples = try TestData.samples(fixture.name, frameDuration: Sessions.frameDuration)
            do {
                let outputs = Outputs()
                let session = try Sessions.session(
                    samples[0].formatDescription, faults: Self.faults(personality),
                    attributes: ImageBufferAttributes(minimumBufferCount: 4), outputs: outputs)
                #expect(session.usingHardwareAcceleratedVideoDecoder)
                try decode(samples, with: session)
                let results = outputs.all
                #expect(results.count == samples.count)
                #expect(
                    results.allSatisfy { $0.status == nil },
                    "\(results.compactMap(\.status).first.map { "\($0)" } ?? "")")
                for output in results {
                    guard let refcon = output.frameRefcon as? Int, let image = output.imageBuffer else {
                        Issue.record("an output without refcon or image: \(output)")
                        continue
                    }
                    #expect(Sessions.stamp(image)?.hash == Sessions.sliceHash(samples[refcon]), "refcon \(refcon)")
                }
            }
            #expect(try Sessions.liveObjects() == before)
        }

        /// Locking reads back the driver's way: on iHD through `vaDeriveImage` (no image remains
        /// after unlocking), elsewhere through `vaGetImage` into one image reused for every lock
        /// (one image stays alive, cached, however many pictures are locked).
        @Test(arguments: TestVADriver.personalities)
        func lockingReadsBackTheDriversWayAndReusesImages(personality: String?) throws {
            let samples = try TestData.samples(
                try Sessions.fixture("h264-main-cabac.264").name, frameDuration: Sessions.frameDuration)
            let before = try TestVADriver.liveObjects().images
            let outputs = Outputs()
            let session = try Sessions.session(
                samples[0].formatDescription, faults: Self.faults(personality),
                attributes: ImageBufferAttributes(minimumBufferCount: samples.count), outputs: outputs)
            try decode(samples, with: session)
            let results = outputs.all
            #expect(results.count == samples.count)
            var locked = 0
            for output in results {
                guard let refcon = output.frameRefcon as? Int, let image = output.imageBuffer else { continue }
                // nvidia's 32-surface limit leaves fewer spares than asked: later pictures are
                // CPU copies (read back when handed out).
                #expect(image.isGPUSurface || personality == "nvidia")
                #expect(Sessions.stamp(image)?.hash == Sessions.sliceHash(samples[refcon]), "refcon \(refcon)")
                locked += 1
            }
            #expect(locked == samples.count)
            #expect(try TestVADriver.liveObjects().images - before == (personality == "ihd" ? 0 : 1))
        }

        /// Export under each personality: separate layers by default, with the driver's chroma
        /// format and modifier, compression planes on iHD, the visible rectangle; a composed layer
        /// where the driver has one.
        @Test(arguments: TestVADriver.personalities)
        func dmaBufExportFollowsTheDriver(personality: String?) throws {
            let samples = try TestData.samples(
                try Sessions.fixture("h264-cropped-642x362.264").name, frameDuration: Sessions.frameDuration)
            let outputs = Outputs()
            let session = try Sessions.session(
                samples[0].formatDescription, faults: Self.faults(personality), outputs: outputs)
            try decode(samples, with: session)
            let output = try #require(outputs.all.first)
            let image = try #require(output.imageBuffer)
            let refcon = try #require(output.frameRefcon as? Int)
            let buffer = try image.exportDMABuf()
            #expect(buffer.visibleRectangle == .init(x: 0, y: 0, width: 642, height: 362))
            #expect(buffer.width >= 642 && buffer.height >= 362)
            let names = buffer.layers.map { DMABufDescriptor.name(ofFourCC: $0.drmFormat) }
            #expect(names == ["R8", personality == "nvidia" ? "RG88" : "GR88"])
            let modifier = buffer.modifier(of: try #require(buffer.layers.first))
            let vendorByte = modifier >> 56
            switch personality {
            case "ihd":
                #expect(modifier == 0x0100_0000_0000_0007)  // I915_FORMAT_MOD_Y_TILED_GEN12_MC_CCS
                #expect(buffer.layers.allSatisfy { $0.planes.count == 2 })  // plane + CCS plane
            case "i965":
                #expect(modifier == 0x0100_0000_0000_0002)  // I915_FORMAT_MOD_Y_TILED
            case "nvidia":
                #expect(vendorByte == 0x03)  // DRM_FORMAT_MOD_VENDOR_NVIDIA
            default:
                #expect(modifier == 0)
            }
            if personality != "ihd" { #expect(buffer.layers.allSatisfy { $0.planes.count == 1 }) }
            // The luma plane's first bytes, read through the descriptor, are this picture's stamp.
            let luma = try #require(buffer.layers.first?.planes.first)
            var bytes = [UInt8](repeating: 0, count: DriverStamp.size)
            let read = bytes.withUnsafeMutableBytes {
                pread(buffer.objects[luma.objectIndex].fd, $0.baseAddress, $0.count, off_t(luma.offset))
            }
            #expect(read == DriverStamp.size)
            #expect(DriverStamp(bytes)?.hash == Sessions.sliceHash(samples[refcon]))
            if personality == "nvidia" {
                let error = #expect(throws: VTError.self) { _ = try image.exportDMABuf(separateLayers: false) }
                #expect(error == .pixelTransferNotSupported)
            } else {
                let composed = try image.exportDMABuf(separateLayers: false)
                #expect(composed.layers.count == 1)
                #expect(composed.layers.first?.planes.count == (personality == "ihd" ? 4 : 2))
            }
        }

        /// nvidia's EGL back end cannot export: a caller that forces it gets a typed error.
        @Test func nvidiasEGLBackendCannotExport() throws {
            let samples = try TestData.samples(
                try Sessions.fixture("h264-main-cabac.264").name, frameDuration: Sessions.frameDuration)
            let outputs = Outputs()
            let session = try Sessions.session(
                samples[0].formatDescription, faults: Self.faults("nvidia", ["NVD_BACKEND": "egl"]), outputs: outputs)
            try decode(samples, with: session)
            let image = try #require(outputs.all.first?.imageBuffer)
            let error = #expect(throws: VTError.self) { _ = try image.exportDMABuf() }
            #expect(error == .pixelTransferNotSupported)
        }

        /// Mesa refuses to derive or export a surface holding field pictures; a field-coded
        /// conformance stream still decodes and reads back (vaGetImage), and its export fails with
        /// a reason, not a crash.
        @Test(.needsConformance) func mesaRefusesToExportInterlacedSurfaces() throws {
            let root = try #require(TestData.conformance)
            let row = try #require(
                TestData.tsv(root.appendingPathComponent("vectors.tsv")).first { $0["name"] == "HCAFF1_HHI_B" })
            var options = ElementaryStreamParser.Options()
            options.frameDuration = Sessions.frameDuration
            let samples = ElementaryStreamParser.samples(
                in: try TestData.bytes(root.appendingPathComponent(try #require(row["file"]))), codec: .h264,
                options: options)
            let format = try #require(samples.first?.formatDescription)
            let results = Mutex<[(status: VTError?, exported: Result<Int, VTError>?, stamp: DriverStamp?)]>([])
            let session = try TestVADriver.withEnvironment([
                "LIBVA_DRIVERS_PATH": TestVADriver.buildDirectory.path, "LIBVA_DRIVER_NAME": TestVADriver.driverName,
                "VATB_PERSONALITY": "mesa",
            ]) {
                try DecompressionSession(
                    formatDescription: format,
                    decoderSpecification: DecoderSpecification(
                        hardwareAcceleration: .required, renderNodePath: Sessions.node)
                ) { output in
                    let exported = output.imageBuffer.map { image in
                        Result { () throws(VTError) in try image.exportDMABuf().layers.count }
                    }
                    let stamp = output.imageBuffer.flatMap(Sessions.stamp)
                    results.withLock { $0.append((output.status, exported, stamp)) }
                }
            }
            try decode(samples, with: session)
            let frames = results.withLock { $0 }
            #expect(frames.allSatisfy { $0.status == nil })
            let refused = frames.compactMap { frame -> VTError? in
                if case .failure(let error) = frame.exported { return error }
                return nil
            }
            #expect(!refused.isEmpty)
            #expect(refused.allSatisfy { $0 == .pixelTransferNotSupported && $0.reason.contains("interlaced") })
            #expect(frames.filter { $0.exported != nil }.allSatisfy { $0.stamp?.magic == "VATB" })
        }

        // MARK: - Decode errors

        /// Five pictures with macroblock errors: iHD reports each at `vaSyncSurface` and the
        /// session says -12909 (bad data) for exactly those frames, never -12911, and stays on
        /// the GPU although five is more than the three faults that move it; i965, Mesa and
        /// nvidia report nothing, as the real drivers do.
        @Test(arguments: TestVADriver.personalities)
        func macroblockErrorsAreBadDataWhereTheDriverReportsThem(personality: String?) throws {
            let samples = try TestData.samples(
                try Sessions.fixture("h264-main-cabac.264").name, frameDuration: Sessions.frameDuration)
            let outputs = Outputs()
            let session = try Sessions.session(
                samples[0].formatDescription, acceleration: .preferred,
                faults: Self.faults(personality, ["VATB_CORRUPT_PICTURE": "3:5"]), outputs: outputs)
            try decode(samples, with: session)
            #expect(session.usingHardwareAcceleratedVideoDecoder)
            let results = outputs.all
            #expect(results.compactMap { $0.frameRefcon as? Int }.sorted() == Array(samples.indices))
            #expect(!results.contains { $0.status == .videoDecoderMalfunction })
            let badData = results.filter { $0.status == .videoDecoderBadData }
            if personality == nil || personality == "ihd" {
                // The 3rd to 7th pictures in decode order: samples 2 to 6 (no B-frames here).
                #expect(badData.compactMap { $0.frameRefcon as? Int }.sorted() == [2, 3, 4, 5, 6])
                #expect(badData.allSatisfy { $0.imageBuffer == nil })
            } else {
                #expect(badData.isEmpty)
                #expect(results.allSatisfy { $0.status == nil })
            }
        }

        // MARK: - Surface pool

        /// nvidia decodes into at most 32 surfaces per decoder (the 33rd fails): an application
        /// asking for 40 held pictures and keeping every one gets a pool capped at 32, every
        /// frame clean, and the pictures beyond the spares as CPU copies.
        @Test func theSurfacePoolStaysWithinNvidiasLimit() throws {
            let samples = try TestData.samples(
                try Sessions.fixture("h264-high-bpyramid.264").name, frameDuration: Sessions.frameDuration)
            try #require(samples.count > 32)
            let outputs = Outputs()
            let session = try Sessions.session(
                samples[0].formatDescription, faults: Self.faults("nvidia"),
                attributes: ImageBufferAttributes(minimumBufferCount: 40), outputs: outputs)
            try decode(samples, with: session)
            let results = outputs.all
            #expect(results.count == samples.count)
            #expect(
                results.allSatisfy { $0.status == nil }, "\(results.compactMap(\.status).first.map { "\($0)" } ?? "")")
            let onGPU = results.filter { $0.imageBuffer?.isGPUSurface == true }.count
            #expect(onGPU < 32)
            #expect(results.count - onGPU > 0)
            for output in results {
                guard let refcon = output.frameRefcon as? Int, let image = output.imageBuffer else { continue }
                #expect(Sessions.stamp(image)?.hash == Sessions.sliceHash(samples[refcon]), "refcon \(refcon)")
            }
        }

        @Test func poolSizingCoversReorderingAndRespectsALimit() throws {
            // libavcodec's 17 (16 references + the current picture) + 16 reorder + 4 spares.
            let unlimited = try #require(
                SurfacePool(libavcodecSurfaces: 17, references: 4, reorderDepth: 16, spares: 4, limit: nil))
            #expect(unlimited.size == 37 && unlimited.spares == 4)
            // Capped: the stream needs 1 + 4 + 16 = 21, the limit leaves 11 spares.
            let capped = try #require(
                SurfacePool(libavcodecSurfaces: 17, references: 4, reorderDepth: 16, spares: 4, limit: 32))
            #expect(capped.size == 32 && capped.spares == 11)
            // Within the limit: as asked.
            let small = try #require(
                SurfacePool(libavcodecSurfaces: 17, references: 2, reorderDepth: 2, spares: 4, limit: 32))
            #expect(small.size == 23 && small.spares == 4)
            // More spares than the limit leaves: the limit wins.
            let many = try #require(
                SurfacePool(libavcodecSurfaces: 17, references: 2, reorderDepth: 2, spares: 40, limit: 32))
            #expect(many.size == 32 && many.spares == 13)
            // A stream that cannot fit at all.
            #expect(SurfacePool(libavcodecSurfaces: 17, references: 16, reorderDepth: 16, spares: 4, limit: 32) == nil)
        }

        // MARK: - Sessions and displays

        /// Eight sessions decoding at once under each personality, asynchronously (so that each
        /// has frames queued when a fault is noted), one of them `.preferred` on a GPU that fails
        /// every HEVC picture from its third: that session reports its own failures and leaves the
        /// GPU; the seven H.264 sessions, each on a display of its own, see none of it. (With one
        /// display shared, they flag their queued frames -17694 and may leave the GPU too.)
        @Test(arguments: TestVADriver.personalities)
        func eightParallelSessionsDoNotShareFaults(personality: String?) throws {
            let h264 = try TestData.samples(
                try Sessions.fixture("h264-high-bpyramid.264").name, frameDuration: Sessions.frameDuration)
            let hevc = try TestData.samples(
                try Sessions.fixture("hevc-main.265").name, frameDuration: Sessions.frameDuration)
            let faults = Self.faults(personality, ["VATB_FAIL_END_PICTURE": "3:0", "VATB_FAULT_PROFILES": "HEVCMain"])
            let streams = [hevc] + Array(repeating: h264, count: 7)
            let outputs = streams.map { _ in Outputs() }
            let sessions = try zip(streams, outputs).map { samples, outputs in
                try Sessions.session(
                    samples[0].formatDescription, acceleration: .preferred, faults: faults, outputs: outputs)
            }
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: sessions.count) { index in
                do {
                    for (refcon, sample) in streams[index].enumerated() {
                        try sessions[index].decodeFrame(
                            sample, flags: [.enableAsynchronousDecompression], frameRefcon: refcon)
                    }
                    try sessions[index].finishDelayedFrames()
                    try sessions[index].waitForAsynchronousFrames()
                } catch {
                    failures.withLock { $0.append("session \(index): \(error)") }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            let faulted = outputs[0].all
            #expect(faulted.count == hevc.count)
            #expect(faulted.contains { $0.status == .videoDecoderMalfunction })
            #expect(!sessions[0].usingHardwareAcceleratedVideoDecoder)
            for (index, output) in outputs.enumerated().dropFirst() {
                let results = output.all
                #expect(results.count == h264.count, "session \(index)")
                #expect(
                    results.allSatisfy { $0.status == nil },
                    "session \(index): \(results.compactMap(\.status).map { "\($0)" })")
                #expect(sessions[index].usingHardwareAcceleratedVideoDecoder, "session \(index)")
            }
            for session in sessions { session.invalidate() }
        }
    }
}
