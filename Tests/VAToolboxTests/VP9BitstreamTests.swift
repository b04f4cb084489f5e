import Foundation
import Testing

@testable import VAToolbox

/// A VP8/VP9/AV1/MPEG-2 stream file used as a test argument.
struct CodecStream: Sendable, Hashable, CustomTestStringConvertible {
    /// The file.
    let url: URL
    /// Whether it is a committed fixture (its ffprobe oracle is committed beside it).
    var isFixture: Bool { url.path.hasPrefix(TestData.fixtures.path) }
    var testDescription: String { url.deletingLastPathComponent().lastPathComponent + "/" + url.lastPathComponent }

    static func list(_ urls: [URL]) -> [CodecStream] { urls.map(CodecStream.init(url:)) }
}

/// One VP9 frame of a stream with the state a decoder tracks around it.
struct VP9TracedFrame {
    /// Index of the sample (IVF frame) it came from.
    var sample: Int
    /// Whether it is the first frame of its sample.
    var isFirstInSample: Bool
    var header: VP9UncompressedHeader
    /// The frame's size after resolving `frame_size_with_refs()` / show-existing.
    var size: VP9FrameSize?
    /// The colour configuration in force (the last key frame's or intra-only frame's).
    var color: VP9ColorConfig?
}

/// Parses every frame of a VP9 stream in decoding order, tracking reference sizes and colour.
func vp9Frames(_ url: URL) throws -> (samples: [IVFFrame], frames: [VP9TracedFrame]) {
    var reader = try IVFReader(try CodecStreams.ivfBytes(url))
    let samples = try reader.allFrames()
    var sizes = VP9ReferenceFrameSizes()
    var color: VP9ColorConfig?
    var frames: [VP9TracedFrame] = []
    for sample in samples {
        for (i, frame) in try VP9Superframe.frames(in: sample.data).enumerated() {
            let header = try VP9UncompressedHeader(frame, referenceFrameSizes: sizes)
            if let config = header.colorConfig { color = config }
            let size = header.showExistingFrame ? sizes[header.frameToShowMapIdx ?? -1] : header.frameSize
            frames.append(
                VP9TracedFrame(sample: sample.index, isFirstInSample: i == 0, header: header, size: size, color: color))
            sizes.update(after: header)
        }
    }
    return (samples, frames)
}

/// ffprobe's `pix_fmt` for a VP9 colour configuration.
func ffmpegPixelFormat(_ c: VP9ColorConfig) -> String {
    if c.colorSpace == VP9ColorConfig.colorSpaceRGB { return c.bitDepth == 8 ? "gbrp" : "gbrp\(c.bitDepth)le" }
    let base =
        ["1,1": "yuv420p", "1,0": "yuv422p", "0,1": "yuv440p", "0,0": "yuv444p"]["\(c.subsamplingX),\(c.subsamplingY)"]
        ?? "?"
    return c.bitDepth == 8 ? base : "\(base)\(c.bitDepth)le"
}

@Suite("VP9UncompressedHeader")
struct VP9BitstreamTests {
    static let streams = CodecStream.list(
        CodecStreams.fixtures("vp9").filter { $0.pathExtension != "webm" || CommandRunner.hasFFmpeg }
            + CodecStreams.conformanceIVF("cros-codecs-vp9"))

    @Test(
        "every frame matches ffmpeg's trace_headers (CBS VP9 parser)", .enabled(if: CommandRunner.hasFFmpeg),
        arguments: streams)
    func matchesTraceHeaders(stream: CodecStream) throws {
        let (_, frames) = try vp9Frames(stream.url)
        let units = try TraceHeaders.units(of: stream.url, startingAt: "frame_marker")
        try #require(frames.count == units.count, "frames after superframe splitting vs trace_headers frames")
        for (i, (frame, unit)) in zip(frames, units).enumerated() {
            let h = frame.header
            let context = Comment(rawValue: "frame \(i) (sample \(frame.sample)): \(h)")
            #expect(h.profile == (unit["profile_low_bit"] ?? -1) + 2 * (unit["profile_high_bit"] ?? -1), context)
            #expect(h.showExistingFrame == (unit["show_existing_frame"] == 1), context)
            if h.showExistingFrame {
                #expect(h.frameToShowMapIdx == unit["frame_to_show_map_idx"], context)
                continue
            }
            #expect(h.frameType.rawValue == unit["frame_type"], context)
            #expect(h.showFrame == (unit["show_frame"] == 1), context)
            #expect(h.errorResilientMode == (unit["error_resilient_mode"] == 1), context)
            #expect(h.intraOnly == (unit["intra_only"] == 1), context)
            #expect(Int(h.refreshFrameFlags) == (unit["refresh_frame_flags"] ?? 0xFF), context)
            if unit.has("color_space") {
                #expect(h.colorSpace == unit["color_space"], context)
                #expect(h.colorRange == (unit["color_range"] ?? 1), context)
                #expect(
                    h.bitDepth == (unit.has("ten_or_twelve_bit") ? (unit["ten_or_twelve_bit"] == 1 ? 12 : 10) : 8),
                    context)
                if unit.has("subsampling_x") {
                    #expect(h.subsamplingX == unit["subsampling_x"], context)
                    #expect(h.subsamplingY == unit["subsampling_y"], context)
                }
            } else {
                #expect(h.colorConfig == nil || (h.intraOnly && h.profile == 0), context)
            }
            if let w = unit["frame_width_minus_1"], let height = unit["frame_height_minus_1"] {
                #expect(h.frameSizeFromRef == nil, context)
                #expect(h.frameWidth == w + 1 && h.frameHeight == height + 1, context)
            } else {
                let foundRef = unit.elements.filter { $0.name.hasPrefix("found_ref") }.firstIndex { $0.value == 1 }
                #expect(h.frameSizeFromRef == foundRef, context)
            }
            if let w = unit["render_width_minus_1"] {
                #expect(h.renderWidth == w + 1 && h.renderHeight == (unit["render_height_minus_1"] ?? -1) + 1, context)
            }
            for (j, name) in ["ref_frame_idx[0]", "ref_frame_idx[1]", "ref_frame_idx[2]"].enumerated()
            where unit.has(name) {
                #expect(h.refFrameIdx[j] == unit[name], context)
            }
            #expect(h.refreshFrameContext == (unit["refresh_frame_context"] ?? 0 == 1), context)
            #expect(h.frameContextIdx == unit["frame_context_idx"], context)
            #expect(h.loopFilter.loopFilterLevel == unit["loop_filter_level"], context)
            #expect(h.loopFilter.loopFilterSharpness == unit["loop_filter_sharpness"], context)
            for k in 0..<4 where unit.has("loop_filter_ref_deltas[\(k)]") {
                #expect(h.loopFilter.loopFilterRefDeltas[k] == unit["loop_filter_ref_deltas[\(k)]"], context)
            }
            #expect(h.quantization.baseQIdx == unit["base_q_idx"], context)
            #expect(h.segmentation.segmentationEnabled == (unit["segmentation_enabled"] == 1), context)
            #expect(h.tileColsLog2 == unit["tile_cols_log2"], context)
            #expect(h.tileRowsLog2 == unit["tile_rows_log2"], context)
            #expect(h.headerSizeInBytes == unit["header_size_in_bytes"], context)
            #expect(h.uncompressedHeaderSize != nil, context)
        }
    }

    @Test("output frames, sizes, pixel formats and key frames match ffprobe", arguments: streams)
    func matchesFFprobe(stream: CodecStream) throws {
        let (samples, frames) = try vp9Frames(stream.url)
        let oracle = try ProbeOracle.load(stream.url)
        // Packets: one per sample; its size and key flag.
        try #require(samples.count == oracle.packets.count)
        for (sample, packet) in zip(samples, oracle.packets) {
            #expect(String(sample.data.count) == packet["size"], "sample \(sample.index)")
            let first = frames.first { $0.sample == sample.index && $0.isFirstInSample }
            #expect(first?.header.isKeyFrame == packet["flags"]?.hasPrefix("K"), "sample \(sample.index)")
        }
        // Frames: ffprobe outputs one per shown frame and per show-existing frame.
        let output = frames.filter { $0.header.isOutput }
        try #require(output.count == oracle.frames.count, "output frames (shown + show-existing) vs ffprobe frames")
        for (i, (frame, probed)) in zip(output, oracle.frames).enumerated() {
            let context = Comment(rawValue: "output frame \(i): \(frame.header)")
            #expect(frame.size.map { String($0.width) } == probed["width"], context)
            #expect(frame.size.map { String($0.height) } == probed["height"], context)
            #expect(frame.color.map(ffmpegPixelFormat) == probed["pix_fmt"], context)
            // ffmpeg reports a show-existing frame as a non-key P frame, whatever it shows.
            #expect((frame.header.isKeyFrame ? "1" : "0") == probed["key_frame"], context)
            #expect((frame.header.frameIsIntra ? "I" : "P") == probed["pict_type"], context)
        }
        if let range = oracle.stream["color_range"], let color = frames.first?.color {
            #expect(range == (color.isFullRange ? "pc" : "tv"))
        }
        #expect(
            frames.first?.header.profile == oracle.stream["profile"].flatMap { Int($0.dropFirst("Profile ".count)) })
    }

    @Test(
        "the GStreamer superframe splits into 1333 + 214 bytes (cros-codecs / GStreamer vp9parser test)",
        .needsConformance)
    func gstreamerSuperframe() throws {
        let root = try #require(TestData.conformance)
        let bytes = try TestData.bytes(root.appendingPathComponent("cros-codecs-vp9/vp9-superframe.bin"))
        let frames = try VP9Superframe.frames(in: bytes[...])
        #expect(frames.map(\.count) == [1333, 214])
        #expect(frames.first?.startIndex == 0)
        #expect(frames.last?.startIndex == 1333)
        let headers = try frames.map { frame throws(VTError) in try VP9UncompressedHeader(frame) }
        #expect(headers.map(\.showFrame) == [false, true])
    }

    @Test("the two-pass fixture has hidden frames inside superframes")
    func fixtureHasSuperframes() throws {
        let (samples, frames) = try vp9Frames(TestData.fixtures.appendingPathComponent("vp9-profile0.ivf"))
        let superframes = try samples.filter { try VP9Superframe.frames(in: $0.data).count > 1 }
        #expect(superframes.count == 3)
        #expect(frames.count == samples.count + 3)
        #expect(frames.filter { !$0.header.showFrame }.count == 3)
    }

    @Test("the resolution change fixture changes size at its second key frame")
    func resolutionChange() throws {
        let (_, frames) = try vp9Frames(TestData.fixtures.appendingPathComponent("vp9-resolution-change.ivf"))
        let keys = frames.enumerated().filter { $0.element.header.isKeyFrame }
        #expect(keys.map(\.offset) == [0, 15])
        #expect(
            keys.map { $0.element.header.frameSize } == [
                VP9FrameSize(width: 322, height: 242), VP9FrameSize(width: 176, height: 144),
            ])
        #expect(frames.dropFirst().allSatisfy { $0.header.isKeyFrame || $0.header.frameSizeFromRef != nil })
    }

    @Test("the uncompressed header of a key frame, field by field")
    func keyFrameFields() throws {
        var reader = try IVFReader(try TestData.bytes(TestData.fixtures.appendingPathComponent("vp9-profile1-444.ivf")))
        let first = try #require(try reader.next())
        let h = try VP9UncompressedHeader(first.data)
        #expect(h.profile == 1 && h.isKeyFrame && h.showFrame && !h.intraOnly)
        #expect(
            h.colorConfig == VP9ColorConfig(bitDepth: 8, colorSpace: 0, colorRange: 0, subsamplingX: 0, subsamplingY: 0)
        )
        #expect(h.refreshFrameFlags == 0xFF)
        #expect(h.frameSize == VP9FrameSize(width: 320, height: 240))
        #expect(h.renderWidth == 320 && h.renderHeight == 240)
        #expect(h.description.hasPrefix("VP9 profile 1 key frame 320x240, 8-bit 4:4:4"))
    }
}

/// Synthetic intra-only frames (no stream at hand has one: libvpx makes them only in special modes).
@Suite("VP9UncompressedHeader intra-only")
struct VP9IntraOnlyTests {
    /// An intra-only frame header of `profile` up to `header_size_in_bytes`, followed by `headerSize` bytes.
    static func intraOnlyFrame(profile: Int, refresh: Int, width: Int, height: Int, headerSize: Int = 4) -> [UInt8] {
        var w = BitWriter()
        w.put(2, 2)  // frame_marker
        w.put(profile & 1, 1)
        w.put(profile >> 1, 1)
        if profile == 3 { w.put(0, 1) }
        w.put(0, 1)  // show_existing_frame
        w.put(1, 1)  // frame_type NON_KEY_FRAME
        w.put(0, 1)  // show_frame
        w.put(0, 1)  // error_resilient_mode
        w.put(1, 1)  // intra_only
        w.put(0, 2)  // reset_frame_context
        w.put(0x49_8342, 24)
        if profile > 0 {
            if profile >= 2 { w.put(1, 1) }  // ten_or_twelve_bit: 12-bit
            w.put(2, 3)  // color_space BT.709
            w.put(1, 1)  // color_range full
            if profile == 1 || profile == 3 {
                w.put(1, 1)  // subsampling_x
                w.put(0, 1)  // subsampling_y: 4:2:2
                w.put(0, 1)
            }
        }
        w.put(refresh, 8)
        w.put(width - 1, 16)
        w.put(height - 1, 16)
        w.put(0, 1)  // render_and_frame_size_different
        w.put(1, 1)  // refresh_frame_context
        w.put(0, 1)  // frame_parallel_decoding_mode
        w.put(0, 2)  // frame_context_idx
        w.put(10, 6)  // loop_filter_level
        w.put(0, 3)
        w.put(0, 1)  // loop_filter_delta_enabled
        w.put(60, 8)  // base_q_idx
        w.put(0, 3)  // no delta_q
        w.put(0, 1)  // segmentation_enabled
        w.put(0, 1)  // tile_cols: 64 wide frame → max 0, no increment bit; tile_rows_log2 0
        w.put(headerSize, 16)
        return w.bytes + Array(repeating: 0, count: headerSize)
    }

    @Test("profile 0 implies 8-bit 4:2:0 BT.601; profile 1 and 2 read color_config()", arguments: [0, 1, 2, 3])
    func intraOnly(profile: Int) throws {
        let bytes = Self.intraOnlyFrame(profile: profile, refresh: 0x24, width: 64, height: 48)
        let h = try VP9UncompressedHeader(bytes[...])
        #expect(h.intraOnly && !h.isKeyFrame && h.frameIsIntra && !h.showFrame)
        #expect(h.refreshFrameFlags == 0x24)
        #expect(h.frameSize == VP9FrameSize(width: 64, height: 48))
        #expect(h.loopFilter.loopFilterLevel == 10 && h.quantization.baseQIdx == 60)
        #expect(h.headerSizeInBytes == 4 && h.uncompressedHeaderSize == bytes.count - 4)
        switch profile {
        case 0: #expect(h.colorConfig == VP9ColorConfig.profile0IntraOnly)
        case 1:
            #expect(
                h.colorConfig
                    == VP9ColorConfig(bitDepth: 8, colorSpace: 2, colorRange: 1, subsamplingX: 1, subsamplingY: 0))
        case 2:
            #expect(
                h.colorConfig
                    == VP9ColorConfig(bitDepth: 12, colorSpace: 2, colorRange: 1, subsamplingX: 1, subsamplingY: 1))
        default:
            #expect(
                h.colorConfig
                    == VP9ColorConfig(bitDepth: 12, colorSpace: 2, colorRange: 1, subsamplingX: 1, subsamplingY: 0))
        }
        var sizes = VP9ReferenceFrameSizes()
        sizes.update(after: h)
        #expect(sizes.slots.map { $0 != nil } == [false, false, true, false, false, true, false, false])
    }

    @Test("a compressed header past the end of the frame, or of size 0, throws")
    func headerSize() throws {
        let long = Self.intraOnlyFrame(profile: 0, refresh: 1, width: 64, height: 48, headerSize: 4)
        #expect(throws: VTError.formatDescriptionInvalidParameter) { try VP9UncompressedHeader(long.dropLast()) }
        let zero = Self.intraOnlyFrame(profile: 0, refresh: 1, width: 64, height: 48, headerSize: 0)
        #expect(throws: VTError.formatDescriptionInvalidParameter) { try VP9UncompressedHeader(zero[...]) }
    }
}

@Suite("VP9Superframe")
struct VP9SuperframeTests {
    /// A superframe of `frames` with an index using `bytesPerSize`-byte sizes.
    static func superframe(_ frames: [[UInt8]], bytesPerSize: Int = 2, sizes: [Int]? = nil) -> [UInt8] {
        let marker = UInt8(0xC0 | (bytesPerSize - 1) << 3 | (frames.count - 1))
        var index: [UInt8] = [marker]
        for size in sizes ?? frames.map(\.count) {
            for b in 0..<bytesPerSize { index.append(UInt8((size >> (8 * b)) & 0xFF)) }
        }
        index.append(marker)
        return frames.flatMap { $0 } + index
    }

    @Test("splits by the index, for every size width", arguments: 1...4)
    func splits(bytesPerSize: Int) throws {
        let frames: [[UInt8]] = [Array(repeating: 0x82, count: 200), [0x86, 1, 2], Array(repeating: 7, count: 90)]
        let data = Self.superframe(frames, bytesPerSize: bytesPerSize)
        #expect(try VP9Superframe.frames(in: data[...]).map(Array.init) == frames)
        // The same inside a bigger buffer (slices keep their indices).
        let padded = [0xAA, 0xBB] + data + [0xCC]
        let slice = padded[2..<(padded.count - 1)]
        #expect(try VP9Superframe.frames(in: slice).map(Array.init) == frames)
    }

    @Test("a sample without an index is one frame; a marker without its twin is no index")
    func noIndex() throws {
        let plain: [UInt8] = [0x82, 0x49, 0x83, 0x42, 0x00]
        #expect(try VP9Superframe.frames(in: plain[...]).count == 1)
        // Ends in a marker byte (0xC1: 2 frames, 1-byte sizes, index 4 bytes) whose twin is missing.
        let fake: [UInt8] = [0x82, 0x00, 0x10, 0x20, 0x30, 0xC1]
        #expect(try VP9Superframe.frames(in: fake[...]) == [fake[...]])
        #expect(VP9Superframe.index(of: fake[...]) == nil)
    }

    @Test("an index whose sizes do not add up throws sampleBufferInvalidSampleData")
    func lyingIndex() throws {
        let frames: [[UInt8]] = [Array(repeating: 1, count: 10), Array(repeating: 2, count: 20)]
        for sizes in [[10, 19], [10, 21], [30, 0], [0, 30], [65535, 20]] {
            let data = Self.superframe(frames, sizes: sizes)
            let error = #expect(throws: VTError.self) { try VP9Superframe.frames(in: data[...]) }
            #expect(error == VTError.sampleBufferInvalidSampleData)
            #expect(error?.reason.contains("superframe index") == true, "\(error?.reason ?? "")")
        }
        #expect(throws: VTError.sampleBufferInvalidSampleData) { try VP9Superframe.frames(in: [][...]) }
    }

    @Test(
        "seeded mutations and truncations of real samples throw or parse, never crash",
        .needsConformance)
    func hostile() throws {
        var samples: [ArraySlice<UInt8>] = []
        for url in CodecStreams.conformanceIVF("cros-codecs-vp9") + [
            TestData.fixtures.appendingPathComponent("vp9-profile0.ivf")
        ] {
            var reader = try IVFReader(try TestData.bytes(url))
            samples += try reader.allFrames().prefix(40).map(\.data)
        }
        var generator = SeededGenerator(seed: 9)
        var parsed = 0
        var threw = 0
        for sample in samples {
            for round in 0..<20 {
                var bytes = Array(sample)
                if round % 4 == 0 {
                    bytes = Array(bytes.prefix(Int.random(in: 0...min(bytes.count, 64), using: &generator)))
                } else {
                    for _ in 0..<(1 + round % 3) {
                        // Mutate the header or the superframe index at the end.
                        let region = round % 2 == 0 ? min(bytes.count, 24) : bytes.count
                        guard region > 0 else { break }
                        let at =
                            round % 2 == 0
                            ? Int.random(in: 0..<region, using: &generator)
                            : max(0, bytes.count - 1 - Int.random(in: 0..<min(bytes.count, 12), using: &generator))
                        bytes[at] ^= UInt8.random(in: 1...255, using: &generator)
                    }
                }
                do throws(VTError) {
                    for frame in try VP9Superframe.frames(in: bytes[...]) {
                        _ = try VP9UncompressedHeader(frame, referenceFrameSizes: VP9ReferenceFrameSizes())
                    }
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
