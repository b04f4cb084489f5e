/// Derives the picture order counts of H.264 pictures (clause 8.2.1, all three
/// `pic_order_cnt_type`s), one picture after another in decode order: the numbers that put the
/// pictures of a coded video sequence in presentation order.
struct H264PictureOrderCounter {
    /// What the counter derives for one picture.
    struct Picture: Equatable {
        /// `TopFieldOrderCnt`, for a frame or a top field.
        var top: Int?
        /// `BottomFieldOrderCnt`, for a frame or a bottom field.
        var bottom: Int?
        /// Whether the picture starts a new sequence of counts: an IDR picture, or one with
        /// `memory_management_control_operation` 5, which clause C.4.4 treats alike (the pictures
        /// before it are all output first, and its counts are rebased to 0).
        var startsSequence: Bool

        /// `PicOrderCnt`: the smaller of the picture's field counts (clause 8.2.1).
        var pictureOrderCount: Int { min(top ?? Int.max, bottom ?? Int.max) }
    }

    /// `prevPicOrderCntMsb` and `prevPicOrderCntLsb` (type 0): from the last reference picture.
    private var previousMsb = 0
    private var previousLsb = 0
    /// `prevFrameNumOffset` and the previous picture's `frame_num` (types 1 and 2).
    private var previousFrameNumOffset = 0
    private var previousFrameNum = 0

    /// The counts of the next picture in decode order, from its first slice header and the SPS
    /// it uses.
    mutating func next(_ header: H264SliceHeader, sps: H264SequenceParameterSet) -> Picture {
        let isIDR = header.nalUnitType.isIDR
        let resets = header.hasMemoryManagementReset
        let isReference = header.nalRefIdc != 0
        let isBottomField = header.fieldPicFlag && header.bottomFieldFlag
        let isTopField = header.fieldPicFlag && !header.bottomFieldFlag
        var top: Int
        var bottom: Int
        switch sps.picOrderCntType {
        case 0:
            let maxLsb = 1 << (sps.log2MaxPicOrderCntLsbMinus4 + 4)
            let lastMsb = isIDR ? 0 : previousMsb
            let lastLsb = isIDR ? 0 : previousLsb
            let lsb = header.picOrderCntLsb
            let msb = PictureOrderCount.msb(lsb: lsb, previousLsb: lastLsb, previousMsb: lastMsb, maxLsb: maxLsb)
            top = msb + lsb
            bottom = header.fieldPicFlag ? msb + lsb : top + header.deltaPicOrderCntBottom
            if isReference {
                previousMsb = msb
                previousLsb = lsb
            }
        default:
            let frameNumOffset: Int
            if isIDR {
                frameNumOffset = 0
            } else if previousFrameNum > header.frameNum {
                frameNumOffset = previousFrameNumOffset + sps.maxFrameNum
            } else {
                frameNumOffset = previousFrameNumOffset
            }
            if sps.picOrderCntType == 1 {
                let expected = Self.expectedCount(
                    frameNumOffset: frameNumOffset, header: header, sps: sps, isReference: isReference)
                top = expected + header.deltaPicOrderCnt[0]
                bottom = top + sps.offsetForTopToBottomField
                if header.fieldPicFlag {
                    bottom = expected + sps.offsetForTopToBottomField + header.deltaPicOrderCnt[0]
                } else {
                    bottom += header.deltaPicOrderCnt[1]
                }
            } else {
                let count = isIDR ? 0 : 2 * (frameNumOffset + header.frameNum) - (isReference ? 0 : 1)
                top = count
                bottom = count
            }
            previousFrameNumOffset = resets ? 0 : frameNumOffset
            previousFrameNum = resets ? 0 : header.frameNum
        }
        if resets {
            // Clause 8.2.1: after the operation the picture's counts are rebased so that the
            // smaller is 0; a type 0 stream then counts on from its top field count.
            let base = header.fieldPicFlag ? (isBottomField ? bottom : top) : min(top, bottom)
            top -= base
            bottom -= base
            if sps.picOrderCntType == 0 {
                previousMsb = 0
                previousLsb = isBottomField ? 0 : top
            }
        }
        return Picture(
            top: isBottomField ? nil : top, bottom: isTopField ? nil : bottom, startsSequence: isIDR || resets)
    }

    /// `expectedPicOrderCnt` of `pic_order_cnt_type` 1 (clause 8.2.1.2).
    private static func expectedCount(
        frameNumOffset: Int, header: H264SliceHeader, sps: H264SequenceParameterSet, isReference: Bool
    ) -> Int {
        let cycle = sps.offsetForRefFrame
        var absFrameNum = cycle.isEmpty ? 0 : frameNumOffset + header.frameNum
        if !isReference && absFrameNum > 0 { absFrameNum -= 1 }
        var expected = 0
        if absFrameNum > 0 {
            let deltaPerCycle = cycle.reduce(0, +)
            let cycleCount = (absFrameNum - 1) / cycle.count
            let inCycle = (absFrameNum - 1) % cycle.count
            expected = cycleCount * deltaPerCycle
            for index in 0...inCycle { expected += cycle[index] }
        }
        if !isReference { expected += sps.offsetForNonRefPic }
        return expected
    }
}
