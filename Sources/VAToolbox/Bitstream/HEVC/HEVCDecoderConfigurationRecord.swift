/// The HEVC decoder configuration record, the payload of an MP4 `hvcC` box (ISO/IEC 14496-15
/// clause 8.3.3.1): the stream's profile, tier, level and format, the size of the NAL unit length
/// prefixes in its samples, and its VPS, SPS, PPS (and SEI) NAL units.
///
/// It is what VideoToolbox keeps under the `hvcC` key of a format description's
/// `SampleDescriptionExtensionAtoms`, and what
/// `CMVideoFormatDescriptionCreateFromHEVCParameterSets` builds from parameter sets.
///
/// A record is made either by parsing ``init(bytes:)`` or by building from parameter sets
/// ``init(parameterSets:nalUnitHeaderLength:arrayCompleteness:)``; both check every field fits
/// its width, so ``bytes`` always serialises. Reserved bits are written as the standard says (all
/// 1s in the header, 0 in each array) and ignored when parsing.
public struct HEVCDecoderConfigurationRecord: Sendable, Hashable {
    /// One `hvcC` array: the NAL units of one type.
    public struct NALUnitArray: Sendable, Hashable {
        /// `array_completeness`: all NAL units of this type are in the array, none in the samples
        /// (1 for `hvc1` sample entries, 0 for `hev1`).
        public let arrayCompleteness: Bool
        /// `NAL_unit_type`: VPS, SPS, PPS, or prefix/suffix SEI.
        public let nalUnitType: HEVCNALUnitType
        /// The NAL units (`nalUnit`), each with its 2-byte header, escaped as in the stream, at most
        /// 65 535 bytes each and 65 535 in all.
        public let nalUnits: [[UInt8]]
    }

    /// `configurationVersion`: always 1.
    public let configurationVersion: UInt8
    /// `general_profile_space`.
    public let generalProfileSpace: UInt8
    /// `general_tier_flag`.
    public let generalTierFlag: Bool
    /// `general_profile_idc`.
    public let generalProfileIdc: UInt8
    /// `general_profile_compatibility_flags` (flag `j` in bit `31 - j`).
    public let generalProfileCompatibilityFlags: UInt32
    /// `general_constraint_indicator_flags`, 48 bits.
    public let generalConstraintIndicatorFlags: UInt64
    /// `general_level_idc`.
    public let generalLevelIdc: UInt8
    /// `min_spatial_segmentation_idc`, 0 to 4095 (from the SPS VUI; 0 when unknown).
    public let minSpatialSegmentationIdc: UInt16
    /// `parallelismType`: 0 mixed or unknown, 1 slices, 2 tiles, 3 wavefront (entropy coding sync).
    public let parallelismType: UInt8
    /// `chromaFormat`: `chroma_format_idc` of the SPS.
    public let chromaFormat: UInt8
    /// `bitDepthLumaMinus8`.
    public let bitDepthLumaMinus8: UInt8
    /// `bitDepthChromaMinus8`.
    public let bitDepthChromaMinus8: UInt8
    /// `avgFrameRate`, in frames per 256 seconds; 0 when unspecified.
    public let avgFrameRate: UInt16
    /// `constantFrameRate`: 0 unknown, 1 constant, 2 constant per temporal layer.
    public let constantFrameRate: UInt8
    /// `numTemporalLayers`: 0 unknown, otherwise the number of temporal sub-layers.
    public let numTemporalLayers: UInt8
    /// `temporalIdNested`: `sps_temporal_id_nesting_flag`.
    public let temporalIdNested: Bool
    /// `lengthSizeMinusOne`: 0, 1 or 3 (2 is not allowed).
    public let lengthSizeMinusOne: UInt8
    /// The arrays of NAL units, in the record's order.
    public let arrays: [NALUnitArray]

    /// The size in bytes of the length prefix of each NAL unit in the samples: 1, 2 or 4
    /// (VideoToolbox's `NALUnitHeaderLength`).
    public var nalUnitHeaderLength: Int { Int(lengthSizeMinusOne) + 1 }

    /// The VPS, SPS and PPS NAL units of every array, in order (what
    /// `CMVideoFormatDescriptionGetHEVCParameterSetAtIndex` enumerates).
    public var parameterSets: [[UInt8]] {
        arrays.filter { (32...34).contains($0.nalUnitType.rawValue) }.flatMap(\.nalUnits)
    }

    /// The fixed part of the record before `numOfArrays` plus that byte.
    static let headerSize = 23

    /// Parses an `hvcC` payload (the box contents, without the box header).
    ///
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when the record is truncated, its
    ///   `configurationVersion` is not 1, `lengthSizeMinusOne` is 2, a NAL unit is shorter than
    ///   its 2-byte header or runs past the end, or bytes follow the last array.
    public init(bytes: [UInt8]) throws(VTError) {
        do throws(VTError) {
            var reader = BitReader(bytes, context: "hvcC")
            configurationVersion = UInt8(try reader.bits(8, "configurationVersion"))
            guard configurationVersion == 1 else {
                throw Self.invalid("configurationVersion is \(configurationVersion), not 1")
            }
            generalProfileSpace = UInt8(try reader.bits(2, "general_profile_space"))
            generalTierFlag = try reader.flag("general_tier_flag")
            generalProfileIdc = UInt8(try reader.bits(5, "general_profile_idc"))
            generalProfileCompatibilityFlags = try reader.bits(32, "general_profile_compatibility_flags")
            let constraintHigh = UInt64(try reader.bits(16, "general_constraint_indicator_flags"))
            generalConstraintIndicatorFlags =
                constraintHigh << 32 | UInt64(try reader.bits(32, "general_constraint_indicator_flags"))
            generalLevelIdc = UInt8(try reader.bits(8, "general_level_idc"))
            try reader.skip(4, "reserved")
            minSpatialSegmentationIdc = UInt16(try reader.bits(12, "min_spatial_segmentation_idc"))
            try reader.skip(6, "reserved")
            parallelismType = UInt8(try reader.bits(2, "parallelismType"))
            try reader.skip(6, "reserved")
            chromaFormat = UInt8(try reader.bits(2, "chromaFormat"))
            try reader.skip(5, "reserved")
            bitDepthLumaMinus8 = UInt8(try reader.bits(3, "bitDepthLumaMinus8"))
            try reader.skip(5, "reserved")
            bitDepthChromaMinus8 = UInt8(try reader.bits(3, "bitDepthChromaMinus8"))
            avgFrameRate = UInt16(try reader.bits(16, "avgFrameRate"))
            constantFrameRate = UInt8(try reader.bits(2, "constantFrameRate"))
            numTemporalLayers = UInt8(try reader.bits(3, "numTemporalLayers"))
            temporalIdNested = try reader.flag("temporalIdNested")
            lengthSizeMinusOne = UInt8(try reader.bits(2, "lengthSizeMinusOne"))
            guard lengthSizeMinusOne != 2 else {
                throw Self.invalid("lengthSizeMinusOne is 2: NAL unit lengths are 1, 2 or 4 bytes, not 3")
            }
            let numOfArrays = try reader.int(8, "numOfArrays")
            var arrays: [NALUnitArray] = []
            for _ in 0..<numOfArrays {
                let arrayCompleteness = try reader.flag("array_completeness")
                try reader.skip(1, "reserved")
                let nalUnitType = HEVCNALUnitType(rawValue: UInt8(try reader.bits(6, "NAL_unit_type")))
                let numNalus = try reader.int(16, "numNalus")
                var nalUnits: [[UInt8]] = []
                for _ in 0..<numNalus {
                    let nalUnitLength = try reader.int(16, "nalUnitLength")
                    guard nalUnitLength >= 2 else {
                        throw Self.invalid("a NAL unit of \(nalUnitLength) bytes is shorter than its 2-byte header")
                    }
                    let start = reader.bitPosition / 8
                    try reader.skip(8 * nalUnitLength, "nalUnit")
                    nalUnits.append(Array(bytes[start..<start + nalUnitLength]))
                }
                arrays.append(
                    NALUnitArray(arrayCompleteness: arrayCompleteness, nalUnitType: nalUnitType, nalUnits: nalUnits))
            }
            guard reader.bitsLeft == 0 else {
                throw Self.invalid("\(reader.bitsLeft / 8) bytes follow the last NAL unit array")
            }
            self.arrays = arrays
        } catch {
            // The reader's truncation errors already name "hvcC"; only the status changes.
            throw error == VTError.formatDescriptionInvalidParameter
                ? error : VTError.formatDescriptionInvalidParameter.with(error.reason)
        }
    }

    /// Builds a record from parameter set NAL units, as
    /// `CMVideoFormatDescriptionCreateFromHEVCParameterSets` does.
    ///
    /// The profile, tier, level, chroma format and bit depths come from the first SPS;
    /// `numTemporalLayers` is the larger sub-layer count of the first VPS and SPS,
    /// `temporalIdNested` the SPS's `sps_temporal_id_nesting_flag`, `min_spatial_segmentation_idc`
    /// the smallest of the SPS VUIs that code it, and `parallelismType` follows from the PPSs
    /// (tiles, wavefront, both) as libavformat derives it. `avgFrameRate` and `constantFrameRate`
    /// are 0 (unknown). Arrays are written in the order VPS, SPS, PPS, prefix SEI, suffix SEI.
    ///
    /// - Parameters:
    ///   - parameterSets: NAL units with their 2-byte headers, without start codes: at least one
    ///     VPS, SPS and PPS, and optionally SEI units, in any order.
    ///   - nalUnitHeaderLength: The length prefix size of the samples: 1, 2 or 4.
    ///   - arrayCompleteness: The `array_completeness` of every array (true for `hvc1`).
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when a unit is not an HEVC VPS, SPS,
    ///   PPS or SEI unit, one of VPS, SPS and PPS is missing, a unit is over 65 535 bytes, the first
    ///   VPS, SPS or a PPS does not parse, or `nalUnitHeaderLength` is not 1, 2 or 4.
    public init(
        parameterSets: [[UInt8]], nalUnitHeaderLength: Int = 4, arrayCompleteness: Bool = true
    ) throws(VTError) {
        guard [1, 2, 4].contains(nalUnitHeaderLength) else {
            throw Self.invalid("the NAL unit header length is \(nalUnitHeaderLength), not 1, 2 or 4")
        }
        let order: [HEVCNALUnitType] = [
            .videoParameterSet, .sequenceParameterSet, .pictureParameterSet, .prefixSEI, .suffixSEI,
        ]
        var units: [HEVCNALUnitType: [NALUnit]] = [:]
        for bytes in parameterSets {
            let unit: NALUnit
            do {
                unit = try NALUnit(bytes[...], codec: .hevc)
            } catch {
                throw Self.invalid(error.reason)
            }
            guard let type = unit.hevcType, order.contains(type) else {
                throw Self.invalid("\(unit) is not a VPS, SPS, PPS or SEI NAL unit")
            }
            guard bytes.count <= Int(UInt16.max) else {
                throw Self.invalid("a NAL unit of \(bytes.count) bytes is longer than hvcC allows (65535)")
            }
            units[type, default: []].append(unit)
        }
        guard let vpsUnit = units[.videoParameterSet]?.first, let spsUnit = units[.sequenceParameterSet]?.first,
            let ppsUnits = units[.pictureParameterSet], !ppsUnits.isEmpty
        else {
            throw Self.invalid("an HEVC format description needs a VPS, an SPS and a PPS")
        }

        let vps: HEVCVideoParameterSet
        let sps: HEVCSequenceParameterSet
        var spsVUIs: [HEVCVUIParameters] = []
        var parallelism: Set<UInt8> = []
        do {
            vps = try HEVCVideoParameterSet(vpsUnit)
            sps = try HEVCSequenceParameterSet(spsUnit)
            for unit in units[.sequenceParameterSet] ?? [] {
                if let vui = try HEVCSequenceParameterSet(unit).vuiParameters { spsVUIs.append(vui) }
            }
            for unit in ppsUnits {
                let pps = try HEVCPictureParameterSet(unit)
                switch (pps.entropyCodingSyncEnabledFlag, pps.tilesEnabledFlag) {
                case (true, true): parallelism.insert(0)
                case (true, false): parallelism.insert(3)
                case (false, true): parallelism.insert(2)
                case (false, false): parallelism.insert(1)
                }
            }
        } catch {
            throw Self.invalid(error.reason)
        }

        let ptl = sps.profileTierLevel
        configurationVersion = 1
        generalProfileSpace = ptl.generalProfileSpace
        generalTierFlag = ptl.generalTierFlag
        generalProfileIdc = ptl.generalProfileIdc
        generalProfileCompatibilityFlags = ptl.generalProfileCompatibilityFlags
        generalConstraintIndicatorFlags = ptl.generalConstraintIndicatorFlags
        generalLevelIdc = ptl.generalLevelIdc
        let restricted = spsVUIs.filter(\.bitstreamRestrictionFlag).map(\.minSpatialSegmentationIdc)
        minSpatialSegmentationIdc = UInt16(restricted.min() ?? 0)
        // As libavformat: the one kind of parallelism every PPS uses, 0 (mixed) when they differ
        // or when min_spatial_segmentation_idc is 0 (no guarantee to rely on).
        parallelismType = minSpatialSegmentationIdc == 0 || parallelism.count != 1 ? 0 : parallelism.first ?? 0
        chromaFormat = UInt8(sps.chromaFormatIdc)
        bitDepthLumaMinus8 = UInt8(sps.bitDepthLumaMinus8)
        bitDepthChromaMinus8 = UInt8(sps.bitDepthChromaMinus8)
        avgFrameRate = 0
        constantFrameRate = 0
        numTemporalLayers = UInt8(max(vps.vpsMaxSubLayersMinus1, sps.spsMaxSubLayersMinus1) + 1)
        temporalIdNested = sps.spsTemporalIdNestingFlag
        lengthSizeMinusOne = UInt8(nalUnitHeaderLength - 1)
        arrays = order.compactMap { type in
            guard let list = units[type], !list.isEmpty else { return nil }
            return NALUnitArray(
                arrayCompleteness: arrayCompleteness, nalUnitType: type, nalUnits: list.map { Array($0.bytes) })
        }
        guard arrays.allSatisfy({ $0.nalUnits.count <= Int(UInt16.max) }) else {
            throw Self.invalid("more than 65535 NAL units of one type")
        }
    }

    /// The serialised record, the payload of an `hvcC` box.
    public var bytes: [UInt8] {
        var data: [UInt8] = [configurationVersion]
        data.append(generalProfileSpace << 6 | (generalTierFlag ? 0x20 : 0) | generalProfileIdc & 0x1F)
        Self.append(UInt64(generalProfileCompatibilityFlags), bytes: 4, to: &data)
        Self.append(generalConstraintIndicatorFlags, bytes: 6, to: &data)
        data.append(generalLevelIdc)
        Self.append(UInt64(0xF000 | minSpatialSegmentationIdc & 0x0FFF), bytes: 2, to: &data)
        data.append(0xFC | parallelismType & 3)
        data.append(0xFC | chromaFormat & 3)
        data.append(0xF8 | bitDepthLumaMinus8 & 7)
        data.append(0xF8 | bitDepthChromaMinus8 & 7)
        Self.append(UInt64(avgFrameRate), bytes: 2, to: &data)
        data.append(
            (constantFrameRate & 3) << 6 | (numTemporalLayers & 7) << 3 | (temporalIdNested ? 4 : 0)
                | lengthSizeMinusOne & 3)
        data.append(UInt8(truncatingIfNeeded: arrays.count))
        for array in arrays {
            data.append((array.arrayCompleteness ? 0x80 : 0) | array.nalUnitType.rawValue & 0x3F)
            Self.append(UInt64(truncatingIfNeeded: array.nalUnits.count), bytes: 2, to: &data)
            for unit in array.nalUnits {
                Self.append(UInt64(truncatingIfNeeded: unit.count), bytes: 2, to: &data)
                data += unit
            }
        }
        return data
    }

    /// The NAL units of one type, from every array of that type.
    public func nalUnits(ofType type: HEVCNALUnitType) -> [[UInt8]] {
        arrays.filter { $0.nalUnitType == type }.flatMap(\.nalUnits)
    }

    /// Appends the low `bytes` bytes of `value`, big-endian.
    private static func append(_ value: UInt64, bytes: Int, to data: inout [UInt8]) {
        for index in stride(from: bytes - 1, through: 0, by: -1) {
            data.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * index)))
        }
    }

    private static func invalid(_ reason: String) -> VTError {
        VTError.formatDescriptionInvalidParameter.with("hvcC: \(reason)")
    }
}
