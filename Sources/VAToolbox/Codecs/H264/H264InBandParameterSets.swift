/// An `avcC` without its SPS or PPS: they come in band.
struct H264InBandParameterSets: InBandParameterSetRules {
    let recordName = "avcC"

    func lengthSizeOfIncompleteRecord(_ record: [UInt8]) -> Int? {
        guard record.first == 1, let avcC = try? AVCDecoderConfigurationRecord(bytes: record) else { return nil }
        let complete = !avcC.sequenceParameterSets.isEmpty && !avcC.pictureParameterSets.isEmpty
        return complete ? nil : avcC.nalUnitLengthSize
    }

    func parameterSets(inRecord record: [UInt8]) -> [[UInt8]] {
        guard let avcC = try? AVCDecoderConfigurationRecord(bytes: record) else { return [] }
        return avcC.sequenceParameterSets + avcC.pictureParameterSets
    }

    /// Once there is an SPS and a PPS.
    func formatDescription(parameterSets: [[UInt8]], nalUnitHeaderLength: Int) -> VideoFormatDescription? {
        let units = parameterSets.compactMap { try? NALUnit($0[...], codec: .h264) }
        guard units.contains(where: { $0.h264Type == .sequenceParameterSet }),
            units.contains(where: { $0.h264Type == .pictureParameterSet })
        else { return nil }
        return try? VideoFormatDescription(h264ParameterSets: parameterSets, nalUnitHeaderLength: nalUnitHeaderLength)
    }
}
