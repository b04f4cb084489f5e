import Synchronization

// The fuzz targets' entry points, shared by the libFuzzer binary (Tests/Fuzz, built by
// Scripts/fuzz with this file compiled into the library's module, FUZZING defined) and by
// `FuzzRegressionTests`, which replays every input under Tests/Regressions through them.
#if canImport(Glibc)
    import Glibc
#endif

#if !FUZZING
    @testable import VAToolbox
#endif

/// What the fuzz targets feed their input to. Each target reads the first byte of an input
/// to choose what to exercise, so that one corpus covers every parser of a target.
enum FuzzEntryPoints {
    /// A fuzz target.
    enum Target: String, CaseIterable, Sendable {
        /// Every bitstream parser: Annex B streams, configuration records, parameter sets and
        /// slice headers, the AV1/VP9/VP8/MPEG-2 framers, IVF.
        case parser
        /// A session on the CPU with a valid format description, then arbitrary samples and flags.
        case session
        /// The same on the test VA driver; the driver's live objects are counted after each input.
        case gpuSession = "gpu-session"
    }

    // MARK: - The parser target

    /// The parsers, chosen by the input's first byte.
    static let parsers: [(name: String, run: @Sendable ([UInt8]) -> Void)] = [
        ("annexb-h264", { annexB($0, codec: .h264) }),
        ("annexb-hevc", { annexB($0, codec: .hevc) }),
        ("avcC", { _ = try? VideoFormatDescription(avcC: $0) }),
        ("hvcC", { _ = try? VideoFormatDescription(hvcC: $0) }),
        ("vpcC", { _ = try? VideoFormatDescription(vpcC: $0, width: 64, height: 64) }),
        ("av1C", { _ = try? VideoFormatDescription(av1C: $0) }),
        ("av1-low-overhead", { av1(units: try? AV1LowOverhead.temporalUnits(in: $0[...])) }),
        ("av1-annexb", { av1(units: try? AV1AnnexB.temporalUnits(in: $0[...])) }),
        ("vp9", vp9),
        (
            "vp8",
            {
                _ = try? VP8FrameHeader($0[...]); _ = try? VideoFormatDescription(vp8KeyFrame: $0)
            }
        ),
        ("mpeg2", mpeg2),
        ("h264-units", h264Units),
        ("hevc-units", hevcUnits),
        ("ivf", ivf),
    ]

    /// Feeds `data[1...]` to the parser `data[0]` names (modulo the number of parsers).
    static func parse(_ data: [UInt8]) {
        guard let selector = data.first else { return }
        parsers[Int(selector) % parsers.count].run(Array(data.dropFirst()))
    }

    /// An Annex B stream in two chunks (split where the second byte says), then finished.
    static func annexB(_ bytes: [UInt8], codec: VideoCodecType) {
        var parser = ElementaryStreamParser(codec: codec)
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) * bytes.count / 256
        var samples = parser.parse(bytes[..<split])
        samples += parser.parse(bytes[split...])
        samples += parser.finish()
        for sample in samples { _ = sample.nalUnits.count }
    }

    static func av1(units: [[AV1OBU]]?) {
        var header: AV1SequenceHeader?
        for obus in units ?? [] {
            guard let unit = try? AV1TemporalUnit(obus: obus, sequenceHeader: header) else { continue }
            header = unit.activeSequenceHeader ?? header
        }
    }

    static func vp9(_ bytes: [UInt8]) {
        _ = try? VideoFormatDescription(vp9KeyFrame: bytes)
        for frame in (try? VP9Superframe.frames(in: bytes[...])) ?? [] { _ = try? VP9UncompressedHeader(frame) }
    }

    static func mpeg2(_ bytes: [UInt8]) {
        _ = try? VideoFormatDescription(mpeg2SequenceHeader: bytes)
        for sample in (try? MPEG2PictureInfo.samples(in: bytes[...])) ?? [] { _ = try? MPEG2PictureInfo(sample) }
        for unit in MPEG2StartCodeUnit.split(bytes[...]) {
            _ = try? MPEG2SequenceHeader(unit)
            _ = try? MPEG2SequenceExtension(unit)
            _ = try? MPEG2SequenceDisplayExtension(unit)
            _ = try? MPEG2PictureHeader(unit)
            _ = try? MPEG2PictureCodingExtension(unit)
            _ = try? MPEG2GroupOfPicturesHeader(unit)
        }
    }

    /// Every H.264 NAL unit of an Annex B stream through the parameter-set and slice-header
    /// parsers, with the last SPS and PPS seen.
    static func h264Units(_ bytes: [UInt8]) {
        var sps: H264SequenceParameterSet?
        var pps: H264PictureParameterSet?
        var sets: [[UInt8]] = []
        for bytes in AnnexB.split(bytes) {
            guard let unit = try? NALUnit(bytes, codec: .h264) else { continue }
            switch unit.h264Type?.rawValue {
            case 7:
                sps = (try? H264SequenceParameterSet(unit)) ?? sps
                sets.append(Array(bytes))
            case 8:
                pps = (try? H264PictureParameterSet(unit)) ?? pps
                sets.append(Array(bytes))
            case 1, 2, 5:
                _ = try? H264SliceHeader(unit, pictureParameterSet: { _ in pps }, sequenceParameterSet: { _ in sps })
            default:
                _ = SEIMessages.payloadTypes(inRBSP: unit.rbsp)
            }
        }
        _ = try? VideoFormatDescription(h264ParameterSets: sets)
    }

    /// The same for HEVC.
    static func hevcUnits(_ bytes: [UInt8]) {
        var sps: HEVCSequenceParameterSet?
        var pps: HEVCPictureParameterSet?
        var sets: [[UInt8]] = []
        for bytes in AnnexB.split(bytes) {
            guard let unit = try? NALUnit(bytes, codec: .hevc), let type = unit.hevcType?.rawValue else { continue }
            switch type {
            case 32:
                _ = try? HEVCVideoParameterSet(unit)
                sets.append(Array(bytes))
            case 33:
                sps = (try? HEVCSequenceParameterSet(unit)) ?? sps
                sets.append(Array(bytes))
            case 34:
                pps = (try? HEVCPictureParameterSet(unit, sps: sps)) ?? pps
                sets.append(Array(bytes))
            case 0...31:
                _ = try? HEVCSliceSegmentHeader(unit)
                if let pps, let sps { _ = try? HEVCSliceSegmentHeader(unit, pps: pps, sps: sps) }
            default:
                _ = SEIMessages.payloadTypes(inRBSP: unit.rbsp)
            }
        }
        _ = try? VideoFormatDescription(hevcParameterSets: sets)
    }

    static func ivf(_ bytes: [UInt8]) {
        guard var reader = try? IVFReader(bytes) else { return }
        while let frame = try? reader.next() {
            #if FUZZING
                // The tool's summaries print these times (Sources/vatoolbox/NumberText.swift,
                // compiled into the fuzzer): any time a file states must format without a trap.
                let seconds =
                    Double(frame.presentationTimestamp) * Double(reader.timeBaseScale)
                    / Double(max(1, reader.timeBaseRate))
                _ = (fixed(seconds, 3), fixed(seconds, 6), clockTime(seconds))
            #else
                _ = frame
            #endif
        }
    }

    // MARK: - The session targets

    /// The streams a session target decodes into: a committed fixture's format description each.
    static let sessionFixtures = [
        "h264-high-bpyramid.264", "hevc-main.265", "av1.ivf", "vp9-profile0.ivf", "vp8.ivf", "mpeg2-progressive.m2v",
    ]

    /// A fixture's samples (from `fixtures`, the `Tests/Fixtures` folder).
    static func fixtureSamples(_ name: String, fixtures: String) -> [SampleBuffer] {
        let path = fixtures + "/" + name
        if name.hasSuffix(".264") || name.hasSuffix(".265") {
            guard let bytes = readFile(path) else { return [] }
            return ElementaryStreamParser.samples(in: bytes, codec: name.hasSuffix(".264") ? .h264 : .hevc)
        }
        return (try? MediaFileReader(path: path).readAllSamples()) ?? []
    }

    /// A file's bytes, nil when it cannot be read.
    static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return bytes
    }

    /// An input of a session target: `[fixture selector] ([flags] [length: 2 bytes, big-endian]
    /// [bytes])*`. For H.264/HEVC each chunk is one NAL unit (the sample gets its length prefix);
    /// for the other codecs it is the sample's data. Flags: bit 0 asynchronous, bit 1 do not
    /// output, bit 2 `finishDelayedFrames()` after the sample, bit 3 the sample is not a sync sample.
    struct SessionInput {
        var fixture: Int
        var samples: [(flags: UInt8, bytes: [UInt8])]

        init?(_ data: [UInt8]) {
            guard let selector = data.first else { return nil }
            fixture = Int(selector) % FuzzEntryPoints.sessionFixtures.count
            samples = []
            var index = 1
            while index + 3 <= data.count, samples.count < 64 {
                let flags = data[index]
                let length = Int(data[index + 1]) << 8 | Int(data[index + 2])
                let end = min(data.count, index + 3 + length)
                samples.append((flags, Array(data[(index + 3)..<end])))
                index = end
            }
        }

        /// The input that holds `samples` of fixture number `fixture` as they are.
        static func encode(fixture: Int, samples: [SampleBuffer], flags: UInt8 = 0) -> [UInt8] {
            var data = [UInt8(fixture)]
            for sample in samples {
                let chunks =
                    sample.formatDescription.codecType.nalUnitHeaderSize != nil
                    ? sample.nalUnits.map { Array($0.bytes) } : [sample.data]
                for chunk in chunks where chunk.count < 1 << 16 {
                    data += [flags, UInt8(chunk.count >> 8), UInt8(chunk.count & 0xFF)] + chunk
                }
            }
            return data
        }
    }

    /// Decodes an input through one session; returns what went wrong that must not (empty:
    /// nothing). Samples the library refuses to make are skipped; errors of `decodeFrame` are
    /// expected (a sample in the wrong format), but every accepted frame must get one output.
    static func decode(
        _ data: [UInt8], formats: [VideoFormatDescription], specification: DecoderSpecification
    ) -> [String] {
        guard let input = SessionInput(data), input.fixture < formats.count else { return [] }
        let format = formats[input.fixture]
        let outputs = OutputCount()
        guard
            let session = try? DecompressionSession(
                formatDescription: format, decoderSpecification: specification,
                outputHandler: { _ in outputs.add() })
        else { return ["the session for \(sessionFixtures[input.fixture]) could not be made"] }
        var accepted = 0
        for (flags, bytes) in input.samples {
            let attributes: SampleAttachments = flags & 8 != 0 ? [.notSync] : []
            let sample =
                format.codecType.nalUnitHeaderSize != nil
                ? try? SampleBuffer(nalUnits: [bytes], formatDescription: format, attachments: attributes)
                : try? SampleBuffer(data: bytes, formatDescription: format, attachments: attributes)
            guard let sample else { continue }
            var decodeFlags: DecodeFrameFlags = []
            if flags & 1 != 0 { decodeFlags.insert(.enableAsynchronousDecompression) }
            if flags & 2 != 0 { decodeFlags.insert(.doNotOutputFrame) }
            if (try? session.decodeFrame(sample, flags: decodeFlags)) != nil { accepted += 1 }
            if flags & 4 != 0 { try? session.finishDelayedFrames() }
        }
        try? session.finishDelayedFrames()
        try? session.waitForAsynchronousFrames()
        session.invalidate()
        let count = outputs.count
        return count == accepted ? [] : ["\(accepted) frames accepted, \(count) outputs"]
    }

    /// Counts output handler calls.
    final class OutputCount: Sendable {
        private let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    /// The test driver's live objects (configs, contexts, surfaces, buffers, images), through
    /// `vatb_test_driver_live_objects` in the driver library at `driverPath`.
    static func driverLiveObjects(driverPath: String) -> [Int]? {
        guard let handle = dlopen(driverPath, RTLD_NOW | RTLD_GLOBAL),
            let symbol = dlsym(handle, "vatb_test_driver_live_objects")
        else { return nil }
        let function = unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer) -> Void).self)
        var values = [Int](repeating: 0, count: 9)
        values.withUnsafeMutableBytes { bytes in
            if let base = bytes.baseAddress { function(base) }
        }
        return Array(values[1...5])
    }
}
