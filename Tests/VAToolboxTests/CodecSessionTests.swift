import Foundation
import Synchronization
import Testing

@testable import VAToolbox

/// A file of a codec beyond H.264/HEVC read through ``MediaFileReader``: a committed fixture
/// (with its `ffmpeg -f framemd5` and ffprobe oracles) or a cros-codecs conformance stream (with
/// its per-frame NV12 MD5s).
struct CodecFile: Sendable, CustomTestStringConvertible, Hashable {
    let name: String
    let url: URL
    let codec: VideoCodecType
    /// Whether the test VA driver's profiles cover it (4:2:0, 8 or 10 bits, a VA-API profile, at
    /// least the driver's 16x16), and the session lets the GPU decode it (not a VCR2 stream).
    let decodesOnTheGPU: Bool

    var testDescription: String { name }

    /// The committed fixtures of the new codecs (`Tests/Fixtures/manifest.tsv`).
    static let fixtures: [CodecFile] = TestData.tsv(TestData.fixtures.appendingPathComponent("manifest.tsv"))
        .compactMap { row in
            guard let file = row["file"], let codec = codecs[row["codec"] ?? ""] else { return nil }
            return CodecFile(
                name: file, url: TestData.fixtures.appendingPathComponent(file), codec: codec,
                decodesOnTheGPU: !file.contains("444") && !file.contains("440")
                    && !["vp9-8x8.ivf", "mpeg2-vcr2.avi"].contains(file))
        }

    /// The cros-codecs VP8, VP9 and AV1 streams that have per-frame MD5s.
    static let conformance: [CodecFile] = {
        guard let root = TestData.conformance else { return [] }
        var files: [CodecFile] = []
        for (folder, codec) in [
            ("cros-codecs-vp8", VideoCodecType.vp8), ("cros-codecs-vp9", .vp9), ("cros-codecs-av1", .av1),
        ] {
            let directory = root.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names.sorted() where names.contains(name + ".md5") {
                files.append(
                    CodecFile(
                        name: "\(folder)/\(name)", url: directory.appendingPathComponent(name), codec: codec,
                        decodesOnTheGPU: true))
            }
        }
        return files
    }()

    private static let codecs: [String: VideoCodecType] = [
        "av1": .av1, "vp9": .vp9, "vp8": .vp8, "mpeg2": .mpeg2Video,
    ]

    /// The file's samples with four random bytes flipped in about one sample of three, keeping
    /// those whose framing still makes a sample (the others are refused when made, as they must be).
    func mutatedSamples(using generator: inout SeededGenerator) throws -> [SampleBuffer] {
        var mutated: [SampleBuffer] = []
        for sample in try TestData.samples(url.path) {
            var bytes = sample.data
            if Int.random(in: 0..<3, using: &generator) == 0 {
                for _ in 0..<4 {
                    let index = Int.random(in: 0..<bytes.count, using: &generator)
                    bytes[index] ^= UInt8.random(in: 1...255, using: &generator)
                }
            }
            if let damaged = try? SampleBuffer(
                data: bytes, formatDescription: sample.formatDescription, timing: sample.timing,
                attachments: sample.attachments)
            {
                mutated.append(damaged)
            }
        }
        return mutated
    }

    /// The per-frame MD5s of the cros-codecs `X.md5` file.
    func nv12Checksums() throws -> [String] {
        try String(contentsOf: URL(fileURLWithPath: url.path + ".md5"), encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// AV1, VP9, VP8 and MPEG-2 through the session on the CPU, against ffmpeg's and cros-codecs'
/// checksums, with the codec-specific rules of format descriptions and samples.
@Suite struct CodecSessionTests {
    /// Decodes every sample on the CPU (refcon = index), finishes and invalidates.
    static func cpuOutputs(
        _ samples: [SampleBuffer], attributes: ImageBufferAttributes? = nil, threads: Int = 2
    ) throws -> [DecompressionOutput] {
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: samples[0].formatDescription,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: threads),
            imageBufferAttributes: attributes, outputHandler: outputs.handler)
        #expect(!session.usingHardwareAcceleratedVideoDecoder)
        try decode(samples, with: session, flags: [.enableAsynchronousDecompression], then: .all)
        return outputs.all
    }

    @Test(arguments: CodecFile.fixtures)
    func fixturesDecodeFrameForFrameAsFFmpegDoes(file: CodecFile) throws {
        let samples = try TestData.samples(file.url.path)
        #expect(samples[0].formatDescription.codecType == file.codec)
        let oracle = try FrameMD5Oracle(contentsOf: file.url.appendingPathExtension("framemd5")).frames
        let outputs = try Self.cpuOutputs(samples)
        #expect(outputs.count == samples.count, "one output per sample")
        #expect(outputs.allSatisfy { $0.status == nil }, "\(outputs.compactMap(\.status).first.map { "\($0)" } ?? "")")
        let images = outputs.compactMap(\.imageBuffer)
        #expect(images.count == oracle.count, "\(file.name): pictures")
        // The native format (NV12/P010 for 4:2:0), taken apart into ffmpeg's planes by the test.
        let native = DecompressionSession.nativePixelFormat(for: samples[0].formatDescription)
        for (index, (image, frame)) in zip(images, oracle).enumerated() {
            #expect(image.pixelFormat == native, "\(file.name) picture \(index)")
            #expect(planarMD5(image) == frame.md5, "\(file.name) picture \(index)")
        }
        // Presentation order: time stamps never go back (an elementary stream's anchor pictures
        // have none).
        let times = outputs.filter { $0.imageBuffer != nil }.map(\.presentationTimeStamp).filter(\.isValid)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0.0 < $0.1 }, "\(file.name): presentation order")
    }

    @Test(.needsConformance, arguments: CodecFile.conformance)
    func crosCodecsStreamsMatchTheirNV12Checksums(file: CodecFile) throws {
        var expected = try file.nv12Checksums()
        let samples = try TestData.samples(file.url.path)
        if expected.count < samples.count / 2 {
            // resolution_change_500frames' .md5 holds 2 lines: the ffmpeg CLI's default frame
            // rate mode on its zero-size IVF header keeps 2 of 500 frames. The oracle is then
            // the CLI with every frame passed through, each at its own size (no autoscale).
            expected = try CommandRunner.ffmpeg([
                "-i", file.url.path, "-fps_mode", "passthrough", "-autoscale", "0", "-pix_fmt", "nv12", "-f",
                "framemd5", "-",
            ]).text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
                $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
            }
            #expect(expected.count == samples.count)
        }
        let outputs = try Self.cpuOutputs(samples, attributes: ImageBufferAttributes(pixelFormat: .nv12VideoRange))
        let images = outputs.compactMap(\.imageBuffer)
        #expect(outputs.allSatisfy { $0.status == nil }, "\(file.name): clean stream, clean statuses")
        #expect(images.count == expected.count, "\(file.name): frame count")
        for (index, (image, md5)) in zip(images, expected).enumerated() {
            #expect(image.pixelFormat == .nv12VideoRange)
            #expect(image.md5 == md5, "\(file.name) frame \(index)")
        }
    }

    /// Each fixture's description agrees with ffprobe's stream: size, sample format and profile.
    @Test(arguments: CodecFile.fixtures)
    func formatDescriptionsAgreeWithFFprobe(file: CodecFile) throws {
        let probe = try FFprobeOracle.parse(Data(contentsOf: file.url.appendingPathExtension("ffprobe.json")))
        let stream = probe.stream
        let format = try MediaFileReader(path: file.url.path).formatDescription
        #expect(format.codecType.ffmpegName == stream["codec_name"])
        #expect("\(format.dimensions.width)" == stream["width"] && "\(format.dimensions.height)" == stream["height"])
        let pixelFormat = stream["pix_fmt"] ?? ""
        let depth = pixelFormat.contains("p10") ? 10 : pixelFormat.contains("p12") ? 12 : 8
        #expect(format.stream.bitDepthLuma == depth, "\(file.name): \(pixelFormat)")
        let chroma =
            pixelFormat.contains("444")
            ? 3 : pixelFormat.contains("422") ? 2 : pixelFormat.contains("440") ? StreamProperties.chromaFormat440 : 1
        #expect(format.stream.chromaFormatIdc == chroma, "\(file.name): \(pixelFormat)")
        if let profile = stream["profile"] { #expect(format.stream.profileName == profile) }
        let planar = DecompressionSession.planarPixelFormat(for: format)
        #expect(planar.ffmpegName == pixelFormat, "\(file.name): the CPU decoder's format")
        // VideoToolbox's bi-planar format for 4:2:0 of 8 and 10 bits, the planar one otherwise.
        let biPlanar = ["yuv420p": "nv12", "yuvj420p": "nv12", "yuv420p10le": "p010le"]
        let native = DecompressionSession.nativePixelFormat(for: format)
        #expect(native.ffmpegName == biPlanar[pixelFormat] ?? pixelFormat, "\(file.name): native format")
    }

    /// The bitstream initialisers describe the same stream as the container does.
    @Test(arguments: [
        "av1.mp4", "av1-10bit.mkv", "av1.ivf", "vp9-profile0.ivf", "vp9-profile2-10bit.webm", "vp8.ivf",
        "mpeg2-progressive.m2v", "mpeg2-interlaced.ts", "vp9-profile1-440.ivf", "vp9-profile3-440-12bit.ivf",
    ])
    func descriptionsFromTheBitstreamAgreeWithTheContainer(name: String) throws {
        let file = try #require(CodecFile.fixtures.first { $0.name == name })
        let samples = try TestData.samples(file.url.path)
        let container = samples[0].formatDescription
        let fromStream: VideoFormatDescription
        switch file.codec {
        case .av1:
            let sequenceHeader = try #require(container.parameterSets.first)
            fromStream = try VideoFormatDescription(av1SequenceHeaderOBU: sequenceHeader)
            let fromRecord = try VideoFormatDescription(av1C: container.extensions.decoderConfigurationRecord)
            #expect(fromRecord.stream == fromStream.stream)
            #expect(fromRecord.parameterSets == fromStream.parameterSets)
        case .vp9: fromStream = try VideoFormatDescription(vp9KeyFrame: samples[0].data)
        case .vp8: fromStream = try VideoFormatDescription(vp8KeyFrame: samples[0].data)
        default: fromStream = try VideoFormatDescription(mpeg2SequenceHeader: samples[0].data)
        }
        #expect(fromStream.codecType == container.codecType)
        #expect(fromStream.dimensions == container.dimensions)
        #expect(fromStream.codedDimensions == container.codedDimensions)
        #expect(fromStream.stream.bitDepthLuma == container.stream.bitDepthLuma)
        #expect(fromStream.stream.chromaFormatIdc == container.stream.chromaFormatIdc)
        #expect(fromStream.stream.profileIdc == container.stream.profileIdc)
        #expect(fromStream.stream.profileName == container.stream.profileName)
        #expect(fromStream.stream.levelName == container.stream.levelName || file.codec == .vp9)
        #expect(fromStream.stream.mayBeInterlaced == container.stream.mayBeInterlaced)
        #expect(fromStream.stream.maxNumReorderFrames == container.stream.maxNumReorderFrames)
        #expect(fromStream.extensions.fullRangeVideo == container.extensions.fullRangeVideo)
        // A session made from the bitstream's description decodes the container's samples.
        let rewrapped = try samples.map {
            try SampleBuffer(
                data: $0.data, formatDescription: fromStream, timing: $0.timing, attachments: $0.attachments)
        }
        let oracle = try FrameMD5Oracle(contentsOf: file.url.appendingPathExtension("framemd5")).frames
        #expect(try Self.cpuOutputs(rewrapped).compactMap(\.imageBuffer).map(planarMD5) == oracle.map(\.md5))
    }

    /// Bytes that are not what an initialiser describes from are refused with the reason.
    @Test func bitstreamInitialisersRefuseOtherData() {
        #expect(throws: VTError.formatDescriptionInvalidParameter) {
            try VideoFormatDescription(av1SequenceHeaderOBU: [0x12, 0x00])  // a temporal delimiter
        }
        #expect(throws: VTError.formatDescriptionInvalidParameter) {
            try VideoFormatDescription(vp9KeyFrame: [0x86, 0x00, 0x40])  // an inter frame
        }
        #expect(throws: VTError.formatDescriptionInvalidParameter) {
            try VideoFormatDescription(vp8KeyFrame: [0x01, 0x00, 0x00, 0x9D, 0x01, 0x2A])  // an inter frame tag
        }
        #expect(throws: VTError.formatDescriptionInvalidParameter) {
            try VideoFormatDescription(mpeg2SequenceHeader: [0x00, 0x00, 0x01, 0x00, 0x00, 0x0F])  // a picture
        }
        // MPEG-1: a sequence header without a sequence extension.
        #expect(throws: VTError.formatDescriptionInvalidParameter) {
            try VideoFormatDescription(mpeg2SequenceHeader: [
                0x00, 0x00, 0x01, 0xB3, 0x16, 0x00, 0xF0, 0x13, 0xFF, 0xFF, 0xE0, 0x18, 0x00, 0x00, 0x01, 0x00,
            ])
        }
    }

    /// A slice before the sequence header (bytes cut in the middle of a picture) is not part of
    /// the description: it is the one of the bytes from the sequence header on. (The parser fuzz
    /// target found it: the configuration then ended before it began, and the range trapped.)
    @Test func mpeg2DescriptionIgnoresASliceBeforeTheSequenceHeader() throws {
        let file = try #require(CodecFile.fixtures.first { $0.name == "mpeg2-progressive.m2v" })
        let data = try #require(try TestData.samples(file.url.path).first).data
        let clean = try VideoFormatDescription(mpeg2SequenceHeader: data)
        let cut = try VideoFormatDescription(mpeg2SequenceHeader: [0x00, 0x00, 0x01, 0x01, 0x12, 0x34] + data)
        #expect(cut.extensions.decoderConfigurationRecord == clean.extensions.decoderConfigurationRecord)
        #expect(cut.extensions.decoderConfigurationRecord.starts(with: [0x00, 0x00, 0x01, 0xB3]))
        #expect(cut.codedDimensions == clean.codedDimensions)
    }

    /// A `vpcC` atom as an MP4 muxer writes it (ffmpeg, at test time) parses to the stream's
    /// facts, and a description made from it decodes the stream.
    @Test func vp9DescriptionsFromAVPCCAtom() throws {
        let file = try #require(CodecFile.fixtures.first { $0.name == "vp9-profile2-10bit.webm" })
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vatoolbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let mp4 = directory.appendingPathComponent("vp9.mp4")
        let result = try CommandRunner.ffmpeg(["-i", file.url.path, "-c", "copy", mp4.path])
        try #require(result.status == 0, "\(result.standardError)")
        let bytes = try TestData.bytes(mp4)
        let tag = Array("vpcC".utf8)
        let at = try #require((4..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == tag })
        let size = Int(bytes[at - 4]) << 24 | Int(bytes[at - 3]) << 16 | Int(bytes[at - 2]) << 8 | Int(bytes[at - 1])
        let atom = Array(bytes[(at + 4)..<(at - 4 + size)])
        let record = try VPCodecConfigurationRecord(atom)
        #expect(record.profile == 2 && record.bitDepth == 10 && record.chromaFormatIdc == 1)
        #expect(try VPCodecConfigurationRecord(record.bytes) == record)
        #expect(
            try VPCodecConfigurationRecord(Array(record.bytes.dropFirst(4))) == record, "without the FullBox header")
        let samples = try TestData.samples(file.url.path)
        let format = try VideoFormatDescription(vpcC: atom, width: 320, height: 240)
        #expect(format.stream.bitDepthLuma == 10 && format.stream.profileIdc == 2)
        #expect(format.extensions.decoderConfigurationRecord == record.bytes)
        let rewrapped = try samples.map {
            try SampleBuffer(data: $0.data, formatDescription: format, timing: $0.timing, attachments: $0.attachments)
        }
        let oracle = try FrameMD5Oracle(contentsOf: file.url.appendingPathExtension("framemd5")).frames
        #expect(try Self.cpuOutputs(rewrapped).compactMap(\.imageBuffer).map(planarMD5) == oracle.map(\.md5))
        #expect(throws: VTError.formatDescriptionInvalidParameter) { try VPCodecConfigurationRecord([1, 0, 0]) }
        #expect(throws: VTError.formatDescriptionInvalidParameter) {
            try VideoFormatDescription(vpcC: atom, width: 0, height: 240)
        }
    }

    /// The container's aspect ratio (a Matroska display size) is the description's, as the
    /// ffmpeg CLI takes it over the codec's.
    @Test func theContainersAspectRatioWins() throws {
        let file = try #require(CodecFile.fixtures.first { $0.name == "vp8.ivf" })
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vatoolbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let mkv = directory.appendingPathComponent("wide.mkv")
        let result = try CommandRunner.ffmpeg(["-i", file.url.path, "-c", "copy", "-aspect", "16:9", mkv.path])
        try #require(result.status == 0, "\(result.standardError)")
        let probe = try FFprobeOracle.parse(FFprobeOracle.run(["-show_streams", mkv.path]))
        #expect(probe.stream["sample_aspect_ratio"] == "4:3")
        let ratio = try MediaFileReader(path: mkv.path).formatDescription.extensions.pixelAspectRatio
        #expect(ratio == PixelAspectRatio(horizontalSpacing: 4, verticalSpacing: 3))
    }

    /// A session goes on with a description of the same codec and refuses another codec's.
    @Test func formatChangesFollowTheCodecsRules() throws {
        func format(_ name: String) throws -> VideoFormatDescription {
            let file = try #require(CodecFile.fixtures.first { $0.name == name })
            return try MediaFileReader(path: file.url.path).formatDescription
        }
        let vp9 = try format("vp9-profile0.ivf")
        let session = try DecompressionSession(
            formatDescription: vp9, decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled)
        ) { _ in }
        #expect(session.canAcceptFormatDescription(try format("vp9-profile2-10bit.webm")))
        #expect(session.canAcceptFormatDescription(try format("vp9-profile1-444.ivf")))
        #expect(!session.canAcceptFormatDescription(try format("av1.ivf")))
        #expect(!session.canAcceptFormatDescription(try format("vp8.ivf")))
        session.invalidate()
        let av1 = try DecompressionSession(
            formatDescription: try format("av1.ivf"),
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled)
        ) { _ in }
        #expect(av1.canAcceptFormatDescription(try format("av1-10bit.mkv")))
        #expect(!av1.canAcceptFormatDescription(try format("mpeg2-progressive.m2v")))
        av1.invalidate()
    }

    /// An AV1 stream switched to another sequence mid-stream: the session sends the new sequence
    /// header in band, and both parts decode as ffmpeg decodes them.
    @Test func anAV1SessionFollowsANewSequenceHeader() throws {
        let first = try #require(CodecFile.fixtures.first { $0.name == "av1.mp4" })
        let second = try #require(CodecFile.fixtures.first { $0.name == "av1-10bit.mkv" })
        // The MP4 and MKV samples carry no sequence header: the description's must reach the decoder.
        let samples = try TestData.samples(first.url.path) + TestData.samples(second.url.path)
        let outputs = try Self.cpuOutputs(samples, threads: 1)
        let expected =
            try FrameMD5Oracle(contentsOf: first.url.appendingPathExtension("framemd5")).frames
            + FrameMD5Oracle(contentsOf: second.url.appendingPathExtension("framemd5")).frames
        #expect(outputs.allSatisfy { $0.status == nil })
        let images = outputs.compactMap(\.imageBuffer)
        // Time stamps restart, so compare by refcon order.
        let ordered = outputs.filter { $0.imageBuffer != nil }.sorted {
            ($0.frameRefcon as? Int ?? 0) < ($1.frameRefcon as? Int ?? 0)
        }
        #expect(images.count == expected.count)
        #expect(ordered.compactMap(\.imageBuffer).map(planarMD5) == expected.map(\.md5))
    }

    /// An AV1 stream whose inter frames are smaller than its key frame (SVT-AV1 reference
    /// scaling), made with the ffmpeg CLI into `directory`.
    static func makeAV1ReferenceScalingStream(in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("av1-reference-scaling.ivf")
        let result = try CommandRunner.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25", "-frames", "20", "-c:v", "libsvtav1", "-preset", "12",
            "-svtav1-params", "resize-mode=1:resize-denom=12", url.path,
        ])
        try #require(result.status == 0, "\(result.standardError)")
        return url
    }

    /// Frames of another size than the sequence's inside an AV1 stream: one picture per shown
    /// frame, each at its own size, as the ffmpeg CLI decodes them.
    @Test func av1ReferenceScalingGivesOnePicturePerShownFrameAtItsOwnSize() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vatoolbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try Self.makeAV1ReferenceScalingStream(in: directory)
        let samples = try MediaFileReader(path: url.path).readAllSamples()
        let outputs = try Self.cpuOutputs(samples)
        let expected = try CommandRunner.ffmpeg(["-i", url.path, "-autoscale", "0", "-f", "framemd5", "-"]).text
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        let images = outputs.compactMap(\.imageBuffer)
        #expect(outputs.allSatisfy { $0.status == nil })
        #expect(images.count == 20)
        #expect(Set(images.map(\.width)) == [320, 213], "the stream changes size")
        #expect(images.map(planarMD5) == expected)
    }

    /// Hostile samples: framing errors are thrown when the sample is made, damage inside valid
    /// framing comes back as per-frame statuses, one output per accepted sample, never a crash.
    @Test func damagedSamplesOfEveryCodecNeverTrap() throws {
        var generator = SeededGenerator(seed: 9)
        for file in CodecFile.fixtures {
            let mutated = try file.mutatedSamples(using: &generator)
            guard !mutated.isEmpty else { continue }
            let outputs = try Self.cpuOutputs(mutated, threads: 1)
            #expect(outputs.count == mutated.count, "\(file.name): one output per accepted sample")
        }
    }

    /// Framing errors of each codec are typed and say what is wrong.
    @Test func badFramingIsRefusedWhenTheSampleIsMade() throws {
        let vp9 = try #require(CodecFile.fixtures.first { $0.name == "vp9-profile0.ivf" })
        let vp9Samples = try TestData.samples(vp9.url.path)
        // A superframe whose index claims more bytes than the sample has.
        let superframe = try #require(vp9Samples.first { VP9Superframe.index(of: $0.data[...]) != nil })
        var lying = superframe.data
        let marker = lying[lying.count - 1]
        let sizeBytes = Int((marker >> 3) & 3) + 1
        let firstSize = lying.count - Int(marker & 7 + 1) * sizeBytes - 1
        lying[firstSize + sizeBytes - 1] = 0x7F
        #expect(throws: VTError.sampleBufferInvalidSampleData) {
            try SampleBuffer(data: lying, formatDescription: superframe.formatDescription)
        }
        // A truncated AV1 OBU.
        let av1 = try #require(CodecFile.fixtures.first { $0.name == "av1.ivf" })
        let av1Sample = try #require(try TestData.samples(av1.url.path).first)
        do {
            _ = try SampleBuffer(
                data: Array(av1Sample.data.dropLast(7)), formatDescription: av1Sample.formatDescription)
            Issue.record("a truncated OBU was accepted")
        } catch {
            #expect(error == .sampleBufferInvalidSampleData)
            #expect(error.reason.contains("OBU"))
        }
        // Annex B data given as an MPEG-2 picture's is fine, H.264 NAL units given as VP8 are not.
        let vp8 = try #require(CodecFile.fixtures.first { $0.name == "vp8.ivf" })
        let vp8Format = try #require(try TestData.samples(vp8.url.path).first?.formatDescription)
        #expect(throws: VTError.sampleBufferInvalidSampleData) {
            try SampleBuffer(data: [0x00, 0x00, 0x00, 0x01, 0x67], formatDescription: vp8Format)
        }
        let mpeg2 = try #require(CodecFile.fixtures.first { $0.name == "mpeg2-progressive.m2v" })
        let mpeg2Format = try #require(try TestData.samples(mpeg2.url.path).first?.formatDescription)
        #expect(throws: VTError.sampleBufferInvalidSampleData) {
            try SampleBuffer(data: [0x12, 0x34, 0x56], formatDescription: mpeg2Format)
        }
    }

    /// A file cut in the middle of an IVF frame: the reader says so, and what came before decodes.
    @Test func anIVFFrameCutShortIsATypedError() throws {
        let file = try #require(CodecFile.fixtures.first { $0.name == "vp9-profile0.ivf" })
        let bytes = try TestData.bytes(file.url)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vatoolbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cut = directory.appendingPathComponent("cut.ivf")
        try Data(bytes.prefix(bytes.count - 100)).write(to: cut)
        let reader = try MediaFileReader(path: cut.path)
        var samples: [SampleBuffer] = []
        do {
            while let sample = try reader.nextSample() { samples.append(sample) }
        } catch {
            #expect(error == .sampleBufferDataFailed || error == .sampleBufferInvalidSampleData)
        }
        #expect(!samples.isEmpty)
        let outputs = try Self.cpuOutputs(samples, threads: 1)
        #expect(outputs.count == samples.count)
    }
}

/// HEVC streams the software decoder takes beyond Main and Main 10: 12-bit and 4:4:4 range
/// extensions, and a stream that states no profile.
@Suite struct HEVCRangeExtensionTests {
    /// Encodes `frames` of testsrc2 with libx265 in `pixelFormat` into a temporary folder.
    static func encode(_ pixelFormat: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("\(pixelFormat).265")
        let result = try CommandRunner.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=176x144:rate=25", "-frames", "5", "-pix_fmt", pixelFormat,
            "-c:v", "libx265", "-x265-params", "log-level=error:pools=1:frame-threads=1", url.path,
        ])
        try #require(result.status == 0, "\(result.standardError)")
        return url
    }

    @Test(arguments: ["yuv420p12le", "yuv444p12le", "yuv444p10le"])
    func rangeExtensionStreamsDecodeAsFFmpegDoes(pixelFormat: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vatoolbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = try Self.encode(pixelFormat, in: directory)
        let samples = ElementaryStreamParser.samples(in: try TestData.bytes(url), codec: .hevc)
        try #require(!samples.isEmpty)
        #expect(samples[0].formatDescription.stream.profileName == "Rext")
        let outputs = try CodecSessionTests.cpuOutputs(samples)
        let expected = try CommandRunner.ffmpeg(["-i", url.path, "-f", "framemd5", "-"]).text
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(outputs.allSatisfy { $0.status == nil })
        #expect(outputs.compactMap(\.imageBuffer?.md5) == expected, "\(pixelFormat)")
        #expect(outputs.compactMap(\.imageBuffer?.pixelFormat.ffmpegName).allSatisfy { $0 == pixelFormat })
    }

    /// An SPS whose `general_profile_idc` and compatibility flags are all 0 states no profile;
    /// libavcodec decodes it from the SPS alone, and so does the session.
    @Test func aStreamThatStatesNoProfileDecodes() throws {
        let stream = try #require(StreamFile.validFixtures.first { $0.name == "hevc-main.265" })
        let samples = ElementaryStreamParser.samples(in: try stream.bytes(), codec: .hevc)
        var sets = samples[0].formatDescription.parameterSets
        let spsIndex = try #require(sets.firstIndex { ($0[0] >> 1) & 0x3F == 33 })
        // SPS payload (after the 2-byte NAL header, unescaped): 1 byte of ids, then
        // profile_space(2) tier(1) profile_idc(5) and 32 compatibility flags.
        var payload = RBSP.unescape(sets[spsIndex].dropFirst(2))
        payload[1] &= 0xE0
        payload.replaceSubrange(2..<6, with: [0, 0, 0, 0])
        sets[spsIndex] = Array(sets[spsIndex].prefix(2)) + RBSP.escape(payload)
        let format = try VideoFormatDescription(hevcParameterSets: sets)
        #expect(format.stream.profileIdc == 0)
        let rewrapped = try samples.map {
            try SampleBuffer(
                nalUnits: $0.nalUnits.filter { !$0.isParameterSet }.map(\.bytes), formatDescription: format,
                timing: $0.timing, attachments: $0.attachments)
        }
        let outputs = try CodecSessionTests.cpuOutputs(rewrapped)
        let oracle = try FrameMD5Oracle(contentsOf: stream.url.appendingPathExtension("framemd5")).frames
        #expect(outputs.allSatisfy { $0.status == nil })
        #expect(outputs.compactMap(\.imageBuffer).map(planarMD5) == oracle.map(\.md5))
    }
}
