/// The part of codec support shared by the codecs whose samples are length-prefixed NAL units
/// (H.264, HEVC): framing checks, in-band parameter sets and format changes.
protocol NALUnitCodecSupport: CodecSupport {
    /// A description from the codec's decoder configuration record (`avcC`, `hvcC`).
    func formatDescription(record: [UInt8]) throws(VTError) -> VideoFormatDescription
}

extension NALUnitCodecSupport {
    var needsConfigurationRecord: Bool { true }

    /// From the `avcC`/`hvcC` record (version 1); nil for Annex B extradata or none, which the
    /// stream's own parameter sets describe.
    func formatDescription(container parameters: StreamParameters) throws(VTError) -> VideoFormatDescription? {
        let record = parameters.configurationRecord
        guard record.first == 1 else { return nil }
        return try formatDescription(record: record)
    }

    /// The length prefixes must tile the data exactly, and each unit must have a valid header.
    func validateSample(_ data: ArraySlice<UInt8>, format: VideoFormatDescription) throws(VTError) {
        let units = try AVCC.split(data, lengthSize: format.nalUnitHeaderLength)
        for unit in units {
            do throws(VTError) {
                _ = try NALUnit(unit, codec: codecType)
            } catch {
                throw VTError.sampleBufferInvalidSampleData.with("a NAL unit of the sample is invalid: \(error.reason)")
            }
        }
    }

    /// The same codec and NAL unit length size, in a stream the CPU decoder supports.
    func canFollow(_ current: VideoFormatDescription, with next: VideoFormatDescription) -> Bool {
        next.codecType == current.codecType && next.nalUnitHeaderLength == current.nalUnitHeaderLength
            && (try? checkSoftwareDecodable(next)) != nil
    }

    /// All of the new description's parameter sets (an unchanged PPS must be re-read against a
    /// new SPS), except those the sample carries itself, length-prefixed.
    func inBandConfiguration(for sample: SampleBuffer) -> [UInt8] {
        let format = sample.formatDescription
        let inBand = Set(sample.nalUnits.filter(\.isParameterSet).map { Array($0.bytes) })
        let missing = format.parameterSets.filter { !inBand.contains($0) }
        return (try? AVCC.join(missing, lengthSize: format.nalUnitHeaderLength)) ?? []
    }
}
