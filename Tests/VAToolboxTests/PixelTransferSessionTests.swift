import Foundation
import Testing

@testable import VAToolbox

/// The public picture helpers: `PixelTransferSession` (VTPixelTransferSession) and
/// `PixelBuffer.pngData()`, against the ffmpeg CLI converting and encoding the same pictures.
@Suite("PixelTransferSession", .enabled(if: TestData.hasFFprobe))
struct PixelTransferSessionTests {
    static let fixture = "h264-high-bpyramid.264"

    /// The fixture's pictures in their native format.
    static func pictures() throws -> [PixelBuffer] {
        // The decoder's planar pictures, which the ffmpeg CLI converts from.
        try PixelTransferOracleTests.converted(fixture, attributes: ImageBufferAttributes(pixelFormat: .yuv420Planar))
            .images
    }

    static func stream() throws -> StreamFile {
        try #require(StreamFile.validFixtures.first { $0.name == fixture })
    }

    @Test(
        "converting and scaling each picture gives ffmpeg's bytes",
        arguments: [
            (PixelFormat.nv12VideoRange, "nv12", nil as Int?), (.bgra, "bgra", nil), (.rgb24, "rgb24", nil),
            (.nv12VideoRange, "nv12", 176),
        ])
    func transferMatchesFFmpeg(format: PixelFormat, ffmpegName: String, width: Int?) throws {
        let size = width.map { ($0, 144) }
        let expected = try PixelTransferOracleTests.ffmpegFrameMD5s(
            try Self.stream(), pixelFormat: ffmpegName, size: size)
        let session = PixelTransferSession()
        let converted = try Self.pictures().map { picture in
            try session.transferImage(picture, pixelFormat: format, width: size?.0, height: size?.1)
        }
        #expect(converted.allSatisfy { $0.pixelFormat == format })
        #expect(converted.map(\.md5) == expected)
    }

    /// A semi-planar picture copied into its own format (libswscale's own copy of NV12, NV21 or
    /// P010 into itself writes no chroma: a black-and-green picture) is the picture, byte for
    /// byte: ffmpeg's `-pix_fmt nv12` / `p010le` pictures, and the source's.
    @Test(
        "a semi-planar picture copied into its own format keeps its chroma",
        arguments: [
            (PixelFormat.nv12VideoRange, "h264-high-bpyramid.264", "nv12"),
            (.p010VideoRange, "h264-high10.264", "p010le"),
        ])
    func sameFormatCopy(format: PixelFormat, fixture: String, ffmpegName: String) throws {
        let sources = try PixelTransferOracleTests.converted(
            fixture, attributes: ImageBufferAttributes(pixelFormat: format)
        )
        .images
        let session = PixelTransferSession()
        let copies = try sources.map { try session.transferImage($0, pixelFormat: format) }
        #expect(copies.count == sources.count && !copies.isEmpty)
        #expect(copies.map(\.md5) == sources.map(\.md5))
        let stream = try #require(StreamFile.validFixtures.first { $0.name == fixture })
        #expect(copies.map(\.md5) == (try PixelTransferOracleTests.ffmpegFrameMD5s(stream, pixelFormat: ffmpegName)))
    }

    @Test("into a buffer of the caller's, as VTPixelTransferSessionTransferImage")
    func transferIntoDestination() throws {
        let expected = try PixelTransferOracleTests.ffmpegFrameMD5s(try Self.stream(), pixelFormat: "bgra")
        let pictures = try Self.pictures()
        let first = try #require(pictures.first)
        let pool = try PixelBufferPool(pixelFormat: .bgra, width: first.width, height: first.height)
        let session = PixelTransferSession()
        var md5s: [String] = []
        for picture in pictures {
            let destination = try pool.makePixelBuffer()
            try session.transferImage(picture, to: destination)
            md5s.append(destination.md5)
        }
        #expect(md5s == expected)
        // The decoder's own pictures are never written: a second decode gives the same.
        #expect(try Self.pictures().map(\.md5) == pictures.map(\.md5))
    }

    @Test("a format libswscale cannot write is refused with kVTPixelTransferNotSupportedErr or a parameter error")
    func refusals() throws {
        let picture = try #require(try Self.pictures().first)
        #expect(throws: VTError.parameter) {
            _ = try PixelTransferSession().transferImage(picture, pixelFormat: PixelFormat(fourCC: "zzzz"))
        }
        #expect(throws: VTError.parameter) {
            _ = try PixelTransferSession().transferImage(picture, pixelFormat: .bgra, width: 0, height: 10)
        }
    }

    /// Decodes a PNG file with the ffmpeg CLI to raw RGB24.
    static func rgb(ofPNG url: URL) throws -> Data {
        let result = try CommandRunner.ffmpeg(["-i", url.path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        try #require(result.status == 0, "ffmpeg could not read \(url.lastPathComponent): \(result.standardError)")
        return result.standardOutput
    }

    @Test(
        "pngData(): ffmpeg reads it, and its pixels are those of ffmpeg's own PNG of the frame", arguments: [0, 7, 47])
    func pngMatchesFFmpeg(frame: Int) throws {
        let pictures = try Self.pictures()
        let picture = try #require(pictures.indices.contains(frame) ? pictures[frame] : nil)
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ours = directory.appendingPathComponent("ours.png")
        let theirs = directory.appendingPathComponent("theirs.png")
        let png = try picture.pngData()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        try Data(png).write(to: ours)
        let made = try CommandRunner.ffmpeg([
            "-i", try Self.stream().url.path, "-vf", "select=eq(n\\,\(frame))", "-frames:v", "1", theirs.path,
        ])
        try #require(made.status == 0, "ffmpeg could not write its PNG: \(made.standardError)")
        let probe = try CommandRunner.ffprobe([
            "-show_entries", "stream=codec_name,width,height,pix_fmt", "-of", "csv=p=0", ours.path,
        ])
        #expect(
            probe.text.trimmingCharacters(in: .whitespacesAndNewlines) == "png,\(picture.width),\(picture.height),rgb24"
        )
        let ourPixels = try Self.rgb(ofPNG: ours)
        #expect(ourPixels.count == picture.width * picture.height * 3)
        #expect(ourPixels == (try Self.rgb(ofPNG: theirs)))
    }

    @Test("pngData() of a BGRA or RGB buffer encodes the same pixels")
    func pngOfConverted() throws {
        let picture = try #require(try Self.pictures().first)
        let session = PixelTransferSession()
        let native = try picture.pngData()
        #expect(try session.transferImage(picture, pixelFormat: .rgb24).pngData() == native)
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = directory.appendingPathComponent("a.png")
        let b = directory.appendingPathComponent("b.png")
        try Data(native).write(to: a)
        try Data(try session.transferImage(picture, pixelFormat: .bgra).pngData()).write(to: b)
        #expect(try Self.rgb(ofPNG: a) == (try Self.rgb(ofPNG: b)))
    }
}
