/// What ``AnnexBTimeStamper`` needs of a picture.
struct PictureOrderInfo {
    /// The picture order count.
    var pictureOrderCount: Int
    /// Whether its counts start a new sequence (the pictures waiting are all shown first).
    var startsSequence: Bool
    /// Whether a decoder outputs it.
    var isOutput: Bool
    /// Whether a decoder skips the picture (an HEVC RASL picture it cannot decode).
    var isSkipped = false
    /// Whether the pictures waiting are discarded, not shown (HEVC `NoOutputOfPriorPicsFlag`).
    var discardsPriorPictures = false
    /// Whether it is a field picture.
    var isFieldPicture = false
    /// Whether it is a bottom field.
    var isBottomField = false
    /// H.264 `frame_num`.
    var frameNum = 0
    /// Whether it is an IDR picture.
    var isIDR = false
    /// Whether it may be the second field of the picture before it.
    var isSecondField = false
}

/// An H.264 field waiting for the field that completes its frame: its parity, `frame_num`, and
/// whether it is an IDR picture.
typealias OpenField = (bottom: Bool, frameNum: Int, isIDR: Bool)

/// What ``AnnexBTimeStamper`` asks of one NAL-unit codec: the parameter sets its slice headers
/// need, and each picture's order count (H.264 clause 8.2.1, HEVC clause 8.3.1). One conformance
/// per codec, in its folder, and a row in ``PictureOrderSources/all``.
protocol PictureOrderSource: Sendable {
    /// The header of the codec's NAL units.
    associatedtype Header: NALUnitHeader

    /// A source that knows no parameter sets yet.
    init()

    /// Learns a parameter set (a PPS after the SPS it refers to); other units are ignored.
    mutating func learn(_ unit: TypedNALUnit<Header>)

    /// Notes an end of sequence: the next picture starts new counts.
    mutating func noteEndOfSequence()

    /// The counts of the picture whose first slice is `slice`; nil when its header cannot be read.
    /// The second value tells a field picture.
    ///
    /// - Parameter lastOpenField: The unpaired field waiting last, which `slice` may complete.
    mutating func picture(of slice: TypedNALUnit<Header>, lastOpenField: OpenField?) -> (PictureOrderInfo?, Bool)

    // The entry points for units whose codec is erased, implemented once below; requirements so
    // that each conformance's witness is specialised for its header.

    /// ``learn(_:)`` for a unit of the source's codec.
    mutating func learn(_ unit: NALUnit)

    /// ``picture(of:lastOpenField:)`` for a unit of the source's codec.
    mutating func picture(of slice: NALUnit, lastOpenField: OpenField?) -> (PictureOrderInfo?, Bool)
}

extension PictureOrderSource {
    /// The codec the source counts.
    static var codec: VideoCodecType { Header.codec }

    // The time stamper's samples are of the source's codec, so every unit is one of `Header`'s.

    /// ``learn(_:)`` for a unit of the source's codec.
    mutating func learn(_ unit: NALUnit) {
        guard let unit = TypedNALUnit<Header>(unit) else { return }
        learn(unit)
    }

    /// ``picture(of:lastOpenField:)`` for a unit of the source's codec.
    mutating func picture(of slice: NALUnit, lastOpenField: OpenField?) -> (PictureOrderInfo?, Bool) {
        guard let slice = TypedNALUnit<Header>(slice) else { return (nil, false) }
        return picture(of: slice, lastOpenField: lastOpenField)
    }
}

/// The NAL-unit codecs whose pictures ``AnnexBTimeStamper`` orders.
enum PictureOrderSources {
    /// Every codec's source.
    static let all: [any PictureOrderSource.Type] = [H264PictureOrderSource.self, HEVCPictureOrderSource.self]

    /// A fresh source for a codec; nil for a codec whose samples are not made of NAL units.
    static func source(for codec: VideoCodecType) -> (any PictureOrderSource)? {
        all.first { $0.codec == codec }.map { $0.init() }
    }
}
