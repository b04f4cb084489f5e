import Dispatch
import Synchronization
import VAToolbox

/// `vatoolbox decode`: decodes a raw H.264/HEVC stream through a `DecompressionSession` and
/// prints a summary. (Writing the pictures out, containers and progress come with the CLI work.)
enum DecodeCommand {
    static let usage = "usage: vatoolbox decode [--threads N] [--frames N] [--pixel-format FOURCC] FILE"

    static func run(_ arguments: [String]) -> Int32 {
        var threads = 0
        var frameLimit = Int.max
        var attributes: ImageBufferAttributes?
        var path: String?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--threads", "--frames":
                guard let value = remaining.popFirst().flatMap({ Int($0) }), value >= 0 else {
                    printError("vatoolbox decode: \(argument) needs a number\n\(usage)")
                    return 2
                }
                if argument == "--threads" { threads = value } else { frameLimit = value }
            case "--pixel-format":
                guard let value = remaining.popFirst(), value.utf8.count == 4 else {
                    printError("vatoolbox decode: --pixel-format needs a FourCC such as 420v, x420 or BGRA\n\(usage)")
                    return 2
                }
                attributes = ImageBufferAttributes(
                    pixelFormat: PixelFormat(rawValue: value.utf8.reduce(0) { $0 << 8 | UInt32($1) }))
            case "--help", "-h":
                print(usage)
                return 0
            default:
                guard !argument.hasPrefix("-"), path == nil else {
                    printError("vatoolbox decode: unexpected argument '\(argument)'\n\(usage)")
                    return 2
                }
                path = argument
            }
        }
        guard let path else {
            printError(usage)
            return 2
        }
        if !StreamSniffer.isRawStream(path: path) {
            return decodeContainer(path, threads: threads, frameLimit: frameLimit, attributes: attributes)
        }
        let bytes: [UInt8]
        do {
            bytes = try readFile(path)
        } catch {
            printError("vatoolbox decode: \(error)")
            return 1
        }
        let codec = StreamSniffer.codec(path: path, bytes: bytes)
        let counts = Mutex((frames: 0, errors: 0))
        let start = DispatchTime.now().uptimeNanoseconds
        var parser = ElementaryStreamParser(codec: codec)
        var session: DecompressionSession?
        var submitted = 0
        var firstFormat: VideoFormatDescription?
        do {
            // Parse and decode as the stream goes, a megabyte at a time: decoding runs on the
            // session's queue while the next access units are parsed here.
            var offset = 0
            var finished = false
            while !finished && submitted < frameLimit {
                let end = min(offset + (1 << 20), bytes.count)
                var samples = parser.parse(bytes[offset..<end])
                offset = end
                if offset == bytes.count {
                    samples += parser.finish()
                    finished = true
                }
                for sample in samples where submitted < frameLimit {
                    if session == nil {
                        firstFormat = sample.formatDescription
                        session = try DecompressionSession(
                            formatDescription: sample.formatDescription,
                            decoderSpecification: .init(threadCount: threads),
                            imageBufferAttributes: attributes
                        ) { output in
                            counts.withLock {
                                if output.imageBuffer != nil { $0.frames += 1 }
                                if output.status != nil { $0.errors += 1 }
                            }
                        }
                    }
                    try session?.decodeFrame(sample, flags: [.enableAsynchronousDecompression])
                    submitted += 1
                }
            }
            guard let session, let firstFormat else {
                printError("vatoolbox decode: \(path): no decodable access unit found")
                return 1
            }
            try session.finishDelayedFrames()
            try session.waitForAsynchronousFrames()
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let (frames, errors) = counts.withLock { ($0.frames, $0.errors) }
            print(
                "decoded \(frames) frames of \(submitted) samples in \(formatted(seconds)) s "
                    + "(\(formatted(Double(frames) / seconds)) fps), \(errors) with errors")
            print("decoder: libavcodec on the CPU (\(session.hardwareUnavailableReason ?? "software requested"))")
            print("format: \(firstFormat)")
            session.invalidate()
            return errors == 0 ? 0 : 1
        } catch {
            printError("vatoolbox decode: \(error)")
            return 1
        }
    }

    /// Decodes the video track of a container file (MP4, MKV, TS …) read by libavformat.
    static func decodeContainer(_ path: String, threads: Int, frameLimit: Int, attributes: ImageBufferAttributes?)
        -> Int32
    {
        let counts = Mutex((frames: 0, errors: 0))
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let reader = try MediaFileReader(path: path)
            let session = try DecompressionSession(
                formatDescription: reader.formatDescription, decoderSpecification: .init(threadCount: threads),
                imageBufferAttributes: attributes
            ) { output in
                counts.withLock {
                    if output.imageBuffer != nil { $0.frames += 1 }
                    if output.status != nil { $0.errors += 1 }
                }
            }
            var submitted = 0
            while submitted < frameLimit, let sample = try reader.nextSample() {
                try session.decodeFrame(sample, flags: [.enableAsynchronousDecompression])
                submitted += 1
            }
            try session.finishDelayedFrames()
            try session.waitForAsynchronousFrames()
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let (frames, errors) = counts.withLock { ($0.frames, $0.errors) }
            print(
                "decoded \(frames) frames of \(submitted) samples in \(formatted(seconds)) s "
                    + "(\(formatted(Double(frames) / seconds)) fps), \(errors) with errors")
            print("container: \(reader.containerName)")
            print("decoder: libavcodec on the CPU (\(session.hardwareUnavailableReason ?? "software requested"))")
            print("format: \(reader.formatDescription)")
            session.invalidate()
            return errors == 0 ? 0 : 1
        } catch {
            printError("vatoolbox decode: \(error.reason.isEmpty ? error.summary : error.reason)")
            return 1
        }
    }

    private static func formatted(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
