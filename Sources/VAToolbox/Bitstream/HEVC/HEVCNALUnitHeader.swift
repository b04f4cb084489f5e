/// The two-byte HEVC NAL unit header (clause 7.3.1.2): `forbidden_zero_bit`, `nal_unit_type`,
/// `nuh_layer_id`, `nuh_temporal_id_plus1`.
struct HEVCNALUnitHeader: NALUnitHeader {
    static let codec = VideoCodecType.hevc
    static let size = 2

    /// `nal_unit_type`.
    let type: HEVCNALUnitType
    /// `nuh_layer_id`.
    let nuhLayerId: UInt8
    /// `nuh_temporal_id_plus1 - 1` (wrapping: 255 for the forbidden value 0).
    let temporalId: UInt8

    init(_ bytes: ArraySlice<UInt8>) {
        let first = bytes[bytes.startIndex]
        let second = bytes[bytes.startIndex + 1]
        type = HEVCNALUnitType(rawValue: (first >> 1) & 0x3F)
        nuhLayerId = ((first & 1) << 5) | (second >> 3)
        temporalId = (second & 7) &- 1
    }

    var typeCode: UInt8 { type.rawValue }
    var isVCL: Bool { type.isVCL }
    var isSync: Bool { type.isIRAP }
    var isReference: Bool { type.isReference }
    var isParameterSet: Bool { type.isParameterSet }
    var isAccessUnitDelimiter: Bool { type == .accessUnitDelimiter }
    var isEndOfSequence: Bool { type == .endOfSequence }
    var isPrefixSEI: Bool { type == .prefixSEI }
    var typeSaysIntraPicture: Bool? { type.isIRAP }
    var description: String { type.description }
}
