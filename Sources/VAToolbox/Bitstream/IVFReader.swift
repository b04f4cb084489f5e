/// Reads an IVF file: the simple container libvpx and libaom write for VP8, VP9 and AV1 streams.
///
/// An IVF file is a 32-byte file header (signature `DKIF`, version, header length, FourCC,
/// width, height, time base, frame count) followed by frames, each a 12-byte frame header
/// (frame size, 32-bit little endian; presentation timestamp, 64-bit little endian) and the
/// frame's bytes. There is no published specification; this follows libvpx's `ivfdec.c` and
/// FFmpeg's `ivfdec.c`. A VP9 IVF frame is one sample and may hold a superframe
/// (see ``VP9Superframe``); an AV1 IVF frame is one temporal unit.
///
/// Frames are returned as slices of ``bytes``, without copying.
public struct IVFReader: Sendable {
    /// The whole file.
    public let bytes: [UInt8]
    /// The version field of the file header (0 in every known file).
    public let version: Int
    /// The header length field: the offset of the first frame header (32 in every known file).
    public let headerLength: Int
    /// The four-character codec code: `VP80`, `VP90` or `AV01` (others are passed through).
    public let fourCC: String
    /// The width in the file header, in pixels (the first frame's; frames may change size).
    public let width: Int
    /// The height in the file header, in pixels.
    public let height: Int
    /// The time base denominator (`rate`): timestamps count units of `timeBaseScale / timeBaseRate` seconds.
    public let timeBaseRate: Int
    /// The time base numerator (`scale`).
    public let timeBaseScale: Int
    /// The frame count field of the header. Writers often leave it 0 or stale; do not rely on it.
    public let frameCount: Int
    /// The offset of the next frame header.
    public private(set) var offset: Int
    /// The index of the next frame, counted from 0.
    public private(set) var frameIndex = 0

    /// The size of an IVF file header.
    static let fileHeaderSize = 32
    /// The size of an IVF frame header.
    static let frameHeaderSize = 12

    /// Reads the file header.
    ///
    /// - Parameter bytes: The whole IVF file.
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the file is shorter than the
    ///   32-byte header, does not start with `DKIF`, or declares a header length below 32 or past
    ///   the end of the file.
    public init(_ bytes: [UInt8]) throws(VTError) {
        guard bytes.count >= Self.fileHeaderSize else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "IVF: the file has \(bytes.count) bytes, fewer than the 32-byte file header")
        }
        guard bytes[0] == 0x44, bytes[1] == 0x4B, bytes[2] == 0x49, bytes[3] == 0x46 else {
            throw VTError.formatDescriptionInvalidParameter.with("IVF: the file does not start with the signature DKIF")
        }
        self.bytes = bytes
        version = Int(Self.littleEndian(bytes, at: 4, count: 2))
        headerLength = Int(Self.littleEndian(bytes, at: 6, count: 2))
        guard headerLength >= Self.fileHeaderSize, headerLength <= bytes.count else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "IVF: header length \(headerLength) is below 32 or past the end of the \(bytes.count)-byte file")
        }
        fourCC = String(decoding: bytes[8..<12].map { (0x20...0x7E).contains($0) ? $0 : 0x3F }, as: UTF8.self)
        width = Int(Self.littleEndian(bytes, at: 12, count: 2))
        height = Int(Self.littleEndian(bytes, at: 14, count: 2))
        timeBaseRate = Int(Self.littleEndian(bytes, at: 16, count: 4))
        timeBaseScale = Int(Self.littleEndian(bytes, at: 20, count: 4))
        frameCount = Int(Self.littleEndian(bytes, at: 24, count: 4))
        offset = headerLength
    }

    /// Reads the next frame.
    ///
    /// - Returns: The frame, or nil at the end of the file.
    /// - Throws: ``VTError/sampleBufferInvalidSampleData`` when a frame header is cut short or a
    ///   frame's size reaches past the end of the file; the reason names the frame index and the
    ///   offset of its frame header. The reader does not advance past a bad frame.
    public mutating func next() throws(VTError) -> IVFFrame? {
        let remaining = bytes.count - offset
        guard remaining > 0 else { return nil }
        guard remaining >= Self.frameHeaderSize else {
            throw VTError.sampleBufferInvalidSampleData.with(
                "IVF: frame \(frameIndex) at offset \(offset): only \(remaining) bytes left, fewer than a 12-byte frame header"
            )
        }
        let size = Int(Self.littleEndian(bytes, at: offset, count: 4))
        let timestamp = Int64(bitPattern: Self.littleEndian(bytes, at: offset + 4, count: 8))
        let start = offset + Self.frameHeaderSize
        guard size <= bytes.count - start else {
            throw VTError.sampleBufferInvalidSampleData.with(
                "IVF: frame \(frameIndex) at offset \(offset) declares \(size) bytes, but only \(bytes.count - start) follow its header"
            )
        }
        let frame = IVFFrame(
            index: frameIndex, offset: offset, presentationTimestamp: timestamp, data: bytes[start..<start + size])
        offset = start + size
        frameIndex += 1
        return frame
    }

    /// Reads every remaining frame.
    ///
    /// - Throws: ``VTError/sampleBufferInvalidSampleData`` as ``next()`` does.
    public mutating func allFrames() throws(VTError) -> [IVFFrame] {
        var frames: [IVFFrame] = []
        while let frame = try next() { frames.append(frame) }
        return frames
    }

    /// A little-endian unsigned number of `count` bytes at `index` (the caller checked the bounds).
    private static func littleEndian(_ bytes: [UInt8], at index: Int, count: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in (0..<count).reversed() { value = value << 8 | UInt64(bytes[index + i]) }
        return value
    }
}

/// One frame of an IVF file (see ``IVFReader``).
public struct IVFFrame: Sendable, Hashable {
    /// The frame's index in the file, counted from 0.
    public var index: Int
    /// The file offset of the frame's 12-byte frame header.
    public var offset: Int
    /// The presentation timestamp, in the file's time base (``IVFReader/timeBaseScale`` / ``IVFReader/timeBaseRate`` seconds).
    public var presentationTimestamp: Int64
    /// The frame's bytes: one VP8 frame, one VP9 sample (possibly a superframe) or one AV1 temporal unit.
    public var data: ArraySlice<UInt8>
}
