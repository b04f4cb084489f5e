/// The size of a decoder's surface pool: what libavcodec holds at most, plus the pictures the
/// application may hold, within the driver's surface limit.
///
/// libavcodec counts the picture being decoded and its reference pictures (16 for H.264, HEVC and
/// AV1, whatever the stream says: `vaapi_decode.c` `ff_vaapi_common_frame_params`), but not the
/// pictures it keeps for reordering: up to its `has_b_frames` more (16 when an H.264 SPS has no
/// reorder information and the session opens libavcodec with the DPB size). Those are added, so
/// that decoding can never run out of surfaces. Where the driver limits the surfaces (nvidia: 32)
/// and that is too many, the pool is what the stream itself needs (its `refs`, the reorder depth
/// and the picture being decoded) plus as many spares as the limit leaves.
struct SurfacePool: Sendable, Hashable, CustomStringConvertible {
    /// Pictures the application may hold beyond what libavcodec needs, when the attributes ask
    /// for no more: the pool has this many spare surfaces.
    static let defaultHeldSurfaces = 4
    /// Pictures that may wait for the GPU outside real-time mode: the depth of a GPU's queue
    /// (the test driver's `VATB_QUEUE_DEPTH` default), so that the oldest is normally finished by
    /// the time it must go out; their surfaces are added to the pool.
    static let defaultSynchronisationDepth = 4

    /// The surfaces in the pool.
    let size: Int
    /// The surfaces beyond libavcodec's needs: the pictures the application may hold.
    let spares: Int
    /// The driver's limit, if any.
    let limit: Int?

    /// Nil when the stream needs more surfaces than `limit`.
    init?(libavcodecSurfaces: Int, references: Int, reorderDepth: Int, spares: Int, limit: Int?) {
        let reorder = max(0, reorderDepth)
        let needed = libavcodecSurfaces + reorder
        self.limit = limit
        guard let limit, needed + spares > limit else {
            size = needed + spares
            self.spares = spares
            return
        }
        // The stream's own needs: its references (libavcodec's count less the picture being
        // decoded when the codec does not say), the reorder depth and the picture being decoded.
        let references = references > 0 ? min(references, libavcodecSurfaces - 1) : libavcodecSurfaces - 1
        let tight = 1 + references + reorder
        guard tight <= limit else { return nil }
        size = limit
        // Within the limit, libavcodec's own count stands; beyond it, the stream's own needs.
        self.spares = limit - (needed <= limit ? needed : tight)
    }

    /// `"21 surfaces (4 for the application)"`, with the limit when there is one.
    var description: String {
        "\(size) surfaces (\(spares) for the application)" + (limit.map { ", driver limit \($0)" } ?? "")
    }
}
