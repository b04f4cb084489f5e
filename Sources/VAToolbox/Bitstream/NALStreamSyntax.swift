/// How a NAL unit relates to access-unit boundaries.
enum AccessUnitRole {
    /// Begins a new access unit when the current one already has a picture.
    case startsAccessUnit
    /// A slice of the current picture.
    case vcl
    /// Belongs to the current access unit.
    case follows
}

/// What a primary slice header says of its picture, noted in the access unit once the one before
/// it has been emitted.
struct SliceNote {
    /// Whether the slice is intra coded (H.264 `slice_type` I or SI).
    var isIntra: Bool
    /// Whether the picture is a field.
    var isField: Bool
    /// Whether the stream keeps at most one reference frame (H.264 `max_num_ref_frames` ≤ 1).
    var singleReferenceStream: Bool
}

/// What ``ElementaryStreamParser`` asks of one NAL-unit codec: where its access units begin, how
/// its parameter sets are kept and ordered, and the description they make. One conformance per
/// codec, in its folder, and a row in ``NALStreamSyntaxes/all``; the parser never tests for a codec.
protocol NALStreamSyntax: Sendable {
    /// The header of the codec's NAL units.
    associatedtype Header: NALUnitHeader

    /// A syntax that knows no parameter sets yet.
    init()

    /// How `unit` relates to access-unit boundaries (H.264 clause 7.4.1.2.3, HEVC clause
    /// 7.4.2.4.4), what its slice header says of its picture, and what could not be read.
    ///
    /// - Parameter accessUnitHasVCL: Whether the access unit being collected has a slice yet.
    mutating func role(of unit: TypedNALUnit<Header>, accessUnitHasVCL: Bool) -> (
        role: AccessUnitRole, slice: SliceNote?, error: VTError?
    )

    /// Parses and keeps a parameter set; a set replaces the one with the same id.
    ///
    /// - Throws: ``VTError/videoDecoderBadData`` when the set does not parse; it is then not kept.
    mutating func store(parameterSet unit: TypedNALUnit<Header>) throws(VTError)

    /// The parameter sets for a format description in the order the codec's description takes
    /// them (the active SPS first), or nil when the stream has not yet sent what one needs.
    ///
    /// - Parameter slice: The first slice of the access unit, which picks the active SPS.
    func orderedSets(forSlice slice: TypedNALUnit<Header>?) -> [[UInt8]]?

    // The entry points for units whose codec is erased, implemented once below; requirements so
    // that each conformance's witness is specialised for its header.

    /// ``role(of:accessUnitHasVCL:)`` for a unit of the syntax's codec.
    mutating func role(of unit: NALUnit, accessUnitHasVCL: Bool) -> (
        role: AccessUnitRole, slice: SliceNote?, error: VTError?
    )

    /// ``store(parameterSet:)`` for a unit of the syntax's codec.
    mutating func store(parameterSet unit: NALUnit) throws(VTError)

    /// ``orderedSets(forSlice:)`` for a unit of the syntax's codec.
    func orderedSets(forSlice slice: NALUnit?) -> [[UInt8]]?

    /// The format description of ordered parameter sets.
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when they do not describe a stream.
    func formatDescription(parameterSets: [[UInt8]], nalUnitHeaderLength: Int) throws(VTError)
        -> VideoFormatDescription
}

extension NALStreamSyntax {
    /// The codec the syntax reads.
    static var codec: VideoCodecType { Header.codec }

    // The parser makes every unit with the syntax's codec, so the unit always is one of `Header`'s.

    /// ``role(of:accessUnitHasVCL:)`` for a unit of the syntax's codec.
    mutating func role(of unit: NALUnit, accessUnitHasVCL: Bool) -> (
        role: AccessUnitRole, slice: SliceNote?, error: VTError?
    ) {
        guard let unit = TypedNALUnit<Header>(unit) else { return (.follows, nil, nil) }
        return role(of: unit, accessUnitHasVCL: accessUnitHasVCL)
    }

    /// ``store(parameterSet:)`` for a unit of the syntax's codec.
    mutating func store(parameterSet unit: NALUnit) throws(VTError) {
        guard let unit = TypedNALUnit<Header>(unit) else { return }
        try store(parameterSet: unit)
    }

    /// ``orderedSets(forSlice:)`` for a unit of the syntax's codec.
    func orderedSets(forSlice slice: NALUnit?) -> [[UInt8]]? {
        orderedSets(forSlice: slice.flatMap { TypedNALUnit<Header>($0) })
    }
}

/// The NAL-unit codecs ``ElementaryStreamParser`` reads.
enum NALStreamSyntaxes {
    /// Every codec's syntax.
    static let all: [any NALStreamSyntax.Type] = [H264StreamSyntax.self, HEVCStreamSyntax.self]

    /// A fresh syntax for a codec; nil for a codec whose streams are not made of NAL units.
    static func syntax(for codec: VideoCodecType) -> (any NALStreamSyntax)? {
        all.first { $0.codec == codec }.map { $0.init() }
    }
}
