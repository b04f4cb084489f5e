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

    /// Docs/DecompressionSession.md, "Pixel buffers": the native format differs by path, the API
    /// says which (`nativePixelFormat` before the first frame, each buffer's `pixelFormat`), and a
    /// requested format is the same layout on the GPU (the test driver) and on the CPU.
    @Test(
        "native format: stated per path, and one layout on both when asked for",
        arguments: ["h264-main-cabac.264", "hevc-main10.265"])
    func nativeFormatPerPath(name: String) throws {
        let samples = try Self.samples(try Self.fixture(name))
        let format = samples[0].formatDescription

        let gpuOutputs = Outputs()
        let gpu = try Self.session(format, outputs: gpuOutputs)
        #expect(gpu.usingHardwareAcceleratedVideoDecoder)
        let gpuNative = gpu.nativePixelFormat
        try Self.decode(samples, with: gpu)
        let cpuNative = DecompressionSession.nativePixelFormat(for: format, hardware: false)
        let cpuImages = try Self.softwareOutputs(samples).compactMap(\.imageBuffer)
        let gpuImages = gpuOutputs.all.compactMap(\.imageBuffer)
        #expect(gpuNative == DecompressionSession.nativePixelFormat(for: format, hardware: true))
        let gpuFormats: [PixelFormat] = [.nv12VideoRange, .nv12FullRange, .p010VideoRange, .p010FullRange]
        #expect(gpuFormats.contains(gpuNative), "the GPU's native format is NV12 or P010")
        #expect(cpuNative != gpuNative, "the CPU's native format is planar")
        #expect(!gpuImages.isEmpty && gpuImages.allSatisfy { $0.pixelFormat == gpuNative })
        #expect(!cpuImages.isEmpty && cpuImages.allSatisfy { $0.pixelFormat == cpuNative })

        // Asking for the GPU's format: free there, converted on the CPU, the same layout.
        let requested = gpuNative
        let attributes = ImageBufferAttributes(pixelFormat: requested)
        let gpuConverted = Outputs()
        let asked = try Self.session(format, attributes: attributes, outputs: gpuConverted)
        #expect(asked.usingHardwareAcceleratedVideoDecoder)
        try Self.decode(samples, with: asked)
        let cpuConverted = Outputs()
        let software = try DecompressionSession(
            formatDescription: format,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 1),
            imageBufferAttributes: attributes, outputHandler: cpuConverted.handler)
        try Self.decode(samples, with: software)
        let gpuLayouts = gpuConverted.all.compactMap(\.imageBuffer).map(Self.layout)
        let cpuLayouts = cpuConverted.all.compactMap(\.imageBuffer).map(Self.layout)
        #expect(!gpuLayouts.isEmpty)
        #expect(gpuLayouts == cpuLayouts)
        #expect(gpuLayouts.first?.first?.hasPrefix("\(requested) ") == true)
    }
}
