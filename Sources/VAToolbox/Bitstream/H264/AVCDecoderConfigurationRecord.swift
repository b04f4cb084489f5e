/// The `avcC` record of MP4/MOV files (ISO/IEC 14496-15 clause 5.3.3.1): H.264 parameter sets
/// and the NAL unit length size, as `CMVideoFormatDescription` keeps them in its `avcC` atom.
public struct AVCDecoderConfigurationRecord: Sendable, Hashable {
    /// `AVCProfileIndication`: the SPS `profile_idc`.
    public var avcProfileIndication: UInt8
    /// `profile_compatibility`: the byte of SPS constraint flags.
    public var profileCompatibility: UInt8
    /// `AVCLevelIndication`: the SPS `level_idc`.
    public var avcLevelIndication: UInt8
    /// `lengthSizeMinusOne + 1`: the size of the NAL unit length prefixes, 1, 2 or 4.
    public var nalUnitLengthSize: Int
    /// The sequence parameter set NAL units.
    public var sequenceParameterSets: [[UInt8]]
    /// The picture parameter set NAL units.
    public var pictureParameterSets: [[UInt8]]
    /// The High-profile tail (profiles 100, 110, 122, 144): `chroma_format`,
    /// `bit_depth_luma_minus8`, `bit_depth_chroma_minus8` and the SPS extension NAL units. Nil
    /// when the record ends after the PPS (allowed: many muxers omit it).
    public var highProfileTail: HighProfileTail?

    /// The fields that follow the PPS for High profiles.
    public struct HighProfileTail: Sendable, Hashable {
        /// `chroma_format` (the SPS `chroma_format_idc`).
        public var chromaFormat: UInt8
        /// `bit_depth_luma_minus8`.
        public var bitDepthLumaMinus8: UInt8
        /// `bit_depth_chroma_minus8`.
        public var bitDepthChromaMinus8: UInt8
        /// The sequence parameter set extension NAL units.
        public var sequenceParameterSetExtensions: [[UInt8]]
    }

    /// The profiles whose record carries the High-profile tail.
    static let profilesWithTail: Set<UInt8> = [100, 110, 122, 144]

    /// Builds a record from parameter set NAL units (SPS first).
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when there is no SPS, the first SPS
    ///   cannot be parsed, a set is longer than 65535 bytes, or the length size is not 1, 2 or 4.
    public init(
        sequenceParameterSets: [[UInt8]], pictureParameterSets: [[UInt8]],
        sequenceParameterSetExtensions: [[UInt8]] = [], nalUnitLengthSize: Int = 4
    ) throws(VTError) {
        guard let first = sequenceParameterSets.first else {
            throw VTError.formatDescriptionInvalidParameter.with("an avcC record needs at least one SPS")
        }
        guard AVCC.validLengthSizes.contains(nalUnitLengthSize) else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "the NAL unit length size is \(nalUnitLengthSize); it must be 1, 2 or 4")
        }
        let sps: H264SequenceParameterSet
        do throws(VTError) {
            sps = try H264SequenceParameterSet(NALUnit(first[...], codec: .h264))
        } catch {
            throw VTError.formatDescriptionInvalidParameter.with("the SPS for avcC is invalid: \(error.reason)")
        }
        avcProfileIndication = UInt8(sps.profileIdc)
        profileCompatibility = first.count > 2 ? first[2] : 0
        avcLevelIndication = UInt8(sps.levelIdc)
        self.nalUnitLengthSize = nalUnitLengthSize
        self.sequenceParameterSets = sequenceParameterSets
        self.pictureParameterSets = pictureParameterSets
        if Self.profilesWithTail.contains(avcProfileIndication) {
            highProfileTail = HighProfileTail(
                chromaFormat: UInt8(sps.chromaFormatIdc),
                bitDepthLumaMinus8: UInt8(sps.bitDepthLumaMinus8),
                bitDepthChromaMinus8: UInt8(sps.bitDepthChromaMinus8),
                sequenceParameterSetExtensions: sequenceParameterSetExtensions)
        }
        for set in sequenceParameterSets + pictureParameterSets + sequenceParameterSetExtensions
        where set.isEmpty || set.count > 65535 {
            throw VTError.formatDescriptionInvalidParameter.with(
                "a parameter set of \(set.count) bytes cannot be stored in avcC (1 to 65535)")
        }
    }

    /// Parses an `avcC` record (the box payload, without the box header).
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` naming the field that is wrong
    ///   when the record is truncated, has a version other than 1, a reserved length size, or
    ///   bytes left over that are not a High-profile tail.
    public init(bytes: [UInt8]) throws(VTError) {
        var reader = ByteReader(bytes, context: "avcC")
        guard try reader.u8("configurationVersion") == 1 else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "avcC configurationVersion is \(bytes[0]); only 1 exists")
        }
        avcProfileIndication = try reader.u8("AVCProfileIndication")
        profileCompatibility = try reader.u8("profile_compatibility")
        avcLevelIndication = try reader.u8("AVCLevelIndication")
        let lengthSizeMinusOne = Int(try reader.u8("lengthSizeMinusOne") & 0b11)
        guard lengthSizeMinusOne != 2 else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "avcC lengthSizeMinusOne is 2, a reserved value (lengths have 1, 2 or 4 bytes)")
        }
        nalUnitLengthSize = lengthSizeMinusOne + 1
        let spsCount = Int(try reader.u8("numOfSequenceParameterSets") & 0x1F)
        sequenceParameterSets = try reader.nalUnits(count: spsCount, "sequenceParameterSetNALUnit")
        let ppsCount = Int(try reader.u8("numOfPictureParameterSets"))
        pictureParameterSets = try reader.nalUnits(count: ppsCount, "pictureParameterSetNALUnit")
        if !reader.isAtEnd && Self.profilesWithTail.contains(avcProfileIndication) {
            let chromaFormat = try reader.u8("chroma_format") & 0b11
            let luma = try reader.u8("bit_depth_luma_minus8") & 0b111
            let chroma = try reader.u8("bit_depth_chroma_minus8") & 0b111
            let extensionCount = Int(try reader.u8("numOfSequenceParameterSetExt"))
            highProfileTail = HighProfileTail(
                chromaFormat: chromaFormat, bitDepthLumaMinus8: luma, bitDepthChromaMinus8: chroma,
                sequenceParameterSetExtensions: try reader.nalUnits(
                    count: extensionCount, "sequenceParameterSetExtNALUnit"))
        }
        guard reader.isAtEnd || !Self.profilesWithTail.contains(avcProfileIndication) else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "avcC has \(reader.remaining) bytes after its last field")
        }
    }

    /// The record's bytes, as stored in an `avcC` box.
    public var bytes: [UInt8] {
        var out: [UInt8] = [1, avcProfileIndication, profileCompatibility, avcLevelIndication]
        out.append(0xFC | UInt8(nalUnitLengthSize - 1))
        out.append(0xE0 | UInt8(sequenceParameterSets.count & 0x1F))
        Self.append(sequenceParameterSets, to: &out)
        out.append(UInt8(pictureParameterSets.count & 0xFF))
        Self.append(pictureParameterSets, to: &out)
        if let tail = highProfileTail {
            out.append(0xFC | tail.chromaFormat)
            out.append(0xF8 | tail.bitDepthLumaMinus8)
            out.append(0xF8 | tail.bitDepthChromaMinus8)
            out.append(UInt8(tail.sequenceParameterSetExtensions.count & 0xFF))
            Self.append(tail.sequenceParameterSetExtensions, to: &out)
        }
        return out
    }

    private static func append(_ units: [[UInt8]], to out: inout [UInt8]) {
        for unit in units {
            out.append(UInt8(unit.count >> 8))
            out.append(UInt8(unit.count & 0xFF))
            out += unit
        }
    }
}

/// Reads the byte-aligned fields of a decoder configuration record, throwing
/// ``VTError/formatDescriptionInvalidParameter`` with the field's name when the record ends early.
struct ByteReader {
    private let bytes: [UInt8]
    private var index = 0
    private let context: String

    init(_ bytes: [UInt8], context: String) {
        self.bytes = bytes
        self.context = context
    }

    var isAtEnd: Bool { index >= bytes.count }
    var remaining: Int { bytes.count - index }

    mutating func u8(_ field: StaticString) throws(VTError) -> UInt8 {
        guard index < bytes.count else { throw truncated(field) }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func u16(_ field: StaticString) throws(VTError) -> Int {
        Int(try u8(field)) << 8 | Int(try u8(field))
    }

    mutating func read(_ count: Int, _ field: StaticString) throws(VTError) -> [UInt8] {
        guard count <= remaining else { throw truncated(field) }
        defer { index += count }
        return Array(bytes[index..<index + count])
    }

    /// Reads `count` NAL units, each preceded by a 16-bit length.
    mutating func nalUnits(count: Int, _ field: StaticString) throws(VTError) -> [[UInt8]] {
        var units: [[UInt8]] = []
        for _ in 0..<count {
            let length = try u16(field)
            guard length > 0 else {
                throw VTError.formatDescriptionInvalidParameter.with("\(context): a \(field) has length 0")
            }
            units.append(try read(length, field))
        }
        return units
    }

    private func truncated(_ field: StaticString) -> VTError {
        VTError.formatDescriptionInvalidParameter.with(
            "\(context) is truncated: it ends inside \(field) at byte \(index)")
    }
}
