/// HEVC: one picture per sample; a sample is disposable when its slices are sub-layer
/// non-reference pictures of the highest sub-layer.
struct HEVCShownPictures: ShownPictureCounting {
    func shown(by sample: SampleBuffer) -> ShownPictures { .frames(1) }

    /// Slices of a sub-layer non-reference type (TRAIL_N, TSA_N, STSA_N, RADL_N, RASL_N) in the
    /// highest sub-layer the SPS allows (`sps_max_sub_layers_minus1`): clause 3.132 lets a
    /// higher sub-layer refer to such a picture, so only the top one is free of readers. Such a
    /// picture is never `prevTid0Pic` either (clause 8.3.1), so no later picture order count
    /// depends on it.
    func isDisposable(_ sample: SampleBuffer) -> Bool {
        guard let topSubLayer = sample.formatDescription.hevcSequenceParameterSet?.spsMaxSubLayersMinus1 else {
            return false
        }
        return sample.hasOnlyDisposableNALUnits { Int($0.temporalId) == topSubLayer }
    }
}

extension HEVCCodecSupport {
    func makeShownPictureCounter() -> any ShownPictureCounting { HEVCShownPictures() }
}
