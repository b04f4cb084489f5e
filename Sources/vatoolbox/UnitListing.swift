import VAToolbox

/// How `vatoolbox probe --units` prints the library's ``SampleUnitListing`` of one sample: a
/// heading line and the unit lines, indented, or a JSON object with the sample's number, sync
/// flag and size before the listing's fields.
struct UnitListing {
    /// The sample's number, in decode order.
    let index: Int
    /// The codec's word for a sample: "access unit", "temporal unit" or "sample".
    let noun: String
    /// The sample.
    let sample: SampleBuffer
    /// Its units, as the library lists them.
    let listing: SampleUnitListing

    /// The heading line and the unit lines, indented.
    var text: [String] {
        let heading = "  \(noun) \(index)\(sample.isSync ? " sync" : ""), \(sample.data.count) bytes"
        return [heading + (listing.note.map { ", \($0)" } ?? "")] + listing.lines.map { "    \($0)" }
            + (listing.problem.map { ["    malformed: \($0)"] } ?? [])
    }

    /// The sample as a JSON object.
    var json: JSON {
        var all: [(String, JSON)] = [
            ("index", .int(index)), ("sync", .bool(sample.isSync)), ("size", .int(sample.data.count)),
        ]
        all += listing.fields.map { ($0.name, Self.json($0.value)) }
        if let problem = listing.problem { all.append(("error", .string(problem))) }
        return .object(all)
    }

    private static func json(_ value: SampleUnitListing.Value) -> JSON {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .int(number)
        case .string(let text): return .string(text)
        case .array(let values): return .array(values.map(json))
        case .object(let fields): return .object(fields.map { ($0.name, json($0.value)) })
        }
    }
}
