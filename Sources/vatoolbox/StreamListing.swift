import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// `probe`'s list of every stream of a file (video, audio, subtitles, data), from the library's
/// ``MediaFileReader/streams(inFile:frameRate:)``: in JSON with ffprobe's keys, types and text
/// (`ffprobe -show_streams -of json`), and as text lines.
enum StreamListing {
    /// The ffprobe keys each stream object has, in ffprobe's order; the tool's own keys
    /// (`codec_fourcc`, `decodable`, `selected`) stand beside them.
    static let ffprobeKeys = [
        "index", "codec_name", "profile", "codec_type", "width", "height", "coded_width", "coded_height", "pix_fmt",
        "level", "color_range", "color_space", "color_transfer", "color_primaries", "field_order", "sample_fmt",
        "sample_rate", "channels", "r_frame_rate", "avg_frame_rate", "time_base", "duration_ts", "duration",
        "nb_frames",
    ]

    /// The streams of `path` as the library lists them; nil for standard input, which
    /// libavformat cannot read a second time, and for a raw stream libavformat cannot open.
    ///
    /// - Throws: The library's error for a container it cannot list (after the reader opened it).
    static func streams(of source: SampleSource) throws(CommandFailure) -> [MediaStream]? {
        guard let path = source.path else { return nil }
        do throws(VTError) {
            return try MediaFileReader.streams(inFile: path, frameRate: source.assumedFrameRate)
        } catch {
            if source.isAnnexBStream { return nil }
            throw CommandFailure(error)
        }
    }

    /// A stream as ffprobe's JSON has it: each key of ``ffprobeKeys`` with ffprobe's type (numbers
    /// for `index`, sizes, `level`, `channels`, `duration_ts`; strings for the rest, `nb_frames`
    /// and `sample_rate` included) and text (`"0/0"` for an unknown rate, `duration` in seconds
    /// with six decimals), null where ffprobe leaves the key out; then `codec_fourcc`,
    /// `decodable` and `selected` (the stream `selectedIndex`, the one the report describes).
    static func json(_ stream: MediaStream, selectedIndex: Int?) -> JSON {
        func int(_ value: Int?) -> JSON { value.map { .int($0) } ?? .null }
        return .object([
            ("index", .int(stream.index)), ("codec_name", .string(stream.codecName)),
            ("codec_fourcc", .string(stream.codecType?.fourCC)), ("profile", .string(profile(stream))),
            ("codec_type", .string(stream.mediaType == .unknown ? nil : stream.mediaType.rawValue)),
            ("width", int(stream.width)), ("height", int(stream.height)),
            ("coded_width", int(stream.codedWidth)), ("coded_height", int(stream.codedHeight)),
            ("pix_fmt", .string(stream.pixelFormatName)), ("level", int(stream.level)),
            ("color_range", .string(stream.colorRangeName)), ("color_space", .string(stream.colorSpaceName)),
            ("color_transfer", .string(stream.colorTransferName)),
            ("color_primaries", .string(stream.colorPrimariesName)),
            ("field_order", .string(stream.fieldOrder?.rawValue)), ("sample_fmt", .string(stream.sampleFormatName)),
            ("sample_rate", .string(stream.sampleRate.map(String.init))), ("channels", int(stream.channelCount)),
            ("r_frame_rate", .string(rate(stream.realFrameRate))),
            ("avg_frame_rate", .string(rate(stream.averageFrameRate))),
            ("time_base", .string("\(stream.timeBase.value)/\(stream.timeBase.timescale)")),
            ("duration_ts", stream.durationTicks.map { .int(Int($0)) } ?? .null),
            ("duration", .string(seconds(stream))), ("nb_frames", .string(stream.frameCount.map(String.init))),
            ("decodable", .bool(stream.isDecodable)), ("selected", .bool(stream.index == selectedIndex)),
        ])
    }

    /// `"stream 1: audio aac (LC), 48000 Hz, 1 channel, 1.200000 s"`, with `— read` on the
    /// stream the report describes.
    static func line(_ stream: MediaStream, selectedIndex: Int?) -> String {
        var parts = ["\(stream.mediaType.rawValue) \(stream.codecName ?? "unknown")"]
        if let profile = profile(stream) { parts[0] += " (\(profile))" }
        switch stream.mediaType {
        case .video:
            parts.append("\(stream.width ?? 0)x\(stream.height ?? 0)")
            if let format = stream.pixelFormatName { parts.append(format) }
            if let rate = stream.realFrameRate { parts.append("\(rate) fps") }
        case .audio:
            if let rate = stream.sampleRate { parts.append("\(rate) Hz") }
            if let channels = stream.channelCount { parts.append("\(channels) channel\(channels == 1 ? "" : "s")") }
            if let format = stream.sampleFormatName { parts.append(format) }
        default: break
        }
        if let duration = seconds(stream) { parts.append("\(duration) s") }
        if let frames = stream.frameCount { parts.append("\(frames) frames") }
        var text = "  stream \(stream.index): " + parts.joined(separator: ", ")
        if stream.index == selectedIndex {
            text += " — read"
        } else if stream.mediaType == .video {
            text += stream.isDecodable ? " — decodable" : " — not decodable by VAToolbox"
        }
        return text
    }

    /// ffprobe's `profile`: libavcodec's name, else the number, nil when unknown.
    static func profile(_ stream: MediaStream) -> String? {
        stream.profileName ?? stream.profile.map(String.init)
    }

    /// A rate as ffprobe prints it, `"0/0"` when libavformat knows none.
    static func rate(_ rate: FrameRate?) -> String { rate?.description ?? "0/0" }

    /// ffprobe's `duration`: the duration in ticks times the time base (`av_q2d`), printed with
    /// C's `%f`; nil when unknown.
    static func seconds(_ stream: MediaStream) -> String? {
        guard let ticks = stream.durationTicks else { return nil }
        let value = Double(ticks) * (Double(stream.timeBase.value) / Double(stream.timeBase.timescale))
        var buffer = [CChar](repeating: 0, count: 64)
        let count = withVaList([value]) { arguments in
            buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, "%f", arguments) }
        }
        guard count > 0, count < buffer.count else { return nil }
        return String(decoding: buffer.prefix(Int(count)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
