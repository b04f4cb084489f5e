import VAToolbox

/// `vatoolbox probe`: format descriptions and access units of an Annex B stream.
enum ProbeCommand {
    static func run(_ arguments: [String]) -> Int32 {
        var listNALUnits = false
        var path: String?
        for argument in arguments {
            switch argument {
            case "--nal": listNALUnits = true
            case "--help", "-h":
                print("usage: vatoolbox probe [--nal] FILE")
                return 0
            default:
                guard !argument.hasPrefix("-"), path == nil else {
                    printError("vatoolbox probe: unexpected argument '\(argument)'")
                    return 2
                }
                path = argument
            }
        }
        guard let path else {
            printError("usage: vatoolbox probe [--nal] FILE")
            return 2
        }
        let bytes: [UInt8]
        do {
            bytes = try readFile(path)
        } catch {
            printError("vatoolbox probe: \(error)")
            return 1
        }
        let codec = StreamSniffer.codec(path: path, bytes: bytes)
        var parser = ElementaryStreamParser(codec: codec)
        let samples = parser.parse(bytes) + parser.finish()
        print("\(path): Annex B \(codec == .h264 ? "H.264" : "HEVC") stream, \(bytes.count) bytes")
        guard !samples.isEmpty else {
            printError("vatoolbox probe: no decodable access unit found")
            for problem in parser.diagnostics.prefix(5) { printError("  \(problem)") }
            return 1
        }
        var lastFormat: VideoFormatDescription?
        var formatIndex = 0
        for (index, sample) in samples.enumerated() {
            if sample.formatDescription != lastFormat {
                formatIndex += 1
                lastFormat = sample.formatDescription
                describe(sample.formatDescription, number: formatIndex, firstAccessUnit: index)
            }
            if listNALUnits {
                let kind = sample.isSync ? "sync" : "    "
                print("  access unit \(index) \(kind) \(sample.data.count) bytes")
                for unit in sample.nalUnits { print("    \(unit)") }
            }
        }
        let syncCount = samples.filter(\.isSync).count
        print("access units: \(samples.count) (sync: \(syncCount)), format descriptions: \(formatIndex)")
        if parser.skippedAccessUnits > 0 {
            print("skipped access units: \(parser.skippedAccessUnits)")
        }
        for problem in parser.diagnostics.prefix(10) { print("warning: \(problem)") }
        return 0
    }

    private static func describe(_ format: VideoFormatDescription, number: Int, firstAccessUnit: Int) {
        print("format description \(number) (from access unit \(firstAccessUnit)): \(format)")
        let ext = format.extensions
        var colour = ["range \(ext.fullRangeVideo ? "full" : "video")"]
        if let primaries = ext.colorPrimaries { colour.append("primaries \(primaries)") }
        if let transfer = ext.transferFunction { colour.append("transfer \(transfer)") }
        if let matrix = ext.yCbCrMatrix { colour.append("matrix \(matrix)") }
        if let ratio = ext.pixelAspectRatio { colour.append("pixel aspect \(ratio)") }
        colour.append(ext.fieldCount == 2 ? "interlaced" : "progressive")
        print("  \(colour.joined(separator: ", "))")
        print("  parameter sets: " + format.parameterSetNALUnits.map { "\($0)" }.joined(separator: "; "))
    }
}
