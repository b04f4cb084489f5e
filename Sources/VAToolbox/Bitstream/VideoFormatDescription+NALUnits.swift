// The parameter sets as NAL units, in the layer that knows NAL units (Docs/Architecture.md,
// "Layers").
extension VideoFormatDescription {
    /// The parameter sets as NAL units.
    public var parameterSetNALUnits: [NALUnit] {
        parameterSets.compactMap { try? NALUnit($0[...], codec: codecType) }
    }
}
