/// The sequence and picture parameter sets of a stream, raw, by id, as the stream has sent them
/// so far; the part of keeping parameter sets that H.264 and HEVC share.
///
/// A set replaces the one with the same id; sending identical bytes again changes nothing, which
/// is how ``ElementaryStreamParser`` tells a repeat from a change.
struct ParameterSetStore {
    /// SPSs, raw, by id.
    private(set) var sequenceParameterSets: [Int: [UInt8]] = [:]
    /// PPSs, raw, by id.
    private(set) var pictureParameterSets: [Int: [UInt8]] = [:]
    /// PPS id → the id of the SPS it refers to.
    private(set) var spsIdOfPPS: [Int: Int] = [:]

    /// Keeps an SPS.
    mutating func storeSequenceParameterSet(_ bytes: [UInt8], id: Int) {
        sequenceParameterSets[id] = bytes
    }

    /// Keeps a PPS and the SPS it refers to.
    mutating func storePictureParameterSet(_ bytes: [UInt8], id: Int, spsId: Int) {
        spsIdOfPPS[id] = spsId
        pictureParameterSets[id] = bytes
    }

    /// The SPSs, the active one first, then the others by id, and the PPSs, by id, whose SPS is
    /// known; nil when the active SPS is unknown or no PPS is usable.
    ///
    /// - Parameter active: The id of the SPS the access unit's slice uses; nil takes the lowest.
    func ordered(activeSPS active: Int?) -> (sps: [[UInt8]], pps: [[UInt8]], spsIds: Set<Int>)? {
        let active = active ?? sequenceParameterSets.keys.min()
        guard let active, let activeSPS = sequenceParameterSets[active] else { return nil }
        let otherSPS = sequenceParameterSets.filter { $0.key != active }.sorted { $0.key < $1.key }.map(\.value)
        let spsIds = Set(sequenceParameterSets.keys)
        let usablePPS = pictureParameterSets.sorted { $0.key < $1.key }.filter { entry in
            spsIdOfPPS[entry.key].map(spsIds.contains) ?? false
        }
        guard !usablePPS.isEmpty else { return nil }
        return ([activeSPS] + otherSPS, usablePPS.map(\.value), spsIds)
    }
}
