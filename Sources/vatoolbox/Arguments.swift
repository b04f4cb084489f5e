import VAToolbox

/// The tool's exit statuses, documented in `vatoolbox help` and Docs/CLI.md.
enum ExitStatus {
    /// Everything worked.
    static let success: Int32 = 0
    /// The input could not be read, parsed or decoded cleanly, or the output could not be written.
    static let inputFailure: Int32 = 1
    /// Bad usage: an unknown command or option, a missing or malformed value.
    static let usage: Int32 = 2
    /// No decoder for the input: a codec or profile VAToolbox does not decode, or hardware
    /// decoding was required (`--hwaccel vaapi`) and no usable device can do it.
    static let noDecoder: Int32 = 3
}

/// A failure that ends the command: one line for standard error and the exit status.
struct CommandFailure: Error {
    let message: String
    let status: Int32

    /// Bad usage (exit status 2).
    static func usage(_ message: String) -> CommandFailure {
        CommandFailure(message: message, status: ExitStatus.usage)
    }

    /// A failure reading, parsing, decoding or writing (exit status 1).
    static func input(_ message: String) -> CommandFailure {
        CommandFailure(message: message, status: ExitStatus.inputFailure)
    }

    /// A library error: ``ExitStatus/noDecoder`` when no decoder can take the stream, otherwise
    /// ``ExitStatus/inputFailure``; the message is the error's `description` (its
    /// `localizedDescription`: name and value, reason, cause, hint), so the two cannot differ.
    init(_ error: VTError) {
        message = error.description
        status =
            error == VTError.couldNotFindVideoDecoder || error == VTError.formatDescriptionChangeNotSupported
            ? ExitStatus.noDecoder : ExitStatus.inputFailure
    }

    init(message: String, status: Int32) {
        self.message = message
        self.status = status
    }
}

/// One option a command takes.
struct OptionSpec {
    /// The long name without dashes, for example `"frames"`.
    let name: String
    /// A one-letter short form, for example `"o"` for `-o`.
    var short: Character? = nil
    /// Whether the option takes a value (`--frames 10`, `--frames=10`).
    var takesValue = true
}

/// A command line parsed GNU-style: `--name value`, `--name=value`, `-x value`, `-xvalue`,
/// flags, `--` ending the options, and `-` as a positional argument (standard input/output).
struct ParsedArguments {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    /// Parses `arguments` against `options`; `--help`/`-h` is always accepted as a flag.
    static func parse(_ arguments: [String], options: [OptionSpec]) throws(CommandFailure) -> ParsedArguments {
        var parsed = ParsedArguments()
        let all = options + [OptionSpec(name: "help", short: "h", takesValue: false)]
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--" {
                parsed.positionals += remaining
                break
            }
            let spec: OptionSpec
            var inlineValue: String?
            if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name: Substring
                if let equals = body.firstIndex(of: "=") {
                    name = body[..<equals]
                    inlineValue = String(body[body.index(after: equals)...])
                } else {
                    name = body
                }
                guard let match = all.first(where: { $0.name == name }) else {
                    throw .usage("unknown option '--\(name)'")
                }
                spec = match
            } else if argument.hasPrefix("-") && argument.count > 1 {
                let letter = argument[argument.index(after: argument.startIndex)]
                guard let match = all.first(where: { $0.short == letter }) else {
                    throw .usage("unknown option '-\(letter)'")
                }
                spec = match
                if argument.count > 2 { inlineValue = String(argument.dropFirst(2)) }
            } else {
                parsed.positionals.append(argument)
                continue
            }
            if spec.takesValue {
                guard let value = inlineValue ?? remaining.popFirst() else {
                    throw .usage("option '--\(spec.name)' needs a value")
                }
                parsed.values[spec.name] = value
            } else {
                guard inlineValue == nil else { throw .usage("option '--\(spec.name)' takes no value") }
                parsed.flags.insert(spec.name)
            }
        }
        return parsed
    }

    /// Whether `--help` was given.
    var wantsHelp: Bool { flags.contains("help") }

    /// The value of an integer option, checked against `range`.
    func integer(_ name: String, in range: ClosedRange<Int> = 0...Int.max) throws(CommandFailure) -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            let bound = range.upperBound == Int.max ? "at least \(range.lowerBound)" : "in \(range)"
            throw .usage("option '--\(name)' needs a whole number \(bound), not '\(text)'")
        }
        return value
    }

    /// The one positional argument a command takes (the input).
    func singleInput() throws(CommandFailure) -> String {
        guard let first = positionals.first else { throw .usage("missing INPUT") }
        guard positionals.count == 1 else { throw .usage("unexpected argument '\(positionals[1])'") }
        return first
    }

    /// `--hwaccel` and `--device` as a decoder specification, with `--threads` and `--gpu-timeout`.
    func decoderSpecification() throws(CommandFailure) -> DecoderSpecification {
        let acceleration: DecoderSpecification.HardwareAcceleration
        switch values["hwaccel"] ?? "auto" {
        case "auto": acceleration = .preferred
        case "vaapi": acceleration = .required
        case "none": acceleration = .disabled
        case let other: throw .usage("option '--hwaccel' takes auto, vaapi or none, not '\(other)'")
        }
        var specification = DecoderSpecification(
            hardwareAcceleration: acceleration, renderNodePath: values["device"],
            threadCount: try integer("threads", in: 0...256) ?? 0)
        if let limit = try integer("gpu-timeout", in: 1...3_600_000) {
            specification.hardwareResponseLimit = .milliseconds(limit)
        }
        return specification
    }

    /// `--track N`: the stream index of the video track to read; nil without the option.
    func track() throws(CommandFailure) -> Int? { try integer("track", in: 0...Int(Int32.max)) }

    /// `--frame-rate RATE` (`30000/1001`, `24`): the frame rate of a raw stream that states
    /// none, as ffmpeg's `-framerate`; nil without the option.
    func frameRate() throws(CommandFailure) -> FrameRate? {
        guard let value = values["frame-rate"] else { return nil }
        guard let rate = FrameRate(value) else {
            throw .usage("option '--frame-rate' needs a positive rate such as 24 or 30000/1001, not '\(value)'")
        }
        return rate
    }

    /// `--pixel-format FOURCC` as image buffer attributes (nil without the option).
    func pixelFormat() throws(CommandFailure) -> PixelFormat? {
        guard let value = values["pixel-format"] else { return nil }
        guard value.utf8.count == 4 else {
            throw .usage("option '--pixel-format' needs a FourCC such as 420v, x420, y420 or BGRA, not '\(value)'")
        }
        return PixelFormat(rawValue: value.utf8.reduce(0) { $0 << 8 | UInt32($1) })
    }

    /// `bench --convert FOURCC`: the format every picture is converted to; nil without the option.
    func convertFormat() throws(CommandFailure) -> PixelFormat? {
        guard let value = values["convert"] else { return nil }
        guard value.utf8.count == 4 else {
            throw .usage("option '--convert' needs a FourCC such as BGRA, 420v or x420, not '\(value)'")
        }
        return PixelFormat(rawValue: value.utf8.reduce(0) { $0 << 8 | UInt32($1) })
    }

    /// `--scale WxH`: the size to convert pictures to, each side 1…16384; nil when not given.
    func scale() throws(CommandFailure) -> (width: Int, height: Int)? {
        guard let value = values["scale"] else { return nil }
        let sides = value.split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        guard sides.count == 2, let width = sides[0], let height = sides[1], (1...16384).contains(width),
            (1...16384).contains(height)
        else {
            throw .usage("option '--scale' needs WIDTHxHEIGHT, each 1 to 16384, such as 640x360, not '\(value)'")
        }
        return (width, height)
    }

    /// `--field-mode MODE`: the session's field mode (`kVTDecompressionPropertyKey_FieldMode`);
    /// nil when not given.
    func fieldMode() throws(CommandFailure) -> String? {
        guard let value = values["field-mode"] else { return nil }
        let modes = [
            "both": FieldMode.bothFields, "top": FieldMode.topFieldOnly, "bottom": FieldMode.bottomFieldOnly,
            "single": FieldMode.singleField, "deinterlace": FieldMode.deinterlaceFields,
        ]
        guard let mode = modes[value] else {
            throw .usage("option '--field-mode' takes both, top, bottom, single or deinterlace, not '\(value)'")
        }
        return mode
    }

    /// The image buffer attributes `--pixel-format`, `--scale` and `--tonemap` ask for; nil when
    /// none is given and `defaultFormat` is nil.
    func imageBufferAttributes(defaultFormat: PixelFormat? = nil) throws(CommandFailure) -> ImageBufferAttributes? {
        let format = try pixelFormat() ?? defaultFormat
        let size = try scale()
        let toneMaps = flags.contains("tonemap")
        guard format != nil || size != nil || toneMaps else { return nil }
        var attributes = ImageBufferAttributes(pixelFormat: format, toneMapsHDRToSDR: toneMaps)
        attributes.width = size?.width
        attributes.height = size?.height
        return attributes
    }
}

/// The options every decoding command shares.
let decoderOptions = [
    OptionSpec(name: "hwaccel"), OptionSpec(name: "device"), OptionSpec(name: "threads"),
    OptionSpec(name: "gpu-timeout"),
]

/// The options of the commands that hand pictures out as the session makes them (decode,
/// framemd5): conversion, size, field mode and tone mapping.
let pictureOptions = [
    OptionSpec(name: "pixel-format"), OptionSpec(name: "scale"), OptionSpec(name: "field-mode"),
    OptionSpec(name: "tonemap", takesValue: false),
]

/// The options of the commands that read a file's video track (decode, framemd5, snapshot,
/// thumbnails): `--track N`, and `--frame-rate RATE` for raw streams.
let inputOptions = [OptionSpec(name: "track"), OptionSpec(name: "frame-rate")]
