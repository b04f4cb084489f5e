import Testing

@testable import VAToolbox

/// `ContainerExtent` on top levels built byte by byte from the specifications (ISO/IEC 14496-12
/// 4.2 boxes, RFC 8794 EBML elements): an element that declares more bytes than the file has is
/// found; a size to the end of the file, an unknown size, and bytes that are no element say
/// nothing. The real files are `MediaFileTruncationTests`'.
@Suite struct ContainerExtentTests {
    /// The overrun `ContainerExtent` finds in `bytes`, read as a whole file.
    static func overrun(_ layout: ContainerExtent.Layout, _ bytes: [UInt8]) -> ContainerExtent.Overrun? {
        ContainerExtent.overrun(layout, fileSize: Int64(bytes.count)) { offset, count in
            guard offset >= 0, offset < Int64(bytes.count) else { return nil }
            return Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
        }
    }

    static func bigEndian(_ value: UInt64, bytes: Int) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// A box: a 32-bit size, a type, and `body` bytes (the size may claim more).
    static func box(_ type: String, size: UInt32? = nil, body: Int) -> [UInt8] {
        bigEndian(UInt64(size ?? UInt32(8 + body)), bytes: 4) + Array(type.utf8) + [UInt8](repeating: 0xAB, count: body)
    }

    @Test func anMP4WhoseMdatRunsPastTheEndIsFound() {
        let head = Self.box("ftyp", body: 8) + Self.box("moov", body: 16)
        let file = head + Self.box("mdat", size: 1000, body: 100)
        let found = Self.overrun(.isoBaseMedia, file)
        #expect(
            found == ContainerExtent.Overrun(element: "mdat", offset: Int64(head.count), end: Int64(head.count + 1000)))
        #expect(Self.overrun(.isoBaseMedia, head + Self.box("mdat", body: 100)) == nil, "the same file whole")
    }

    @Test func aLargeSizeBoxIsReadWithItsSixtyFourBitSize() {
        let head = Self.box("ftyp", body: 8)
        let large = Self.bigEndian(1, bytes: 4) + Array("mdat".utf8) + Self.bigEndian(1 << 33, bytes: 8)
        let found = Self.overrun(.isoBaseMedia, head + large + [UInt8](repeating: 0, count: 64))
        #expect(found == ContainerExtent.Overrun(element: "mdat", offset: 16, end: 16 + (1 << 33)))
    }

    @Test func aBoxToTheEndOfTheFileAndTrailingBytesSayNothing() {
        let head = Self.box("ftyp", body: 8) + Self.box("moov", body: 16)
        #expect(Self.overrun(.isoBaseMedia, head + Self.box("mdat", size: 0, body: 100)) == nil, "size 0")
        #expect(Self.overrun(.isoBaseMedia, head + [0, 0, 0, 0]) == nil, "fewer bytes than a box header")
        // Bytes that are no box (its type is not four printable characters), whatever their size.
        #expect(Self.overrun(.isoBaseMedia, head + [0x7F, 0xFF, 0xFF, 0xFF, 0x01, 0x02, 0x03, 0x04, 0, 0]) == nil)
    }

    /// The EBML header (`1A 45 DF A3`, a one-byte size) and a Segment (`18 53 80 67`) with an
    /// eight-byte size, as ffmpeg's Matroska muxer writes them.
    static func matroska(segmentSize: UInt64, body: Int) -> [UInt8] {
        let header: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3, 0x80 | 4, 0x42, 0x86, 0x81, 0x01]
        let size = [0x01] + Self.bigEndian(segmentSize, bytes: 7)
        return header + [0x18, 0x53, 0x80, 0x67] + size + [UInt8](repeating: 0xAB, count: body)
    }

    @Test func aMatroskaSegmentThatRunsPastTheEndIsFound() {
        let file = Self.matroska(segmentSize: 5000, body: 300)
        #expect(
            Self.overrun(.matroska, file) == ContainerExtent.Overrun(element: "Segment", offset: 9, end: 9 + 12 + 5000))
        #expect(Self.overrun(.matroska, Self.matroska(segmentSize: 300, body: 300)) == nil, "the same file whole")
    }

    @Test func aSegmentOfUnknownSizeOrAnotherElementSaysNothing() {
        // All ones in the seven bytes after the length marker: unknown (a live stream's Segment).
        #expect(Self.overrun(.matroska, Self.matroska(segmentSize: (1 << 56) - 1, body: 300)) == nil)
        // After a whole Segment, an element the top level does not hold (a Cluster's ID).
        let file =
            Self.matroska(segmentSize: 10, body: 10) + [0x1F, 0x43, 0xB6, 0x75, 0x01, 0x00, 0, 0, 0, 0, 0xFF, 0xFF]
        #expect(Self.overrun(.matroska, file) == nil)
    }

    @Test func theLayoutFollowsLibavformatsDemuxerName() {
        #expect(ContainerExtent.Layout(demuxerName: "mov,mp4,m4a,3gp,3g2,mj2") == .isoBaseMedia)
        #expect(ContainerExtent.Layout(demuxerName: "matroska,webm") == .matroska)
        #expect(ContainerExtent.Layout(demuxerName: "mpegts") == nil)
        #expect(ContainerExtent.Layout(demuxerName: "ivf") == nil)
    }
}
