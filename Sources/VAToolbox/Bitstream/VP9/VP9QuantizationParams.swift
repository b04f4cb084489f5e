/// The quantizer parameters of a VP9 frame, `quantization_params()` (VP9 specification v0.6 §6.2.9).
public struct VP9QuantizationParams: Sendable, Hashable {
    /// `base_q_idx` (0 to 255).
    public var baseQIdx = 0
    /// `delta_q_y_dc` (-15 to 15).
    public var deltaQYDc = 0
    /// `delta_q_uv_dc` (-15 to 15).
    public var deltaQUVDc = 0
    /// `delta_q_uv_ac` (-15 to 15).
    public var deltaQUVAc = 0

    /// Creates parameters with every field zero.
    public init() {}

    /// Reads `quantization_params()`.
    init(from r: inout BitReader) throws(VTError) {
        baseQIdx = try r.int(8, "base_q_idx")
        deltaQYDc = try Self.readDeltaQ(&r, "delta_q_y_dc")
        deltaQUVDc = try Self.readDeltaQ(&r, "delta_q_uv_dc")
        deltaQUVAc = try Self.readDeltaQ(&r, "delta_q_uv_ac")
    }

    /// `Lossless` (§7.2.9): base_q_idx and every delta 0.
    public var lossless: Bool { baseQIdx == 0 && deltaQYDc == 0 && deltaQUVDc == 0 && deltaQUVAc == 0 }

    /// `read_delta_q()`: `delta_coded`, then `su(4)`.
    private static func readDeltaQ(_ r: inout BitReader, _ element: StaticString) throws(VTError) -> Int {
        try r.flag("delta_coded") ? try r.signedMagnitude(4, element) : 0
    }
}
