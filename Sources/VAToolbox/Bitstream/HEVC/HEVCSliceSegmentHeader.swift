/// The start of an HEVC slice segment header, `slice_segment_header()` (H.265 clause 7.3.6.1):
/// enough to find where pictures start, which parameter sets they use, and their POC LSBs.
///
/// Two depths of parsing:
/// - ``init(_:)`` reads only what needs no parameter set: `first_slice_segment_in_pic_flag`,
///   `no_output_of_prior_pics_flag` (IRAP pictures) and `slice_pic_parameter_set_id`. That is
///   what an access-unit splitter needs.
/// - ``init(_:pps:sps:)`` continues with `dependent_slice_segment_flag` and
///   `slice_segment_address`, and for an independent slice segment `slice_type`,
///   `pic_output_flag`, `colour_plane_id` and `slice_pic_order_cnt_lsb`. It stops there, before
///   `short_term_ref_pic_set_sps_flag`.
public struct HEVCSliceSegmentHeader: Sendable, Hashable {
    /// The `nal_unit_type` of the slice segment's NAL unit (0 to 31).
    public internal(set) var nalUnitType: HEVCNALUnitType
    /// `first_slice_segment_in_pic_flag`: the segment is the first of a picture.
    public internal(set) var firstSliceSegmentInPicFlag: Bool
    /// `no_output_of_prior_pics_flag`: present in IRAP pictures (types 16 to 23); false otherwise.
    public internal(set) var noOutputOfPriorPicsFlag: Bool
    /// `slice_pic_parameter_set_id`, 0 to 63.
    public internal(set) var slicePicParameterSetId: Int
    /// `dependent_slice_segment_flag` (inferred 0); nil when no PPS was given to parse it.
    public internal(set) var dependentSliceSegmentFlag: Bool?
    /// `slice_segment_address`, the first CTB of the segment in raster scan (inferred 0); nil
    /// when no PPS was given to parse it.
    public internal(set) var sliceSegmentAddress: Int?
    /// `slice_type`: 0 B, 1 P, 2 I (Table 7-7). Nil for a dependent slice segment (it inherits the
    /// type of the segment before it) or when no PPS was given.
    public internal(set) var sliceType: Int?
    /// `pic_output_flag` (inferred 1); nil for a dependent slice segment or when no PPS was given.
    public internal(set) var picOutputFlag: Bool?
    /// `colour_plane_id`, 0 to 2, when the SPS has `separate_colour_plane_flag`; nil otherwise.
    public internal(set) var colourPlaneId: Int?
    /// `slice_pic_order_cnt_lsb` (0 for IDR pictures, where it is not coded); nil for a dependent
    /// slice segment or when no PPS was given.
    public internal(set) var slicePicOrderCntLsb: Int?

    /// The short-term reference picture set of the picture: coded in the header
    /// (`short_term_ref_pic_set_sps_flag` 0) or the SPS's set `short_term_ref_pic_set_idx`. Nil
    /// for IDR pictures (which have none), dependent segments, or when not parsed (see
    /// ``init(_:pps:sps:readingReferencePictureSets:)``).
    public internal(set) var shortTermRefPicSet: HEVCShortTermRefPicSet?
    /// The long-term reference pictures of the header (clause 7.4.7.1), in coded order: those
    /// from the SPS (`lt_idx_sps`) first. Empty when there are none or they were not parsed.
    public internal(set) var longTermRefPics: [LongTermRefPic] = []

    /// One long-term reference picture named by a slice header.
    public struct LongTermRefPic: Sendable, Hashable {
        /// `PocLsbLt[i]`: the picture's POC modulo `MaxPicOrderCntLsb`.
        public var pocLsbLt: Int
        /// `UsedByCurrPicLt[i]`: the current picture may use it for prediction.
        public var usedByCurrPicLt: Bool
        /// `DeltaPocMsbCycleLt[i]` when `delta_poc_msb_present_flag[i]` is 1 (the full POC is then
        /// known); nil when only the LSBs identify the picture.
        public var deltaPocMsbCycleLt: Int?
    }

    /// `slice_type` value 0: B slice.
    public static let sliceTypeB = 0
    /// `slice_type` value 1: P slice.
    public static let sliceTypeP = 1
    /// `slice_type` value 2: I slice.
    public static let sliceTypeI = 2

    /// Parses the part of the header that needs no parameter set.
    ///
    /// - Throws: ``VTError/parameter`` when the unit is not an HEVC VCL NAL unit (types 0 to 31);
    ///   ``VTError/videoDecoderBadData`` when it is truncated or `slice_pic_parameter_set_id` is
    ///   over 63.
    public init(_ nalUnit: NALUnit) throws(VTError) {
        let type = try Self.vclType(of: nalUnit)
        var reader = Self.reader(nalUnit, type)
        try self.init(&reader, nalUnitType: type)
    }

    /// Parses the header up to `slice_pic_order_cnt_lsb` with the parameter sets it refers to.
    ///
    /// - Parameters:
    ///   - nalUnit: An HEVC VCL NAL unit.
    ///   - pps: The PPS whose `pps_pic_parameter_set_id` is the slice's `slice_pic_parameter_set_id`.
    ///   - sps: The SPS whose `sps_seq_parameter_set_id` is the PPS's `pps_seq_parameter_set_id`.
    /// - Throws: ``VTError/parameter`` when the unit is not an HEVC VCL NAL unit or the parameter
    ///   sets are not the ones it refers to; ``VTError/videoDecoderBadData`` when it is truncated or
    ///   a value is out of range (`slice_segment_address` past the picture, `slice_type` over 2,
    ///   `colour_plane_id` 3).
    public init(_ nalUnit: NALUnit, pps: HEVCPictureParameterSet, sps: HEVCSequenceParameterSet) throws(VTError) {
        try self.init(nalUnit, pps: pps, sps: sps, readingReferencePictureSets: false)
    }

    /// Parses the header up to `slice_pic_order_cnt_lsb`, and on with `readingReferencePictureSets`
    /// through the reference picture sets: ``shortTermRefPicSet`` and ``longTermRefPics``.
    ///
    /// - Throws: As ``init(_:pps:sps:)``, and ``VTError/videoDecoderBadData`` for a reference
    ///   picture set that is truncated or out of range.
    public init(
        _ nalUnit: NALUnit, pps: HEVCPictureParameterSet, sps: HEVCSequenceParameterSet,
        readingReferencePictureSets: Bool
    ) throws(VTError) {
        let type = try Self.vclType(of: nalUnit)
        var reader = Self.reader(nalUnit, type)
        try self.init(&reader, nalUnitType: type)
        guard pps.ppsPicParameterSetId == slicePicParameterSetId, pps.ppsSeqParameterSetId == sps.spsSeqParameterSetId
        else {
            throw VTError.parameter.with(
                "the slice refers to PPS \(slicePicParameterSetId); the PPS given is \(pps.ppsPicParameterSetId) (for SPS \(pps.ppsSeqParameterSetId)) and the SPS \(sps.spsSeqParameterSetId)"
            )
        }
        try parseRest(&reader, pps: pps, sps: sps)
        if readingReferencePictureSets { try parseReferencePictureSets(&reader, sps: sps) }
    }

    /// Parses the header up to `slice_pic_order_cnt_lsb`, looking up the parameter sets it refers
    /// to by their ids.
    ///
    /// - Parameters:
    ///   - nalUnit: An HEVC VCL NAL unit.
    ///   - pictureParameterSets: The active PPSs by `pps_pic_parameter_set_id`.
    ///   - sequenceParameterSets: The active SPSs by `sps_seq_parameter_set_id`.
    /// - Throws: ``VTError/videoDecoderBadData`` when a parameter set the slice refers to is
    ///   missing, and as ``init(_:pps:sps:)``.
    public init(
        _ nalUnit: NALUnit, pictureParameterSets: [Int: HEVCPictureParameterSet],
        sequenceParameterSets: [Int: HEVCSequenceParameterSet]
    ) throws(VTError) {
        let type = try Self.vclType(of: nalUnit)
        var reader = Self.reader(nalUnit, type)
        try self.init(&reader, nalUnitType: type)
        guard let pps = pictureParameterSets[slicePicParameterSetId] else {
            throw VTError.videoDecoderBadData.with(
                "an HEVC slice refers to PPS \(slicePicParameterSetId), which is missing")
        }
        guard let sps = sequenceParameterSets[pps.ppsSeqParameterSetId] else {
            throw VTError.videoDecoderBadData.with(
                "HEVC PPS \(pps.ppsPicParameterSetId) refers to SPS \(pps.ppsSeqParameterSetId), which is missing")
        }
        try parseRest(&reader, pps: pps, sps: sps)
    }

    /// Whether the segment belongs to an IRAP picture (BLA, IDR, CRA).
    public var isIRAP: Bool { nalUnitType.isIRAP }

    /// The first part: `first_slice_segment_in_pic_flag` to `slice_pic_parameter_set_id`.
    private init(_ reader: inout BitReader, nalUnitType: HEVCNALUnitType) throws(VTError) {
        self.nalUnitType = nalUnitType
        firstSliceSegmentInPicFlag = try reader.flag("first_slice_segment_in_pic_flag")
        noOutputOfPriorPicsFlag = nalUnitType.isIRAP ? try reader.flag("no_output_of_prior_pics_flag") : false
        slicePicParameterSetId = try reader.unsignedExpGolomb(
            "slice_pic_parameter_set_id", maximum: HEVCPictureParameterSet.maxId)
    }

    /// The rest, from `dependent_slice_segment_flag` to `slice_pic_order_cnt_lsb`.
    private mutating func parseRest(
        _ reader: inout BitReader, pps: HEVCPictureParameterSet, sps: HEVCSequenceParameterSet
    ) throws(VTError) {
        var dependent = false
        var address = 0
        if !firstSliceSegmentInPicFlag {
            if pps.dependentSliceSegmentsEnabledFlag {
                dependent = try reader.flag("dependent_slice_segment_flag")
            }
            // u(v) with Ceil(Log2(PicSizeInCtbsY)) bits: at most 21, as PicSizeInCtbsY is at most
            // 1056 * 1056 (HEVCSequenceParameterSet.maxPicDimension, CTBs of 16 or more).
            let picSizeInCtbsY = sps.picSizeInCtbsY
            let length = picSizeInCtbsY > 1 ? Int.bitWidth - (picSizeInCtbsY - 1).leadingZeroBitCount : 0
            address = try reader.int(min(length, 32), "slice_segment_address")
            guard address < picSizeInCtbsY else {
                throw VTError.videoDecoderBadData.with(
                    "\(reader.context): slice_segment_address is \(address), past the \(picSizeInCtbsY) CTBs of the picture"
                )
            }
        }
        dependentSliceSegmentFlag = dependent
        sliceSegmentAddress = address
        guard !dependent else { return }

        try reader.skip(pps.numExtraSliceHeaderBits, "slice_reserved_flag")
        sliceType = try reader.unsignedExpGolomb("slice_type", maximum: 2)
        picOutputFlag = pps.outputFlagPresentFlag ? try reader.flag("pic_output_flag") : true
        if sps.separateColourPlaneFlag {
            colourPlaneId = try reader.int(2, "colour_plane_id")
            guard colourPlaneId != 3 else {
                throw VTError.videoDecoderBadData.with("\(reader.context): colour_plane_id is 3, more than 2")
            }
        }
        slicePicOrderCntLsb =
            nalUnitType.isIDR ? 0 : try reader.int(sps.log2MaxPicOrderCntLsbMinus4 + 4, "slice_pic_order_cnt_lsb")
    }

    /// The reference picture sets (clause 7.3.6.1, from `short_term_ref_pic_set_sps_flag` to the
    /// long-term pictures), for an independent segment of a non-IDR picture.
    private mutating func parseReferencePictureSets(
        _ reader: inout BitReader, sps: HEVCSequenceParameterSet
    ) throws(VTError) {
        guard dependentSliceSegmentFlag == false, !nalUnitType.isIDR, slicePicOrderCntLsb != nil else { return }
        let sets = sps.shortTermRefPicSets
        if try !reader.flag("short_term_ref_pic_set_sps_flag") {
            shortTermRefPicSet = try HEVCShortTermRefPicSet(
                &reader, stRpsIdx: sets.count, previousSets: sets, numShortTermRefPicSets: sets.count,
                maxDecPicBufferingMinus1: sps.maxDecPicBuffering - 1)
        } else {
            guard !sets.isEmpty else {
                throw VTError.videoDecoderBadData.with(
                    "\(reader.context): short_term_ref_pic_set_sps_flag is 1, but the SPS has no sets")
            }
            let index = try reader.int(Self.ceilLog2(sets.count), "short_term_ref_pic_set_idx")
            guard index < sets.count else {
                throw VTError.videoDecoderBadData.with(
                    "\(reader.context): short_term_ref_pic_set_idx \(index) is past the SPS's \(sets.count) sets")
            }
            shortTermRefPicSet = sets[index]
        }
        guard sps.longTermRefPicsPresentFlag else { return }
        let fromSPS = sps.numLongTermRefPicsSps
        let numLongTermSps = fromSPS > 0 ? try reader.unsignedExpGolomb("num_long_term_sps", maximum: fromSPS) : 0
        let numLongTermPics = try reader.unsignedExpGolomb("num_long_term_pics", maximum: 32)
        var cycle = 0
        for i in 0..<(numLongTermSps + numLongTermPics) {
            var picture: LongTermRefPic
            if i < numLongTermSps {
                let index = fromSPS > 1 ? try reader.int(Self.ceilLog2(fromSPS), "lt_idx_sps") : 0
                guard index < fromSPS else {
                    throw VTError.videoDecoderBadData.with("\(reader.context): lt_idx_sps \(index) is past \(fromSPS)")
                }
                picture = LongTermRefPic(
                    pocLsbLt: sps.ltRefPicPocLsbSps[index], usedByCurrPicLt: sps.usedByCurrPicLtSpsFlag[index],
                    deltaPocMsbCycleLt: nil)
            } else {
                let lsb = try reader.int(sps.log2MaxPicOrderCntLsbMinus4 + 4, "poc_lsb_lt")
                picture = LongTermRefPic(
                    pocLsbLt: lsb, usedByCurrPicLt: try reader.flag("used_by_curr_pic_lt_flag"),
                    deltaPocMsbCycleLt: nil)
            }
            if try reader.flag("delta_poc_msb_present_flag") {
                let coded = try reader.unsignedExpGolomb("delta_poc_msb_cycle_lt", maximum: 1 << 24)
                // (7-52): the cycles accumulate, except across the SPS/header boundary.
                cycle = (i == 0 || i == numLongTermSps) ? coded : coded + cycle
                picture.deltaPocMsbCycleLt = cycle
            } else if i == 0 || i == numLongTermSps {
                cycle = 0
            }
            longTermRefPics.append(picture)
        }
    }

    /// `Ceil(Log2(n))`, the bit count of a `u(v)` index among `n` choices.
    private static func ceilLog2(_ n: Int) -> Int {
        n > 1 ? Int.bitWidth - (n - 1).leadingZeroBitCount : 0
    }

    /// A reader over the start of the unit's RBSP.
    ///
    /// The fields parsed here, reference picture sets included, take far less than
    /// ``headerPrefixSize`` bytes, so only that much of the payload is unescaped, not the whole
    /// slice data.
    private static func reader(_ nalUnit: NALUnit, _ type: HEVCNALUnitType) -> BitReader {
        BitReader(
            RBSP.unescape(nalUnit.payload.prefix(headerPrefixSize)),
            context: "HEVC slice segment header (\(type.name))")
    }

    /// How many payload bytes ``reader(_:_:)`` unescapes: far more than the fields parsed need
    /// (a coded short-term set of 16 pictures and 32 long-term pictures fit in about 200).
    static let headerPrefixSize = 512

    /// The unit's type, after checking that it is an HEVC VCL unit.
    private static func vclType(of nalUnit: NALUnit) throws(VTError) -> HEVCNALUnitType {
        guard let type = nalUnit.hevcType, type.isVCL else {
            throw VTError.parameter.with("a slice segment header needs an HEVC VCL NAL unit, not \(nalUnit)")
        }
        return type
    }
}
