/// The loop filter parameters of a VP9 frame, `loop_filter_params()` (VP9 specification v0.6 §6.2.8).
///
/// Deltas that the frame does not update are nil: they keep the values of earlier frames
/// (after a reset to the defaults 1, 0, -1, -1 and 0, 0 by `setup_past_independence()`).
public struct VP9LoopFilterParams: Sendable, Hashable {
    /// `loop_filter_level` (0 to 63; 0 turns the filter off).
    public var loopFilterLevel = 0
    /// `loop_filter_sharpness` (0 to 7).
    public var loopFilterSharpness = 0
    /// `loop_filter_delta_enabled`.
    public var loopFilterDeltaEnabled = false
    /// `loop_filter_delta_update`.
    public var loopFilterDeltaUpdate = false
    /// `loop_filter_ref_deltas[i]` for INTRA, LAST, GOLDEN, ALTREF, when updated by this frame.
    public var loopFilterRefDeltas: [Int?] = [nil, nil, nil, nil]
    /// `loop_filter_mode_deltas[i]` (ZEROMV, other), when updated by this frame.
    public var loopFilterModeDeltas: [Int?] = [nil, nil]

    /// Creates parameters with every field zero / not updated.
    public init() {}

    /// Reads `loop_filter_params()`.
    init(from r: inout BitReader) throws(VTError) {
        loopFilterLevel = try r.int(6, "loop_filter_level")
        loopFilterSharpness = try r.int(3, "loop_filter_sharpness")
        loopFilterDeltaEnabled = try r.flag("loop_filter_delta_enabled")
        guard loopFilterDeltaEnabled else { return }
        loopFilterDeltaUpdate = try r.flag("loop_filter_delta_update")
        guard loopFilterDeltaUpdate else { return }
        for i in 0..<4 where try r.flag("update_ref_delta") {
            loopFilterRefDeltas[i] = try r.signedMagnitude(6, "loop_filter_ref_deltas")
        }
        for i in 0..<2 where try r.flag("update_mode_delta") {
            loopFilterModeDeltas[i] = try r.signedMagnitude(6, "loop_filter_mode_deltas")
        }
    }
}
