/// The quantisation scaling lists of an HEVC SPS or PPS: `scaling_list_data()` (H.265 clause
/// 7.3.4) with its semantics applied (clause 7.4.5), or the default lists of Tables 7-5 and 7-6.
///
/// Lists are kept as the spec's `ScalingList[sizeId][matrixId][i]`: `i` counts coefficients in
/// up-right diagonal scan order (clause 6.5.3), not raster order. `sizeId` 0 to 3 are the 4×4,
/// 8×8, 16×16 and 32×32 transforms (16 coefficients for 4×4, 64 for the others, which are
/// upsampled); `matrixId` 0 to 2 are intra Y, Cb, Cr and 3 to 5 inter Y, Cb, Cr.
public struct HEVCScalingListData: Sendable, Hashable {
    /// `ScalingList[sizeId][matrixId][i]`: 4 sizes × 6 matrices, each 16 (sizeId 0) or 64
    /// coefficients.
    ///
    /// For `sizeId` 3 only `matrixId` 0 and 3 are coded; entries 1, 2, 4 and 5 are copies of the
    /// 16×16 lists, which is how they are derived when `ChromaArrayType` is 3 (clause 7.4.5).
    public internal(set) var scalingList: [[[UInt8]]]
    /// The DC coefficients of the 16×16 and 32×32 lists, `scaling_list_dc_coef_minus8[sizeId − 2][matrixId] + 8`
    /// (16 for default lists), indexed `[sizeId − 2][matrixId]`.
    public internal(set) var scalingListDcCoef: [[UInt8]]

    /// The default lists (Tables 7-5 and 7-6), used when `scaling_list_enabled_flag` is 1 and
    /// no list data is coded (`sps_infer_scaling_list_flag`/`sps_scaling_list_data_present_flag` 0).
    public static let `default` = HEVCScalingListData(
        scalingList: (0..<4).map { sizeId in (0..<6).map { defaultList(sizeId: sizeId, matrixId: $0) } },
        scalingListDcCoef: Array(repeating: Array(repeating: 16, count: 6), count: 2))

    /// Parses `scaling_list_data()` (clause 7.3.4) and derives every list.
    ///
    /// - Parameter reader: The reader, positioned at the first `scaling_list_pred_mode_flag`.
    /// - Throws: ``VTError/videoDecoderBadData`` when the data ends early or a value is outside
    ///   its range: `scaling_list_pred_matrix_id_delta` pointing before matrix 0,
    ///   `scaling_list_dc_coef_minus8` outside −7 to 247, `scaling_list_delta_coef` outside −128
    ///   to 127, or a resulting coefficient of 0.
    public init(_ reader: inout BitReader) throws(VTError) {
        var lists = Self.default.scalingList
        var dcCoef = Self.default.scalingListDcCoef
        for sizeId in 0..<4 {
            for matrixId in stride(from: 0, to: 6, by: sizeId == 3 ? 3 : 1) {
                let scalingListPredModeFlag = try reader.flag("scaling_list_pred_mode_flag")
                if !scalingListPredModeFlag {
                    let delta = try reader.unsignedExpGolomb(
                        "scaling_list_pred_matrix_id_delta", maximum: sizeId == 3 ? matrixId / 3 : matrixId)
                    if delta == 0 {
                        lists[sizeId][matrixId] = Self.defaultList(sizeId: sizeId, matrixId: matrixId)
                        if sizeId > 1 { dcCoef[sizeId - 2][matrixId] = 16 }
                    } else {
                        let refMatrixId = matrixId - delta * (sizeId == 3 ? 3 : 1)
                        lists[sizeId][matrixId] = lists[sizeId][refMatrixId]
                        if sizeId > 1 { dcCoef[sizeId - 2][matrixId] = dcCoef[sizeId - 2][refMatrixId] }
                    }
                } else {
                    var nextCoef = 8
                    let coefNum = min(64, 1 << (4 + (sizeId << 1)))
                    if sizeId > 1 {
                        let dcMinus8 = try reader.signedExpGolomb("scaling_list_dc_coef_minus8", in: -7...247)
                        nextCoef = dcMinus8 + 8
                        dcCoef[sizeId - 2][matrixId] = UInt8(nextCoef)
                    }
                    var list: [UInt8] = []
                    list.reserveCapacity(coefNum)
                    for _ in 0..<coefNum {
                        let deltaCoef = try reader.signedExpGolomb("scaling_list_delta_coef", in: -128...127)
                        nextCoef = (nextCoef + deltaCoef + 256) % 256
                        guard nextCoef > 0 else {
                            throw VTError.videoDecoderBadData.with(
                                "\(reader.context): ScalingList[\(sizeId)][\(matrixId)] has a coefficient of 0 (clause 7.4.5 requires it to be greater than 0)"
                            )
                        }
                        list.append(UInt8(nextCoef))
                    }
                    lists[sizeId][matrixId] = list
                }
            }
        }
        // The 32×32 chroma lists (ChromaArrayType 3) are the 16×16 ones (clause 7.4.5).
        for matrixId in [1, 2, 4, 5] {
            lists[3][matrixId] = lists[2][matrixId]
            dcCoef[1][matrixId] = dcCoef[0][matrixId]
        }
        scalingList = lists
        scalingListDcCoef = dcCoef
    }

    private init(scalingList: [[[UInt8]]], scalingListDcCoef: [[UInt8]]) {
        self.scalingList = scalingList
        self.scalingListDcCoef = scalingListDcCoef
    }

    /// Table 7-5 (4×4: all 16) and Table 7-6 (8×8 and larger: intra for matrixId 0 to 2, inter
    /// for 3 to 5), in diagonal scan order.
    private static func defaultList(sizeId: Int, matrixId: Int) -> [UInt8] {
        if sizeId == 0 { return Array(repeating: 16, count: 16) }
        return matrixId < 3 ? defaultIntra : defaultInter
    }

    /// Table 7-6, `ScalingList[1..3][0..2][i]`.
    private static let defaultIntra: [UInt8] = [
        16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 17, 16, 17, 16, 17, 18,
        17, 18, 18, 17, 18, 21, 19, 20, 21, 20, 19, 21, 24, 22, 22, 24,
        24, 22, 22, 24, 25, 25, 27, 30, 27, 25, 25, 29, 31, 35, 35, 31,
        29, 36, 41, 44, 41, 36, 47, 54, 54, 47, 65, 70, 65, 88, 88, 115,
    ]

    /// Table 7-6, `ScalingList[1..3][3..5][i]`.
    private static let defaultInter: [UInt8] = [
        16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 17, 17, 17, 17, 17, 18,
        18, 18, 18, 18, 18, 20, 20, 20, 20, 20, 20, 20, 24, 24, 24, 24,
        24, 24, 24, 24, 25, 25, 25, 25, 25, 25, 25, 28, 28, 28, 28, 28,
        28, 33, 33, 33, 33, 33, 41, 41, 41, 41, 54, 54, 54, 71, 71, 91,
    ]
}
