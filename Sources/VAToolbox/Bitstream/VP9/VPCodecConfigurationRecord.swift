/// The VP codec configuration record (`vpcC`, VP Codec ISO Media File Format Binding 2.3.3):
/// profile, level, bit depth, chroma subsampling and colour of a VP8/VP9 stream — what VideoToolbox
/// keeps under the `vpcC` key of a format description's sample description extension atoms.
///
/// ```
/// [version (8) = 1, flags (24) = 0]   (the FullBox header, present in the atom)
/// profile (8), level (8), bitDepth (4), chromaSubsampling (3), videoFullRangeFlag (1),
/// colourPrimaries (8), transferCharacteristics (8), matrixCoefficients (8),
/// codecIntializationDataSize (16) = 0
/// ```
public struct VPCodecConfigurationRecord: Sendable, Hashable {
    /// `chromaSubsampling`: how the chroma planes are sampled.
    public enum ChromaSubsampling: Int, Sendable, Hashable {
        /// 4:2:0, chroma sited between the luma rows (left, as libvpx encodes).
        case yuv420Vertical = 0
        /// 4:2:0, chroma co-sited with the top-left luma sample.
        case yuv420Colocated = 1
        /// 4:2:2.
        case yuv422 = 2
        /// 4:4:4.
        case yuv444 = 3

        /// The subsampling of a `chroma_format_idc` (4:2:0 as libvpx sites it); nil for 4:0:0
        /// and 4:4:0, which a record cannot state.
        init?(chromaFormatIdc: Int) {
            switch chromaFormatIdc {
            case 1: self = .yuv420Vertical
            case 2: self = .yuv422
            case 3: self = .yuv444
            default: return nil
            }
        }
    }

    /// `profile`: 0–3.
    public var profile: Int
    /// `level`: the VP9 level × 10 (`31` is level 3.1), 0 when unknown.
    public var level: Int
    /// `bitDepth`: 8, 10 or 12.
    public var bitDepth: Int
    /// `chromaSubsampling`.
    public var chromaSubsampling: ChromaSubsampling
    /// `videoFullRangeFlag`.
    public var videoFullRangeFlag: Bool
    /// `colourPrimaries` (ISO/IEC 23091-2; 2 unspecified).
    public var colourPrimaries: UInt8
    /// `transferCharacteristics` (2 unspecified).
    public var transferCharacteristics: UInt8
    /// `matrixCoefficients` (2 unspecified).
    public var matrixCoefficients: UInt8

    /// Creates a record.
    public init(
        profile: Int, level: Int, bitDepth: Int, chromaSubsampling: ChromaSubsampling, videoFullRangeFlag: Bool,
        colourPrimaries: UInt8 = 2, transferCharacteristics: UInt8 = 2, matrixCoefficients: UInt8 = 2
    ) {
        self.profile = profile
        self.level = level
        self.bitDepth = bitDepth
        self.chromaSubsampling = chromaSubsampling
        self.videoFullRangeFlag = videoFullRangeFlag
        self.colourPrimaries = colourPrimaries
        self.transferCharacteristics = transferCharacteristics
        self.matrixCoefficients = matrixCoefficients
    }

    /// Parses a `vpcC` atom, with its FullBox version and flags or without them.
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` for a record too short, a version
    ///   other than 1, or a bit depth other than 8, 10 or 12.
    public init(_ bytes: [UInt8]) throws(VTError) {
        var record = bytes[...]
        // The record's third byte holds the bit depth (8 or more), never 0: two zero bytes there
        // are the FullBox flags.
        if bytes.count >= 12 && bytes[2] == 0 && bytes[3] == 0 {
            guard bytes[0] == 1 else {
                throw VTError.formatDescriptionInvalidParameter.with(
                    "vpcC version \(bytes[0]); only version 1 is defined")
            }
            record = bytes.dropFirst(4)
        }
        guard record.count >= 8 else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "a vpcC record has at least 8 bytes; this one has \(record.count)")
        }
        let start = record.startIndex
        profile = Int(record[start])
        level = Int(record[start + 1])
        bitDepth = Int(record[start + 2] >> 4)
        guard [8, 10, 12].contains(bitDepth) else {
            throw VTError.formatDescriptionInvalidParameter.with("vpcC bitDepth is \(bitDepth), not 8, 10 or 12")
        }
        chromaSubsampling = ChromaSubsampling(rawValue: Int(record[start + 2] >> 1) & 7) ?? .yuv420Vertical
        guard (record[start + 2] >> 1) & 7 <= 3 else {
            throw VTError.formatDescriptionInvalidParameter.with(
                "vpcC chromaSubsampling is \((record[start + 2] >> 1) & 7), a reserved value")
        }
        videoFullRangeFlag = record[start + 2] & 1 == 1
        colourPrimaries = record[start + 3]
        transferCharacteristics = record[start + 4]
        matrixCoefficients = record[start + 5]
    }

    /// The atom: FullBox version 1 and flags 0, then the record, with no initialisation data.
    public var bytes: [UInt8] {
        [
            1, 0, 0, 0, UInt8(truncatingIfNeeded: profile), UInt8(truncatingIfNeeded: level),
            UInt8(truncatingIfNeeded: bitDepth << 4 | chromaSubsampling.rawValue << 1 | (videoFullRangeFlag ? 1 : 0)),
            colourPrimaries, transferCharacteristics, matrixCoefficients, 0, 0,
        ]
    }

    /// `chroma_format_idc` of the subsampling: 1 4:2:0, 2 4:2:2, 3 4:4:4.
    var chromaFormatIdc: Int {
        switch chromaSubsampling {
        case .yuv420Vertical, .yuv420Colocated: 1
        case .yuv422: 2
        case .yuv444: 3
        }
    }
}
