/// VP9 superframes (VP9 bitstream specification v0.6, Annex B): several frames in one sample.
///
/// An encoder that makes a hidden frame (an alternate reference, `show_frame` = 0) sends it in
/// the same sample as the next shown frame, joined by a superframe index at the end of the
/// sample: a marker byte `0b110mmnnn` (`mm` = `bytes_per_framesize_minus_1`, `nnn` =
/// `frames_in_superframe_minus_1`), the frame sizes (little endian, `mm + 1` bytes each), and
/// the marker byte again (B.3 "superframe_index()"). A sample without such an index is one frame.
public enum VP9Superframe {
    /// Splits a sample into its frames, without copying.
    ///
    /// The index is recognised as libvpx and FFmpeg do: the last byte has the form `110xxxxx`
    /// and the byte `index size` bytes from the end is the same marker. A sample without a
    /// recognised index is returned whole as one frame.
    ///
    /// - Parameter data: One sample (for example an IVF frame or a WebM block).
    /// - Returns: The frames in decoding order, as slices of `data`.
    /// - Throws: ``VTError/sampleBufferInvalidSampleData`` when the sample is empty, or when a
    ///   recognised index lists a frame of size 0 or sizes that do not add up to the bytes before
    ///   the index (B.3: the frames fill the superframe exactly).
    public static func frames(in data: ArraySlice<UInt8>) throws(VTError) -> [ArraySlice<UInt8>] {
        guard let last = data.last else {
            throw VTError.sampleBufferInvalidSampleData.with("VP9: the sample is empty")
        }
        guard let index = Self.index(of: data) else { return [data] }
        let bytesPerSize = Int((last >> 3) & 0x3) + 1
        let frameCount = Int(last & 0x7) + 1
        var sizes: [Int] = []
        var position = index.lowerBound + 1
        for _ in 0..<frameCount {
            var size = 0
            for byte in 0..<bytesPerSize { size |= Int(data[position + byte]) << (8 * byte) }
            sizes.append(size)
            position += bytesPerSize
        }
        let payload = index.lowerBound - data.startIndex
        let total = sizes.reduce(0, +)
        if let empty = sizes.firstIndex(of: 0) {
            throw VTError.sampleBufferInvalidSampleData.with(
                "VP9 superframe index: frame \(empty) of \(frameCount) has size 0")
        }
        guard total == payload else {
            throw VTError.sampleBufferInvalidSampleData.with(
                "VP9 superframe index: the \(frameCount) frame sizes \(sizes) add up to \(total) bytes, "
                    + "but \(payload) bytes precede the \(index.count)-byte index")
        }
        var frames: [ArraySlice<UInt8>] = []
        var start = data.startIndex
        for size in sizes {
            frames.append(data[start..<start + size])
            start += size
        }
        return frames
    }

    /// The range of the superframe index at the end of `data`, when there is one (B.2).
    ///
    /// - Returns: nil when the last byte is not a superframe marker or the first byte of the
    ///   would-be index differs from it.
    public static func index(of data: ArraySlice<UInt8>) -> Range<Int>? {
        guard let last = data.last, last & 0xE0 == 0xC0 else { return nil }
        let bytesPerSize = Int((last >> 3) & 0x3) + 1
        let frameCount = Int(last & 0x7) + 1
        let indexSize = 2 + bytesPerSize * frameCount
        guard data.count >= indexSize else { return nil }
        let start = data.endIndex - indexSize
        guard data[start] == last else { return nil }
        return start..<data.endIndex
    }
}
