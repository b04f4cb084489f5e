extension SampleBuffer {
    /// Whether an H.264 or HEVC sample is one that nothing else needs: it has slices, every one
    /// of them non-reference (``NALUnit/isReference``: H.264 `nal_ref_idc` 0, HEVC's sub-layer
    /// non-reference types) and passing `isDroppable`, and no unit that changes what the decoder
    /// keeps (a parameter set, an end of sequence). The pictures after it in decoding order are
    /// decoded the same without it, as libavcodec's `skip_frame = AVDISCARD_NONREF` relies on.
    func hasOnlyDisposableNALUnits(where isDroppable: (NALUnit) -> Bool = { _ in true }) -> Bool {
        let units = nalUnits
        var slices = 0
        for unit in units {
            if unit.isParameterSet || unit.isEndOfSequence { return false }
            guard unit.isVCL else { continue }
            guard !unit.isReference, isDroppable(unit) else { return false }
            slices += 1
        }
        return slices > 0
    }
}
