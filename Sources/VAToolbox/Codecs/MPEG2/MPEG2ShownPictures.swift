/// MPEG-2: one picture per sample; B pictures are disposable.
struct MPEG2ShownPictures: ShownPictureCounting {
    func shown(by sample: SampleBuffer) -> ShownPictures { .frames(1) }

    /// The first picture's `picture_coding_type`, which libavcodec gives its frame
    /// (mpeg12dec.c `mpeg_decode_picture_start`); D pictures are not decoded.
    func pictureType(of sample: SampleBuffer) -> PictureType? {
        switch (try? MPEG2PictureInfo(sample.data[...]))?.pictures.first?.header.pictureCodingType {
        case .intra?: .intra
        case .predictive?: .predicted
        case .bidirectional?: .biPredicted
        default: nil
        }
    }

    /// A sample of B pictures with no sequence header, sequence end or quant matrix extension
    /// (whose matrices stay in force for the pictures after it, §6.3.11): no picture refers to a
    /// B picture (ISO/IEC 13818-2 §6.1.1.11), and the decoder keeps nothing else from it.
    func isDisposable(_ sample: SampleBuffer) -> Bool {
        guard let info = try? MPEG2PictureInfo(sample.data[...]), info.sequenceHeader == nil,
            !info.hasSequenceEnd, !info.pictures.isEmpty,
            info.pictures.allSatisfy({ $0.header.pictureCodingType == .bidirectional })
        else { return false }
        return !Self.hasQuantMatrixExtension(sample.data)
    }

    /// Whether `data` holds an extension start code (`00 00 01 b5`) of `quant_matrix_extension`
    /// (extension_start_code_identifier 3).
    private static func hasQuantMatrixExtension(_ data: [UInt8]) -> Bool {
        var index = 0
        while index + 4 < data.count {
            if data[index] == 0, data[index + 1] == 0, data[index + 2] == 1, data[index + 3] == 0xB5,
                data[index + 4] >> 4 == 3
            {
                return true
            }
            index += 1
        }
        return false
    }
}

extension MPEG2CodecSupport {
    func makeShownPictureCounter() -> any ShownPictureCounting { MPEG2ShownPictures() }
}
