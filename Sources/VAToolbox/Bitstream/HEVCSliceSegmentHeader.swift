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

    /// A reader over the start of the unit's RBSP.
    ///
    /// The fields parsed here take at most about 90 bits, so only the first ``headerPrefixSize``
    /// bytes of the payload are unescaped, not the whole slice data.
    private static func reader(_ nalUnit: NALUnit, _ type: HEVCNALUnitType) -> BitReader {
        BitReader(
            RBSP.unescape(nalUnit.payload.prefix(headerPrefixSize)),
            context: "HEVC slice segment header (\(type.name))")
    }

    /// How many payload bytes ``reader(_:_:)`` unescapes: far more than the fields parsed need.
    static let headerPrefixSize = 64

    /// The unit's type, after checking that it is an HEVC VCL unit.
    private static func vclType(of nalUnit: NALUnit) throws(VTError) -> HEVCNALUnitType {
        guard let type = nalUnit.hevcType, type.isVCL else {
            throw VTError.parameter.with("a slice segment header needs an HEVC VCL NAL unit, not \(nalUnit)")
        }
        return type
    }
}
