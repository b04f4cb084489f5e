/// Watches HEVC reference picture sets to notice a lost reference picture, which libavcodec
/// conceals (it generates a grey picture in its place) without flagging the frames it damages.
///
/// Clause 8.3.2: every picture lists, in its slice header, the pictures it and later pictures may
/// reference. Those it uses itself (`RefPicSetStCurrBefore`, `…StCurrAfter`, `…LtCurr`) must be in
/// the decoded picture buffer; when one is not, a reference went missing, and every picture from
/// there up to the next IRAP picture may be wrong. The DPB is followed as the clause does: after
/// each picture it keeps the pictures the picture's set names, plus the picture itself.
///
/// RASL pictures of an IRAP picture that starts decoding (`NoRaslOutputFlag`) are neither checked
/// nor kept: their references precede the IRAP picture, and decoders skip them.
struct HEVCReferenceContinuity: ReferenceTracker {
    private var sequenceParameterSets: [Int: HEVCSequenceParameterSet] = [:]
    private var pictureParameterSets: [Int: HEVCPictureParameterSet] = [:]
    /// POCs of the pictures in the decoded picture buffer.
    private var decodedPictures: Set<Int> = []
    /// `prevTid0Pic`'s POC (clause 8.3.1).
    private var previousTid0POC: Int?
    /// Whether the last IRAP picture had `NoRaslOutputFlag` (its RASL pictures are skipped).
    private var skipsRASL = true
    /// Whether pictures are being decoded without a reference they need.
    private(set) var isDamaged = false
    /// Whether the last picture followed was a RASL picture that decoders skip (its IRAP picture
    /// started decoding, so its references are not there).
    private(set) var lastWasSkippedLeadingPicture = false

    /// Learns the parameter sets of a format description.
    mutating func learn(_ format: VideoFormatDescription) {
        for unit in format.parameterSetNALUnits { learn(unit) }
    }

    /// Follows one sample: its parameter sets, then its first slice segment.
    mutating func follow(_ sample: SampleBuffer) -> FrameContinuity {
        let units = sample.nalUnits
        for unit in units where unit.isParameterSet { learn(unit) }
        let damaged = units.first(where: \.isVCL).map { follow($0) } ?? isDamaged
        return FrameContinuity(
            missingReference: damaged
                ? "a reference picture this frame depends on is missing (not in the decoded picture buffer)" : nil,
            isSkippedLeadingPicture: lastWasSkippedLeadingPicture)
    }

    /// Learns a parameter set NAL unit (a PPS after the SPS it refers to).
    mutating func learn(_ unit: NALUnit) {
        switch unit.hevcType?.rawValue {
        case 33:
            if let sps = try? HEVCSequenceParameterSet(unit) { sequenceParameterSets[sps.spsSeqParameterSetId] = sps }
        case 34:
            var reader = BitReader(unit.rbsp, context: "HEVC PPS")
            let spsId = (try? reader.unsignedExpGolomb("pps_pic_parameter_set_id", maximum: 63)).flatMap { _ in
                try? reader.unsignedExpGolomb("pps_seq_parameter_set_id", maximum: 15)
            }
            let sps = spsId.flatMap { sequenceParameterSets[$0] }
            if let pps = try? HEVCPictureParameterSet(unit, sps: sps) {
                pictureParameterSets[pps.ppsPicParameterSetId] = pps
            }
        default:
            break
        }
    }

    /// Follows one picture's first slice segment; returns true when the picture may be wrong for
    /// want of a reference.
    mutating func follow(_ slice: NALUnit) -> Bool {
        lastWasSkippedLeadingPicture = false
        guard let type = slice.hevcType,
            let first = try? HEVCSliceSegmentHeader(slice),
            let pps = pictureParameterSets[first.slicePicParameterSetId],
            let sps = sequenceParameterSets[pps.ppsSeqParameterSetId],
            let header = try? HEVCSliceSegmentHeader(slice, pps: pps, sps: sps, readingReferencePictureSets: true),
            let lsb = header.slicePicOrderCntLsb
        else { return isDamaged }
        let maxLSB = 1 << (sps.log2MaxPicOrderCntLsbMinus4 + 4)
        let isRASL = type.rawValue == 8 || type.rawValue == 9
        // NoRaslOutputFlag: IDR and BLA always; a CRA when it starts the stream (or follows a
        // reset), which `decodedPictures` being empty stands for here.
        let isBLA = (16...18).contains(type.rawValue)
        let startsDecoding = type.isIRAP && (type.isIDR || isBLA || decodedPictures.isEmpty)
        if type.isIRAP {
            isDamaged = false
            skipsRASL = startsDecoding
        }
        if isRASL && skipsRASL {
            lastWasSkippedLeadingPicture = true
            return false
        }

        let poc = pictureOrderCount(lsb: lsb, maxLSB: maxLSB, startsDecoding: startsDecoding)
        if startsDecoding { decodedPictures.removeAll() }
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
        let isSubLayerNonReference = type.rawValue <= 14 && type.rawValue % 2 == 0
        if slice.temporalId == 0 && !isRASL && !(type.rawValue == 6 || type.rawValue == 7) && !isSubLayerNonReference {
            previousTid0POC = poc
        }
        return isDamaged
    }

    /// Forgets the reference state (after a drain, decoding restarts at a sync sample).
    mutating func reset() {
        decodedPictures.removeAll()
        previousTid0POC = nil
        skipsRASL = true
        isDamaged = false
    }

    /// `PicOrderCntVal` (clause 8.3.1).
    private func pictureOrderCount(lsb: Int, maxLSB: Int, startsDecoding: Bool) -> Int {
        guard !startsDecoding, let previous = previousTid0POC else { return lsb }
        let previousLSB = ((previous % maxLSB) + maxLSB) % maxLSB
        let previousMSB = previous - previousLSB
        let msb: Int
        if lsb < previousLSB && previousLSB - lsb >= maxLSB / 2 {
            msb = previousMSB + maxLSB
        } else if lsb > previousLSB && lsb - previousLSB > maxLSB / 2 {
            msb = previousMSB - maxLSB
        } else {
            msb = previousMSB
        }
        return msb + lsb
    }
}
