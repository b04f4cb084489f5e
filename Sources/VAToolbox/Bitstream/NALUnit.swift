/// One NAL unit of an H.264 or HEVC stream: its header and payload, without start code or length.
///
/// A `NALUnit` is a view: its ``bytes`` share storage with the buffer it was found in.
public struct NALUnit: Sendable, Hashable, CustomStringConvertible {
    /// The codec whose header layout applies.
    public let codec: VideoCodecType
    /// The whole NAL unit: header, then payload (still escaped).
    public let bytes: ArraySlice<UInt8>

    /// Wraps the bytes of one NAL unit.
    ///
    /// - Parameters:
    ///   - bytes: The NAL unit, header first, without start code or length prefix.
    ///   - codec: ``VideoCodecType/h264`` or ``VideoCodecType/hevc``.
    /// - Throws: ``VTError/videoDecoderBadData`` when the unit is shorter than its header or its
    ///   `forbidden_zero_bit` is set; ``VTError/parameter`` for a codec that has no NAL units.
    public init(_ bytes: ArraySlice<UInt8>, codec: VideoCodecType) throws(VTError) {
        guard let headerSize = codec.nalUnitHeaderSize else {
            throw VTError.parameter.with("\(codec) streams are not made of NAL units")
        }
        guard bytes.count >= headerSize else {
            throw VTError.videoDecoderBadData.with(
                "a \(codec) NAL unit of \(bytes.count) bytes is shorter than its \(headerSize)-byte header")
        }
        guard bytes[bytes.startIndex] & 0x80 == 0 else {
            throw VTError.videoDecoderBadData.with("a NAL unit has forbidden_zero_bit set (corrupt data)")
        }
        self.codec = codec
        self.bytes = bytes
    }

    /// The size of the NAL unit header: 1 byte for H.264, 2 for HEVC.
    public var headerSize: Int { codec == .hevc ? 2 : 1 }

    /// The escaped payload after the header.
    public var payload: ArraySlice<UInt8> { bytes.dropFirst(headerSize) }

    /// The payload with emulation prevention removed, ready for a ``BitReader``.
    public var rbsp: [UInt8] { RBSP.unescape(payload) }

    /// The `nal_unit_type` value (5 bits for H.264, 6 for HEVC).
    public var typeCode: UInt8 {
        let first = bytes[bytes.startIndex]
        return codec == .hevc ? (first >> 1) & 0x3F : first & 0x1F
    }

    /// The H.264 type, or nil for an HEVC unit.
    public var h264Type: H264NALUnitType? { codec == .h264 ? H264NALUnitType(rawValue: typeCode) : nil }

    /// The HEVC type, or nil for an H.264 unit.
    public var hevcType: HEVCNALUnitType? { codec == .hevc ? HEVCNALUnitType(rawValue: typeCode) : nil }

    /// H.264 `nal_ref_idc` (0 to 3); 0 for HEVC units.
    public var nalRefIdc: UInt8 { codec == .h264 ? (bytes[bytes.startIndex] >> 5) & 3 : 0 }

    /// HEVC `nuh_layer_id`; 0 for H.264 units.
    public var nuhLayerId: UInt8 {
        guard codec == .hevc else { return 0 }
        let start = bytes.startIndex
        return ((bytes[start] & 1) << 5) | (bytes[start + 1] >> 3)
    }

    /// HEVC `nuh_temporal_id_plus1 - 1`; 0 for H.264 units.
    public var temporalId: UInt8 {
        guard codec == .hevc else { return 0 }
        return (bytes[bytes.startIndex + 1] & 7) &- 1
    }

    /// Whether the unit carries coded slice data.
    public var isVCL: Bool { h264Type?.isVCL ?? hevcType?.isVCL ?? false }

    /// Whether decoding can start at this unit's picture: an IDR slice (H.264) or an IRAP slice (HEVC).
    public var isSync: Bool { h264Type?.isIDR ?? hevcType?.isIRAP ?? false }

    /// Whether the unit's picture may be used as a reference: `nal_ref_idc != 0` for H.264, the
    /// reference slice types for HEVC. False for non-VCL units.
    public var isReference: Bool {
        if let type = h264Type { return type.isVCL && nalRefIdc != 0 }
        return hevcType?.isReference ?? false
    }

    /// Whether the unit is a parameter set (SPS, PPS, SPS extension; VPS, SPS, PPS for HEVC).
    public var isParameterSet: Bool {
        if let type = h264Type { return [7, 8, 13].contains(type.rawValue) }
        return (32...34).contains(typeCode)
    }

    /// The type's description and the size: `"7: Sequence parameter set (non-VCL), 25 bytes"`.
    public var description: String {
        let type = h264Type.map(String.init(describing:)) ?? hevcType.map(String.init(describing:)) ?? "?"
        return "\(type), \(bytes.count) bytes"
    }
}
