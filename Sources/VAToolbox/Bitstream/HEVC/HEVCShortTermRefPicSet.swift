/// A short-term reference picture set, `st_ref_pic_set(stRpsIdx)` (H.265 clause 7.3.7), with the
/// derived picture order count deltas of clause 7.4.8.
///
/// A set lists, relative to the current picture's POC, the pictures kept as short-term
/// references: ``deltaPocS0`` before it (negative deltas, closest first) and ``deltaPocS1`` after
/// it (positive deltas, closest first), each with a flag saying whether the current picture may
/// use it for prediction. A set is either coded directly or predicted from an earlier set of the
/// SPS (`inter_ref_pic_set_prediction_flag`); both give the same derived arrays.
public struct HEVCShortTermRefPicSet: Sendable, Hashable {
    /// `inter_ref_pic_set_prediction_flag`: the set is predicted from an earlier one.
    public internal(set) var interRefPicSetPredictionFlag: Bool
    /// `delta_idx_minus1` (coded only in a slice header's set; 0 otherwise).
    public internal(set) var deltaIdxMinus1: Int
    /// `delta_rps_sign` (when predicted).
    public internal(set) var deltaRpsSign: Bool
    /// `abs_delta_rps_minus1`, 0 to 2¹⁵ − 1 (when predicted).
    public internal(set) var absDeltaRpsMinus1: Int
    /// `used_by_curr_pic_flag[j]`, `NumDeltaPocs[RefRpsIdx] + 1` entries (when predicted).
    public internal(set) var usedByCurrPicFlag: [Bool]
    /// `use_delta_flag[j]`, inferred 1 where not coded (when predicted).
    public internal(set) var useDeltaFlag: [Bool]

    /// `DeltaPocS0[stRpsIdx][i]`: the negative POC deltas, closest to the current picture first.
    public internal(set) var deltaPocS0: [Int]
    /// `UsedByCurrPicS0[stRpsIdx][i]`.
    public internal(set) var usedByCurrPicS0: [Bool]
    /// `DeltaPocS1[stRpsIdx][i]`: the positive POC deltas, closest to the current picture first.
    public internal(set) var deltaPocS1: [Int]
    /// `UsedByCurrPicS1[stRpsIdx][i]`.
    public internal(set) var usedByCurrPicS1: [Bool]

    /// `NumNegativePics[stRpsIdx]`.
    public var numNegativePics: Int { deltaPocS0.count }
    /// `NumPositivePics[stRpsIdx]`.
    public var numPositivePics: Int { deltaPocS1.count }
    /// `NumDeltaPocs[stRpsIdx]` = `NumNegativePics + NumPositivePics`.
    public var numDeltaPocs: Int { deltaPocS0.count + deltaPocS1.count }

    /// The largest `abs_delta_rps_minus1` and `delta_poc_s0_minus1` / `delta_poc_s1_minus1`:
    /// 2¹⁵ − 1 (clause 7.4.8).
    public static let maxDeltaMinus1 = (1 << 15) - 1

    /// Parses `st_ref_pic_set(stRpsIdx)` (clause 7.3.7) and derives its POC deltas (clause 7.4.8).
    ///
    /// - Parameters:
    ///   - reader: The reader, positioned at the set.
    ///   - stRpsIdx: The set's index: 0 to `num_short_term_ref_pic_sets − 1` in the SPS, or
    ///     `num_short_term_ref_pic_sets` for the set coded in a slice header.
    ///   - previousSets: The SPS's sets 0 to `stRpsIdx − 1` (all of them for a slice header's set),
    ///     which a predicted set refers to.
    ///   - numShortTermRefPicSets: `num_short_term_ref_pic_sets` of the SPS.
    ///   - maxDecPicBufferingMinus1: `sps_max_dec_pic_buffering_minus1[sps_max_sub_layers_minus1]`,
    ///     which bounds the number of pictures in the set.
    /// - Throws: ``VTError/videoDecoderBadData`` when the data ends early, a value is outside its
    ///   range, or the set would hold more pictures than the decoded picture buffer
    ///   (`NumDeltaPocs` over `sps_max_dec_pic_buffering_minus1`, which clause 7.4.8 requires for
    ///   coded sets and the DPB size of clause C.4 implies for predicted ones);
    ///   ``VTError/parameter`` when `stRpsIdx` or `previousSets` do not fit together.
    public init(
        _ reader: inout BitReader, stRpsIdx: Int, previousSets: [HEVCShortTermRefPicSet],
        numShortTermRefPicSets: Int, maxDecPicBufferingMinus1: Int
    ) throws(VTError) {
        guard stRpsIdx >= 0, stRpsIdx <= numShortTermRefPicSets, previousSets.count >= stRpsIdx else {
            throw VTError.parameter.with(
                "st_ref_pic_set(\(stRpsIdx)) needs the \(stRpsIdx) sets before it (got \(previousSets.count)) and at most num_short_term_ref_pic_sets (\(numShortTermRefPicSets))"
            )
        }
        interRefPicSetPredictionFlag = stRpsIdx != 0 ? try reader.flag("inter_ref_pic_set_prediction_flag") : false
        deltaIdxMinus1 = 0
        deltaRpsSign = false
        absDeltaRpsMinus1 = 0
        usedByCurrPicFlag = []
        useDeltaFlag = []
        deltaPocS0 = []
        usedByCurrPicS0 = []
        deltaPocS1 = []
        usedByCurrPicS1 = []

        if interRefPicSetPredictionFlag {
            if stRpsIdx == numShortTermRefPicSets {
                deltaIdxMinus1 = try reader.unsignedExpGolomb("delta_idx_minus1", maximum: stRpsIdx - 1)
            }
            deltaRpsSign = try reader.flag("delta_rps_sign")
            absDeltaRpsMinus1 = try reader.unsignedExpGolomb("abs_delta_rps_minus1", maximum: Self.maxDeltaMinus1)
            // RefRpsIdx = stRpsIdx − (delta_idx_minus1 + 1) (7-59): in 0..<stRpsIdx, so within previousSets.
            let reference = previousSets[stRpsIdx - (deltaIdxMinus1 + 1)]
            let deltaRps = (deltaRpsSign ? -1 : 1) * (absDeltaRpsMinus1 + 1)  // (7-60)
            for _ in 0...reference.numDeltaPocs {
                let used = try reader.flag("used_by_curr_pic_flag")
                usedByCurrPicFlag.append(used)
                useDeltaFlag.append(used ? true : try reader.flag("use_delta_flag"))
            }
            deriveFromReference(reference, deltaRps: deltaRps)
            guard numNegativePics <= maxDecPicBufferingMinus1,
                numPositivePics <= maxDecPicBufferingMinus1 - numNegativePics
            else {
                throw VTError.videoDecoderBadData.with(
                    "\(reader.context): predicted st_ref_pic_set(\(stRpsIdx)) holds \(numNegativePics) + \(numPositivePics) pictures, more than sps_max_dec_pic_buffering_minus1 (\(maxDecPicBufferingMinus1))"
                )
            }
        } else {
            let numNegative = try reader.unsignedExpGolomb("num_negative_pics", maximum: maxDecPicBufferingMinus1)
            let numPositive = try reader.unsignedExpGolomb(
                "num_positive_pics", maximum: maxDecPicBufferingMinus1 - numNegative)
            var poc = 0
            for _ in 0..<numNegative {
                poc -= try reader.unsignedExpGolomb("delta_poc_s0_minus1", maximum: Self.maxDeltaMinus1) + 1
                deltaPocS0.append(poc)  // (7-67)
                usedByCurrPicS0.append(try reader.flag("used_by_curr_pic_s0_flag"))
            }
            poc = 0
            for _ in 0..<numPositive {
                poc += try reader.unsignedExpGolomb("delta_poc_s1_minus1", maximum: Self.maxDeltaMinus1) + 1
                deltaPocS1.append(poc)  // (7-68)
                usedByCurrPicS1.append(try reader.flag("used_by_curr_pic_s1_flag"))
            }
        }
    }

    /// Derives the deltas of a predicted set from its reference set (equations 7-61 and 7-62).
    ///
    /// `usedByCurrPicFlag` and `useDeltaFlag` have `reference.numDeltaPocs + 1` entries, so
    /// every index below is in range.
    private mutating func deriveFromReference(_ reference: HEVCShortTermRefPicSet, deltaRps: Int) {
        let refNegative = reference.numNegativePics
        let refDeltaPocs = reference.numDeltaPocs

        // (7-61): the negative deltas.
        for j in stride(from: reference.numPositivePics - 1, through: 0, by: -1) {
            let dPoc = reference.deltaPocS1[j] + deltaRps
            if dPoc < 0 && useDeltaFlag[refNegative + j] {
                deltaPocS0.append(dPoc)
                usedByCurrPicS0.append(usedByCurrPicFlag[refNegative + j])
            }
        }
        if deltaRps < 0 && useDeltaFlag[refDeltaPocs] {
            deltaPocS0.append(deltaRps)
            usedByCurrPicS0.append(usedByCurrPicFlag[refDeltaPocs])
        }
        for j in 0..<refNegative {
            let dPoc = reference.deltaPocS0[j] + deltaRps
            if dPoc < 0 && useDeltaFlag[j] {
                deltaPocS0.append(dPoc)
                usedByCurrPicS0.append(usedByCurrPicFlag[j])
            }
        }

        // (7-62): the positive deltas.
        for j in stride(from: refNegative - 1, through: 0, by: -1) {
            let dPoc = reference.deltaPocS0[j] + deltaRps
            if dPoc > 0 && useDeltaFlag[j] {
                deltaPocS1.append(dPoc)
                usedByCurrPicS1.append(usedByCurrPicFlag[j])
            }
        }
        if deltaRps > 0 && useDeltaFlag[refDeltaPocs] {
            deltaPocS1.append(deltaRps)
            usedByCurrPicS1.append(usedByCurrPicFlag[refDeltaPocs])
        }
        for j in 0..<reference.numPositivePics {
            let dPoc = reference.deltaPocS1[j] + deltaRps
            if dPoc > 0 && useDeltaFlag[refNegative + j] {
                deltaPocS1.append(dPoc)
                usedByCurrPicS1.append(usedByCurrPicFlag[refNegative + j])
            }
        }
    }
}
