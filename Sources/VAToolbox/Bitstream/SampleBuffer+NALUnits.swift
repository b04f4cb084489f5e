// A sample's NAL units, in the layer that knows NAL units: the sample itself (CoreMedia) is
// bytes, a description and times (Docs/Architecture.md, "Layers").
extension SampleBuffer {
    /// Builds an H.264 or HEVC sample from NAL units (without start codes or lengths), adding the
    /// length prefixes.
    ///
    /// - Throws: ``VTError/sampleBufferInvalidSampleData`` for an empty list or an invalid unit;
    ///   ``VTError/parameter`` when a unit is too long for the description's length size, or the
    ///   description's codec is not made of NAL units (AV1, VP9, VP8, MPEG-2: use
    ///   ``init(data:formatDescription:timing:attachments:)``).
    public init<Unit: Collection<UInt8>>(
        nalUnits: [Unit], formatDescription: VideoFormatDescription, timing: SampleTimingInfo = .invalid,
        attachments: SampleAttachments = []
    ) throws(VTError) {
        try self.init(
            data: try AVCC.join(nalUnits, lengthSize: formatDescription.nalUnitHeaderLength),
            formatDescription: formatDescription, timing: timing, attachments: attachments)
    }

    /// The NAL units of the sample, in order, as views of ``data``; empty for a codec whose
    /// samples are not made of NAL units.
    public var nalUnits: [NALUnit] {
        guard formatDescription.codecType.nalUnitHeaderSize != nil else { return [] }
        let slices = (try? AVCC.split(data[...], lengthSize: formatDescription.nalUnitHeaderLength)) ?? []
        return slices.compactMap { try? NALUnit($0, codec: formatDescription.codecType) }
    }
}
