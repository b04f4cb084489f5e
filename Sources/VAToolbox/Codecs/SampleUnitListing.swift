/// A sample's coded units as its codec frames them, as ``SampleUnitLister`` parses them: NAL
/// units (H.264, HEVC), OBUs with their sequence and frame headers (AV1), the frames of a
/// superframe (VP9), the frame header (VP8), the headers and pictures of a sample (MPEG-2).
///
/// Each unit comes twice: as a line for people (``lines``) and as named values for programs
/// (``fields``, which `vatoolbox probe --units --json` prints as they are). Nothing is decoded.
public struct SampleUnitListing: Sendable, Hashable {
    /// A note on the whole sample, nil when there is none: `"superframe of 2 frames"` (VP9),
    /// `"1 shown"` (AV1).
    public var note: String?
    /// One line per unit, without indentation, in bitstream order.
    public var lines: [String] = []
    /// The units as named values, in a fixed order: `nal_units` (H.264, HEVC), `frames` (VP9,
    /// VP8), `obus` (AV1), `sequence_header`, `group_of_pictures`, `pictures` and `sequence_end`
    /// (MPEG-2).
    public var fields: [Field] = []
    /// Why the sample could not be parsed, nil when it could. The units listed before the
    /// failure stay in ``lines``.
    public var problem: String?

    /// An empty listing, to which a codec's lister adds.
    public init() {}

    /// A named value of a listing.
    public struct Field: Sendable, Hashable {
        /// The name, in snake_case (`"nal_units"`, `"frame_type"`).
        public var name: String
        /// The value.
        public var value: Value

        /// A field named `name` holding `value`.
        public init(_ name: String, _ value: Value) {
            self.name = name
            self.value = value
        }
    }

    /// A value of a listing: what JSON can hold, with an object's members in a fixed order.
    public indirect enum Value: Sendable, Hashable {
        /// No value (a field that does not apply to this unit).
        case null
        /// A flag.
        case bool(Bool)
        /// A number.
        case int(Int)
        /// A text.
        case string(String)
        /// A list of values.
        case array([Value])
        /// Named values, in order.
        case object([Field])

        /// A text, or ``null`` when there is none.
        public static func string(_ text: String?) -> Value { text.map { .string($0) } ?? .null }

        /// Named values from name-value pairs, in order.
        static func record(_ members: [(String, Value)]) -> Value { .object(members.map { Field($0.0, $0.1) }) }
    }
}

/// Lists the coded units of each sample of a stream in turn (``SampleUnitListing``), keeping
/// what the next sample's parse needs (the VP9 reference frame sizes, the AV1 sequence header in
/// force). The codec's own parser does the work; the lister is the one entry point for every
/// codec.
///
/// ```swift
/// var lister = SampleUnitLister(codecType: reader.codecType)
/// while let sample = try reader.nextSample() {
///     for line in lister.listUnits(of: sample).lines { print(line) }
/// }
/// ```
public struct SampleUnitLister: Sendable {
    /// The codec of the samples listed.
    public let codecType: VideoCodecType
    /// The codec's lister; nil for a codec VAToolbox has no parser for.
    private var lister: (any CodecUnitListing)?

    /// A lister for samples of `codecType`, from the stream's first sample on.
    public init(codecType: VideoCodecType) {
        self.codecType = codecType
        lister = (CodecRegistry.support(for: codecType) as? any UnitListingCodecSupport)?.makeUnitLister()
    }

    /// The units of the next sample in decode order. A sample that cannot be parsed gives a
    /// listing with its ``SampleUnitListing/problem``; it never throws.
    public mutating func listUnits(of sample: SampleBuffer) -> SampleUnitListing {
        var listing = SampleUnitListing()
        guard var lister else {
            listing.problem = "\(codecType.name) has no unit parser"
            return listing
        }
        do throws(VTError) {
            try lister.list(sample, into: &listing)
        } catch {
            listing.problem = error.reason.isEmpty ? error.summary : error.reason
        }
        self.lister = lister
        return listing
    }
}

/// One codec's unit parser behind ``SampleUnitLister``: adds a sample's units to a listing, and
/// keeps what the next sample's parse needs.
protocol CodecUnitListing: Sendable {
    /// Adds the units of `sample` (the next in decode order) to `listing`.
    ///
    /// - Throws: The parser's error when the sample is malformed; what was added stays.
    mutating func list(_ sample: SampleBuffer, into listing: inout SampleUnitListing) throws(VTError)
}

/// A codec support whose samples ``SampleUnitLister`` can list.
protocol UnitListingCodecSupport: CodecSupport {
    /// A lister for a stream's samples, from its first.
    func makeUnitLister() -> any CodecUnitListing
}
