/// The sub-layer ordering information shared by the VPS and the SPS (H.265 clauses 7.3.2.1 and
/// 7.3.2.2.1): for each temporal sub-layer, the decoded picture buffer size, the number of pictures
/// that may precede a picture in decoding order and follow it in output order, and the latency.
///
/// Internal: the parameter sets expose the three arrays under their own spec names
/// (`vps_max_dec_pic_buffering_minus1`, `sps_max_dec_pic_buffering_minus1`, …).
struct HEVCSubLayerOrderingInfo: Sendable, Hashable {
    /// The largest `max_dec_pic_buffering_minus1`: MaxDpbSize − 1, where MaxDpbSize is at most 16
    /// (clause A.4.2, equation A-2).
    static let maxDecPicBufferingMinus1 = 15

    /// `sub_layer_ordering_info_present_flag`.
    var presentFlag: Bool
    /// `max_dec_pic_buffering_minus1[i]`, one per sub-layer, inferred ones filled in.
    var maxDecPicBufferingMinus1: [Int]
    /// `max_num_reorder_pics[i]`, one per sub-layer, inferred ones filled in.
    var maxNumReorderPics: [Int]
    /// `max_latency_increase_plus1[i]`, one per sub-layer, inferred ones filled in.
    var maxLatencyIncreasePlus1: [UInt32]

    /// Parses the `sub_layer_ordering_info_present_flag` and the loop after it.
    ///
    /// When the flag is 0 only the values of the highest sub-layer are coded, and those of the
    /// lower sub-layers are inferred equal to them (clause 7.4.3.2.1).
    ///
    /// - Parameters:
    ///   - reader: The reader, positioned at `sub_layer_ordering_info_present_flag`.
    ///   - maxSubLayersMinus1: `vps_max_sub_layers_minus1` or `sps_max_sub_layers_minus1`, 0 to 6.
    /// - Throws: ``VTError/videoDecoderBadData`` when the data ends early or a value is outside its
    ///   range: a buffer size over 16 pictures, more reorder pictures than the buffer holds, or a
    ///   sub-layer needing less buffering or reordering than the one below it.
    init(_ reader: inout BitReader, maxSubLayersMinus1: Int) throws(VTError) {
        presentFlag = try reader.flag("sub_layer_ordering_info_present_flag")
        var buffering: [Int] = []
        var reorder: [Int] = []
        var latency: [UInt32] = []
        for i in (presentFlag ? 0 : maxSubLayersMinus1)...maxSubLayersMinus1 {
            let decPicBuffering = try reader.unsignedExpGolomb(
                "max_dec_pic_buffering_minus1", maximum: Self.maxDecPicBufferingMinus1)
            let numReorder = try reader.unsignedExpGolomb(
                "max_num_reorder_pics", maximum: decPicBuffering)
            let latencyIncrease = try reader.unsignedExpGolomb("max_latency_increase_plus1")
            if let previousBuffering = buffering.last, let previousReorder = reorder.last {
                guard decPicBuffering >= previousBuffering, numReorder >= previousReorder else {
                    throw VTError.videoDecoderBadData.with(
                        "\(reader.context): sub-layer \(i) has max_dec_pic_buffering_minus1 \(decPicBuffering) and max_num_reorder_pics \(numReorder), less than sub-layer \(i - 1)"
                    )
                }
            }
            buffering.append(decPicBuffering)
            reorder.append(numReorder)
            latency.append(latencyIncrease)
        }
        if !presentFlag, let highestBuffering = buffering.last, let highestReorder = reorder.last,
            let highestLatency = latency.last
        {
            buffering = Array(repeating: highestBuffering, count: maxSubLayersMinus1 + 1)
            reorder = Array(repeating: highestReorder, count: maxSubLayersMinus1 + 1)
            latency = Array(repeating: highestLatency, count: maxSubLayersMinus1 + 1)
        }
        maxDecPicBufferingMinus1 = buffering
        maxNumReorderPics = reorder
        maxLatencyIncreasePlus1 = latency
    }
}
