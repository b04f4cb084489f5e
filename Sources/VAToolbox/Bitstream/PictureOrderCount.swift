/// The rule H.264 and HEVC share for picture order counts.
enum PictureOrderCount {
    /// `PicOrderCntMsb`: the most significant part of a picture order count, which a slice
    /// header leaves out (it sends only the least significant bits).
    ///
    /// H.264 `pic_order_cnt_type` 0 (clause 8.2.1.1) and HEVC (clause 8.3.1) derive it with the
    /// same rule: LSBs that fell back by at least half their range wrapped forward, LSBs that
    /// rose by more than half wrapped backward.
    ///
    /// - Parameters:
    ///   - lsb: The picture's `pic_order_cnt_lsb` (`slice_pic_order_cnt_lsb`), in `0..<maxLsb`.
    ///   - previousLsb: `prevPicOrderCntLsb`, in `0..<maxLsb`.
    ///   - previousMsb: `prevPicOrderCntMsb`, a multiple of `maxLsb`.
    ///   - maxLsb: `MaxPicOrderCntLsb`, `2^(log2_max_pic_order_cnt_lsb_minus4 + 4)`.
    /// - Returns: A multiple of `maxLsb` within one `maxLsb` of `previousMsb`.
    static func msb(lsb: Int, previousLsb: Int, previousMsb: Int, maxLsb: Int) -> Int {
        if lsb < previousLsb && previousLsb - lsb >= maxLsb / 2 { return previousMsb + maxLsb }
        if lsb > previousLsb && lsb - previousLsb > maxLsb / 2 { return previousMsb - maxLsb }
        return previousMsb
    }
}
