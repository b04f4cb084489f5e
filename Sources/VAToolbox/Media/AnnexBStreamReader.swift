#if canImport(Glibc)
    import Glibc
#endif

/// The reading state of a raw H.264/HEVC Annex B stream: a file descriptor read a megabyte at a
/// time, cut into access units by an ``ElementaryStreamParser`` as it is read, and time-stamped by
/// an ``AnnexBTimeStamper`` (ffmpeg's times, in the order the pictures' order counts show them).
/// Samples come in decode order. The one place a raw stream's access units are assembled: a
/// ``SampleSource`` reads standard input, a descriptor and raw stream files through it, and a
/// ``MediaFileReader`` the files libavformat's raw demuxers (`h264`, `hevc`) recognise.
///
/// Not thread-safe: the source keeps it in a `Mutex`. A descriptor it owns is closed at the end
/// of the stream, when the initialiser throws, and in `deinit`; one it was lent is never closed.
final class AnnexBStreamReader {
    /// The stream's name for messages: the path, or `"standard input"`.
    let name: String
    /// H.264 or HEVC.
    let codecType: VideoCodecType
    /// The format description of the first sample.
    let formatDescription: VideoFormatDescription

    private var parser: ElementaryStreamParser
    private var stamper: AnnexBTimeStamper
    private var descriptor: Int32
    /// Whether the reader closes ``descriptor``.
    private let ownsDescriptor: Bool
    private var queued: [SampleBuffer] = []
    private var queuedIndex = 0
    /// After ``hidePictures(before:)``: samples shown before this time are decoded, not displayed.
    private var hiddenBefore: MediaTime?
    private var finished = false

    /// The most bytes one read asks for.
    static let chunkSize = 1 << 20

    /// Reads `descriptor` until its first access unit is complete, and tells its codec.
    ///
    /// - Parameters:
    ///   - descriptor: An open descriptor.
    ///   - ownsDescriptor: Whether the reader closes it.
    ///   - name: The stream's name for messages.
    ///   - fileName: The file's name, whose extension may tell the codec; nil for standard input.
    ///   - codec: The stream's codec when the caller knows it; nil to tell it by `fileName` and
    ///     the first bytes (``AnnexBStreamRecognition``).
    ///   - frameRate: The frame rate of a stream that states none.
    /// - Throws: ``VTError/sampleBufferDataFailed`` when a read fails;
    ///   ``VTError/sampleBufferInvalidMediaFormat`` when the stream has no decodable access unit.
    init(
        descriptor: Int32, ownsDescriptor: Bool, name: String, fileName: String?, codec knownCodec: VideoCodecType?,
        frameRate: FrameRate?
    ) throws(VTError) {
        let codec: VideoCodecType
        var parser: ElementaryStreamParser
        var stamper: AnnexBTimeStamper
        var queued: [SampleBuffer]
        var finished = false
        do throws(VTError) {
            let first = try Self.read(descriptor, name: name)
            codec = knownCodec ?? AnnexBStreamRecognition.codec(forFileName: fileName, bytes: first)
            parser = ElementaryStreamParser(codec: codec)
            stamper = AnnexBTimeStamper(codec: codec, assumedFrameDuration: frameRate?.frameDuration)
            queued = parser.parse(first).flatMap { stamper.stamp($0) }
            if first.isEmpty {
                queued += stamper.finish()
                finished = true
            }
            // Read on until the first access unit is complete (and stamped): it carries the
            // first description.
            while queued.isEmpty && !finished {
                let chunk = try Self.read(descriptor, name: name)
                if chunk.isEmpty {
                    queued += parser.finish().flatMap { stamper.stamp($0) } + stamper.finish()
                    finished = true
                } else {
                    queued += parser.parse(chunk).flatMap { stamper.stamp($0) }
                }
            }
        } catch {
            if ownsDescriptor { _ = Glibc.close(descriptor) }
            throw error
        }
        guard let format = queued.first?.formatDescription else {
            var message = "\(name): no decodable \(codec.name) \(codec.sampleNoun) found"
            if let problem = parser.diagnostics.first { message += " (\(problem.reason))" }
            if ownsDescriptor { _ = Glibc.close(descriptor) }
            throw VTError.sampleBufferInvalidMediaFormat.with(message)
        }
        self.name = name
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        codecType = codec
        formatDescription = format
        self.parser = parser
        self.stamper = stamper
        self.queued = queued
        self.finished = finished
        if finished { closeDescriptor() }
    }

    /// Opens a raw stream file and reads it until its first access unit is complete.
    ///
    /// - Parameters:
    ///   - path: The file; its name may tell the codec.
    ///   - codec: The stream's codec when the caller knows it; nil to tell it by the name and the
    ///     first bytes.
    ///   - frameRate: The frame rate of a stream that states none.
    /// - Throws: ``VTError/sampleBufferDataFailed`` when the file cannot be opened or read (a
    ///   missing file, a directory); ``VTError/sampleBufferInvalidMediaFormat`` when it has no
    ///   decodable access unit.
    convenience init(path: String, codec: VideoCodecType? = nil, frameRate: FrameRate?) throws(VTError) {
        let descriptor = try Self.open(path)
        try self.init(
            descriptor: descriptor, ownsDescriptor: true, name: path, fileName: path, codec: codec,
            frameRate: frameRate)
    }

    deinit { closeDescriptor() }

    /// The duration the time stamper gives each frame of the stream: its own rate, else the one
    /// given, else 25 frames per second.
    var frameDuration: MediaTime { stamper.frameDuration(of: formatDescription) }

    /// What the parser found wrong so far, in order.
    var diagnostics: [VTError] { parser.diagnostics }

    /// Hides (``SampleAttachments/doNotDisplay``) the samples presented before `time`: a raw
    /// stream has no index, so a seek decodes it from its start and shows from `time` on.
    func hidePictures(before time: MediaTime) { hiddenBefore = time }

    /// The next sample in decode order, or nil at the end of the stream.
    ///
    /// - Throws: ``VTError/sampleBufferDataFailed`` when a read fails.
    func nextSample() throws(VTError) -> SampleBuffer? {
        while queuedIndex == queued.count {
            if finished { return nil }
            queued.removeAll(keepingCapacity: true)
            queuedIndex = 0
            try fill()
        }
        defer { queuedIndex += 1 }
        var sample = queued[queuedIndex]
        if let hiddenBefore, sample.timing.presentationTimeStamp.isNumeric,
            sample.timing.presentationTimeStamp < hiddenBefore
        {
            sample.attachments.insert(.doNotDisplay)
        }
        return sample
    }

    /// Reads and parses the next chunk. The parser and the stamper are changed where they are
    /// stored: a copy would share the parser's buffer and copy it for every chunk read.
    private func fill() throws(VTError) {
        let chunk = try Self.read(descriptor, name: name)
        let samples = chunk.isEmpty ? parser.finish() : parser.parse(chunk)
        for sample in samples { queued += stamper.stamp(sample) }
        if chunk.isEmpty {
            queued += stamper.finish()
            finished = true
            closeDescriptor()
        }
    }

    /// Closes the descriptor if the reader owns it and has not closed it yet.
    private func closeDescriptor() {
        if ownsDescriptor && descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    /// Reads up to ``chunkSize`` bytes; empty at the end.
    private static func read(_ descriptor: Int32, name: String) throws(VTError) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var filled = 0
        while filled < chunk.count {
            let count = chunk.withUnsafeMutableBytes {
                Glibc.read(descriptor, $0.baseAddress! + filled, $0.count - filled)
            }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                let message = String(cString: strerror(code))
                throw VTError.sampleBufferDataFailed.with(
                    "cannot read \(name): \(message)",
                    cause: UnderlyingCause(library: "libc", function: "read", code: code, message: message))
            }
            if count == 0 { break }
            filled += count
        }
        chunk.removeSubrange(filled...)
        return chunk
    }

    /// Opens a raw stream file for reading.
    private static func open(_ path: String) throws(VTError) -> Int32 {
        let descriptor = Glibc.open(path, O_RDONLY)
        guard descriptor >= 0 else {
            let code = errno
            let message = String(cString: strerror(code))
            throw VTError.sampleBufferDataFailed.with(
                "cannot open \(path): \(message)",
                cause: UnderlyingCause(library: "libc", function: "open", code: code, message: message),
                hint: "check the path and its permissions")
        }
        var status = stat()
        if fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR {
            _ = Glibc.close(descriptor)
            throw VTError.sampleBufferDataFailed.with("cannot read \(path): it is a directory")
        }
        return descriptor
    }
}
