/// Length-prefixed NAL units, the layout of samples in MP4/MOV/MKV (ISO/IEC 14496-15): each NAL
/// unit preceded by its size as a big-endian number of 1, 2 or 4 bytes. VideoToolbox calls it
/// AVCC for H.264 and HVCC for HEVC; the layout is the same.
public enum AVCC {
    /// The sizes a length prefix may have.
    public static let validLengthSizes = VideoFormatDescription.validNALUnitHeaderLengths

    /// Splits length-prefixed data into its NAL units, without copying.
    ///
    /// - Parameters:
    ///   - data: The sample data.
    ///   - lengthSize: The size of each length prefix: 1, 2 or 4 bytes.
    /// - Returns: Each NAL unit's bytes, as slices of `data`.
    /// - Throws: ``VTError/sampleBufferInvalidSampleData`` when the prefixes do not tile the data
    ///   exactly (a length runs past the end, a unit is empty, or bytes are left over), with a hint
    ///   when the data looks like Annex B; ``VTError/parameter`` for a length size other than 1, 2, 4.
    public static func split(_ data: ArraySlice<UInt8>, lengthSize: Int) throws(VTError) -> [ArraySlice<UInt8>] {
        guard validLengthSizes.contains(lengthSize) else {
            throw VTError.parameter.with("a NAL unit length prefix has 1, 2 or 4 bytes, not \(lengthSize)")
        }
        var units: [ArraySlice<UInt8>] = []
        var index = data.startIndex
        while index < data.endIndex {
            guard data.endIndex - index >= lengthSize else {
                throw invalid(
                    data,
                    "\(data.endIndex - index) bytes are left at offset \(index - data.startIndex), too few for a \(lengthSize)-byte length"
                )
            }
            var length = 0
            for byte in data[index..<index + lengthSize] { length = length << 8 | Int(byte) }
            index += lengthSize
            guard length > 0 else {
                throw invalid(data, "a NAL unit at offset \(index - lengthSize - data.startIndex) has length 0")
            }
            guard length <= data.endIndex - index else {
                throw invalid(
                    data,
                    "a NAL unit at offset \(index - lengthSize - data.startIndex) claims \(length) bytes but only \(data.endIndex - index) follow"
                )
            }
            units.append(data[index..<index + length])
            index += length
        }
        return units
    }

    /// Joins NAL units into length-prefixed data.
    ///
    /// - Throws: ``VTError/parameter`` for a bad length size or a unit too long for it
    ///   (over 255 bytes with 1-byte lengths, over 65535 with 2-byte lengths).
    public static func join<Unit: Collection<UInt8>>(_ units: some Sequence<Unit>, lengthSize: Int = 4) throws(VTError)
        -> [UInt8]
    {
        guard validLengthSizes.contains(lengthSize) else {
            throw VTError.parameter.with("a NAL unit length prefix has 1, 2 or 4 bytes, not \(lengthSize)")
        }
        var data: [UInt8] = []
        for unit in units {
            try appendLength(unit.count, size: lengthSize, to: &data)
            data += unit
        }
        return data
    }

    /// Converts an Annex B byte stream to length-prefixed data (see ``AnnexB/split(_:)``).
    public static func fromAnnexB(_ stream: [UInt8], lengthSize: Int = 4) throws(VTError) -> [UInt8] {
        try join(AnnexB.split(stream), lengthSize: lengthSize)
    }

    /// Converts length-prefixed data to an Annex B byte stream with 4-byte start codes.
    public static func toAnnexB(_ data: ArraySlice<UInt8>, lengthSize: Int = 4) throws(VTError) -> [UInt8] {
        AnnexB.join(try split(data, lengthSize: lengthSize))
    }

    /// Appends a big-endian length of `size` bytes.
    static func appendLength(_ length: Int, size: Int, to data: inout [UInt8]) throws(VTError) {
        guard length < 1 << (8 * size) else {
            throw VTError.parameter.with("a NAL unit of \(length) bytes does not fit a \(size)-byte length prefix")
        }
        for shift in stride(from: 8 * (size - 1), through: 0, by: -8) {
            data.append(UInt8(truncatingIfNeeded: length >> shift))
        }
    }

    private static func invalid(_ data: ArraySlice<UInt8>, _ reason: String) -> VTError {
        let hint =
            AnnexB.startsWithStartCode(data)
            ? "the data starts with an Annex B start code (00 00 01); convert it with AVCC.fromAnnexB or feed the stream to ElementaryStreamParser"
            : nil
        return VTError.sampleBufferInvalidSampleData.with(
            "length-prefixed NAL units do not tile the sample: \(reason)", hint: hint)
    }
}
