/// Derives the picture order counts of HEVC pictures (`PicOrderCntVal`, clause 8.3.1), one
/// picture after another in decode order, and whether a decoder outputs each one.
struct HEVCPictureOrderCounter {
    /// What the counter derives for one picture.
    struct Picture: Equatable {
        /// `PicOrderCntVal`.
        var pictureOrderCount: Int
        /// Whether the picture starts a new sequence of counts: an IRAP picture with
        /// `NoRaslOutputFlag` (an IDR or BLA picture, or a CRA picture that starts the stream or
        /// follows an end of sequence), before which every picture is output (clause C.5.2.2).
        var startsSequence: Bool
        /// Whether a decoder outputs the picture: not when `pic_output_flag` is 0, nor for a RASL
        /// picture of a CRA picture that starts decoding (clause 8.1.3: it is not even decoded).
        var isOutput: Bool
    }

    /// `prevTid0Pic`'s count: the last picture of temporal sub-layer 0 that is not a RASL, RADL
    /// or sub-layer non-reference picture.
    private var previousTid0Count: Int?
    /// Whether the last IRAP picture had `NoRaslOutputFlag`.
    private var skipsRASL = true
    /// Whether the next picture follows an end of sequence (or starts the stream).
    private var atSequenceStart = true

    /// Notes an end-of-sequence NAL unit: the next CRA picture starts decoding afresh.
    mutating func noteEndOfSequence() { atSequenceStart = true }

    /// The count of the next picture in decode order, from its first slice segment header.
    mutating func next(_ header: HEVCSliceSegmentHeader, sps: HEVCSequenceParameterSet, temporalId: UInt8) -> Picture {
        let type = header.nalUnitType
        let code = type.rawValue
        let isBLA = (16...18).contains(code)
        let isRASL = code == 8 || code == 9
        let isRADL = code == 6 || code == 7
        let startsSequence = type.isIRAP && (type.isIDR || isBLA || atSequenceStart || previousTid0Count == nil)
        if type.isIRAP {
            skipsRASL = startsSequence
            atSequenceStart = false
        }
        let maxLsb = 1 << (sps.log2MaxPicOrderCntLsbMinus4 + 4)
        let lsb = header.slicePicOrderCntLsb ?? 0
        var msb = 0
        if !startsSequence, let previous = previousTid0Count {
            let previousLsb = ((previous % maxLsb) + maxLsb) % maxLsb
            let previousMsb = previous - previousLsb
            if lsb < previousLsb && previousLsb - lsb >= maxLsb / 2 {
                msb = previousMsb + maxLsb
            } else if lsb > previousLsb && lsb - previousLsb > maxLsb / 2 {
                msb = previousMsb - maxLsb
            } else {
                msb = previousMsb
            }
        }
        let count = msb + lsb
        let isSubLayerNonReference = code <= 14 && code % 2 == 0
        if temporalId == 0 && !isRASL && !isRADL && !isSubLayerNonReference { previousTid0Count = count }
        let isOutput = header.picOutputFlag != false && !(isRASL && skipsRASL)
        return Picture(pictureOrderCount: count, startsSequence: startsSequence, isOutput: isOutput)
    }
}
