/// A NAL unit of one codec, its header read as that codec's: what the codec's own parsers take
/// (cros-codecs' `Nalu<'a, U: Header>`).
///
/// ``NALUnit`` is the same unit with its codec erased, as samples and descriptions hand it out.
struct TypedNALUnit<Header: NALUnitHeader>: Sendable, Hashable {
    /// The unit's header.
    let header: Header
    /// The whole NAL unit: header, then payload (still escaped).
    let bytes: ArraySlice<UInt8>

    /// The unit, when it is one of `Header`'s codec; nil for a unit of another codec.
    init?(_ unit: NALUnit) {
        guard let header = unit.header as? Header else { return nil }
        self.header = header
        self.bytes = unit.bytes
    }

    /// The escaped payload after the header.
    var payload: ArraySlice<UInt8> { bytes.dropFirst(Header.size) }

    /// The payload with emulation prevention removed, ready for a ``BitReader``.
    var rbsp: [UInt8] { RBSP.unescape(payload) }

    /// The same unit with its codec erased.
    var unit: NALUnit { NALUnit(header: header, bytes: bytes) }
}
