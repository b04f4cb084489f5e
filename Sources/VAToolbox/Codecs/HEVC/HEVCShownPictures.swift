/// HEVC: one picture per sample; a sample is disposable when its slices are sub-layer
/// non-reference pictures of the highest sub-layer.
struct HEVCShownPictures: ShownPictureCounting {
    private var parameterSets = HEVCParameterSets()
    /// The `slice_type` of the last sample's first slice segment, which libavcodec gives its
    /// frame (hevcdec.c `hevc_frame_start`: `pict_type = 3 - slice_type`).
    private var lastSliceType: Int?

    mutating func shown(by sample: SampleBuffer) -> ShownPictures {
        parameterSets.learn(sample.formatDescription)
        for unit in sample.nalUnits where unit.isParameterSet { parameterSets.learn(unit) }
        lastSliceType = sample.nalUnits.first(where: \.isVCL).flatMap {
            parameterSets.sliceSegmentHeader($0)?.header.sliceType
        }
        return .frames(1)
    }

    /// B, P, I for `slice_type` 0, 1, 2 (Table 7-7).
    func pictureType(of sample: SampleBuffer) -> PictureType? {
        switch lastSliceType {
        case HEVCSliceSegmentHeader.sliceTypeB?: .biPredicted
        case HEVCSliceSegmentHeader.sliceTypeP?: .predicted
        case HEVCSliceSegmentHeader.sliceTypeI?: .intra
        default: nil
        }
    }

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
