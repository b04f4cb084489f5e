/// One NAL unit of an H.264 or HEVC stream: its header and payload, without start code or length.
///
/// A `NALUnit` is a view: its ``bytes`` share storage with the buffer it was found in. Its
/// codec-neutral questions (``isVCL``, ``isSync``, ``isParameterSet``) are answered by the
/// codec's header; the codec's own fields are extensions in the codec's folder (``h264Type``,
/// ``nalRefIdc``; ``hevcType``, ``nuhLayerId``, ``temporalId``).
public struct NALUnit: Sendable, Hashable, CustomStringConvertible {
    /// The unit's header, read as its codec's.
    let header: any NALUnitHeader
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
        guard let headerType = NALUnitHeaders.header(of: codec) else {
            throw VTError.parameter.with("\(codec) streams are not made of NAL units")
        }
        guard bytes.count >= headerType.size else {
            throw VTError.videoDecoderBadData.with(
                "a \(codec) NAL unit of \(bytes.count) bytes is shorter than its \(headerType.size)-byte header")
        }
        guard bytes[bytes.startIndex] & 0x80 == 0 else {
            throw VTError.videoDecoderBadData.with("a NAL unit has forbidden_zero_bit set (corrupt data)")
        }
        self.init(header: headerType.init(bytes), bytes: bytes)
    }

    /// A unit whose header has been read.
    init(header: any NALUnitHeader, bytes: ArraySlice<UInt8>) {
        self.header = header
        self.bytes = bytes
    }

    /// The codec whose header layout applies.
    public var codec: VideoCodecType { type(of: header).codec }

    /// The size of the NAL unit header: 1 byte for H.264, 2 for HEVC.
    public var headerSize: Int { type(of: header).size }

    /// The escaped payload after the header.
    public var payload: ArraySlice<UInt8> { bytes.dropFirst(headerSize) }

    /// The payload with emulation prevention removed, ready for a ``BitReader``.
    public var rbsp: [UInt8] { RBSP.unescape(payload) }

    /// The `nal_unit_type` value (5 bits for H.264, 6 for HEVC).
    public var typeCode: UInt8 { header.typeCode }

    /// Whether the unit carries coded slice data.
    public var isVCL: Bool { header.isVCL }

    /// Whether decoding can start at this unit's picture: an IDR slice (H.264) or an IRAP slice (HEVC).
    public var isSync: Bool { header.isSync }

    /// Whether the unit's picture may be used as a reference: `nal_ref_idc != 0` for H.264, the
    /// reference slice types for HEVC. False for non-VCL units.
    public var isReference: Bool { header.isReference }

    /// Whether the unit is a parameter set (SPS, PPS, SPS extension; VPS, SPS, PPS for HEVC).
    public var isParameterSet: Bool { header.isParameterSet }

    /// Whether the unit is an end of sequence.
    var isEndOfSequence: Bool { header.isEndOfSequence }

    /// The type's description and the size: `"7: Sequence parameter set (non-VCL), 25 bytes"`.
    public var description: String { "\(header), \(bytes.count) bytes" }

    /// Whether two units are the same bytes of the same codec.
    public static func == (lhs: NALUnit, rhs: NALUnit) -> Bool {
        lhs.codec == rhs.codec && lhs.bytes == rhs.bytes
    }

    /// Hashes the codec and the bytes.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(codec)
        hasher.combine(bytes)
    }
}
