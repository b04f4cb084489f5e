/// Derives the picture order counts of HEVC pictures (`PicOrderCntVal`, clause 8.3.1), one
/// picture after another in decode order, and what a decoder does with each one: whether it
/// starts afresh there, skips it, outputs it, or discards the pictures waiting before it.
///
/// The one HEVC derivation: the time stamper and the session's reference tracker both follow a
/// stream with it, so they agree on every count, and on where decoding starts afresh.
///
/// Invariant: `NoRaslOutputFlag` (clause 8.1.3) is 1 for an IDR or BLA picture, and for a CRA
/// picture that is the first in the stream, the first after ``reset()``, or the first after an
/// end-of-sequence NAL unit (``noteEndOfSequence()``); such a picture restarts the counts
/// (`PicOrderCntMsb` 0), and its RASL pictures are skipped.
struct HEVCPictureOrderCounter {
    /// What the counter derives for one picture.
    struct Picture: Equatable {
        /// `PicOrderCntVal`.
        var pictureOrderCount: Int
        /// Whether the picture starts a new sequence of counts: an IRAP picture with
        /// `NoRaslOutputFlag` 1, before which every picture waiting is output or discarded
        /// (clause C.5.2.2).
        var startsSequence: Bool
        /// Whether the picture is a RASL picture of an IRAP picture with `NoRaslOutputFlag` 1:
        /// its references precede that picture, so a decoder skips it (clause 8.1.3).
        var isSkippedLeadingPicture: Bool
        /// Whether the picture's IRAP picture followed an end of sequence (and not the start of
        /// the stream or a reset): a skipped leading picture is then the stream's intent.
        var followsEndOfSequence: Bool
        /// Whether a decoder outputs the picture: not when `pic_output_flag` is 0, nor when it is
        /// skipped.
        var isOutput: Bool
        /// `NoOutputOfPriorPicsFlag` of a CRA picture that starts a sequence after others (clause
        /// C.5.2.2 sets it to 1 for a CRA picture, whatever its `no_output_of_prior_pics_flag`):
        /// the pictures still waiting for output are discarded rather than output.
        /// (`no_output_of_prior_pics_flag` of IDR and BLA pictures is not honoured: the pictures
        /// before them are all output.)
        var discardsPriorPictures: Bool
    }

    /// `prevTid0Pic`'s count: the last picture of temporal sub-layer 0 that is not a RASL, RADL
    /// or sub-layer non-reference picture; nil before the first picture.
    private var previousTid0Count: Int?
    /// Whether the last IRAP picture had `NoRaslOutputFlag` 1 (its RASL pictures are skipped).
    private var skipsRASL = true
    /// Whether the last IRAP picture followed an end of sequence.
    private var lastIRAPFollowedEndOfSequence = false
    /// Whether an end of sequence came after the last picture.
    private var afterEndOfSequence = false

    /// Notes an end-of-sequence NAL unit: the next picture, an IRAP picture (clause 7.4.2.4.4),
    /// has `NoRaslOutputFlag` 1.
    mutating func noteEndOfSequence() { afterEndOfSequence = true }

    /// Forgets every picture: the next IRAP picture starts decoding as at the start of a stream.
    mutating func reset() { self = HEVCPictureOrderCounter() }

    /// The count of the next picture in decode order, from its first slice segment header.
    ///
    /// - Parameters:
    ///   - header: The picture's first slice segment header.
    ///   - sps: The sequence parameter set the picture uses.
    ///   - temporalId: The picture's `TemporalId` (`nuh_temporal_id_plus1` − 1).
    mutating func next(_ header: HEVCSliceSegmentHeader, sps: HEVCSequenceParameterSet, temporalId: UInt8) -> Picture {
        let type = header.nalUnitType
        let isFirst = previousTid0Count == nil
        let noRaslOutputFlag = type.isIRAP && (type.isIDR || type.isBLA || isFirst || afterEndOfSequence)
        if type.isIRAP {
            skipsRASL = noRaslOutputFlag
            lastIRAPFollowedEndOfSequence = afterEndOfSequence && !isFirst
            afterEndOfSequence = false
        }
        let maxLsb = 1 << (sps.log2MaxPicOrderCntLsbMinus4 + 4)
        let lsb = header.slicePicOrderCntLsb ?? 0
        var msb = 0
        if !noRaslOutputFlag, let previous = previousTid0Count {
            let previousLsb = ((previous % maxLsb) + maxLsb) % maxLsb
            msb = PictureOrderCount.msb(
                lsb: lsb, previousLsb: previousLsb, previousMsb: previous - previousLsb, maxLsb: maxLsb)
        }
        let count = msb + lsb
        if temporalId == 0 && !type.isRASL && !type.isRADL && !type.isSubLayerNonReference {
            previousTid0Count = count
        }
        let isSkipped = type.isRASL && skipsRASL
        return Picture(
            pictureOrderCount: count, startsSequence: noRaslOutputFlag, isSkippedLeadingPicture: isSkipped,
            followsEndOfSequence: lastIRAPFollowedEndOfSequence,
            isOutput: header.picOutputFlag != false && !isSkipped,
            discardsPriorPictures: noRaslOutputFlag && !isFirst && type.isCRA)
    }
}
