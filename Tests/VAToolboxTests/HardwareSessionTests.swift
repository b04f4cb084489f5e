import Foundation
import Synchronization
import Testing

@testable import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// The VA-API path through the public session API, on the test VA driver (`/dev/null` as the
/// render node, through the DRM shim): device selection, decoding, surface-backed pixel buffers,
/// DMA-BUF export, fault injection and fallback, and cleanup.
///
/// Nested in ``VATestDriverTests`` so that it inherits its serialisation: the driver's fault
/// variables and counters are process-wide.
extension VATestDriverTests {
    @Suite struct HardwareSessions {
        /// The render node the test driver stands behind.
        static let node = "/dev/null"
        static let frameDuration = MediaTime(value: 1, timescale: 25)

        // MARK: - Helpers

        static func fixture(_ name: String) throws -> HardwareFixture {
            try #require(VATestDriverTests.hardwareFixtures.first { $0.name == name })
        }

        /// Creates a session with the test driver's libva variables (and `faults`, and the
        /// reference stream whose real pixels it decodes, when given) set while the VA display opens.
        static func session(
            _ format: VideoFormatDescription, acceleration: DecoderSpecification.HardwareAcceleration = .required,
            faults: [String: String] = [:], maximumFaults: Int = 3, attributes: ImageBufferAttributes? = nil,
            referenceStream: String? = nil, outputs: Outputs
        ) throws -> DecompressionSession {
            var variables: [String: String?] = [
                "LIBVA_DRIVERS_PATH": TestVADriver.buildDirectory.path, "LIBVA_DRIVER_NAME": TestVADriver.driverName,
                "VATB_REFERENCE_STREAM": referenceStream,
            ]
            for name in TestVADriver.faultVariables { variables[name] = faults[name] }
            let specification = DecoderSpecification(
                hardwareAcceleration: acceleration, renderNodePath: node, threadCount: 1,
                maximumConsecutiveHardwareFaults: maximumFaults)
            return try TestVADriver.withEnvironment(variables) {
                try DecompressionSession(
                    formatDescription: format, decoderSpecification: specification,
                    imageBufferAttributes: attributes, outputHandler: outputs.handler)
            }
        }

        /// A fixture decoded on the test driver under `personality` (nil: the driver's own
        /// behaviour), the GPU preferred, after `configure` had the session: its outputs, and
        /// whether the session decoded on the GPU.
        static func decodedOnTheDriver(
            _ fixture: String, personality: String?, configure: (DecompressionSession) throws -> Void = { _ in }
        ) throws -> (outputs: [DecompressionOutput], onTheGPU: Bool) {
            let samples = try TestData.samples(fixture)
            let outputs = Outputs()
            let session = try Self.session(
                samples[0].formatDescription, acceleration: .preferred,
                faults: personality.map { ["VATB_PERSONALITY": $0] } ?? [:], outputs: outputs)
            try configure(session)
            let onTheGPU = session.usingHardwareAcceleratedVideoDecoder
            try decode(samples, with: session)
            return (outputs.all, onTheGPU)
        }

        /// The software path's outputs for the same samples.
        static func softwareOutputs(
            _ samples: [SampleBuffer], attributes: ImageBufferAttributes? = nil
        ) throws -> [DecompressionOutput] {
            let outputs = Outputs()
            let session = try DecompressionSession(
                formatDescription: samples[0].formatDescription,
                decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 1),
                imageBufferAttributes: attributes, outputHandler: outputs.handler)
            try decode(samples, with: session)
            return outputs.all
        }

        /// The driver's identity of each sample: FNV-1a over its slice NAL units.
        static func sliceHash(_ sample: SampleBuffer) -> UInt64 {
            var hash = FNV1a64()
            for unit in sample.nalUnits where unit.isVCL { hash.combineSlice(unit.bytes) }
            return hash.value
        }

        /// The stamp at the start of a locked picture's luma plane.
        static func stamp(_ image: PixelBuffer) -> DriverStamp? {
            image.withLockedPlanes { planes in planes.first.flatMap { DriverStamp($0.row(0)) } }
        }

        /// The driver variables that select `personality` (none: the test driver's own behaviour).
        static func personality(_ personality: String?) -> [String: String] {
            personality.map { ["VATB_PERSONALITY": $0] } ?? [:]
        }

        /// The driver's live objects except the counters that only grow.
        static func liveObjects() throws -> [Int] {
            let live = try TestVADriver.liveObjects()
            return [live.configs, live.contexts, live.surfaces, live.buffers, live.images]
        }

        // MARK: - Decoding on the GPU

        @Test(arguments: VATestDriverTests.hardwareFixtures)
        func everyFixtureDecodesOnTheGPUInPresentationOrder(fixture: HardwareFixture) throws {
            try #require(TestVADriver.isBuilt)
            let before = try Self.liveObjects()
            let samples = try TestData.samples(fixture.name, frameDuration: Self.frameDuration)
            let software = try Self.softwareOutputs(samples)
            do {
                let outputs = Outputs()
                // The test keeps every picture: the pool gets a spare surface for each.
                let session = try Self.session(
                    samples[0].formatDescription, attributes: ImageBufferAttributes(minimumBufferCount: samples.count),
                    outputs: outputs)
                #expect(session.usingHardwareAcceleratedVideoDecoder)
                #expect(session.hardwareUnavailableReason == nil)
                #expect(session.renderNode?.path == Self.node)
                let fullRange = samples[0].formatDescription.extensions.fullRangeVideo
                let native: PixelFormat =
                    fixture.tenBit
                    ? (fullRange ? .p010FullRange : .p010VideoRange) : (fullRange ? .nv12FullRange : .nv12VideoRange)
                #expect(session.nativePixelFormat == native)
                try decode(samples, with: session)
                let results = outputs.all

                // The same frames, in the same (presentation) order, as on the CPU.
                #expect(results.count == samples.count)
                #expect(results.map(\.presentationTimeStamp) == software.map(\.presentationTimeStamp))
                #expect(
                    results.allSatisfy { $0.status == nil },
                    "\(results.compactMap(\.status).first.map { "\($0)" } ?? "")")
                for output in results {
                    guard let refcon = output.frameRefcon as? Int, let image = output.imageBuffer else {
                        Issue.record("an output without refcon or image: \(output)")
                        continue
                    }
                    #expect(output.presentationTimeStamp == samples[refcon].presentationTimeStamp)
                    #expect(image.isGPUSurface)
                    #expect(image.copiedByteCount == 0)
                    #expect(image.pixelFormat == native)
                    let expectedSize = software.first { $0.frameRefcon as? Int == refcon }?.imageBuffer
                    #expect(image.width == expectedSize?.width)
                    #expect(image.height == expectedSize?.height)
                    // Locked planes: NV12/P010 shapes, and the driver's stamp for this very sample.
                    let sampleBytes = fixture.tenBit ? 2 : 1
                    image.withLockedPlanes { planes in
                        #expect(planes.count == 2)
                        guard planes.count == 2 else { return }
                        #expect(planes[0].width == image.width && planes[0].height == image.height)
                        #expect(planes[0].bytesPerRowOfPixels == image.width * sampleBytes)
                        #expect(planes[1].width == (image.width + 1) / 2)
                        #expect(planes[1].height == (image.height + 1) / 2)
                        #expect(planes[1].bytesPerRowOfPixels == (image.width + 1) / 2 * 2 * sampleBytes)
                        #expect(planes.allSatisfy { $0.bytesPerRow >= $0.bytesPerRowOfPixels })
                    }
                    let stamp = Self.stamp(image)
                    #expect(stamp?.magic == "VATB", "refcon \(refcon)")
                    #expect(stamp?.hash == Self.sliceHash(samples[refcon]), "refcon \(refcon)")
                }
            }
            // Everything the decoder created is destroyed once the session and its pictures are gone.
            #expect(try Self.liveObjects() == before)
        }

        /// An application that keeps every picture: once the pool's spare surfaces are all held,
        /// later pictures come as CPU copies, and decoding never runs out of surfaces.
        @Test(arguments: TestVADriver.personalities)
        func keepingEveryPictureNeverStarvesTheDecoder(personality: String?) throws {
            let samples = try TestData.samples(
                try Self.fixture("h264-high-bpyramid.264").name, frameDuration: Self.frameDuration)
            let outputs = Outputs()
            let session = try Self.session(
                samples[0].formatDescription, faults: Self.personality(personality), outputs: outputs)
            try decode(samples, with: session)
            let results = outputs.all
            #expect(results.count == samples.count)
            #expect(results.allSatisfy { $0.status == nil })
            let onGPU = results.filter { $0.imageBuffer?.isGPUSurface == true }.count
            #expect(onGPU == DecoderSelection.defaultHeldSurfaces)
            for output in results {
                guard let refcon = output.frameRefcon as? Int, let image = output.imageBuffer else { continue }
                #expect(Self.stamp(image)?.hash == Self.sliceHash(samples[refcon]), "refcon \(refcon)")
            }
        }

        /// `finishDelayedFrames()` replays the samples since the last sync sample only when another
        /// sample follows (SessionDecoder's owed replay): at the end of a stream, finish then wait
        /// decodes every picture once, as the ffmpeg CLI does, and a finish mid-stream decodes the
        /// samples since the last sync sample once more, with their output suppressed. Counted by
        /// the driver's `vaEndPicture` calls (`hevc-slices.265`: 30 pictures, one IDR at the start).
        @Test func finishReplaysOnlyWhenAnotherSampleFollows() throws {
            let samples = try TestData.samples(
                try Self.fixture("hevc-slices.265").name, frameDuration: Self.frameDuration)
            try #require(samples.count == 30)
            let format = try #require(samples.first?.formatDescription)
            func endPictures(finishingAfter middle: Int?) throws -> (pictures: Int, outputs: Int) {
                let outputs = Outputs()
                let session = try Self.session(format, outputs: outputs)
                let before = try TestVADriver.liveObjects().endPictures
                for (index, sample) in samples.enumerated() {
                    try session.decodeFrame(sample, frameRefcon: index)
                    if index == middle { try session.finishDelayedFrames() }
                }
                try session.finishDelayedFrames()
                try session.waitForAsynchronousFrames()
                let pictures = try TestVADriver.liveObjects().endPictures - before
                session.invalidate()
                return (pictures, outputs.all.filter { $0.imageBuffer != nil }.count)
            }
            let atTheEnd = try endPictures(finishingAfter: nil)
            #expect(atTheEnd.pictures == 30)
            #expect(atTheEnd.outputs == 30)
            // Finished after sample 15: the samples from the last sync sample to 15 are decoded
            // again before sample 16, without output.
            let sync = try #require(samples[...15].lastIndex { !$0.attachments.contains(.notSync) })
            let midStream = try endPictures(finishingAfter: 15)
            #expect(midStream.pictures == 30 + (15 - sync + 1))
            #expect(midStream.outputs == 30)
        }

        /// What the output handler saw of one frame, read inside the handler (the pictures are not
        /// kept, so the pool's spare surfaces suffice).
        struct SeenFrame: Sendable {
            var refcon: Int?
            var status: VTError?
            var dropped: Bool
            var stamp: DriverStamp?
            var onGPU: Bool
        }

        /// Every H.264 conformance vector VA-API can take — field pairs, MBAFF, MMCO, long-term
        /// references, multiple slice groups of Constrained Baseline — through the GPU path: one
        /// output per sample, no error, and each picture's stamp equal to the hash of its own
        /// sample's slices (of both fields for a field pair, whose second field comes back
        /// dropped without an error).
        ///
        /// Every vector on the test driver's own behaviour; under each personality a representative
        /// subset (``conformanceSubset``), which keeps the suite's time in bounds.
        @Test(.needsConformance, arguments: TestVADriver.personalities)
        func conformanceStreamsTakeTheGPUPathInOrder(personality: String?) throws {
            let root = try #require(TestData.conformance)
            let rows = TestData.tsv(root.appendingPathComponent("vectors.tsv")).filter { row in
                personality == nil || Self.conformanceSubset.contains(row["file"] ?? "")
            }
            let variables: [String: String?] = [
                "LIBVA_DRIVERS_PATH": TestVADriver.buildDirectory.path, "LIBVA_DRIVER_NAME": TestVADriver.driverName,
                "VATB_PERSONALITY": personality,
            ]
            // Opened with the driver's variables, and shared by the sessions below while it lives.
            let device = try TestVADriver.withEnvironment(variables) { try VADevice.open(path: Self.node) }
            var checked = 0
            for row in rows {
                guard let file = row["file"] else { continue }
                var options = ElementaryStreamParser.Options()
                options.frameDuration = Self.frameDuration
                let samples = ElementaryStreamParser.samples(
                    in: try TestData.bytes(root.appendingPathComponent(file)), codec: .h264, options: options)
                guard let format = samples.first?.formatDescription,
                    (try? hardwareDecodeSupport(for: format, renderNodePath: Self.node).get()) != nil
                else { continue }
                checked += 1
                let seen = Mutex<[SeenFrame]>([])
                let session = try TestVADriver.withEnvironment(variables) {
                    try DecompressionSession(
                        formatDescription: format,
                        decoderSpecification: DecoderSpecification(
                            hardwareAcceleration: .required, renderNodePath: Self.node)
                    ) { output in
                        let frame = SeenFrame(
                            refcon: output.frameRefcon as? Int, status: output.status,
                            dropped: output.infoFlags.contains(.frameDropped),
                            stamp: output.imageBuffer.flatMap(Self.stamp),
                            onGPU: output.imageBuffer?.isGPUSurface ?? false)
                        seen.withLock { $0.append(frame) }
                    }
                }
                try decode(samples, with: session)
                let frames = seen.withLock { $0 }
                #expect(frames.compactMap(\.refcon).sorted() == Array(samples.indices), "\(file)")
                #expect(
                    frames.allSatisfy { $0.status == nil },
                    "\(file): \(frames.compactMap(\.status).first.map { "\($0)" } ?? "")")
                let secondFields = Set(frames.filter(\.dropped).compactMap(\.refcon))
                // A picture cropped on the left or top (CVFC1_Sony_C) does not start where the
                // stamp is: its identity cannot be read back.
                let stampVisible = format.cleanAperture.left == 0 && format.cleanAperture.top == 0
                for frame in frames where !frame.dropped && stampVisible {
                    guard let refcon = frame.refcon else { continue }
                    var hash = FNV1a64()
                    for index in [refcon] + (secondFields.contains(refcon + 1) ? [refcon + 1] : []) {
                        for unit in samples[index].nalUnits where unit.isVCL { hash.combineSlice(unit.bytes) }
                    }
                    #expect(frame.onGPU, "\(file) refcon \(refcon)")
                    #expect(frame.stamp?.magic == "VATB", "\(file) refcon \(refcon)")
                    #expect(frame.stamp?.hash == hash.value, "\(file) refcon \(refcon)")
                }
            }
            #expect(checked >= (personality == nil ? 60 : Self.conformanceSubset.count))
            withExtendedLifetime(device) {}
        }

        /// The conformance vectors every personality decodes: field pictures (PAFF) and
        /// frame/field switching, MBAFF, PCM, MMCO and long-term references, several reference
        /// frames, Constrained Baseline, High field pictures with 8x8 transforms, and cropping on
        /// every edge.
        static let conformanceSubset: Set<String> = [
            "JVT-FR-EXT/HCAFF1_HHI.264", "JVT-FR-EXT/HCAMFF1_HHI.264", "JVT-AVC_V1/CVPCMNL1_SVA_C.264",
            "JVT-FR-EXT/FRExt_MMCO4_Sony_B.264", "JVT-AVC_V1/MR2_MW_A.264", "JVT-AVC_V1/CI1_FT_B.264",
            "JVT-FR-EXT/HPCAFL_BRCM_C.264", "JVT-AVC_V1/CVFC1_Sony_C.jsv",
        ]

        @Test(arguments: TestVADriver.personalities)
        func convertedOutputComesFromTheReadBackSurface(personality: String?) throws {
            let fixture = try Self.fixture("h264-main-cabac.264")
            let samples = try TestData.samples(fixture.name, frameDuration: Self.frameDuration)
            let outputs = Outputs()
            let session = try Self.session(
                samples[0].formatDescription, faults: personality.map { ["VATB_PERSONALITY": $0] } ?? [:],
                // Full-range I420, as the stream (yuvj420p) is full range: a change of layout only.
                attributes: ImageBufferAttributes(pixelFormat: .yuv420PlanarFullRange), outputs: outputs)
            try decode(samples, with: session)
            let results = outputs.all
            #expect(results.count == samples.count)
            for output in results {
                guard let refcon = output.frameRefcon as? Int, let image = output.imageBuffer else {
                    Issue.record("missing image")
                    continue
                }
                #expect(!image.isGPUSurface)
                #expect(image.pixelFormat == .yuv420PlanarFullRange)
                // I420's luma is NV12's: the stamp survives the conversion.
                #expect(Self.stamp(image)?.hash == Self.sliceHash(samples[refcon]))
            }
        }

        @Test(arguments: TestVADriver.personalities)
        func writingToASurfaceCopiesItToCPUMemory(personality: String?) throws {
            let samples = try TestData.samples(
                try Self.fixture("hevc-main.265").name, frameDuration: Self.frameDuration)
            let outputs = Outputs()
            let session = try Self.session(
                samples[0].formatDescription, faults: personality.map { ["VATB_PERSONALITY": $0] } ?? [:],
                outputs: outputs)
            try decode(samples, with: session)
            let image = try #require(outputs.all.first?.imageBuffer)
            let stamp = Self.stamp(image)
            try image.withLockedPlanesForWriting { planes in
                planes[0].baseAddress.storeBytes(of: 0x58, as: UInt8.self)  // "X"
            }
            #expect(!image.isGPUSurface)
            #expect(image.copiedByteCount >= image.width * image.height * 3 / 2)
            #expect(Self.stamp(image)?.magic == "XATB")
            #expect(Self.stamp(image)?.hash == stamp?.hash)
        }

        // MARK: - DMA-BUF

        ///
        /// Under every personality; the layouts each one exports are checked in detail by
        /// ``VATestDriverTests/DriverPersonalities``. nvidia refuses composed layers.
        @Test(arguments: [true, false], TestVADriver.personalities)
        func dmaBufExportSharesTheSurfaceAndClosesItsDescriptors(separateLayers: Bool, personality: String?) throws {
            let fixture = try Self.fixture("h264-cropped-642x362.264")
            let samples = try TestData.samples(fixture.name, frameDuration: Self.frameDuration)
            let outputs = Outputs()
            let session = try Self.session(
                samples[0].formatDescription, faults: Self.personality(personality), outputs: outputs)
            try decode(samples, with: session)
            let output = try #require(outputs.all.first)
            let image = try #require(output.imageBuffer)
            let refcon = try #require(output.frameRefcon as? Int)
            if personality == "nvidia" && !separateLayers {
                let error = #expect(throws: VTError.self) { _ = try image.exportDMABuf(separateLayers: false) }
                #expect(error == .pixelTransferNotSupported)
                return
            }
            var fds: [Int32] = []
            do {
                let buffer = try image.exportDMABuf(separateLayers: separateLayers)
                #expect(DMABufDescriptor.name(ofFourCC: buffer.fourCC) == "NV12")
                #expect(buffer.width >= image.width && buffer.height >= image.height)
                #expect(!buffer.objects.isEmpty)
                fds = buffer.objects.map(\.fd)
                #expect(fds.allSatisfy { fcntl($0, F_GETFD) >= 0 })
                #expect(buffer.objects.allSatisfy { $0.size > 0 })
                let layerNames = buffer.layers.map { DMABufDescriptor.name(ofFourCC: $0.drmFormat) }
                let chroma = personality == "nvidia" ? "RG88" : "GR88"
                #expect(layerNames == (separateLayers ? ["R8", chroma] : ["NV12"]))
                let planes = buffer.layers.flatMap(\.planes)
                if personality == nil {
                    #expect(buffer.objects.allSatisfy { $0.modifier == 0 })
                    #expect(planes.count == 2)
                    #expect(planes.allSatisfy { $0.pitch >= image.width })
                }
                // The luma plane's first bytes, read through the exported descriptor, are the stamp.
                let luma = try #require(planes.first)
                var bytes = [UInt8](repeating: 0, count: DriverStamp.size)
                let read = bytes.withUnsafeMutableBytes {
                    pread(buffer.objects[luma.objectIndex].fd, $0.baseAddress, $0.count, off_t(luma.offset))
                }
                #expect(read == DriverStamp.size)
                #expect(DriverStamp(bytes)?.hash == Self.sliceHash(samples[refcon]))
            }
            // The descriptor is gone: its file descriptors are closed.
            #expect(!fds.isEmpty)
            #expect(fds.allSatisfy { fcntl($0, F_GETFD) == -1 && errno == EBADF })
        }

        @Test func aCPUPictureCannotBeExported() throws {
            let samples = try TestData.samples(
                try Self.fixture("h264-main-cabac.264").name, frameDuration: Self.frameDuration)
            let image = try #require(try Self.softwareOutputs(samples).first?.imageBuffer)
            #expect(!image.isGPUSurface)
            let error = #expect(throws: VTError.self) { _ = try image.exportDMABuf() }
            #expect(error == .parameter)
            #expect(error?.reason.contains("CPU memory") == true)
        }

        // MARK: - Devices

        /// A picture smaller than the driver decodes (the test driver's 16x16 minimum, as
        /// `VASurfaceAttribMinWidth` reports it): `.required` names the size and the minimum,
        /// `.preferred` decodes on the CPU with the same reason and the CPU's pictures.
        @Test func aPictureBelowTheDriversMinimumSaysSoAndFallsBack() throws {
            let samples = try MediaFileReader(path: TestData.fixtures.appendingPathComponent("vp9-8x8.ivf").path)
                .readAllSamples()
            let format = try #require(samples.first?.formatDescription)
            let error = #expect(throws: VTError.self) {
                _ = try Self.session(format, acceleration: .required, outputs: Outputs())
            }
            #expect(error == .couldNotFindVideoDecoder)
            #expect(
                error?.reason.contains("8x8 is below the driver's VP9Profile0 minimum of 16x16") == true,
                "\(String(describing: error))")
            let outputs = Outputs()
            let session = try Self.session(format, acceleration: .preferred, outputs: outputs)
            #expect(!session.usingHardwareAcceleratedVideoDecoder)
            #expect(session.hardwareUnavailableReason?.contains("below the driver's VP9Profile0 minimum") == true)
            try decode(samples, with: session)
            let software = try Self.softwareOutputs(samples)
            #expect(outputs.all.count == 5 && software.count == 5)
            #expect(outputs.all.allSatisfy { $0.status == nil })
            #expect(outputs.all.map { $0.imageBuffer?.md5 } == software.map { $0.imageBuffer?.md5 })
        }

        @Test func deviceCapabilitiesAndSupportChecks() throws {
            let format = try TestData.samples(
                try Self.fixture("hevc-main10.265").name, frameDuration: Self.frameDuration)[0].formatDescription
            let device = try TestVADriver.withEnvironment([
                "LIBVA_DRIVERS_PATH": TestVADriver.buildDirectory.path, "LIBVA_DRIVER_NAME": TestVADriver.driverName,
            ]) { try VADevice.open(path: Self.node) }
            #expect(device.vendor == TestVADriver.vendor)
            #expect(
                device.capabilities.decodeProfiles.map(\.name) == [
                    "H264ConstrainedBaseline", "H264Main", "H264High", "HEVCMain", "HEVCMain10", "AV1Profile0",
                    "VP9Profile0", "VP9Profile2", "VP8Version0_3", "MPEG2Simple", "MPEG2Main",
                ])
            let main10 = try #require(device.capabilities.decodeProfiles.first { $0.name == "HEVCMain10" })
            #expect(main10.decodes10Bit420 && main10.maximumWidth == 4096 && main10.maximumHeight == 4096)
            #expect(main10.minimumWidth == 16 && main10.minimumHeight == 16)
            #expect(device.capabilities.decodes(.h264) && device.capabilities.decodes(.hevc))
            // Opening the node again while the device is in use shares it.
            #expect(try VADevice.open(path: Self.node) === device)
            #expect((try? hardwareDecodeSupport(for: format, renderNodePath: Self.node).get())?.path == Self.node)
            // H.264 High 10 has no VA profile: the reason says so.
            let high10 = ElementaryStreamParser.samples(
                in: try TestData.bytes(TestData.fixtures.appendingPathComponent("h264-high10.264")), codec: .h264)
            let refusal = hardwareDecodeSupport(
                for: try #require(high10.first).formatDescription, renderNodePath: Self.node)
            guard case .failure(let error) = refusal else {
                Issue.record("High 10 was accepted")
                return
            }
            #expect(error == .couldNotFindVideoDecoder)
            #expect(error.reason.contains("High 10"))
        }

        /// The profile mapping against the conformance suite's own profile names: Constrained
        /// Baseline, Main and High go to the GPU; Baseline (which may use FMO/ASO) and High 10 do not.
        @Test(.needsConformance) func conformanceProfilesMapAsTheSuiteNamesThem() throws {
            let root = try #require(TestData.conformance)
            let rows = TestData.tsv(root.appendingPathComponent("vectors.tsv"))
            try #require(rows.count > 70)
            let device = try TestVADriver.withEnvironment([
                "LIBVA_DRIVERS_PATH": TestVADriver.buildDirectory.path, "LIBVA_DRIVER_NAME": TestVADriver.driverName,
            ]) { try VADevice.open(path: Self.node) }
            var counts: [String: Int] = [:]
            for row in rows {
                guard let file = row["file"], let profile = row["profile"] else { continue }
                let samples = ElementaryStreamParser.samples(
                    in: try TestData.bytes(root.appendingPathComponent(file)), codec: .h264)
                guard let format = samples.first?.formatDescription else {
                    Issue.record("\(file): no samples")
                    continue
                }
                let result = device.capabilities.profile(for: format)
                counts[profile, default: 0] += 1
                switch (profile, result) {
                case ("Constrained Baseline", .success(let chosen)):
                    #expect(chosen.name == "H264ConstrainedBaseline", "\(file)")
                case ("Main", .success(let chosen)): #expect(chosen.name == "H264Main", "\(file)")
                case ("High", .success(let chosen)): #expect(chosen.name == "H264High", "\(file)")
                case ("Baseline", .failure(let error)): #expect(error.reason.contains("FMO/ASO"), "\(file)")
                case ("High 10 Intra", .failure(let error)): #expect(error.reason.contains("High 10"), "\(file)")
                default: Issue.record("\(file) (\(profile)): \(result)")
                }
            }
            #expect(counts["Baseline"] == 1 && counts["High 10 Intra"] == 7)
        }

        @Test func requiredWithoutADeviceFailsWithTheReason() throws {
            let format = try TestData.samples(
                try Self.fixture("h264-main-cabac.264").name, frameDuration: Self.frameDuration)[0].formatDescription
            let error = #expect(throws: VTError.self) {
                _ = try DecompressionSession(
                    formatDescription: format,
                    decoderSpecification: DecoderSpecification(
                        hardwareAcceleration: .required, renderNodePath: "/dev/dri/renderD999")
                ) { _ in }
            }
            #expect(error?.status == -12906)
            #expect(error?.reason.contains("/dev/dri/renderD999") == true)
            #expect(error?.reason.contains("no device") == true)
        }

        @Test func preferredWithoutADeviceDecodesOnTheCPUAndSaysWhy() throws {
            let format = try TestData.samples(
                try Self.fixture("h264-main-cabac.264").name, frameDuration: Self.frameDuration)[0].formatDescription
            let session = try DecompressionSession(
                formatDescription: format,
                decoderSpecification: DecoderSpecification(renderNodePath: "/dev/dri/renderD999")
            ) { _ in }
            defer { session.invalidate() }
            #expect(!session.usingHardwareAcceleratedVideoDecoder)
            #expect(session.hardwareUnavailableReason?.contains("/dev/dri/renderD999") == true)
        }

        @Test func environmentOverridesOnlyTheDefault() throws {
            let environment = ["VATOOLBOX_HWACCEL": "none", "VATOOLBOX_RENDER_NODE": "/dev/dri/renderD130"]
            let lookup = { (name: String) in environment[name] }
            let preferred = try DecoderSelection.effective(DecoderSpecification(), environment: lookup)
            #expect(preferred.hardwareAcceleration == .disabled)
            #expect(preferred.renderNodePath == "/dev/dri/renderD130")
            let required = try DecoderSelection.effective(
                DecoderSpecification(hardwareAcceleration: .required, renderNodePath: "/dev/x"), environment: lookup)
            #expect(required.hardwareAcceleration == .required)
            #expect(required.renderNodePath == "/dev/x")
            let vaapi = try DecoderSelection.effective(
                DecoderSpecification(), environment: { $0 == "VATOOLBOX_HWACCEL" ? "vaapi" : nil })
            #expect(vaapi.hardwareAcceleration == .required)
            let disabled = try DecoderSelection.effective(
                DecoderSpecification(hardwareAcceleration: .disabled),
                environment: { $0 == "VATOOLBOX_HWACCEL" ? "vaapi" : nil })
            #expect(disabled.hardwareAcceleration == .disabled)
        }

        // MARK: - Faults and fallback

        /// A driver that cannot set up the decoder: `.preferred` decodes on the CPU and says why
        /// (the output is the CPU's, equal to the oracle); `.required` fails with -12906.
        @Test(
            arguments: [
                SetupFault(variable: "VATB_FAIL_CREATE_CONFIG", value: "1", reason: "vaCreateConfig"),
                SetupFault(variable: "VATB_FAIL_CREATE_CONTEXT", value: "1", reason: "vaCreateContext"),
                SetupFault(
                    variable: "VATB_UNSUPPORTED_PROFILES", value: "H264High", reason: "no VA profile for avc1 High"),
                SetupFault(variable: "VATB_MAX_SIZE", value: "320x240", reason: "exceeds"),
            ], TestVADriver.personalities)
        func setupFaultsFallBackOrFail(fault: SetupFault, personality: String?) throws {
            let (variable, value, reason) = (fault.variable, fault.value, fault.reason)
            let fixture = try Self.fixture("h264-high-bpyramid.264")
            let samples = try TestData.samples(fixture.name, frameDuration: Self.frameDuration)
            let oracle = try FrameMD5Oracle(contentsOf: fixture.url.appendingPathExtension("framemd5")).frames
            let outputs = Outputs()
            let faults = Self.personality(personality).merging([variable: value]) { $1 }
            let session = try Self.session(
                samples[0].formatDescription, acceleration: .preferred, faults: faults, outputs: outputs)
            #expect(!session.usingHardwareAcceleratedVideoDecoder)
            #expect(
                session.hardwareUnavailableReason?.contains(reason) == true,
                "\(session.hardwareUnavailableReason ?? "")")
            try decode(samples, with: session)
            #expect(outputs.all.map { $0.imageBuffer.map(planarMD5) } == oracle.map(\.md5))

            let error = #expect(throws: VTError.self) {
                _ = try Self.session(samples[0].formatDescription, faults: faults, outputs: Outputs())
            }
            #expect(error?.status == -12906)
            #expect(error?.reason.contains(reason) == true)
        }

        /// A driver variable that makes the decoder's setup fail, and what the reason says.
        struct SetupFault: Sendable, CustomTestStringConvertible {
            let variable: String
            let value: String
            let reason: String
            var testDescription: String { "\(variable)=\(value)" }
        }

        /// A mid-stream change to a size the driver refuses: libavcodec cannot restart its hwaccel,
        /// and a `.preferred` session continues on the CPU from that (sync) sample.
        ///
        /// Under every personality: nvidia's 32 surfaces leave fewer for the application than the
        /// 48 asked, so there some of the GPU's pictures come as CPU copies of their surfaces.
        @Test(arguments: TestVADriver.personalities)
        func aFormatChangeTheGPURefusesContinuesOnTheCPU(personality: String?) throws {
            let fixture = try Self.fixture("h264-resolution-change.264")
            let samples = try TestData.samples(fixture.name, frameDuration: Self.frameDuration)
            try #require(samples.count == 48 && samples[24].isSync)
            // 176x144 first, then 320x240, on a driver that decodes up to 200x200.
            let reordered = Array(samples[24...]) + Array(samples[..<24])
            let oracle = try FrameMD5Oracle(contentsOf: fixture.url.appendingPathExtension("framemd5")).frames
            let outputs = Outputs()
            let session = try Self.session(
                reordered[0].formatDescription, acceleration: .preferred,
                faults: Self.personality(personality).merging(["VATB_MAX_SIZE": "200x200"]) { $1 },
                attributes: ImageBufferAttributes(minimumBufferCount: 48), outputs: outputs)
            #expect(session.usingHardwareAcceleratedVideoDecoder)
            try decode(reordered, with: session)
            #expect(!session.usingHardwareAcceleratedVideoDecoder)
            #expect(session.hardwareUnavailableReason?.contains("could not decode the stream") == true)
            let results = outputs.all
            #expect(results.count == 48)
            #expect(results.allSatisfy { $0.status == nil })
            var cpuPictures: [PixelBuffer] = []
            var gpuPictures = 0
            for output in results {
                guard let refcon = output.frameRefcon as? Int, let image = output.imageBuffer else { continue }
                if refcon < 24 {
                    if image.isGPUSurface { gpuPictures += 1 }
                    #expect(image.width == 176)
                    // A CPU copy of a surface carries its stamp too.
                    #expect(Self.stamp(image)?.hash == Self.sliceHash(reordered[refcon]))
                } else {
                    #expect(!image.isGPUSurface && image.width == 320)
                    #expect(image.pixelFormat == session.nativePixelFormat, "the GPU's layout holds")
                    cpuPictures.append(image)
                }
            }
            if personality == "nvidia" {
                #expect(gpuPictures > 0 && gpuPictures < 24, "\(gpuPictures)")
            } else {
                #expect(gpuPictures == 24)
            }
            // The CPU's pictures, in output (presentation) order, are the first part's.
            #expect(try cpuPictures.map(i420MD5) == oracle.prefix(24).map(\.md5))
        }

        /// One failed `vaEndPicture`: that frame, and only that one, is -12911 without an image.
        @Test(arguments: TestVADriver.personalities)
        func aFailedEndPictureIsAMalfunctionOfThatFrame(personality: String?) throws {
            let samples = try TestData.samples(
                try Self.fixture("h264-high-bpyramid.264").name, frameDuration: Self.frameDuration)
            let outputs = Outputs()
            var faults = ["VATB_FAIL_END_PICTURE": "3"]
            faults["VATB_PERSONALITY"] = personality
            let session = try Self.session(samples[0].formatDescription, faults: faults, outputs: outputs)
            try decode(samples, with: session)
            let results = outputs.all
            #expect(results.count == samples.count)
            let failed = results.filter { $0.status == .videoDecoderMalfunction }
            #expect(failed.count == 1, "\(failed)")
            #expect(failed.first?.imageBuffer == nil)
            #expect(failed.first?.infoFlags.contains(.frameDropped) == true)
            // The third picture in decode order is sample 2.
            #expect(failed.first?.frameRefcon as? Int == 2)
            // Frames decoded after it, up to the next sync sample, may refer to it: they are
            // flagged, with their pictures; every other frame is clean.
            let secondSync = try #require(samples.indices.dropFirst().first { samples[$0].isSync })
            for output in results where output.status != .videoDecoderMalfunction {
                guard let refcon = output.frameRefcon as? Int else { continue }
                let mayReferToIt = refcon > 2 && refcon < secondSync
                #expect(output.status == (mayReferToIt ? .videoDecoderReferenceMissing : nil), "refcon \(refcon)")
                #expect(output.imageBuffer.flatMap(Self.stamp)?.magic == "VATB", "refcon \(refcon)")
            }
        }

        /// A failed `vaSyncSurface`: one frame is -12911, the others are clean — on the drivers
        /// that report decode errors at sync (the test driver's own behaviour, iHD), where each
        /// picture is synchronised at hand-out.
        @Test(arguments: [nil, "ihd"])
        func aFailedSyncIsAMalfunctionOfThatFrame(personality: String?) throws {
            let samples = try TestData.samples(
                try Self.fixture("hevc-main.265").name, frameDuration: Self.frameDuration)
            let outputs = Outputs()
            let session = try Self.session(
                samples[0].formatDescription,
                faults: Self.personality(personality).merging(["VATB_FAIL_SYNC": "2"]) { $1 },
                outputs: outputs)
            try decode(samples, with: session)
            let results = outputs.all
            #expect(results.count == samples.count)
            let failed = results.filter { $0.status == .videoDecoderMalfunction }
            #expect(failed.count == 1)
            #expect(failed.first?.imageBuffer == nil)
            // Frames decoded before it are clean; later ones are clean or flagged as possibly
            // referring to it.
            let failedRefcon = try #require(failed.first?.frameRefcon as? Int)
            for output in results where output.status != .videoDecoderMalfunction {
                guard let refcon = output.frameRefcon as? Int else { continue }
                if refcon < failedRefcon {
                    #expect(output.status == nil, "refcon \(refcon)")
                } else {
                    #expect(output.status == nil || output.status == .videoDecoderReferenceMissing)
                }
                #expect(output.imageBuffer != nil)
            }
        }

        /// On the drivers that report no decode errors (i965, Mesa, nvidia) a picture is synchronised
        /// only when it is read: a failed `vaSyncSurface` there comes at the lock, which lends no
        /// planes; every frame comes out once, with its image and no status (the hand-out does not
        /// sync). Each picture is locked in the handler, so the second sync is the second picture's.
        @Test(arguments: ["i965", "mesa", "nvidia"])
        func aFailedSyncOnADriverWithoutErrorReportsFailsTheLock(personality: String) throws {
            let samples = try TestData.samples(
                try Self.fixture("hevc-main.265").name, frameDuration: Self.frameDuration)
            let stamps = Mutex<[(refcon: Int?, status: VTError?, stamp: DriverStamp?)]>([])
            var variables: [String: String?] = [
                "LIBVA_DRIVERS_PATH": TestVADriver.buildDirectory.path, "LIBVA_DRIVER_NAME": TestVADriver.driverName,
            ]
            for name in TestVADriver.faultVariables { variables.updateValue(nil, forKey: name) }
            variables["VATB_PERSONALITY"] = personality
            variables["VATB_FAIL_SYNC"] = "2"
            let session = try TestVADriver.withEnvironment(variables) {
                try DecompressionSession(
                    formatDescription: samples[0].formatDescription,
                    decoderSpecification: DecoderSpecification(
                        hardwareAcceleration: .required, renderNodePath: Self.node, threadCount: 1)
                ) { output in
                    let stamp = output.imageBuffer.flatMap(Self.stamp)
                    stamps.withLock { $0.append((output.frameRefcon as? Int, output.status, stamp)) }
                }
            }
            try decode(samples, with: session)
            let results = stamps.withLock { $0 }
            #expect(results.count == samples.count)
            #expect(results.allSatisfy { $0.status == nil }, "\(results.compactMap(\.status))")
            let unreadable = results.indices.filter { results[$0].stamp == nil }
            #expect(unreadable == [1], "the second picture's lock is the failed sync")
            for result in results where result.stamp != nil {
                guard let refcon = result.refcon else { continue }
                #expect(result.stamp?.hash == Self.sliceHash(samples[refcon]), "refcon \(refcon)")
            }
        }

        /// The GPU fails every picture from the third on: after three faults in a row a
        /// `.preferred` session moves to the CPU and says so; the CPU decodes the kept samples
        /// since the last random access point again, so no frame after the failed ones is lost.
        @Test(arguments: TestVADriver.personalities)
        func repeatedFaultsMoveAPreferredSessionToTheCPU(personality: String?) throws {
            let fixture = try Self.fixture("h264-high-bpyramid.264")
            let samples = try TestData.samples(fixture.name, frameDuration: Self.frameDuration)
            // The pictures keep the GPU's layout after the move: the CPU's, converted to NV12.
            let software = try Self.softwareOutputs(
                samples, attributes: ImageBufferAttributes(pixelFormat: .nv12VideoRange))
            let outputs = Outputs()
            var faults = ["VATB_FAIL_END_PICTURE": "3:0"]
            faults["VATB_PERSONALITY"] = personality
            let session = try Self.session(
                samples[0].formatDescription, acceleration: .preferred, faults: faults, outputs: outputs)
            #expect(session.usingHardwareAcceleratedVideoDecoder)
            for (index, sample) in samples.enumerated() {
                try session.decodeFrame(sample, frameRefcon: index)
            }
            try session.finishDelayedFrames()
            #expect(!session.usingHardwareAcceleratedVideoDecoder)
            #expect(session.hardwareUnavailableReason?.contains("in a row") == true)
            session.invalidate()

            let results = outputs.all
            // Exactly one output per frame.
            #expect(results.compactMap { $0.frameRefcon as? Int }.sorted() == Array(samples.indices))
            #expect(results.contains { $0.status == .videoDecoderMalfunction })
            // The CPU decodes the samples since the last random access point again and goes on:
            // every frame but those the GPU failed or abandoned (-12911) is the CPU's and equals
            // the CPU session's, none is lost waiting for the next sync sample.
            let expected = Dictionary(
                uniqueKeysWithValues: software.compactMap { output in
                    (output.frameRefcon as? Int).map { ($0, output.imageBuffer?.md5) }
                })
            let failed = results.filter { $0.status == .videoDecoderMalfunction }.compactMap { $0.frameRefcon as? Int }
            let secondSync = try #require(samples.indices.dropFirst().first { samples[$0].isSync })
            #expect(failed.allSatisfy { $0 < secondSync }, "\(failed)")
            #expect(
                session.hardwareUnavailableReason?.contains(
                    "decoded the samples since the last random access point again") == true)
            for output in results where output.status != .videoDecoderMalfunction {
                guard let refcon = output.frameRefcon as? Int, refcon >= 2 else { continue }
                #expect(output.status == nil, "refcon \(refcon)")
                #expect(output.imageBuffer?.isGPUSurface == false)
                #expect(output.imageBuffer?.pixelFormat == session.nativePixelFormat, "refcon \(refcon)")
                #expect(output.imageBuffer?.md5 == expected[refcon] ?? nil, "refcon \(refcon)")
            }
            #expect(results.filter { $0.status == nil }.count == samples.count - failed.count)
        }

        /// Damaged data is the stream's fault, not the GPU's: a slice whose header libavcodec
        /// cannot parse is -12909, never -12911; every frame gets one output, and the session stays
        /// on the GPU. (Damage inside slice data goes to the GPU, which conceals it unreported, as
        /// real drivers do.)
        @Test(arguments: TestVADriver.personalities)
        func damagedDataOnTheGPUIsBadDataNotAMalfunction(personality: String?) throws {
            var samples = try TestData.samples(
                try Self.fixture("h264-main-cabac.264").name, frameDuration: Self.frameDuration)
            // Sample 5's slices: everything after each NAL header byte becomes 0xFF, so that the
            // slice header's first_mb_in_slice and pic_parameter_set_id are out of range.
            let damaged = samples[5].nalUnits.map { unit -> [UInt8] in
                guard unit.isVCL else { return Array(unit.bytes) }
                return [unit.bytes[unit.bytes.startIndex]] + [UInt8](repeating: 0xFF, count: unit.bytes.count - 1)
            }
            samples[5] = try SampleBuffer(
                nalUnits: damaged, formatDescription: samples[5].formatDescription, timing: samples[5].timing,
                attachments: samples[5].attachments)
            let outputs = Outputs()
            let session = try Self.session(
                samples[0].formatDescription, acceleration: .preferred, faults: Self.personality(personality),
                outputs: outputs)
            try decode(samples, with: session)
            #expect(session.usingHardwareAcceleratedVideoDecoder)
            let results = outputs.all
            #expect(results.compactMap { $0.frameRefcon as? Int }.sorted() == Array(samples.indices))
            let failed = try #require(results.first { $0.frameRefcon as? Int == 5 })
            #expect(failed.status == .videoDecoderBadData, "\(failed)")
            #expect(!results.contains { $0.status == .videoDecoderMalfunction })
        }

        /// Mutated streams through the GPU path: never a trap or a hang, exactly one output per
        /// accepted sample, and every VA object destroyed afterwards — with the GPU required, and
        /// preferred (where the session may move to the CPU mid-stream).
        ///
        /// 24 streams on the test driver's own behaviour, 8 under each personality.
        @Test(arguments: [DecoderSpecification.HardwareAcceleration.required, .preferred], TestVADriver.personalities)
        func mutatedStreamsOnTheGPUNeverTrapOrLeak(
            acceleration: DecoderSpecification.HardwareAcceleration, personality: String?
        ) throws {
            let before = try Self.liveObjects()
            var generator = SeededGenerator(seed: acceleration == .required ? 0x6A7 : 0x6A8)
            let streams = try VATestDriverTests.hardwareFixtures.map { ($0.codec, try TestData.bytes($0.url)) }
            for round in 0..<(personality == nil ? 24 : 8) {
                let (codec, original) = streams[round % streams.count]
                var bytes = original
                for _ in 0..<Int.random(in: 1...30, using: &generator) {
                    let index = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0: bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &generator)
                    case 1: bytes[index] = UInt8.random(in: 0...255, using: &generator)
                    case 2:
                        bytes.removeSubrange(
                            index..<min(bytes.count, index + Int.random(in: 1...300, using: &generator)))
                    default: bytes.insert(contentsOf: [0, 0, 1], at: index)
                    }
                    if bytes.isEmpty { break }
                }
                let samples = ElementaryStreamParser.samples(in: bytes, codec: codec)
                guard let format = samples.first?.formatDescription else { continue }
                let outputs = Outputs()
                let session: DecompressionSession
                do {
                    session = try Self.session(
                        format, acceleration: acceleration, faults: Self.personality(personality), outputs: outputs)
                } catch {
                    continue  // a mutated first SPS the decoders refuse: a clean refusal is the point
                }
                var accepted = 0
                for sample in samples {
                    do {
                        try session.decodeFrame(sample, frameRefcon: accepted)
                        accepted += 1
                    } catch {
                        #expect(error.status < 0, "a refusal carries an error status: \(error)")
                    }
                }
                try? session.finishDelayedFrames()
                session.invalidate()
                let refcons = outputs.all.compactMap { $0.frameRefcon as? Int }.sorted()
                #expect(refcons == Array(0..<accepted), "round \(round): one output per accepted sample")
            }
            let after = try Self.liveObjects()
            #expect(after == before, "configs, contexts, surfaces, buffers, images: \(before) → \(after)")
        }

        /// `.required` never leaves the GPU: every failed picture is -12911.
        @Test(arguments: TestVADriver.personalities)
        func requiredSessionsStayOnTheGPUThroughFaults(personality: String?) throws {
            let samples = try TestData.samples(
                try Self.fixture("h264-main-cabac.264").name, frameDuration: Self.frameDuration)
            let outputs = Outputs()
            let session = try Self.session(
                samples[0].formatDescription,
                faults: Self.personality(personality).merging(["VATB_FAIL_END_PICTURE": "1:0"]) { $1 }, outputs: outputs
            )
            try decode(samples, with: session)
            #expect(session.usingHardwareAcceleratedVideoDecoder)
            let results = outputs.all
            #expect(results.count == samples.count)
            #expect(results.allSatisfy { $0.status == .videoDecoderMalfunction && $0.imageBuffer == nil })
        }
    }
}
