/// The header of one codec's NAL units (H.264 clause 7.3.1, HEVC clause 7.3.1.2), and the
/// questions the codec-neutral code asks of a unit's type, by name.
///
/// ``NALUnit``, ``ElementaryStreamParser`` and ``AnnexBTimeStamper`` never test for a codec: they
/// ask the unit's header. A codec's header is one conformance in its folder (`H264/`, `HEVC/`)
/// and a row in ``NALUnitHeaders/all``; the type numbers appear only there.
protocol NALUnitHeader: Sendable, Hashable, CustomStringConvertible {
    /// The codec whose NAL units have this header.
    static var codec: VideoCodecType { get }
    /// The size of the header in bytes.
    static var size: Int { get }
    /// Reads the header from the first ``size`` bytes of a unit.
    ///
    /// - Precondition: `bytes` holds at least ``size`` bytes.
    init(_ bytes: ArraySlice<UInt8>)

    /// `nal_unit_type`.
    var typeCode: UInt8 { get }
    /// Whether the unit carries coded slice data.
    var isVCL: Bool { get }
    /// Whether decoding can start at the unit's picture (H.264 IDR, HEVC IRAP).
    var isSync: Bool { get }
    /// Whether the unit's picture may be used as a reference; false for non-VCL units.
    var isReference: Bool { get }
    /// Whether the unit is a parameter set.
    var isParameterSet: Bool { get }
    /// Whether the unit is an access unit delimiter.
    var isAccessUnitDelimiter: Bool { get }
    /// Whether the unit is an end of sequence.
    var isEndOfSequence: Bool { get }
    /// Whether the unit carries SEI messages that come before their picture (where a recovery
    /// point SEI is): every H.264 SEI, HEVC's prefix SEI.
    var isPrefixSEI: Bool { get }
    /// Whether the unit's type alone says that its picture is intra coded (HEVC: an IRAP picture
    /// is, another is not); nil when only the slice header tells (H.264).
    var typeSaysIntraPicture: Bool? { get }
}

/// The NAL unit headers VAToolbox reads, one per NAL-unit codec.
enum NALUnitHeaders {
    /// Every codec's header.
    static let all: [any NALUnitHeader.Type] = [H264NALUnitHeader.self, HEVCNALUnitHeader.self]

    /// The header of a codec's NAL units; nil for a codec whose samples are not made of NAL units.
    static func header(of codec: VideoCodecType) -> (any NALUnitHeader.Type)? {
        all.first { $0.codec == codec }
    }
}

// Which codecs are made of NAL units is the NAL unit headers' knowledge, in their layer.
extension VideoCodecType {
    /// The length in bytes of this codec's NAL unit header (1 for H.264, 2 for HEVC), or nil for a
    /// codec that is not NAL-unit based.
    var nalUnitHeaderSize: Int? { NALUnitHeaders.header(of: self)?.size }
}
