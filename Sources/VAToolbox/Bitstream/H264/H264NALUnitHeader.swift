/// The one-byte H.264 NAL unit header (clause 7.3.1): `forbidden_zero_bit`, `nal_ref_idc`,
/// `nal_unit_type`.
struct H264NALUnitHeader: NALUnitHeader {
    static let codec = VideoCodecType.h264
    static let size = 1

    /// `nal_ref_idc` (0 to 3).
    let nalRefIdc: UInt8
    /// `nal_unit_type`.
    let type: H264NALUnitType

    init(_ bytes: ArraySlice<UInt8>) {
        let first = bytes[bytes.startIndex]
        nalRefIdc = (first >> 5) & 3
        type = H264NALUnitType(rawValue: first & 0x1F)
    }

    var typeCode: UInt8 { type.rawValue }
    var isVCL: Bool { type.isVCL }
    var isSync: Bool { type.isIDR }
    var isReference: Bool { type.isVCL && nalRefIdc != 0 }
    var isParameterSet: Bool { type.isParameterSet }
    var isAccessUnitDelimiter: Bool { type == .accessUnitDelimiter }
    var isEndOfSequence: Bool { type == .endOfSequence }
    var isPrefixSEI: Bool { type == .sei }
    var typeSaysIntraPicture: Bool? { nil }
    var description: String { type.description }
}
