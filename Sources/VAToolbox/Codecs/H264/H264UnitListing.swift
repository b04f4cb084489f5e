extension H264CodecSupport: UnitListingCodecSupport {
    func makeUnitLister() -> any CodecUnitListing { H264UnitLister() }
}

/// Lists an H.264 access unit's NAL units: a line each (type, name, size) and `nal_units`.
struct H264UnitLister: CodecUnitListing {
    func list(_ sample: SampleBuffer, into listing: inout SampleUnitListing) throws(VTError) {
        let units = sample.nalUnits
        listing.lines = units.map { "\($0)" }
        let objects: [SampleUnitListing.Value] = units.map { unit in
            .record([
                ("type", .int(Int(unit.typeCode))), ("name", .string(unit.h264Type?.name ?? "unknown")),
                ("size", .int(unit.bytes.count)),
            ])
        }
        listing.fields = [SampleUnitListing.Field("nal_units", .array(objects))]
    }
}
