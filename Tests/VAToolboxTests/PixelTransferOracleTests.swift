import Foundation
import Synchronization
import Testing

@testable import VAToolbox

/// Converted and scaled output compared frame by frame with the `ffmpeg` CLI converting the same
/// stream (`-pix_fmt`, `-s`): libswscale with the CLI's settings must give the same bytes.
@Suite struct PixelTransferOracleTests {
    /// `ffmpeg -i FILE [-s WxH] -pix_fmt FORMAT -f framemd5 -`, run now; the MD5 column.
    static func ffmpegFrameMD5s(_ stream: StreamFile, pixelFormat: String, size: (Int, Int)? = nil) throws -> [String] {
        var arguments = ["-v", "error", "-i", stream.url.path, "-fps_mode", "passthrough"]
        if let size {
            arguments += ["-s", "\(size.0)x\(size.1)"]
        } else {
            // Each frame at its own size (the resolution-change fixture); -s needs autoscale.
            arguments += ["-autoscale", "0"]
        }
        arguments += ["-pix_fmt", pixelFormat, "-f", "framemd5", "-"]
        let text = try CommandRunner.run(URL(fileURLWithPath: "/usr/bin/ffmpeg"), arguments).text
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces)
        }
    }

    /// Decodes a fixture with attributes; returns the outputs and the session's pool.
    static func converted(_ name: String, attributes: ImageBufferAttributes) throws -> (
        images: [PixelBuffer], pool: PixelBufferPool?
    ) {
        let stream = try #require(StreamFile.validFixtures.first { $0.name == name })
        let samples = ElementaryStreamParser.samples(in: try stream.bytes(), codec: stream.codec)
        let images = Mutex<[PixelBuffer]>([])
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription, imageBufferAttributes: attributes
        ) { output in
            #expect(output.status == nil)
            if let image = output.imageBuffer { images.withLock { $0.append(image) } }
        }
        try decode(samples, with: session, then: .finish)
        let pool = session.pixelBufferPool
        session.invalidate()
        return (images.withLock { $0 }, pool)
    }

    /// (fixture, requested FourCC, ffmpeg's name for it): every valid fixture to NV12 (P010 for
    /// 10-bit ones) and to BGRA.
    static let cases: [(String, PixelFormat, String)] = StreamFile.validFixtures.flatMap { stream in
        let tenBit = stream.name.contains("10")
        return [
            (stream.name, tenBit ? PixelFormat.p010VideoRange : .nv12VideoRange, tenBit ? "p010le" : "nv12"),
            (stream.name, .bgra, "bgra"),
        ]
    }

    @Test(.enabled(if: TestData.hasFFprobe), arguments: cases.map { "\($0.0) → \($0.2)" })
    func convertedFramesMatchFFmpeg(label: String) throws {
        let (name, format, ffmpegName) = try #require(Self.cases.first { "\($0.0) → \($0.2)" == label })
        let stream = try #require(StreamFile.validFixtures.first { $0.name == name })
        let expected = try Self.ffmpegFrameMD5s(stream, pixelFormat: ffmpegName)
        let (images, pool) = try Self.converted(name, attributes: ImageBufferAttributes(pixelFormat: format))
        #expect(images.count == expected.count, "\(name) → \(format)")
        #expect(images.allSatisfy { $0.pixelFormat == format })
        #expect(images.map(\.md5) == expected, "\(name) → \(format)")
        let first = try #require(ElementaryStreamParser.samples(in: try stream.bytes(), codec: stream.codec).first)
        guard format != DecompressionSession.nativePixelFormat(for: first.formatDescription) else {
            // The native format: the CPU's planar pictures packed at hand-out, not converted
            // (no pool); NV12 keeps the decoder's luma plane and copies only the chroma.
            #expect(pool == nil, "\(name) → \(format)")
            for image in images {
                let luma = image.width * image.height
                let copied = format == .p010VideoRange ? image.rawVideoByteCount : image.rawVideoByteCount - luma
                #expect(image.copiedByteCount == copied, "\(name) → \(format): \(image)")
            }
            return
        }
        // Converted buffers are copies, counted; they come from a pool that recycles them.
        #expect(images.allSatisfy { $0.copiedByteCount == $0.rawVideoByteCount })
        #expect(pool?.pixelFormat == format)
    }

    @Test(.enabled(if: TestData.hasFFprobe))
    func scaledFramesMatchFFmpeg() throws {
        let stream = try #require(StreamFile.validFixtures.first { $0.name == "h264-high-bpyramid.264" })
        let expected = try Self.ffmpegFrameMD5s(stream, pixelFormat: "nv12", size: (176, 144))
        let (images, _) = try Self.converted(
            "h264-high-bpyramid.264",
            attributes: ImageBufferAttributes(pixelFormat: .nv12VideoRange, width: 176, height: 144))
        #expect(images.allSatisfy { $0.width == 176 && $0.height == 144 })
        #expect(images.map(\.md5) == expected)
    }

    @Test func poolRecyclesBuffersAndHonoursItsMinimum() throws {
        // The handler keeps no image: the pool needs only the buffers alive at once.
        let stream = try #require(StreamFile.validFixtures.first { $0.name == "h264-high-bpyramid.264" })
        let samples = ElementaryStreamParser.samples(in: try stream.bytes(), codec: .h264)
        let count = Mutex(0)
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription,
            imageBufferAttributes: ImageBufferAttributes(pixelFormat: .bgra, minimumBufferCount: 3)
        ) { output in
            if output.imageBuffer != nil { count.withLock { $0 += 1 } }
        }
        for sample in samples { try session.decodeFrame(sample) }
        try session.finishDelayedFrames()
        let pool = try #require(session.pixelBufferPool)
        #expect(count.withLock { $0 } == 48)
        #expect(pool.minimumBufferCount == 3)
        #expect(
            pool.allocatedBufferCount >= 3 && pool.allocatedBufferCount <= 4,
            "allocated \(pool.allocatedBufferCount) for 48 frames")
        session.invalidate()
    }

    @Test func poolBuffersHaveTheLayoutAsked() throws {
        let pool = try PixelBufferPool(pixelFormat: .nv12VideoRange, width: 642, height: 362, minimumBufferCount: 2)
        #expect(pool.allocatedBufferCount == 2)
        let buffer = try pool.makePixelBuffer()
        #expect(pool.allocatedBufferCount == 2, "a pre-allocated buffer is reused")
        buffer.withLockedPlanes { planes in
            #expect(planes.count == 2)
            #expect(planes[0].width == 642 && planes[0].height == 362 && planes[0].bytesPerRow >= 642)
            #expect(planes[1].width == 321 && planes[1].height == 181 && planes[1].bytesPerRowOfPixels == 642)
            #expect(planes.allSatisfy { $0.bytesPerRow % 64 == 0 })
        }
        #expect(throws: VTError.parameter) { try PixelBufferPool(pixelFormat: .nv12VideoRange, width: 0, height: 10) }
        #expect(throws: VTError.parameter) {
            try PixelBufferPool(pixelFormat: PixelFormat(fourCC: "zzzz"), width: 10, height: 10)
        }
    }

    @Test func badAttributesAreRejected() throws {
        let stream = try #require(StreamFile.validFixtures.first { $0.name == "h264-high-bpyramid.264" })
        let format = try #require(
            ElementaryStreamParser.samples(in: try stream.bytes(), codec: .h264).first?.formatDescription)
        #expect(throws: VTError.parameter) {
            try DecompressionSession(
                formatDescription: format, imageBufferAttributes: .init(pixelFormat: PixelFormat(fourCC: "zzzz"))
            ) { _ in }
        }
        #expect(throws: VTError.parameter) {
            try DecompressionSession(formatDescription: format, imageBufferAttributes: .init(width: 0)) { _ in }
        }
        #expect(throws: VTError.parameter) {
            try DecompressionSession(formatDescription: format, imageBufferAttributes: .init(minimumBufferCount: -1)) {
                _ in
            }
        }
    }
}
