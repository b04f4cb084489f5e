import Foundation
import Testing

@testable import VAToolbox

@Suite("VP8FrameHeader")
struct VP8BitstreamTests {
    static let streams = CodecStream.list(
        CodecStreams.fixtures("vp8").filter { $0.pathExtension == "ivf" || CommandRunner.hasFFmpeg }
            + CodecStreams.conformanceIVF("cros-codecs-vp8"))

    @Test("every frame's tag, size and key flag match ffprobe", arguments: streams)
    func matchesFFprobe(stream: CodecStream) throws {
        var reader = try IVFReader(try CodecStreams.ivfBytes(stream.url))
        let samples = try reader.allFrames()
        let headers = try samples.map { sample throws(VTError) in try VP8FrameHeader(sample.data) }
        let oracle = try ProbeOracle.load(stream.url)
        try #require(samples.count == oracle.packets.count)
        for (i, (header, packet)) in zip(headers, oracle.packets).enumerated() {
            #expect(header.isKeyFrame == packet["flags"]?.hasPrefix("K"), "packet \(i): \(header)")
            #expect(header.firstPartitionSize < samples[i].data.count)
        }
        let shown = headers.filter(\.showFrame)
        try #require(shown.count == oracle.frames.count, "shown frames vs ffprobe frames")
        var size: (Int, Int)?
        var outputIndex = 0
        for header in headers {
            if let width = header.width, let height = header.height { size = (width, height) }
            guard header.showFrame else { continue }
            let probed = oracle.frames[outputIndex]
            outputIndex += 1
            #expect(
                size.map { String($0.0) } == probed["width"] && size.map { String($0.1) } == probed["height"],
                "\(header)")
            #expect((header.isKeyFrame ? "1" : "0") == probed["key_frame"], "\(header)")
            #expect((header.isKeyFrame ? "I" : "P") == probed["pict_type"], "\(header)")
        }
        #expect(headers.first?.isKeyFrame == true)
        #expect(headers.first?.colorSpace == 0 && headers.first?.clampingType == 0)
        #expect(
            headers.first.map { String($0.version) } == oracle.stream["profile"], "ffprobe's VP8 profile is the version"
        )
    }

    @Test(
        "the GStreamer key frame parses to GStreamer's values (cros-codecs / gst vp8parser test)",
        .needsConformance)
    func gstreamerIntra() throws {
        let root = try #require(TestData.conformance)
        let bytes = try TestData.bytes(root.appendingPathComponent("cros-codecs-vp8/vp8-parser-test-0-intra.bin"))
        let h = try VP8FrameHeader(bytes[...])
        #expect(h.isKeyFrame)
        #expect(h.firstPartitionSize == 234)
        #expect(h.width == 176 && h.height == 144)
        #expect(h.horizontalScale == 0 && h.verticalScale == 0)
        #expect(h.loopFilterAdjEnable && h.modeRefLfDeltaUpdate)
        // GStreamer reports its parser state: a delta this frame does not update stays 0.
        #expect(h.refFrameDeltas.map { $0 ?? 0 } == [2, 0, -2, -2])
        #expect(h.mbModeDeltas.map { $0 ?? 0 } == [4, -2, 2, 4])
        #expect(h.yAcQi == 4)
    }

    @Test("the GStreamer inter frame parses to GStreamer's values", .needsConformance)
    func gstreamerInter() throws {
        let root = try #require(TestData.conformance)
        let bytes = try TestData.bytes(root.appendingPathComponent("cros-codecs-vp8/vp8-parser-test-0-inter.bin"))
        let h = try VP8FrameHeader(bytes[...])
        #expect(!h.isKeyFrame)
        #expect(h.firstPartitionSize == 98)
        #expect(h.width == nil && h.colorSpace == nil)
        #expect(h.loopFilterAdjEnable)
        #expect(h.yAcQi == 4)
        #expect(h.refreshEntropyProbs && h.refreshLast)
    }

    @Test("a droppable frame changes no reference, no saved probability and no persistent state")
    func droppableFrames() throws {
        let url = TestData.fixtures.appendingPathComponent("vp8-temporal-layers.ivf")
        var reader = try IVFReader(try CodecStreams.ivfBytes(url))
        let headers = try reader.allFrames().map { sample throws(VTError) in try VP8FrameHeader(sample.data) }
        try #require(headers.count == 24)
        var deltas: [Int]?
        for (number, header) in headers.enumerated() {
            // libvpx's two temporal layers: the upper layer's frames (odd numbers) refresh
            // nothing; error-resilient mode keeps probabilities per frame and restates the loop
            // filter deltas with every frame.
            #expect(header.isDroppable(deltasInForce: deltas) == (number % 2 == 1), "frame \(number): \(header)")
            #expect(header.refreshedReferences.isEmpty == (number % 2 == 1), "frame \(number)")
            #expect(!header.refreshEntropyProbs && header.modeRefLfDeltaUpdate, "frame \(number)")
            deltas = header.loopFilterDeltas(after: deltas)
        }
        let inter = headers[1]
        let inForce = try #require(inter.loopFilterDeltas(after: nil))
        #expect(!inter.isDroppable(deltasInForce: nil), "deltas updated over unknown ones may change them")
        var changed = inForce
        changed[0] += 1
        #expect(!inter.isDroppable(deltasInForce: changed), "an update that changes a delta persists")
        var saving = inter
        saving.refreshEntropyProbs = true
        #expect(!saving.isDroppable(deltasInForce: inForce), "saved probabilities persist")
        var copying = inter
        copying.copyBufferToGolden = 1
        #expect(!copying.isDroppable(deltasInForce: inForce), "a copy between buffers changes a reference")
        #expect(copying.refreshedReferences == ["golden=last"])
        var mapping = inter
        mapping.updateMbSegmentationMap = true
        #expect(!mapping.isDroppable(deltasInForce: inForce), "a new segment map persists")
        // A key frame resets the deltas before its own updates.
        #expect(headers[0].loopFilterDeltas(after: changed) == headers[0].loopFilterDeltas(after: nil))
        #expect(!headers[0].isDroppable(deltasInForce: inForce))
    }

    @Test("short frames, a missing start code and a first partition past the end throw")
    func malformed() throws {
        let key: [UInt8] =
            [0x50, 0x1D, 0x00, 0x9D, 0x01, 0x2A, 0xB0, 0x00, 0x90, 0x00] + Array(repeating: 0, count: 300)
        #expect(throws: Never.self) { try VP8FrameHeader(key[...]) }
        for bad in [Array(key.prefix(2)), Array(key.prefix(9)), Array(key.prefix(100))] {
            #expect(throws: VTError.formatDescriptionInvalidParameter) { try VP8FrameHeader(bad[...]) }
        }
        var noStartCode = key
        noStartCode[4] = 0x02
        let error = #expect(throws: VTError.self) { try VP8FrameHeader(noStartCode[...]) }
        #expect(error?.reason.contains("start code") == true)
    }

    @Test("seeded mutations and truncations throw or parse, never crash")
    func hostile() throws {
        var reader = try IVFReader(try TestData.bytes(TestData.fixtures.appendingPathComponent("vp8.ivf")))
        let samples = try reader.allFrames().map(\.data)
        var generator = SeededGenerator(seed: 8)
        var threw = 0
        for sample in samples {
            for round in 0..<30 {
                var bytes = Array(
                    sample.prefix(round % 3 == 0 ? Int.random(in: 0...40, using: &generator) : sample.count))
                if round % 3 != 0, !bytes.isEmpty {
                    bytes[Int.random(in: 0..<min(bytes.count, 16), using: &generator)] ^= UInt8.random(
                        in: 1...255, using: &generator)
                }
                do throws(VTError) {
                    _ = try VP8FrameHeader(bytes[...])
                } catch {
                    #expect(error == VTError.formatDescriptionInvalidParameter)
                    threw += 1
                }
            }
        }
        #expect(threw > 0)
    }
}

@Suite("IVFReader")
struct IVFReaderTests {
    static let streams = CodecStream.list(
        CodecStreams.fixtures("vp8") + CodecStreams.fixtures("vp9") + CodecStreams.fixtures("av1")
            + CodecStreams.conformanceIVF("cros-codecs-vp8") + CodecStreams.conformanceIVF("cros-codecs-vp9")
            + CodecStreams.conformanceIVF("cros-codecs-av1")
    ).filter {
        // Fixtures in other containers are not IVF; av1-annexb.ivf.av1 carries Annex B temporal
        // units in IVF, which ffprobe cannot read (see `annexBInIVF`).
        ($0.url.pathExtension == "ivf" || !$0.isFixture) && $0.url.lastPathComponent != "av1-annexb.ivf.av1"
    }

    @Test("header and every frame's size, timestamp and offset match ffprobe's packets", arguments: streams)
    func matchesFFprobe(stream: CodecStream) throws {
        var reader = try IVFReader(try TestData.bytes(stream.url))
        let frames = try reader.allFrames()
        let oracle = try ProbeOracle.load(stream.url)
        #expect(["VP80", "VP90", "AV01"].contains(reader.fourCC))
        #expect(reader.version == 0 && reader.headerLength == 32)
        #expect(reader.timeBaseRate > 0 && reader.timeBaseScale > 0)
        let g = MPEG2SequenceHeader.gcd(reader.timeBaseScale, reader.timeBaseRate)
        #expect(oracle.stream["time_base"] == "\(reader.timeBaseScale / g)/\(reader.timeBaseRate / g)")
        // Some writers leave the header's size 0 (resolution_change_500frames-vp9.ivf).
        #expect(String(reader.width) == oracle.frames.first?["width"] || reader.width == 0)
        #expect(String(reader.height) == oracle.frames.first?["height"] || reader.height == 0)
        try #require(frames.count == oracle.packets.count)
        for (frame, packet) in zip(frames, oracle.packets) {
            #expect(String(frame.data.count) == packet["size"], "frame \(frame.index)")
            #expect(String(frame.presentationTimestamp) == packet["pts"], "frame \(frame.index)")
            #expect(
                String(frame.offset) == packet["pos"], "frame \(frame.index): ffmpeg gives the frame header's offset")
        }
    }

    @Test("an IVF file of AV1 Annex B temporal units holds one 535-byte frame", .needsConformance)
    func annexBInIVF() throws {
        let root = try #require(TestData.conformance)
        let bytes = try TestData.bytes(root.appendingPathComponent("cros-codecs-av1/av1-annexb.ivf.av1"))
        var reader = try IVFReader(bytes)
        let frames = try reader.allFrames()
        #expect(reader.fourCC == "AV01" && reader.width == 64 && reader.height == 64)
        #expect(frames.map(\.data.count) == [bytes.count - 32 - 12])
        // An Annex B temporal unit starts with its leb128 size: 0x95 0x04 = 533, + 2 bytes of size.
        #expect(frames.first.map { Array($0.data.prefix(2)) } == [0x95, 0x04])
    }

    @Test("a frame size past the end throws sampleBufferInvalidSampleData naming the frame and offset")
    func truncated() throws {
        let bytes = try TestData.bytes(TestData.fixtures.appendingPathComponent("vp8.ivf"))
        var full = try IVFReader(bytes)
        let frames = try full.allFrames()
        let third = try #require(frames.count > 3 ? frames[2] : nil)
        // Cut inside the third frame's data, then inside its 12-byte header.
        for cut in [third.offset + 12 + third.data.count / 2, third.offset + 5] {
            var reader = try IVFReader(Array(bytes.prefix(cut)))
            #expect(try reader.next()?.index == 0)
            #expect(try reader.next()?.index == 1)
            let error = #expect(throws: VTError.self) { try reader.next() }
            #expect(error == VTError.sampleBufferInvalidSampleData)
            #expect(error?.reason.contains("frame 2 at offset \(third.offset)") == true, "\(error?.reason ?? "")")
        }
        // A size field that lies.
        var lying = bytes
        lying[32] = 0xFF
        lying[35] = 0x7F
        var reader = try IVFReader(lying)
        #expect(throws: VTError.sampleBufferInvalidSampleData) { try reader.next() }
    }

    @Test("a file that is not IVF throws formatDescriptionInvalidParameter")
    func notIVF() throws {
        #expect(throws: VTError.formatDescriptionInvalidParameter) { try IVFReader([0x44, 0x4B, 0x49, 0x46]) }
        #expect(throws: VTError.formatDescriptionInvalidParameter) { try IVFReader(Array(repeating: 0, count: 64)) }
        var header = Array("DKIF".utf8) + Array(repeating: UInt8(0), count: 28)
        header[6] = 200
        #expect(throws: VTError.formatDescriptionInvalidParameter) { try IVFReader(header) }
        header[6] = 32
        var empty = try IVFReader(header)
        #expect(try empty.next() == nil)
    }
}
