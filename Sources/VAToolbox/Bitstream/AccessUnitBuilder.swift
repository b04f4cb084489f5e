/// The access unit ``ElementaryStreamParser`` is collecting, and what its units say of the
/// sample it becomes (its ``attachments``).
struct AccessUnitBuilder {
    /// The units so far, in stream order.
    var units: [NALUnit] = []
    /// Whether a slice has been added.
    var hasVCL = false
    /// Whether a slice starts a picture where decoding can start (IDR, IRAP).
    var isSync = false
    /// Whether every slice is intra coded, as far as the slices tell.
    var allIntra = true
    /// Whether the picture is a field.
    var isField = false
    /// Whether a slice belongs to a reference picture.
    var anyReference = false
    /// Whether a prefix SEI carries a recovery point.
    var hasRecoveryPoint = false
    /// Whether the stream keeps at most one reference frame (H.264 `max_num_ref_frames` ≤ 1);
    /// false until a slice note says so.
    var singleReferenceStream = false
    /// The first slice, which picks the active SPS.
    var firstVCL: NALUnit?

    /// Adds a unit; `isVCL` says whether it is a slice of the picture.
    mutating func append(_ unit: NALUnit, isVCL: Bool) {
        units.append(unit)
        if unit.header.isPrefixSEI,
            SEIMessages.payloadTypes(inRBSP: unit.rbsp).contains(SEIMessages.recoveryPointPayloadType)
        {
            hasRecoveryPoint = true
        }
        guard isVCL else { return }
        if !hasVCL { firstVCL = unit }
        hasVCL = true
        isSync = isSync || unit.isSync
        anyReference = anyReference || unit.isReference
        if unit.header.typeSaysIntraPicture == false { allIntra = false }
    }

    /// Records what a primary slice header says about the picture.
    mutating func noteSlice(_ note: SliceNote) {
        allIntra = allIntra && note.isIntra
        isField = note.isField
        singleReferenceStream = note.singleReferenceStream
    }

    /// The sample's attachments: sync, partial sync, dependencies.
    var attachments: SampleAttachments {
        var flags: SampleAttachments = []
        if !isSync { flags.insert(.notSync) }
        // A recovery point SEI marks a picture where decoding may start; so does an intra picture
        // of a stream that keeps one reference frame: nothing before it is referenced after it.
        // Only a slice header tells the reference frames (H.264), so for HEVC the second test is
        // always false.
        if !isSync && (hasRecoveryPoint || (allIntra && singleReferenceStream)) {
            flags.insert(.partialSync)
        }
        if !allIntra { flags.insert(.dependsOnOthers) }
        if !anyReference { flags.insert(.notDependedOnByOthers) }
        return flags
    }
}
