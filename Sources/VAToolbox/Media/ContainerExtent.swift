/// The top level of a container file, read for one question: does an element declare more bytes
/// than the file has? A file cut short keeps the sizes its muxer wrote: an MP4's `mdat` box, a
/// Matroska `Segment`, still say how long they were.
///
/// No C: the bytes come through a closure (the reader passes libavformat's I/O).
enum ContainerExtent {
    /// The container families whose top level declares the size of each element.
    enum Layout: Equatable {
        /// ISO base media (MP4, MOV, 3GP): boxes of a 32-bit size (1: a 64-bit size follows the
        /// type; 0: to the end of the file) and a four-character type (ISO/IEC 14496-12, 4.2).
        case isoBaseMedia
        /// Matroska and WebM: EBML elements, an ID and a size, both variable-length integers (RFC
        /// 8794, 4): the EBML header, then the Segment.
        case matroska

        /// The layout of libavformat's demuxer `name` (`"mov,mp4,m4a,3gp,3g2,mj2"`,
        /// `"matroska,webm"`); nil for containers whose top level declares no sizes.
        init?(demuxerName name: String) {
            let names = name.split(separator: ",")
            if names.contains("mov") {
                self = .isoBaseMedia
            } else if names.contains("matroska") {
                self = .matroska
            } else {
                return nil
            }
        }
    }

    /// A top-level element that runs past the end of the file.
    struct Overrun: Equatable {
        /// Its name: a box's type (`"mdat"`), or `"EBML"` or `"Segment"`.
        let element: String
        /// Where it starts.
        let offset: Int64
        /// Where it says it ends.
        let end: Int64
    }

    /// The most top-level elements looked at: a real file has a handful.
    static let elementLimit = 10_000

    /// The first top-level element of a file of `fileSize` bytes that runs past its end; nil when
    /// every element ends in the file, and when the layout cannot say (an element of unknown
    /// size, one this check does not know, bytes that are no element).
    ///
    /// - Parameter read: The bytes at an offset, up to a count (fewer at the end of the file);
    ///   nil when they cannot be read.
    static func overrun(
        _ layout: Layout, fileSize: Int64, read: (_ offset: Int64, _ count: Int) -> [UInt8]?
    ) -> Overrun? {
        var offset: Int64 = 0
        for _ in 0..<elementLimit {
            guard fileSize - offset >= 2, let bytes = read(offset, 16) else { return nil }
            let header: Header?
            switch layout {
            case .isoBaseMedia: header = box(bytes)
            case .matroska: header = ebmlElement(bytes)
            }
            guard let header, let size = header.size else { return nil }
            let (end, overflow) = (offset + header.headerLength).addingReportingOverflow(size)
            if overflow || end > fileSize {
                return Overrun(element: header.name, offset: offset, end: overflow ? .max : end)
            }
            offset = end
            if offset == fileSize { return nil }
        }
        return nil
    }

    /// An element's header: its name, its length and the size of its body (nil: to the end of
    /// the file, or unknown).
    struct Header {
        let name: String
        let headerLength: Int64
        let size: Int64?
    }

    /// A box header: a 32-bit size (of the whole box) and a type of four printable characters;
    /// nil when the bytes are no box.
    static func box(_ bytes: [UInt8]) -> Header? {
        guard bytes.count >= 8 else { return nil }
        let type = bytes[4..<8]
        guard type.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        let name = String(decoding: type, as: UTF8.self)
        let size32 = bigEndian(bytes[0..<4])
        switch size32 {
        case 0:
            return Header(name: name, headerLength: 8, size: nil)
        case 1:
            guard bytes.count >= 16, let size = Int64(exactly: bigEndian(bytes[8..<16])), size >= 16 else { return nil }
            return Header(name: name, headerLength: 16, size: size - 16)
        default:
            guard size32 >= 8 else { return nil }
            return Header(name: name, headerLength: 8, size: Int64(size32) - 8)
        }
    }

    /// The EBML header and the Segment, by their IDs (RFC 8794, 11.2.1; the Matroska Segment,
    /// `0x18538067`).
    static let ebmlNames: [UInt64: String] = [0x1A45_DFA3: "EBML", 0x1853_8067: "Segment"]

    /// An EBML element header: the ID of the EBML header or of a Segment, and a size; nil for any
    /// other ID (the top level of a Matroska file holds nothing else) and for bytes that are no
    /// element. A size of all ones is unknown (a live stream's Segment).
    static func ebmlElement(_ bytes: [UInt8]) -> Header? {
        guard let id = variableInteger(bytes[...], keepingMarker: true, maximumLength: 4),
            let name = ebmlNames[id.value],
            let size = variableInteger(bytes[id.length...], keepingMarker: false, maximumLength: 8)
        else { return nil }
        let unknown = size.value == (UInt64(1) << (7 * UInt64(size.length))) - 1
        return Header(
            name: name, headerLength: Int64(id.length + size.length),
            size: unknown ? nil : Int64(exactly: size.value))
    }

    /// An EBML variable-length integer (RFC 8794, 4): its length is one more than the number of
    /// leading zero bits of its first byte. An ID keeps the marker bit, a size drops it.
    static func variableInteger(
        _ bytes: ArraySlice<UInt8>, keepingMarker: Bool, maximumLength: Int
    ) -> (value: UInt64, length: Int)? {
        guard let first = bytes.first, first != 0 else { return nil }
        let length = first.leadingZeroBitCount + 1
        guard length <= maximumLength, bytes.count >= length else { return nil }
        var value = UInt64(keepingMarker ? first : first & (0xFF >> length))
        for byte in bytes.dropFirst().prefix(length - 1) { value = value << 8 | UInt64(byte) }
        return (value, length)
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
