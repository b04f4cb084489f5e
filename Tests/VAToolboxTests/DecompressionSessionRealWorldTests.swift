import Foundation
import Testing

@testable import VAToolbox

/// The session on files ffmpeg decodes cleanly and VAToolbox once did not (issue 21, item 10), one
/// category each, made by Scripts/make-fixtures. Oracles: the committed `ffmpeg -f framemd5` and
/// ffprobe output, and the ffmpeg CLI at test time. The manifest-driven suites run the same files
/// through the tool and the GPU path as well.
@Suite struct DecompressionSessionRealWorldTests {
    static func fixture(_ name: String) -> URL { TestData.fixtures.appendingPathComponent(name) }

    /// The MD5 column of a committed framemd5 oracle.
    static func oracle(_ name: String) throws -> [String] {
        try FrameMD5Oracle(contentsOf: fixture(name).appendingPathExtension("framemd5")).frames.map(\.md5)
    }

    /// ffprobe's stream entry of a fixture's committed oracle.
    static func probedStream(_ name: String) throws -> [String: String] {
        try FFprobeOracle.parse(Data(contentsOf: fixture(name).appendingPathExtension("ffprobe.json"))).stream
    }

    /// Decodes on the CPU, as the planar pictures libavcodec makes.
    static func cpuOutputs(_ samples: [SampleBuffer], format: VideoFormatDescription? = nil) throws
        -> [DecompressionOutput]
    {
        let format = format ?? samples[0].formatDescription
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: format, decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled),
            imageBufferAttributes: ImageBufferAttributes(
                pixelFormat: DecompressionSession.planarPixelFormat(for: format)),
            outputHandler: outputs.handler)
        try decode(samples, with: session)
        return outputs.all
    }

    // MARK: - MPEG-2 in AVI without a sequence header

    /// A VCR2 stream carries no sequence header: libavcodec starts it from the container's size and
    /// FourCC, which the session passes on as the ffmpeg CLI does. Without them every picture
    /// failed ("Invalid frame dimensions 0x0").
    @Test func anMPEG2StreamWithoutSequenceHeaderStartsFromTheContainer() throws {
        let name = "mpeg2-vcr2.avi"
        let samples = try TestData.samples(name)
        let format = samples[0].formatDescription
        #expect(
            samples.allSatisfy { sample in
                !MPEG2StartCodeUnit.split(sample.data[...]).contains {
                    $0.startCode == MPEG2StartCodeUnit.sequenceHeaderCode
                }
            })
        #expect(format.dimensions == VideoDimensions(width: 176, height: 144))
        #expect(MPEG2CodecSupport.isVCR2(format))
        let outputs = try Self.cpuOutputs(samples)
        #expect(outputs.allSatisfy { $0.status == nil })
        #expect(outputs.compactMap(\.imageBuffer).map(planarMD5) == (try Self.oracle(name)))

        // The cause: a decoder not told the container's FourCC finds no size to start from.
        var untagged = format
        untagged.containerCodecTag = 0
        let rewrapped = try samples.map {
            try SampleBuffer(data: $0.data, formatDescription: untagged, timing: $0.timing)
        }
        let failed = try Self.cpuOutputs(rewrapped, format: untagged)
        #expect(failed.allSatisfy { $0.imageBuffer == nil && $0.status != nil })
        #expect(failed.first?.status?.description.contains("Invalid frame dimensions") == true)
    }

    // MARK: - VP9 4:4:0

    static let vp9With440 = [
        ("vp9-profile1-440.ivf", PixelFormat.yuv440Planar, "yuv440p"),
        ("vp9-profile3-440-10bit.ivf", .yuv440Planar10, "yuv440p10le"),
        ("vp9-profile3-440-12bit.ivf", .yuv440Planar12, "yuv440p12le"),
    ]

    /// VP9 4:4:0 comes out planar, as libavcodec decodes it, from the container's description and
    /// from the key frame's alike: 4:4:0 pictures (chroma of full width, half height) equal to ffmpeg's.
    @Test(arguments: vp9With440)
    func vp9In440DecodesToPlanar440(name: String, format: PixelFormat, ffmpegName: String) throws {
        #expect(try Self.probedStream(name)["pix_fmt"] == ffmpegName)
        #expect(format.ffmpegName == ffmpegName)
        let samples = try TestData.samples(name)
        let container = samples[0].formatDescription
        let keyFrame = try VideoFormatDescription(vp9KeyFrame: samples[0].data)
        for description in [container, keyFrame] {
            #expect(description.stream.chromaFormatIdc == StreamProperties.chromaFormat440)
            #expect(description.stream.chromaFormatName == "4:4:0")
            #expect(DecompressionSession.nativePixelFormat(for: description) == format)
        }
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: container, decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled),
            outputHandler: outputs.handler)
        try decode(samples, with: session)
        let images = outputs.all.compactMap(\.imageBuffer)
        #expect(outputs.all.allSatisfy { $0.status == nil })
        #expect(images.allSatisfy { $0.pixelFormat == format })
        #expect(images.map(planarMD5) == (try Self.oracle(name)))
    }

    /// A 4:4:0 picture converts to BGRA (and NV12) with ffmpeg's bytes, in a session and through
    /// `PixelTransferSession`.
    @Test(.enabled(if: CommandRunner.hasFFmpeg), arguments: vp9With440.map(\.0))
    func vp9In440ConvertsAsFFmpegConverts(name: String) throws {
        let stream = StreamFile(name: name, url: Self.fixture(name), codec: .vp9, isFixture: true)
        let samples = try TestData.samples(name)
        let pictures = try Self.cpuOutputs(samples).compactMap(\.imageBuffer)
        let transfer = PixelTransferSession()
        for (format, ffmpegName) in [(PixelFormat.bgra, "bgra"), (.nv12VideoRange, "nv12")] {
            let expected = try PixelTransferOracleTests.ffmpegFrameMD5s(stream, pixelFormat: ffmpegName)
            #expect(expected.count == pictures.count)
            let converted = try pictures.map { try transfer.transferImage($0, pixelFormat: format) }
            #expect(converted.map(\.md5) == expected, "\(name) → \(ffmpegName)")
            let outputs = Outputs()
            let session = try DecompressionSession(
                formatDescription: samples[0].formatDescription,
                decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled),
                imageBufferAttributes: ImageBufferAttributes(pixelFormat: format), outputHandler: outputs.handler)
            try decode(samples, with: session)
            #expect(outputs.all.compactMap(\.imageBuffer?.md5) == expected, "\(name) → \(ffmpegName), in a session")
        }
    }

    // MARK: - An MP4 sample entry smaller than the SPS's picture

    /// The avc1 sample entry says 168x136, the SPS 176x144: libavcodec crops to the container's
    /// size, and so do the description and the pictures. A description made from the same avcC
    /// alone keeps the SPS's size.
    @Test func aSmallerSampleEntryCropsThePictures() throws {
        let name = "h264-sample-entry-smaller.mp4"
        let stream = try Self.probedStream(name)
        #expect(stream["width"] == "168" && stream["height"] == "136")
        let samples = try TestData.samples(name)
        let format = samples[0].formatDescription
        #expect(format.dimensions == VideoDimensions(width: 168, height: 136))
        #expect(format.codedDimensions == VideoDimensions(width: 176, height: 144))
        #expect(format.cleanAperture == CleanAperture(left: 0, top: 0, width: 168, height: 136))
        let record = try VideoFormatDescription(avcC: format.extensions.decoderConfigurationRecord)
        #expect(record.dimensions == VideoDimensions(width: 176, height: 144))
        let outputs = try Self.cpuOutputs(samples)
        let images = outputs.compactMap(\.imageBuffer)
        #expect(outputs.allSatisfy { $0.status == nil })
        #expect(images.allSatisfy { $0.width == 168 && $0.height == 136 })
        #expect(images.map(planarMD5) == (try Self.oracle(name)))
    }

    /// libavcodec's rule, against the ffmpeg CLI on copies whose sample entry says other sizes: it
    /// crops to a size no larger than the SPS's that rounds up to the same multiple of 16, and
    /// ignores any other (larger, or another multiple of 16).
    @Test(
        .enabled(if: CommandRunner.hasTool && CommandRunner.hasFFmpeg),
        arguments: [(168, 136), (161, 129), (176, 144), (160, 136), (168, 128), (184, 144), (176, 152)])
    func theToolCropsToTheSampleEntryAsFFmpegDoes(width: Int, height: Int) throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var bytes = try TestData.bytes(Self.fixture("h264-sample-entry-smaller.mp4"))
        let stsd = try #require(Self.find("stsd", in: bytes))
        let entry = try #require(Self.find("avc1", in: bytes, from: stsd))
        bytes[entry + 28] = UInt8(width >> 8)
        bytes[entry + 29] = UInt8(width & 0xFF)
        bytes[entry + 30] = UInt8(height >> 8)
        bytes[entry + 31] = UInt8(height & 0xFF)
        let copy = directory.appendingPathComponent("entry.mp4")
        try Data(bytes).write(to: copy)
        let ours = try CommandRunner.vatoolbox(["framemd5", copy.path])
        let theirs = try CommandRunner.ffmpeg(["-i", copy.path, "-f", "framemd5", "-"])
        #expect(ours.status == 0, "\(ours.standardError)")
        #expect(theirs.status == 0)
        #expect(ours.text == theirs.text, "sample entry \(width)x\(height)")
    }

    /// The offset of the first `tag` at or after `start`.
    static func find(_ tag: String, in bytes: [UInt8], from start: Int = 0) -> Int? {
        let pattern = Array(tag.utf8)
        return (start..<(bytes.count - pattern.count)).first { Array(bytes[$0..<($0 + pattern.count)]) == pattern }
    }

    // MARK: - MP4s remuxed from raw streams

    /// `ffmpeg -i raw -c copy out.mp4` gives every sample its decode time as presentation time:
    /// the pictures still come out in presentation order, each with the decode time stamp of the
    /// sample that released it, as libavcodec's pkt_dts (ffprobe's frames), from which the ffmpeg
    /// CLI makes its times.
    @Test(arguments: ["h264-remuxed-from-annexb.mp4", "hevc-remuxed-from-annexb.mp4"])
    func remuxedFilesHandOutEveryPictureWithItsReleasingSample(name: String) throws {
        let reader = try MediaFileReader(path: Self.fixture(name).path)
        let samples = try reader.readAllSamples()
        #expect(samples.allSatisfy { $0.presentationTimeStamp == $0.decodeTimeStamp })
        let outputs = try Self.cpuOutputs(samples)
        #expect(outputs.allSatisfy { $0.status == nil })
        let shown = outputs.filter { $0.imageBuffer != nil }
        // Every picture the decoder outputs (the oracle is made with -fps_mode passthrough); the
        // samples before the edit list's start are decoded, not shown.
        #expect(shown.compactMap(\.imageBuffer).map(planarMD5) == (try Self.oracle(name)))
        #expect(outputs.count == samples.count)
        let data = try Data(contentsOf: Self.fixture(name).appendingPathExtension("ffprobe.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let frames = try #require(root["frames"] as? [[String: Any]])
        let released = frames.map { frame in
            (frame["pkt_dts"] as? Int).map { MediaTime(value: Int64($0), timescale: reader.timescale) } ?? .invalid
        }
        #expect(shown.map(\.releasingDecodeTimeStamp) == released)
        // Presentation time stamps go back (they are decode order); the releasing ones do not.
        let times = shown.map(\.presentationTimeStamp)
        #expect(zip(times, times.dropFirst()).contains { $0.0 > $0.1 })
        let releases = released.filter(\.isValid)
        #expect(zip(releases, releases.dropFirst()).allSatisfy { $0.0 < $0.1 })
    }

    // MARK: - An MPEG-2 stream that changes size

    /// At the second sequence header libavcodec restarts its MPEG-2 decoder and drops the anchor
    /// picture it held for output: that frame comes out dropped without an error, as ffmpeg
    /// counts no error; every other picture is ffmpeg's.
    @Test func anMPEG2SizeChangeDropsOnePictureWithoutAnError() throws {
        let name = "mpeg2-size-change.m2v"
        let samples = try TestData.samples(name)
        let outputs = try Self.cpuOutputs(samples)
        #expect(outputs.count == samples.count)
        #expect(outputs.allSatisfy { $0.status == nil }, "\(outputs.compactMap(\.status))")
        let dropped = outputs.filter { $0.imageBuffer == nil }
        #expect(dropped.count == 1)
        #expect(dropped.allSatisfy { $0.infoFlags.contains(.frameDropped) })
        // The anchor before the change: the last P picture of the first part (decode order 4).
        #expect(dropped.first?.frameRefcon as? Int == 4)
        let images = outputs.compactMap(\.imageBuffer)
        #expect(images.map(planarMD5) == (try Self.oracle(name)))
        #expect(Set(images.map(\.width)) == [176, 128])
    }

    // MARK: - RGB

    /// H.264 and HEVC RGB (4:4:4 with the identity matrix, which libavcodec decodes to planar GBR)
    /// are refused when the session is made, with the reason, as VP9 and AV1 RGB are.
    @Test(arguments: ["h264-rgb.264", "hevc-gbrp.265"])
    func rgbStreamsAreRefusedUpFront(name: String) throws {
        let stream = try Self.probedStream(name)
        #expect(stream["pix_fmt"] == "gbrp" && stream["color_space"] == "gbr")
        let format = try TestData.samples(name)[0].formatDescription
        #expect(format.stream.chromaFormatIdc == 3)
        #expect(format.extensions.yCbCrMatrix == .identity)
        let error = #expect(throws: VTError.couldNotFindVideoDecoder) {
            _ = try DecompressionSession(
                formatDescription: format,
                decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled)
            ) { _ in }
        }
        #expect(error?.reason.contains("RGB") == true, "\(String(describing: error))")
    }

    /// VP9 (sRGB) and AV1 (identity matrix) RGB, which their containers already name `gbrp`, are
    /// refused from their own bitstream's descriptions too: a VP9 key frame, an AV1 sequence header.
    @Test(.enabled(if: CommandRunner.hasFFmpeg), arguments: ["libvpx-vp9", "libaom-av1"])
    func vp9AndAV1RGBAreRefusedFromTheirBitstreamToo(encoder: String) throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("rgb.ivf")
        let made = try CommandRunner.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=25", "-frames:v", "2", "-pix_fmt", "gbrp", "-c:v", encoder,
            "-cpu-used", "8", "-f", "ivf", file.path,
        ])
        try #require(made.status == 0, "\(made.standardError)")
        #expect(throws: VTError.couldNotFindVideoDecoder) { try MediaFileReader(path: file.path) }
        var reader = try IVFReader(try TestData.bytes(file))
        let first = Array(try #require(try reader.next()).data)
        let format: VideoFormatDescription
        if encoder == "libvpx-vp9" {
            format = try VideoFormatDescription(vp9KeyFrame: first)
        } else {
            let header = try #require(try AV1OBU.split(first[...]).first { $0.obuType == .sequenceHeader })
            format = try VideoFormatDescription(av1SequenceHeaderOBU: header.lowOverheadBytes)
        }
        #expect(format.stream.chromaFormatIdc == 3 && format.extensions.yCbCrMatrix == .identity)
        let error = #expect(throws: VTError.couldNotFindVideoDecoder) {
            _ = try DecompressionSession(
                formatDescription: format,
                decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled)
            ) { _ in }
        }
        #expect(error?.reason.contains("RGB") == true, "\(String(describing: error))")
    }

    /// The refusal is RGB's only: the same encoder's 4:4:4 YCbCr stream decodes, as ffmpeg does.
    @Test(.enabled(if: CommandRunner.hasFFmpeg)) func a444YCbCrStreamIsNotRefused() throws {
        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("yuv444.264")
        let made = try CommandRunner.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=176x144:rate=25", "-frames:v", "3", "-pix_fmt", "yuv444p",
            "-c:v", "libx264", "-threads", "1", "-colorspace", "bt709", "-f", "h264", file.path,
        ])
        try #require(made.status == 0, "\(made.standardError)")
        let samples = try TestData.samples(file.path)
        #expect(samples[0].formatDescription.stream.chromaFormatIdc == 3)
        let outputs = try Self.cpuOutputs(samples)
        let expected = try CommandRunner.ffmpeg(["-i", file.path, "-f", "framemd5", "-"]).text
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces) }
        #expect(outputs.allSatisfy { $0.status == nil })
        #expect(outputs.compactMap(\.imageBuffer).map(planarMD5) == expected)
    }
}
