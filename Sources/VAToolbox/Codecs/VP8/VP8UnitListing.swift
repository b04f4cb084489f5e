extension VP8CodecSupport: UnitListingCodecSupport {
    func makeUnitLister() -> any CodecUnitListing { VP8UnitLister() }
}

/// Lists a VP8 frame: its frame header (RFC 6386, 9.1), as a line and as `frames` (one).
struct VP8UnitLister: CodecUnitListing {
    func list(_ sample: SampleBuffer, into listing: inout SampleUnitListing) throws(VTError) {
        let header = try VP8FrameHeader(sample.data[...])
        listing.lines = ["\(header)"]
        let frame: SampleUnitListing.Value = .record([
            ("size", .int(sample.data.count)), ("frame_type", .string(header.isKeyFrame ? "key" : "inter")),
            ("show_frame", .bool(header.showFrame)), ("version", .int(header.version)),
            ("width", header.width.map { .int($0) } ?? .null), ("height", header.height.map { .int($0) } ?? .null),
            ("first_partition_size", .int(header.firstPartitionSize)),
            ("dct_partitions", .int(header.numberOfDctPartitions)),
        ])
        listing.fields = [SampleUnitListing.Field("frames", .array([frame]))]
    }
}
