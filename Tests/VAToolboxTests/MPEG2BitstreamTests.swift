import Foundation
import Testing

@testable import VAToolbox

/// Writes bits most significant first, for synthetic MPEG-2 headers.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var bitCount = 0

    mutating func put(_ value: Int, _ count: Int) {
        for i in stride(from: count - 1, through: 0, by: -1) {
            if bitCount % 8 == 0 { bytes.append(0) }
            if (value >> i) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(0x80 >> (bitCount % 8)) }
            bitCount += 1
        }
    }

    /// Pads to a byte boundary with zero bits and appends a start code.
    mutating func startCode(_ code: UInt8) {
        bitCount = bytes.count * 8
        bytes += [0, 0, 1, code]
        bitCount += 32
    }
}

/// Synthetic MPEG-2 streams with field pictures, which ffmpeg's mpeg2video encoder cannot make.
enum SyntheticMPEG2 {
    static func sequence(_ w: inout BitWriter, width: Int = 720, height: Int = 576) {
        w.startCode(0xB3)
        w.put(width & 0xFFF, 12); w.put(height & 0xFFF, 12); w.put(2, 4); w.put(3, 4)
        w.put(0x3FFFF, 18); w.put(1, 1); w.put(112, 10); w.put(0, 1); w.put(0, 1); w.put(0, 1)
        w.startCode(0xB5)
        w.put(1, 4); w.put(0x48, 8); w.put(0, 1); w.put(1, 2); w.put(width >> 12, 2); w.put(height >> 12, 2)
        w.put(0, 12); w.put(1, 1); w.put(0, 8); w.put(0, 1); w.put(1, 2); w.put(0, 5)  // 25 × 2/1 = 50
        w.startCode(0xB8)
        w.put(0, 25); w.put(1, 1); w.put(0, 1)
    }

    /// A picture header, its coding extension and one slice.
    static func picture(
        _ w: inout BitWriter, type: Int, temporalReference: Int, structure: Int, topFieldFirst: Bool = false
    ) {
        w.startCode(0x00)
        w.put(temporalReference, 10); w.put(type, 3); w.put(0xFFFF, 16)
        if type >= 2 { w.put(0, 1); w.put(7, 3) }
        if type == 3 { w.put(0, 1); w.put(7, 3) }
        w.put(0, 1)  // extra_bit_picture
        w.startCode(0xB5)
        w.put(8, 4); for _ in 0..<4 { w.put(type == 1 ? 15 : 2, 4) }
        w.put(0, 2); w.put(structure, 2); w.put(topFieldFirst ? 1 : 0, 1); w.put(structure == 3 ? 0 : 1, 1)
        w.put(0, 1); w.put(0, 1); w.put(0, 1); w.put(0, 1); w.put(0, 1); w.put(0, 1); w.put(0, 1); w.put(0, 1)
        w.startCode(0x01)
        w.put(0b10101, 5); w.put(0, 1); w.put(0x5A5A, 16)
    }
}

/// The samples of an MPEG-2 fixture: the raw .m2v split by the library, or for MPEG-TS the
/// elementary stream extracted with `ffmpeg -c copy -f mpeg2video` and split the same way.
func mpeg2Samples(_ url: URL) throws -> (stream: [UInt8], samples: [ArraySlice<UInt8>]) {
    var bytes = try TestData.bytes(url)
    if url.pathExtension != "m2v" {
        bytes = [UInt8](
            try CommandRunner.ffmpeg(["-i", url.path, "-map", "0:v:0", "-c", "copy", "-f", "mpeg2video", "-"])
                .standardOutput)
    }
    return (bytes, try MPEG2PictureInfo.samples(in: bytes[...]))
}

@Suite("MPEG2PictureInfo")
struct MPEG2BitstreamTests {
    static let streams = CodecStream.list(
        CodecStreams.fixtures("mpeg2").filter { $0.pathExtension == "m2v" || CommandRunner.hasFFmpeg })

    /// Fixtures ``matchesFFprobe(stream:)`` leaves out, and why.
    static let leftOutOfSamples = [
        "mpeg2-vcr2.avi":
            "VCR2 has no sequence header, and ffprobe's packets are its AVI chunks, which start at the user data "
            + "that replaced the sequence header (the library starts a sample at a GOP or picture header); "
            + "DecompressionSessionRealWorldTests and the manifest-driven suites check it"
    ]
    /// Fixtures ``displayOrder(stream:)`` leaves out, and why.
    static let leftOutOfDisplayOrder = [
        "mpeg2-size-change.m2v":
            "libavcodec drops the anchor it held at the second sequence header: ffprobe lists 11 of the 12 "
            + "pictures (DecompressionSessionRealWorldTests checks which one)"
    ]

    @Test(
        "samples, sync samples and sequence fields match ffprobe",
        arguments: streams.filter { leftOutOfSamples[$0.url.lastPathComponent] == nil })
    func matchesFFprobe(stream: CodecStream) throws {
        let (_, samples) = try mpeg2Samples(stream.url)
        let infos = try samples.map { sample throws(VTError) in try MPEG2PictureInfo(sample) }
        let oracle = try ProbeOracle.load(stream.url)
        try #require(samples.count == oracle.packets.count, "samples vs ffprobe packets")
        for (i, (sample, packet)) in zip(samples, oracle.packets).enumerated() {
            #expect(String(sample.count) == packet["size"], "sample \(i)")
            if stream.url.pathExtension == "m2v" { #expect(String(sample.startIndex) == packet["pos"], "sample \(i)") }
            #expect(infos[i].isSyncSample == packet["flags"]?.hasPrefix("K"), "sample \(i): \(infos[i])")
        }
        let first = try #require(infos.first)
        let sequence = try #require(first.sequenceHeader)
        let ext = first.sequenceExtension
        #expect(String(sequence.width(with: ext)) == oracle.stream["width"])
        #expect(String(sequence.height(with: ext)) == oracle.stream["height"])
        let rate = sequence.frameRate(with: ext)
        #expect("\(rate.numerator)/\(rate.denominator)" == oracle.stream["r_frame_rate"])
        let sar = sequence.sampleAspectRatio(with: ext, display: first.sequenceDisplayExtension)
        #expect("\(sar.horizontal):\(sar.vertical)" == oracle.stream["sample_aspect_ratio"])
        #expect(ext?.profileName == oracle.stream["profile"])
        #expect(ext.map { String($0.levelCode) } == oracle.stream["level"])
        #expect(ext?.chromaFormat == 1 && oracle.stream["pix_fmt"] == "yuv420p")
        let fieldOrder = ext?.progressiveSequence == true ? "progressive" : first.topFieldFirst ? "tt" : "bb"
        #expect(fieldOrder == oracle.stream["field_order"])
        let names = [1: "bt709", 5: "bt470bg", 6: "smpte170m", 4: "bt470m"]
        if let display = first.sequenceDisplayExtension, display.colourDescription {
            #expect(names[display.colourPrimaries] == oracle.stream["color_primaries"])
            #expect(names[display.transferCharacteristics] == oracle.stream["color_transfer"])
            #expect(names[display.matrixCoefficients] == oracle.stream["color_space"])
        } else {
            #expect(oracle.stream["color_primaries"] == nil)
        }
        // Every sample carries exactly one frame picture here (no field pictures).
        #expect(infos.allSatisfy { $0.pictures.count == 1 && !$0.isFieldPicture && $0.pictures[0].sliceCount > 0 })
    }

    @Test(
        "pictures in display order match ffprobe's frames",
        arguments: streams.filter { leftOutOfDisplayOrder[$0.url.lastPathComponent] == nil })
    func displayOrder(stream: CodecStream) throws {
        let (_, samples) = try mpeg2Samples(stream.url)
        let infos = try samples.map { sample throws(VTError) in try MPEG2PictureInfo(sample) }
        // temporal_reference counts from 0 after each GOP header (§6.3.9).
        var ordered: [(key: Int, info: MPEG2PictureInfo)] = []
        var gopBase = 0
        var gopMax = -1
        for info in infos {
            if info.groupOfPicturesHeader != nil {
                gopBase += gopMax + 1
                gopMax = -1
            }
            let tr = info.pictures[0].header.temporalReference
            gopMax = max(gopMax, tr)
            ordered.append((gopBase + tr, info))
        }
        ordered.sort { $0.key < $1.key }
        let oracle = try ProbeOracle.load(stream.url)
        try #require(ordered.count == oracle.frames.count)
        for (i, (entry, frame)) in zip(ordered, oracle.frames).enumerated() {
            let info = entry.info
            #expect(info.pictureCodingType.letter == frame["pict_type"], "frame \(i): \(info)")
            #expect((info.isSyncSample ? "1" : "0") == frame["key_frame"], "frame \(i)")
            #expect((info.isInterlaced ? "1" : "0") == frame["interlaced_frame"], "frame \(i)")
            #expect((info.topFieldFirst ? "1" : "0") == frame["top_field_first"], "frame \(i)")
            #expect(
                (info.pictures[0].codingExtension?.repeatFirstField == true ? "1" : "0") == frame["repeat_pict"],
                "frame \(i)")
        }
    }

    @Test(
        "every header field matches ffmpeg's trace_headers (CBS MPEG-2 parser)", .enabled(if: CommandRunner.hasFFmpeg),
        arguments: streams)
    func matchesTraceHeaders(stream: CodecStream) throws {
        let (_, samples) = try mpeg2Samples(stream.url)
        let units = try TraceHeaders.units(of: stream.url, startingAt: nil)
        try #require(samples.count == units.count, "samples vs traced packets")
        for (i, (sample, unit)) in zip(samples, units).enumerated() {
            let info = try MPEG2PictureInfo(sample)
            let c = Comment(rawValue: "sample \(i): \(info)")
            if let s = info.sequenceHeader {
                #expect(s.horizontalSizeValue == unit["horizontal_size_value"], c)
                #expect(s.verticalSizeValue == unit["vertical_size_value"], c)
                #expect(s.aspectRatioInformation == unit["aspect_ratio_information"], c)
                #expect(s.frameRateCode == unit["frame_rate_code"], c)
                #expect(s.bitRateValue == unit["bit_rate_value"], c)
                #expect(s.vbvBufferSizeValue == unit["vbv_buffer_size_value"], c)
                #expect(s.constrainedParametersFlag == (unit["constrained_parameters_flag"] == 1), c)
                #expect((s.intraQuantiserMatrix != nil) == (unit["load_intra_quantiser_matrix"] == 1), c)
                let e = try #require(info.sequenceExtension)
                #expect(e.profileAndLevelIndication == unit["profile_and_level_indication"], c)
                #expect(e.progressiveSequence == (unit["progressive_sequence"] == 1), c)
                #expect(e.chromaFormat == unit["chroma_format"], c)
                #expect(e.bitRateExtension == unit["bit_rate_extension"], c)
                #expect(e.vbvBufferSizeExtension == unit["vbv_buffer_size_extension"], c)
                #expect(e.lowDelay == (unit["low_delay"] == 1), c)
                #expect(
                    e.frameRateExtensionN == unit["frame_rate_extension_n"]
                        && e.frameRateExtensionD == unit["frame_rate_extension_d"], c)
                #expect((info.sequenceDisplayExtension != nil) == unit.has("video_format"), c)
                if let d = info.sequenceDisplayExtension {
                    #expect(d.videoFormat == unit["video_format"], c)
                    #expect(
                        d.colourPrimaries == unit["colour_primaries"]
                            && d.matrixCoefficients == unit["matrix_coefficients"], c)
                    #expect(d.displayHorizontalSize == unit["display_horizontal_size"], c)
                    #expect(d.displayVerticalSize == unit["display_vertical_size"], c)
                }
            } else {
                #expect(!unit.has("horizontal_size_value"), c)
            }
            #expect(info.groupOfPicturesHeader?.closedGop == unit["closed_gop"].map { $0 == 1 }, c)
            let p = try #require(info.pictures.first)
            #expect(p.header.temporalReference == unit["temporal_reference"], c)
            #expect(p.header.pictureCodingType.rawValue == unit["picture_coding_type"], c)
            #expect(p.header.vbvDelay == unit["vbv_delay"], c)
            let x = try #require(p.codingExtension)
            #expect(
                x.fCode == [
                    [unit["f_code[0][0]"] ?? -1, unit["f_code[0][1]"] ?? -1],
                    [unit["f_code[1][0]"] ?? -1, unit["f_code[1][1]"] ?? -1],
                ], c)
            #expect(x.intraDcPrecision == unit["intra_dc_precision"], c)
            #expect(x.pictureStructure.rawValue == unit["picture_structure"], c)
            #expect(x.topFieldFirst == (unit["top_field_first"] == 1), c)
            #expect(x.framePredFrameDct == (unit["frame_pred_frame_dct"] == 1), c)
            #expect(
                x.qScaleType == (unit["q_scale_type"] == 1) && x.intraVlcFormat == (unit["intra_vlc_format"] == 1), c)
            #expect(x.alternateScan == (unit["alternate_scan"] == 1), c)
            #expect(x.repeatFirstField == (unit["repeat_first_field"] == 1), c)
            #expect(x.chroma420Type == (unit["chroma_420_type"] == 1), c)
            #expect(x.progressiveFrame == (unit["progressive_frame"] == 1), c)
            #expect(p.sliceCount == unit.elements.filter { $0.name == "slice_vertical_position" }.count, c)
        }
    }

    @Test("field pictures: two fields of a frame make one sample, in either order")
    func fieldPictures() throws {
        var w = BitWriter()
        SyntheticMPEG2.sequence(&w)
        SyntheticMPEG2.picture(&w, type: 1, temporalReference: 0, structure: 1)  // I top field
        SyntheticMPEG2.picture(&w, type: 2, temporalReference: 0, structure: 2)  // P bottom field
        SyntheticMPEG2.picture(&w, type: 2, temporalReference: 1, structure: 2)  // P bottom field first
        SyntheticMPEG2.picture(&w, type: 2, temporalReference: 1, structure: 1)
        SyntheticMPEG2.picture(&w, type: 3, temporalReference: 2, structure: 3, topFieldFirst: true)  // a frame picture
        SyntheticMPEG2.picture(&w, type: 3, temporalReference: 3, structure: 1)  // a lone field at the end
        w.startCode(0xB7)
        let stream = w.bytes
        let samples = try MPEG2PictureInfo.samples(in: stream[...])
        let infos = try samples.map { sample throws(VTError) in try MPEG2PictureInfo(sample) }
        try #require(infos.count == 4)
        #expect(infos.map(\.pictures.count) == [2, 2, 1, 1])
        #expect(infos.map(\.isFieldPicture) == [true, true, false, true])
        #expect(infos.map(\.firstField) == [.topField, .bottomField, nil, .topField])
        #expect(infos.map(\.topFieldFirst) == [true, false, true, true])
        #expect(infos.map(\.isComplete) == [true, true, true, false])
        #expect(infos.map(\.isSyncSample) == [true, false, false, false])
        #expect(infos.map(\.isInterlaced) == [true, true, true, true])
        #expect(
            infos[0].sequenceHeader.map { $0.frameRate(with: infos[0].sequenceExtension) }.map {
                "\($0.numerator)/\($0.denominator)"
            } == "50/1")
        #expect(infos[0].sequenceHeader?.width(with: infos[0].sequenceExtension) == 720)
        #expect(infos[0].groupOfPicturesHeader?.closedGop == true)
        #expect(infos[3].hasSequenceEnd)
        #expect(samples.map(\.count).reduce(0, +) == stream.count)
    }

    @Test("size extensions extend the width and height past 4095")
    func sizeExtension() throws {
        var w = BitWriter()
        SyntheticMPEG2.sequence(&w, width: 4096 + 64, height: 2 * 4096 + 16)
        SyntheticMPEG2.picture(&w, type: 1, temporalReference: 0, structure: 3)
        let info = try MPEG2PictureInfo(w.bytes[...])
        let sequence = try #require(info.sequenceHeader)
        #expect(sequence.horizontalSizeValue == 64 && info.sequenceExtension?.horizontalSizeExtension == 1)
        #expect(sequence.width(with: info.sequenceExtension) == 4160)
        #expect(sequence.height(with: info.sequenceExtension) == 8208)
    }

    @Test("malformed samples throw the documented errors")
    func malformed() throws {
        var w = BitWriter()
        SyntheticMPEG2.sequence(&w)
        let headersOnly = w.bytes
        #expect(throws: VTError.sampleBufferInvalidSampleData) { try MPEG2PictureInfo(headersOnly[...]) }
        let sliceFirst: [UInt8] = [0, 0, 1, 0x01, 0xFF, 0, 0, 1, 0x00, 0, 0x0F, 0xFF, 0xF8]
        #expect(throws: VTError.sampleBufferInvalidSampleData) { try MPEG2PictureInfo(sliceFirst[...]) }
        var two = BitWriter()
        SyntheticMPEG2.picture(&two, type: 1, temporalReference: 0, structure: 3)
        SyntheticMPEG2.picture(&two, type: 2, temporalReference: 1, structure: 3)
        #expect(throws: VTError.sampleBufferInvalidSampleData) { try MPEG2PictureInfo(two.bytes[...]) }
        var badRate = headersOnly
        badRate[7] = (badRate[7] & 0xF0) | 0x0F  // frame_rate_code 15: reserved
        let error = #expect(throws: VTError.self) { try MPEG2SequenceHeader(MPEG2StartCodeUnit.split(badRate[...])[0]) }
        #expect(error == VTError.formatDescriptionInvalidParameter)
        #expect(error?.reason.contains("frame_rate_code") == true)
        let truncated = MPEG2StartCodeUnit(startCode: 0xB3, payload: headersOnly[4..<8], prefixIndex: 0)
        #expect(throws: VTError.formatDescriptionInvalidParameter) { try MPEG2SequenceHeader(truncated) }
    }

    @Test("seeded mutations and truncations of real samples throw or parse, never crash")
    func hostile() throws {
        let (_, samples) = try mpeg2Samples(TestData.fixtures.appendingPathComponent("mpeg2-progressive.m2v"))
        var generator = SeededGenerator(seed: 2)
        var parsed = 0
        var threw = 0
        for sample in samples {
            for round in 0..<40 {
                var bytes = Array(
                    sample.prefix(round % 4 == 0 ? Int.random(in: 0...80, using: &generator) : sample.count))
                if round % 4 != 0 {
                    for _ in 0..<(1 + round % 3) {
                        bytes[Int.random(in: 0..<min(bytes.count, 120), using: &generator)] ^= UInt8.random(
                            in: 1...255, using: &generator)
                    }
                }
                do throws(VTError) {
                    for piece in try MPEG2PictureInfo.samples(in: bytes[...]) { _ = try MPEG2PictureInfo(piece) }
                    parsed += 1
                } catch {
                    #expect(
                        error == VTError.sampleBufferInvalidSampleData
                            || error == VTError.formatDescriptionInvalidParameter, "\(error)")
                    threw += 1
                }
            }
        }
        #expect(parsed > 0 && threw > 0, "parsed \(parsed), threw \(threw)")
    }
}
