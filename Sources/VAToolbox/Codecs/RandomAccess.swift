/// What a sample is to the stream's random access: where decoding can start, and what the
/// pictures after that point may still refer to before it.
///
/// ``DecompressionSession/finishDelayedFrames()`` needs it: after draining the decoder it replays
/// the samples from a random access point (``ReplayBuffer``), and the point must be one that the
/// pictures still to come refer to nothing before. A *closed* point is such a point for every
/// picture after it. An *open* point is not for its leading pictures: they follow it in decoding
/// order, precede it in output order, and may refer to the GOP before it (HEVC RASL pictures,
/// clause 3.1; the B pictures of an H.264 open GOP; MPEG-2 B pictures of an open GOP, clause
/// 6.3.8). Until they have all been decoded, a replay must start at the random access point before.
enum RandomAccess: Sendable, Hashable {
    /// Neither a random access point nor the end of a point's leading pictures.
    case none
    /// A random access point no picture after it looks past: an H.264 IDR picture, an HEVC IDR or
    /// BLA picture, an MPEG-2 I picture of a closed GOP, a VP8, VP9 or AV1 key frame.
    case closed
    /// A random access point whose leading pictures may refer to pictures before it: an HEVC CRA
    /// picture, an H.264 recovery point exact at once (`recovery_frame_cnt` 0) or a non-IDR sync
    /// sample, an MPEG-2 I picture of an open GOP.
    case open
    /// A picture after which, in decoding order, no leading picture of the last open point comes:
    /// an HEVC trailing picture (clause 7.4.2.2: trailing pictures follow every leading picture of
    /// their IRAP picture), an MPEG-2 P picture (the B pictures after it refer to it and the
    /// anchor before it, both of its GOP).
    case endsLeadingPictures
}
