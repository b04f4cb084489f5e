extension VP9CodecSupport: UnitListingCodecSupport {
    func makeUnitLister() -> any CodecUnitListing { VP9UnitLister() }
}

/// Lists a VP9 sample's frames after the superframe split (Annex B), each with its uncompressed
/// header, as lines and as `frames`; keeps the reference frame sizes and the bit depth the next
/// frames' headers need.
struct VP9UnitLister: CodecUnitListing {
    private var sizes = VP9ReferenceFrameSizes()
    private var bitDepth: Int?

    mutating func list(_ sample: SampleBuffer, into listing: inout SampleUnitListing) throws(VTError) {
        let frames = try VP9Superframe.frames(in: sample.data[...])
        if frames.count > 1 { listing.note = "superframe of \(frames.count) frames" }
        var objects: [SampleUnitListing.Value] = []
        for (number, frame) in frames.enumerated() {
            let header = try VP9UncompressedHeader(frame, referenceFrameSizes: sizes)
            sizes.update(after: header)
            if let depth = header.bitDepth { bitDepth = depth }
            listing.lines.append("frame \(number): \(header), \(frame.count) bytes")
            objects.append(object(header, size: frame.count))
        }
        listing.fields = [SampleUnitListing.Field("frames", .array(objects))]
    }

    private func object(_ header: VP9UncompressedHeader, size: Int) -> SampleUnitListing.Value {
        let kind: String
        if header.showExistingFrame {
            kind = "show-existing"
        } else if header.isKeyFrame {
            kind = "key"
        } else {
            kind = header.intraOnly ? "intra-only" : "inter"
        }
        let frameSize = header.showExistingFrame ? nil : header.frameSize
        return .record([
            ("size", .int(size)), ("profile", .int(header.profile)), ("frame_type", .string(kind)),
            ("show_frame", .bool(header.showFrame)), ("show_existing_frame", .bool(header.showExistingFrame)),
            ("frame_to_show", header.showExistingFrame ? .int(header.frameToShowMapIdx ?? 0) : .null),
            ("width", frameSize.map { .int($0.width) } ?? .null),
            ("height", frameSize.map { .int($0.height) } ?? .null),
            ("bit_depth", bitDepth.map { .int($0) } ?? .null),
            ("refresh_frame_flags", .int(Int(header.refreshFrameFlags))),
        ])
    }
}
