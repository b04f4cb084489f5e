import Foundation
import Testing

@testable import VAToolbox

extension VATestDriverTests.HardwareSessions {
    /// The plane layout of a picture: format, and each plane's size in pixels and bytes per row of
    /// pixels (the padding of a row may differ between paths; the layout may not).
    static func layout(_ image: PixelBuffer) -> [String] {
        image.withLockedPlanes { planes in
            ["\(image.pixelFormat) \(image.width)x\(image.height)"]
                + planes.map { "\($0.width)x\($0.height) \($0.bytesPerRowOfPixels)" }
        }
    }

    /// Decodes `samples` on the test driver in its reference mode (real pixels, Docs/TestVADriver.md)
    /// with no attributes, keeping every picture as a surface.
    static func referenceModeOutputs(_ samples: [SampleBuffer], stream: URL) throws -> (PixelFormat, [PixelBuffer]) {
        let outputs = Outputs()
        let variables: [String: String?] = [
            "LIBVA_DRIVERS_PATH": TestVADriver.buildDirectory.path, "LIBVA_DRIVER_NAME": TestVADriver.driverName,
            "VATB_REFERENCE_STREAM": stream.path,
        ]
        let session = try TestVADriver.withEnvironment(variables) {
            try DecompressionSession(
                formatDescription: samples[0].formatDescription,
                decoderSpecification: DecoderSpecification(
                    hardwareAcceleration: .required, renderNodePath: node, threadCount: 1),
                imageBufferAttributes: nil, outputHandler: outputs.handler)
        }
        #expect(session.usingHardwareAcceleratedVideoDecoder)
        let native = session.nativePixelFormat
        try decode(samples, with: session)
        return (native, outputs.all.compactMap(\.imageBuffer))
    }

    /// Docs/DecompressionSession.md, "Pixel buffers": one native format per stream. The same
    /// 8-bit (full range) and 10-bit streams give the same format — VideoToolbox's bi-planar
    /// `'420f'` and `'x420'` — with the same plane layout on the GPU (the test driver, decoding
    /// real pixels) and on the CPU (libavcodec's planar pictures packed), and the same pixels:
    /// taken apart into planes by the test, both hash as the ffmpeg CLI's software decode.
    @Test(
        "native format: one format, layout and picture on the GPU and the CPU",
        arguments: [("h264-main-cabac.264", PixelFormat.nv12FullRange), ("hevc-main10.265", .p010VideoRange)])
    func nativeFormatIsTheSameOnBothPaths(name: String, expected: PixelFormat) throws {
        try #require(TestVADriver.isBuilt)
        let fixture = try Self.fixture(name)
        let samples = try TestData.samples(fixture.name, frameDuration: Self.frameDuration)
        let format = samples[0].formatDescription
        let oracle = try FrameMD5Oracle(contentsOf: fixture.url.appendingPathExtension("framemd5")).frames.map(\.md5)

        let (gpuNative, gpuImages) = try Self.referenceModeOutputs(samples, stream: fixture.url)
        let cpuOutputs = Outputs()
        let cpu = try DecompressionSession(
            formatDescription: format,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 1),
            outputHandler: cpuOutputs.handler)
        let cpuNative = cpu.nativePixelFormat
        try decode(samples, with: cpu)
        let cpuImages = cpuOutputs.all.compactMap(\.imageBuffer)

        #expect(gpuNative == expected)
        #expect(cpuNative == expected)
        #expect(DecompressionSession.nativePixelFormat(for: format) == expected)
        #expect(gpuImages.count == oracle.count && cpuImages.count == oracle.count)
        #expect(gpuImages.allSatisfy { $0.pixelFormat == expected }, "\(gpuImages.map(\.pixelFormat))")
        #expect(cpuImages.allSatisfy { $0.pixelFormat == expected }, "\(cpuImages.map(\.pixelFormat))")
        #expect(gpuImages.map(Self.layout) == cpuImages.map(Self.layout))
        #expect(gpuImages.map(planarMD5) == oracle, "the GPU's pictures")
        #expect(cpuImages.map(planarMD5) == oracle, "the CPU's pictures")
    }

    /// A caller who asks for the planar format gets the CPU decoder's own pictures, uncopied
    /// (Docs/DecompressionSession.md, "Pixel buffers"); the native NV12 keeps the decoder's luma
    /// plane and copies only the chroma, interleaved; P010 is written whole (its samples move to
    /// the high bits). Both hash as the ffmpeg CLI's decode.
    @Test(
        "native format on the CPU: what is copied, and the planar format without a copy",
        arguments: ["h264-main-cabac.264", "hevc-main10.265"])
    func planarFormatIsHandedOutWithoutACopy(name: String) throws {
        let fixture = try Self.fixture(name)
        let samples = try TestData.samples(fixture.name, frameDuration: Self.frameDuration)
        let format = samples[0].formatDescription
        let oracle = try FrameMD5Oracle(contentsOf: fixture.url.appendingPathExtension("framemd5")).frames.map(\.md5)
        let planar = DecompressionSession.planarPixelFormat(for: format)
        #expect(planar != DecompressionSession.nativePixelFormat(for: format))

        let planarOutputs = Outputs()
        let asked = try DecompressionSession(
            formatDescription: format,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 1),
            imageBufferAttributes: ImageBufferAttributes(pixelFormat: planar), outputHandler: planarOutputs.handler)
        try decode(samples, with: asked)
        #expect(asked.pixelBufferPool == nil, "nothing was converted")
        let planarImages = planarOutputs.all.compactMap(\.imageBuffer)
        #expect(planarImages.allSatisfy { $0.pixelFormat == planar && $0.copiedByteCount == 0 })
        #expect(planarImages.map(\.md5) == oracle)

        let native = try Self.softwareOutputs(samples).compactMap(\.imageBuffer)
        #expect(native.map(planarMD5) == oracle)
        for image in native {
            let lumaBytes = image.width * image.height * (image.pixelFormat == .p010VideoRange ? 2 : 1)
            let chromaBytes = image.rawVideoByteCount - lumaBytes
            let copied = image.pixelFormat == .p010VideoRange ? image.rawVideoByteCount : chromaBytes
            #expect(image.copiedByteCount == copied, "\(image)")
        }
    }

    /// Streams no GPU decodes keep the CPU decoder's planar format as their native one, and 10-bit
    /// 4:2:0 (H.264 High 10, decoded on the CPU only) is P010 as HEVC Main 10 is.
    @Test(
        "native format of streams only the CPU decodes",
        arguments: [
            ("h264-high422.264", PixelFormat.yuv422Planar), ("h264-high10.264", .p010VideoRange),
        ])
    func streamsOnlyTheCPUDecodes(name: String, expected: PixelFormat) throws {
        let fixture = VATestDriverTests.HardwareFixture(name: name, profile: 0, tenBit: false)
        let samples = try TestData.samples(fixture.name, frameDuration: Self.frameDuration)
        let oracle = try FrameMD5Oracle(contentsOf: fixture.url.appendingPathExtension("framemd5")).frames.map(\.md5)
        #expect(DecompressionSession.nativePixelFormat(for: samples[0].formatDescription) == expected)
        let images = try Self.softwareOutputs(samples).compactMap(\.imageBuffer)
        #expect(!images.isEmpty && images.allSatisfy { $0.pixelFormat == expected })
        #expect(images.map(planarMD5) == oracle)
    }
}
