/// H.264: a sample whose slices have `field_pic_flag` is one field of a picture; any other one
/// picture. The parameter sets come from the format descriptions and in band.
struct H264ShownPictures: ShownPictureCounting {
    private var sequenceParameterSets: [Int: H264SequenceParameterSet] = [:]
    private var pictureParameterSets: [Int: H264PictureParameterSet] = [:]

    /// The slice type of the last sample's first slice (`slice_type` % 5), which libavcodec gives
    /// its frame (h264_slice.c `h264_field_start`: `pict_type` from the first slice).
    private var lastSliceType: Int?

    mutating func shown(by sample: SampleBuffer) -> ShownPictures {
        for unit in sample.formatDescription.parameterSetNALUnits + sample.nalUnits where unit.isParameterSet {
            if let sps = try? H264SequenceParameterSet(unit) { sequenceParameterSets[sps.seqParameterSetId] = sps }
            if let pps = try? H264PictureParameterSet(unit) { pictureParameterSets[pps.picParameterSetId] = pps }
        }
        lastSliceType = nil
        guard let slice = sample.nalUnits.first(where: \.isVCL),
            let header = try? H264SliceHeader(
                slice, pictureParameterSet: { pictureParameterSets[$0] },
                sequenceParameterSet: { sequenceParameterSets[$0] })
        else { return .frames(1) }
        lastSliceType = header.baseSliceType
        return header.fieldPicFlag ? .field : .frames(1)
    }

    /// P, B, I, SP, SI for `slice_type` % 5 = 0 … 4 (Table 7-6).
    func pictureType(of sample: SampleBuffer) -> PictureType? {
        switch lastSliceType {
        case 0?: .predicted
        case 1?: .biPredicted
        case 2?: .intra
        case 3?: .switchingPredicted
        case 4?: .switchingIntra
        default: nil
        }
    }

    /// A picture whose slices all have `nal_ref_idc` 0 (clause 7.4.1: not used for inter prediction).
    func isDisposable(_ sample: SampleBuffer) -> Bool { sample.hasOnlyDisposableNALUnits() }
}

extension H264CodecSupport {
    var sampleNoun: String { "access unit" }
    func makeShownPictureCounter() -> any ShownPictureCounting { H264ShownPictures() }

    /// Left when the SPS has VUI (libavcodec's `decode_vui_parameters` sets it), else none.
    func inferredChromaSiting(for format: VideoFormatDescription) -> ChromaSiting {
        format.h264SequenceParameterSet?.vui != nil ? .left : .unspecified
    }

    /// Only when the VUI sends `video_signal_type_present_flag`.
    func statesColorRange(for format: VideoFormatDescription) -> Bool {
        format.h264SequenceParameterSet?.vui?.videoSignalTypePresentFlag ?? false
    }
}
