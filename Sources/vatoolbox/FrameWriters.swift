import VAToolbox

#if canImport(Glibc)
    import Glibc
#endif

/// Buffered output to a file descriptor (a file or standard output).
final class OutputFile {
    let name: String
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Creates (truncates) `path`, or uses standard output for `-`.
    init(path: String) throws(CommandFailure) {
        name = path == "-" ? "standard output" : path
        descriptor = path == "-" ? STDOUT_FILENO : open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw .input("cannot create \(path): \(systemError())") }
        buffer.reserveCapacity(1 << 20)
    }

    deinit {
        if descriptor > STDERR_FILENO { close(descriptor) }
    }

    /// Appends bytes, writing out whenever a megabyte has gathered.
    func append(_ bytes: UnsafeRawBufferPointer) throws(CommandFailure) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Appends bytes.
    func append(bytes: [UInt8]) throws(CommandFailure) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Appends text.
    func append(_ text: String) throws(CommandFailure) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Writes out what is buffered.
    func flush() throws(CommandFailure) {
        guard writeAll(descriptor, buffer) else { throw .input("cannot write to \(name): \(systemError())") }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// The pictures' samples as `ffmpeg -f rawvideo` writes them: each plane's rows without padding.
/// A GPU picture that cannot be read back fails the command rather than writing nothing.
func appendPlanes(of image: PixelBuffer, to output: OutputFile) throws(CommandFailure) {
    var failure: CommandFailure?
    do throws(VTError) {
        try image.withReadablePlanes { (planes) throws(VTError) in
            do throws(CommandFailure) {
                for plane in planes {
                    for row in 0..<plane.height { try output.append(plane.row(row)) }
                }
            } catch {
                failure = error
            }
        }
    } catch {
        throw CommandFailure(error)
    }
    if let failure { throw failure }
}

/// The YUV4MPEG2 stream header the way FFmpeg's `yuv4mpegpipe` muxer writes it.
enum Y4MHeader {
    /// The `C` tag (with FFmpeg's `XYSCSS` companion) for a pixel format, or nil when Y4M has none.
    static func colorspaceTag(
        for format: PixelFormat, chromaLocation: ChromaSiting
    ) -> String? {
        switch format {
        case .yuv420PlanarFullRange: return "C420jpeg XYSCSS=420JPEG"
        case .yuv420Planar:
            switch chromaLocation {
            case .topLeft: return "C420paldv XYSCSS=420PALDV"
            case .left: return "C420mpeg2 XYSCSS=420MPEG2"
            case .other, .unspecified: return "C420jpeg XYSCSS=420JPEG"
            }
        case .yuv422Planar: return "C422 XYSCSS=422"
        case .yuv444Planar: return "C444 XYSCSS=444"
        case .gray8: return "Cmono"
        case .yuv420Planar10: return "C420p10 XYSCSS=420P10"
        case .yuv422Planar10: return "C422p10 XYSCSS=422P10"
        case .yuv444Planar10: return "C444p10 XYSCSS=444P10"
        default: return nil
        }
    }

    /// The `XCOLORRANGE` tag, when libavcodec states the range
    /// (``VideoFormatDescription/decoderStatesColorRange``).
    static func rangeTag(of format: VideoFormatDescription, fullRange: Bool) -> String? {
        if fullRange { return "XCOLORRANGE=FULL" }
        return format.decoderStatesColorRange ? "XCOLORRANGE=LIMITED" : nil
    }

    /// The whole header line, newline included.
    static func line(
        first frame: PixelBuffer, format: VideoFormatDescription, timing: StreamTiming
    ) throws(CommandFailure) -> String {
        let attachments = frame.attachments
        guard let colorspace = colorspaceTag(for: frame.pixelFormat, chromaLocation: format.decodedChromaSiting) else {
            throw .usage(
                "Y4M cannot carry \(frame.pixelFormat) pictures; write raw .yuv, or choose a planar --pixel-format "
                    + "(y420, y422, y444, y0l0, y2l0, y4l0)")
        }
        let rate = reduced(timing.frameRate.num, timing.frameRate.den)
        let interlace = attachments.fieldCount == 2 ? (attachments.topFieldFirst ? "t" : "b") : "p"
        let aspect = timing.aspectRatio(of: frame).map { "\($0.horizontalSpacing):\($0.verticalSpacing)" } ?? "0:0"
        var line =
            "YUV4MPEG2 W\(frame.width) H\(frame.height) F\(rate.num):\(rate.den) I\(interlace) A\(aspect) \(colorspace)"
        if let range = rangeTag(of: format, fullRange: attachments.fullRange) { line += " " + range }
        return line + "\n"
    }
}
