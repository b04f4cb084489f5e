/// An `hvcC` without its VPS, SPS or PPS: they come in band.
struct HEVCInBandParameterSets: InBandParameterSetRules {
    let recordName = "hvcC"

    /// The parameter sets a description needs, each at least once.
    private static let needed: [HEVCNALUnitType] = [.videoParameterSet, .sequenceParameterSet, .pictureParameterSet]

    func lengthSizeOfIncompleteRecord(_ record: [UInt8]) -> Int? {
        guard record.first == 1, let hvcC = try? HEVCDecoderConfigurationRecord(bytes: record) else { return nil }
        let complete = Self.needed.allSatisfy { !hvcC.nalUnits(ofType: $0).isEmpty }
        return complete ? nil : hvcC.nalUnitHeaderLength
    }

    func parameterSets(inRecord record: [UInt8]) -> [[UInt8]] {
        guard let hvcC = try? HEVCDecoderConfigurationRecord(bytes: record) else { return [] }
        return Self.needed.flatMap { hvcC.nalUnits(ofType: $0) }
    }

    /// Once there is a VPS, an SPS and a PPS.
    func formatDescription(parameterSets: [[UInt8]], nalUnitHeaderLength: Int) -> VideoFormatDescription? {
        let units = parameterSets.compactMap { try? NALUnit($0[...], codec: .hevc) }
        guard Self.needed.allSatisfy({ type in units.contains { $0.hevcType == type } }) else { return nil }
        return try? VideoFormatDescription(hevcParameterSets: parameterSets, nalUnitHeaderLength: nalUnitHeaderLength)
    }
}
