extension HEVCCodecSupport: UnitListingCodecSupport {
    func makeUnitLister() -> any CodecUnitListing { HEVCUnitLister() }
}

/// Lists an HEVC access unit's NAL units: a line each (type, name, size, layer and temporal
/// ids) and `nal_units`.
struct HEVCUnitLister: CodecUnitListing {
    func list(_ sample: SampleBuffer, into listing: inout SampleUnitListing) throws(VTError) {
        let units = sample.nalUnits
        listing.lines = units.map { "\($0)" }
        let objects: [SampleUnitListing.Value] = units.map { unit in
            .record([
                ("type", .int(Int(unit.typeCode))), ("name", .string(unit.hevcType?.name ?? "unknown")),
                ("size", .int(unit.bytes.count)),
            ])
        }
        listing.fields = [SampleUnitListing.Field("nal_units", .array(objects))]
    }
}
