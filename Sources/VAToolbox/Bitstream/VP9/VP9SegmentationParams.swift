/// The segmentation parameters of a VP9 frame, `segmentation_params()` (VP9 specification v0.6 §6.2.11).
///
/// Only what the frame codes is here; what it does not update keeps the values of earlier frames.
public struct VP9SegmentationParams: Sendable, Hashable {
    /// `segmentation_enabled`.
    public var segmentationEnabled = false
    /// `segmentation_update_map`.
    public var segmentationUpdateMap = false
    /// `segmentation_tree_probs[7]`, when the map is updated (255 where not coded).
    public var segmentationTreeProbs: [Int] = []
    /// `segmentation_temporal_update`.
    public var segmentationTemporalUpdate = false
    /// `segmentation_pred_prob[3]`, when the map is updated (255 where not coded).
    public var segmentationPredProb: [Int] = []
    /// `segmentation_update_data`.
    public var segmentationUpdateData = false
    /// `segmentation_abs_or_delta_update`: 1 when feature values replace, 0 when they add.
    public var segmentationAbsOrDeltaUpdate = false
    /// `FeatureEnabled[segment][feature]` (8 × 4: ALT_Q, ALT_L, REF_FRAME, SKIP), when data is updated.
    public var featureEnabled: [[Bool]] = []
    /// `FeatureData[segment][feature]` (8 × 4), when data is updated.
    public var featureData: [[Int]] = []

    /// `segmentation_feature_bits[j]`.
    static let featureBits = [8, 6, 2, 0]
    /// `segmentation_feature_signed[j]`.
    static let featureSigned = [true, true, false, false]

    /// Creates parameters with segmentation off.
    public init() {}

    /// Reads `segmentation_params()`.
    init(from r: inout BitReader) throws(VTError) {
        segmentationEnabled = try r.flag("segmentation_enabled")
        guard segmentationEnabled else { return }
        segmentationUpdateMap = try r.flag("segmentation_update_map")
        if segmentationUpdateMap {
            for _ in 0..<7 { segmentationTreeProbs.append(try Self.readProb(&r)) }
            segmentationTemporalUpdate = try r.flag("segmentation_temporal_update")
            for _ in 0..<3 { segmentationPredProb.append(segmentationTemporalUpdate ? try Self.readProb(&r) : 255) }
        }
        segmentationUpdateData = try r.flag("segmentation_update_data")
        guard segmentationUpdateData else { return }
        segmentationAbsOrDeltaUpdate = try r.flag("segmentation_abs_or_delta_update")
        for _ in 0..<8 {
            var enabled: [Bool] = []
            var data: [Int] = []
            for j in 0..<4 {
                let featureEnabled = try r.flag("feature_enabled")
                var value = 0
                if featureEnabled {
                    value = try r.int(Self.featureBits[j], "feature_value")
                    if Self.featureSigned[j], try r.flag("feature_sign") { value = -value }
                }
                enabled.append(featureEnabled)
                data.append(value)
            }
            featureEnabled.append(enabled)
            featureData.append(data)
        }
    }

    /// `read_prob()`: `prob_coded`, then `prob` f(8), else 255.
    private static func readProb(_ r: inout BitReader) throws(VTError) -> Int {
        try r.flag("prob_coded") ? try r.int(8, "prob") : 255
    }
}
