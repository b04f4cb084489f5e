import Foundation
import Testing

@testable import VAToolbox

extension VATestDriverTests {
    /// ``Deinterlacer`` on GPU surfaces (issue 23, item 3), in process: bwdif runs on the GPU
    /// through VA's motion-adaptive deinterlacing, which the test driver processes with bwdif
    /// itself over the picture and the references it is given (Docs/TestVADriver.md), so the
    /// pictures and their times must be the CPU deinterlacer's; nothing leaks.
    @Suite(.enabled(if: TestVADriver.isBuilt))
    struct TemporalDeinterlacingOnTheGPU {
        /// The decoded pictures of `fixture` and their times: on the test driver, or on the CPU.
        static func pictures(_ fixture: String, onGPU: Bool) throws -> [(PixelBuffer, MediaTime)] {
            let path = TestData.fixtures.appendingPathComponent(fixture)
            let samples = try TestData.samples(path.path)
            let outputs: [DecompressionOutput]
            if onGPU {
                let collected = Outputs()
                // The test keeps every picture: the pool gets a spare surface for each.
                let session = try HardwareSessions.session(
                    samples[0].formatDescription, attributes: ImageBufferAttributes(minimumBufferCount: samples.count),
                    referenceStream: path.path, outputs: collected)
                try decode(samples, with: session)
                session.invalidate()
                outputs = collected.all
            } else {
                outputs = try HardwareSessions.softwareOutputs(samples)
            }
            return outputs.compactMap { output in output.imageBuffer.map { ($0, output.presentationTimeStamp) } }
        }

        /// What became of a deinterlaced picture, noted as it comes out (an application that
        /// held every one would exhaust the GPU's output surfaces, and the rest would go to the CPU).
        struct Record: Equatable {
            let time: MediaTime
            /// The MD5 of the picture as 4:2:0 planar (the GPU's are NV12, the CPU's planar already).
            let md5: String
            let onGPU: Bool
            let pixelFormat: PixelFormat
            let fieldCount: Int?
        }

        static func deinterlace(
            _ pictures: [(PixelBuffer, MediaTime)], with deinterlacer: Deinterlacer
        ) throws -> [Record] {
            let planar = PixelTransferSession(convertsOnGPU: false)
            let record = { (output: Deinterlacer.Output) throws -> Record in
                Record(
                    time: output.presentationTimeStamp,
                    md5: try planar.transferImage(output.image, pixelFormat: .yuv420Planar).md5,
                    onGPU: output.image.isGPUSurface, pixelFormat: output.image.pixelFormat,
                    fieldCount: output.image.attachments.fieldCount)
            }
            var records: [Record] = []
            for (image, time) in pictures {
                records += try deinterlacer.deinterlace(image, presentationTimeStamp: time).map(record)
            }
            return records + (try deinterlacer.finish().map(record))
        }

        @Test(arguments: ["h264-mbaff.264", "mpeg2-interlaced.ts"], Deinterlacer.Rate.allCases)
        func bwdifRunsOnTheGPUWithTheCPUsPicturesAndTimes(_ fixture: String, _ rate: Deinterlacer.Rate) throws {
            let live = try HardwareSessions.liveObjects()
            try {
                let gpuPictures = try Self.pictures(fixture, onGPU: true)
                let cpuPictures = try Self.pictures(fixture, onGPU: false)
                #expect(gpuPictures.count == cpuPictures.count && gpuPictures.count > 20)
                #expect(gpuPictures.allSatisfy { $0.0.isGPUSurface })
                let deinterlacer = Deinterlacer(method: .bwdif, rate: rate)
                let gpu = try Self.deinterlace(gpuPictures, with: deinterlacer)
                #expect(deinterlacer.path == .gpu)
                let cpu = try Self.deinterlace(cpuPictures, with: Deinterlacer(method: .bwdif, rate: rate))
                #expect(gpu.count == cpu.count && gpu.count == gpuPictures.count * (rate == .field ? 2 : 1))
                // Never read back: each output is a GPU surface the driver wrote, progressive.
                #expect(gpu.allSatisfy { $0.onGPU && $0.pixelFormat == .nv12VideoRange && $0.fieldCount == 1 })
                #expect(gpu.map(\.time) == cpu.map(\.time))
                #expect(gpu.map(\.md5) == cpu.map(\.md5))
            }()
            let after = try HardwareSessions.liveObjects()
            #expect(after == live, "every surface, context and config is gone: \(after) vs \(live)")
        }

        /// `usesGPU: false` and yadif read the surfaces back: the CPU's pictures, and the path says why.
        @Test func otherwiseTheCPUDeinterlacesAndSaysWhy() throws {
            let gpuPictures = Array(try Self.pictures("mpeg2-interlaced.ts", onGPU: true).prefix(6))
            let cpuPictures = Array(try Self.pictures("mpeg2-interlaced.ts", onGPU: false).prefix(6))
            for (deinterlacer, reason) in [
                (Deinterlacer(method: .bwdif, usesGPU: false), "the deinterlacer was made to run on the CPU"),
                (
                    Deinterlacer(method: .yadif),
                    "yadif runs on the CPU (the GPU's motion-adaptive deinterlacing stands in for bwdif)"
                ),
            ] {
                let gpu = try Self.deinterlace(gpuPictures, with: deinterlacer)
                let cpu = try Self.deinterlace(cpuPictures, with: Deinterlacer(method: deinterlacer.method))
                #expect(deinterlacer.path == .cpu(reason: reason))
                #expect(gpu.allSatisfy { !$0.onGPU })
                #expect(gpu.map(\.time) == cpu.map(\.time))
                #expect(gpu.map(\.md5) == cpu.map(\.md5))
            }
        }

        /// A picture in CPU memory after GPU ones hands the sequence to the CPU mid-way: the
        /// pictures are still the CPU's, and the path says why.
        @Test func aCPUPictureMidSequenceMovesItToTheCPU() throws {
            let gpuPictures = Array(try Self.pictures("mpeg2-interlaced.ts", onGPU: true).prefix(8))
            let cpuPictures = Array(try Self.pictures("mpeg2-interlaced.ts", onGPU: false).prefix(8))
            // The last three copied into CPU memory, in the surfaces' layout (as a session hands
            // out copies when the application holds too many surfaces).
            let copier = PixelTransferSession(convertsOnGPU: false)
            let copies = try gpuPictures.suffix(3).map { (image, time) in
                (try copier.transferImage(image, pixelFormat: image.pixelFormat), time)
            }
            let mixed = Array(gpuPictures.prefix(5)) + copies
            let deinterlacer = Deinterlacer(method: .bwdif, rate: .field)
            let outputs = try Self.deinterlace(mixed, with: deinterlacer)
            let cpu = try Self.deinterlace(cpuPictures, with: Deinterlacer(method: .bwdif, rate: .field))
            #expect(deinterlacer.path == .cpu(reason: "a picture is not a GPU surface"))
            #expect(outputs.prefix(6).allSatisfy { $0.onGPU })
            #expect(outputs.map(\.time) == cpu.map(\.time))
            #expect(outputs.map(\.md5) == cpu.map(\.md5))
        }
    }
}
