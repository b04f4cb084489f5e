/// Watches HEVC reference picture sets to notice a lost reference picture, which libavcodec
/// conceals (it generates a grey picture in its place) without flagging the frames it damages.
///
/// Clause 8.3.2: every picture lists, in its slice header, the pictures it and later pictures may
/// reference. Those it uses itself (`RefPicSetStCurrBefore`, `…StCurrAfter`, `…LtCurr`) must be in
/// the decoded picture buffer; when one is not, a reference went missing, and every picture from
/// there up to the next IRAP picture may be wrong. The DPB is followed as the clause does: after
/// each picture it keeps the pictures the picture's set names, plus the picture itself.
///
/// Picture order counts, and where decoding starts afresh (`NoRaslOutputFlag`, an end of
/// sequence included), come from ``HEVCPictureOrderCounter``, the derivation the time stamper
/// uses. RASL pictures of an IRAP picture with `NoRaslOutputFlag` 1 are neither checked nor kept:
/// their references precede the IRAP picture, and decoders skip them.
struct HEVCReferenceContinuity: ReferenceTracker {
    private var parameterSets = HEVCParameterSets()
    /// POCs of the pictures in the decoded picture buffer.
    private var decodedPictures: Set<Int> = []
    /// The picture order counts, and the decoder's view of each picture (clause 8.3.1).
    private var counter = HEVCPictureOrderCounter()
    /// Whether pictures are being decoded without a reference they need.
    private(set) var isDamaged = false
    /// What the last picture followed is to a decoder, beyond its references; nil when its
    /// slice segment header could not be read.
    private(set) var lastPicture: HEVCPictureOrderCounter.Picture?

    /// Learns the parameter sets of a format description.
    mutating func learn(_ format: VideoFormatDescription) {
        parameterSets.learn(format)
    }

    /// Follows one sample: its parameter sets, its first slice segment, and an end of sequence
    /// before or after that slice (clause 7.4.2.4.4 puts it last in its access unit).
    mutating func follow(_ sample: SampleBuffer) -> FrameContinuity {
        lastPicture = nil
        var damaged = isDamaged
        var followedSlice = false
        for unit in sample.nalUnits {
            if unit.isParameterSet {
                parameterSets.learn(unit)
            } else if unit.hevcType == .endOfSequence {
                counter.noteEndOfSequence()
            } else if unit.isVCL && !followedSlice {
                followedSlice = true
                damaged = follow(unit)
            }
        }
        let skipped = lastPicture?.isSkippedLeadingPicture ?? false
        let intended = lastPicture?.followsEndOfSequence ?? false
        return FrameContinuity(
            missingReference: damaged
                ? "a reference picture this frame depends on is missing (not in the decoded picture buffer)" : nil,
            isSkippedLeadingPicture: skipped && !intended,
            showsNoPicture: skipped && intended,
            discardsPriorPictures: lastPicture?.discardsPriorPictures ?? false)
    }

    /// Follows one picture's first slice segment; returns true when the picture may be wrong for
    /// want of a reference.
    mutating func follow(_ slice: NALUnit) -> Bool {
        guard let (header, sps) = parameterSets.sliceSegmentHeader(slice, readingReferencePictureSets: true),
            let lsb = header.slicePicOrderCntLsb
        else { return isDamaged }
        let picture = counter.next(header, sps: sps, temporalId: slice.temporalId)
        lastPicture = picture
        if header.isIRAP { isDamaged = false }
        if picture.isSkippedLeadingPicture { return false }

        let maxLSB = 1 << (sps.log2MaxPicOrderCntLsbMinus4 + 4)
        let poc = picture.pictureOrderCount
        // Clause 8.3.2: an IRAP picture with NoRaslOutputFlag 1 marks every picture in the DPB
        // unused for reference.
        if picture.startsSequence { decodedPictures.removeAll() }
        var kept: Set<Int> = []
        var missing = false
        if let set = header.shortTermRefPicSet {
            let entries =
                zip(set.deltaPocS0, set.usedByCurrPicS0).map { ($0, $1) }
                + zip(set.deltaPocS1, set.usedByCurrPicS1).map { ($0, $1) }
            for (delta, used) in entries {
                let reference = poc + delta
                if decodedPictures.contains(reference) {
                    kept.insert(reference)
                } else if used {
                    missing = true
                }
            }
        }
        for picture in header.longTermRefPics {
            let found: Int?
            if let cycle = picture.deltaPocMsbCycleLt {
                let full = poc - cycle * maxLSB - (lsb - picture.pocLsbLt)
                found = decodedPictures.contains(full) ? full : nil
            } else {
                found = decodedPictures.first { (($0 % maxLSB) + maxLSB) % maxLSB == picture.pocLsbLt }
            }
            if let found { kept.insert(found) } else if picture.usedByCurrPicLt { missing = true }
        }
        if missing { isDamaged = true }
        decodedPictures = kept.union([poc])
        return isDamaged
    }

    /// Forgets the reference state (after a drain, decoding restarts at a sync sample).
    mutating func reset() {
        decodedPictures.removeAll()
        counter.reset()
        isDamaged = false
    }
}
