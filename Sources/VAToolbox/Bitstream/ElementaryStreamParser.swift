/// Turns an Annex B byte stream (a raw `.h264` / `.265` file, a socket, an MPEG-TS payload) into
/// sample buffers: one per access unit, length-prefixed, each carrying the format description
/// in force.
///
/// This is the first half of every VideoToolbox decode example, done once and correctly:
/// - start codes of 3 or 4 bytes, leading and trailing zero bytes, start codes split across
///   the chunks you feed;
/// - access-unit boundaries as the specs define them (H.264 clause 7.4.1.2.3 with the
///   first-slice-of-a-picture test of 7.4.1.2.4; HEVC clause 7.4.2.4.4), so that multi-slice
///   pictures, arbitrary slice order and field pictures come out right — each field picture
///   is an access unit of its own;
/// - parameter sets collected by id; a new ``VideoFormatDescription`` when they change, the same
///   one when identical sets are repeated;
/// - sync samples marked (IDR for H.264, IRAP for HEVC).
///
/// ```swift
/// var parser = ElementaryStreamParser(codec: .h264)
/// for chunk in chunks {
///     for sample in parser.parse(chunk) { try session.decodeFrame(sample) }
/// }
/// for sample in parser.finish() { try session.decodeFrame(sample) }
/// ```
///
/// The parser never throws: damaged input is what a stream parser meets, so it keeps going and
/// records what it had to skip in ``diagnostics``. Access units before the first usable
/// parameter sets cannot be described and are skipped (counted in ``skippedAccessUnits``).
///
/// The parser is a value that holds the bytes of the unit in progress. Keep one and change it in
/// place (a `var`, or a stored property changed through optional chaining): a copy taken for each
/// chunk and stored back shares that buffer, so every chunk would copy it.
public struct ElementaryStreamParser: Sendable {
    /// Choices that change what the parser emits.
    public struct Options: Sendable, Hashable {
        /// The length prefix size of the emitted samples: 1, 2 or 4 bytes (default 4).
        public var nalUnitHeaderLength = 4
        /// Whether parameter sets met in the stream stay in the samples as well as going into
        /// the format description (default true).
        ///
        /// Keeping them (as MP4's `avc3`/`hev1` do) loses nothing the stream said: a decoder
        /// accepts in-band parameter sets, and converting the samples back to Annex B gives the
        /// original NAL units. Set it to false for samples shaped like `avc1`/`hvc1` ones, whose
        /// parameter sets live only in the format description.
        public var keepsParameterSetsInSamples = true
        /// The duration of a frame, used to stamp decode times and durations. Nil (the default)
        /// takes it from the SPS timing information; when neither is known, samples carry
        /// invalid times.
        public var frameDuration: MediaTime?
        /// The largest NAL unit accepted (default 64 MiB); a larger one is discarded, so that a
        /// stream with no start codes cannot exhaust memory.
        public var maximumNALUnitSize = 64 << 20

        /// The default options.
        public init() {}
    }

    /// The codec of the stream.
    public let codec: VideoCodecType
    /// The options in use.
    public let options: Options
    /// The format description of the last emitted sample, nil before the first.
    public private(set) var formatDescription: VideoFormatDescription?
    /// How many format descriptions the stream has produced so far.
    public private(set) var formatDescriptionCount = 0
    /// How many access units were emitted.
    public private(set) var emittedAccessUnits = 0
    /// How many access units were skipped because no usable parameter sets described them.
    public private(set) var skippedAccessUnits = 0
    /// What the parser had to skip or guess, oldest first; at most ``maximumDiagnostics`` kept.
    public private(set) var diagnostics: [VTError] = []
    /// The cap on ``diagnostics``.
    public static let maximumDiagnostics = 100

    private var scanner: AnnexBScanner
    /// The codec's access units and parameter sets.
    private var syntax: any NALStreamSyntax
    private var accessUnit = AccessUnitBuilder()
    private var decodeTime: MediaTime?

    /// Creates a parser for an H.264 or HEVC stream.
    ///
    /// - Precondition: `codec` is ``VideoCodecType/h264`` or ``VideoCodecType/hevc``, and the
    ///   options' header length is 1, 2 or 4.
    public init(codec: VideoCodecType, options: Options = Options()) {
        guard let syntax = NALStreamSyntaxes.syntax(for: codec) else {
            preconditionFailure("ElementaryStreamParser reads H.264 and HEVC streams")
        }
        precondition(
            AVCC.validLengthSizes.contains(options.nalUnitHeaderLength), "NAL unit lengths have 1, 2 or 4 bytes")
        self.codec = codec
        self.options = options
        self.scanner = AnnexBScanner(maximumNALUnitSize: options.maximumNALUnitSize)
        self.syntax = syntax
    }

    /// Feeds the next bytes of the stream and returns the access units they complete.
    ///
    /// An access unit is complete when the first NAL unit of the next one has been seen, so the
    /// last one comes out of ``finish()``.
    public mutating func parse(_ chunk: some Collection<UInt8>) -> [SampleBuffer] {
        var samples: [SampleBuffer] = []
        for bytes in scanner.append(chunk) { handle(bytes, into: &samples) }
        return samples
    }

    /// Ends the stream: returns the access units still held, and makes the parser ready for a
    /// new stream with the parameter sets it knows.
    public mutating func finish() -> [SampleBuffer] {
        var samples: [SampleBuffer] = []
        if let last = scanner.finish() { handle(last, into: &samples) }
        emitAccessUnit(into: &samples)
        if scanner.oversizedUnits > 0 {
            report(
                VTError.videoDecoderBadData.with(
                    "\(scanner.oversizedUnits) NAL units larger than \(options.maximumNALUnitSize) bytes were discarded"
                ))
        }
        return samples
    }

    /// Splits a whole stream held in memory.
    public static func samples(
        in stream: [UInt8], codec: VideoCodecType, options: Options = Options()
    ) -> [SampleBuffer] {
        var parser = ElementaryStreamParser(codec: codec, options: options)
        return parser.parse(stream) + parser.finish()
    }

    // MARK: - Access units

    private mutating func handle(_ bytes: [UInt8], into samples: inout [SampleBuffer]) {
        let unit: NALUnit
        do throws(VTError) {
            unit = try NALUnit(bytes[...], codec: codec)
        } catch {
            report(error)
            return
        }
        let (role, slice, error) = syntax.role(of: unit, accessUnitHasVCL: accessUnit.hasVCL)
        if let error { report(error) }
        if role == .startsAccessUnit && accessUnit.hasVCL {
            emitAccessUnit(into: &samples)
        }
        if let slice { accessUnit.noteSlice(slice) }
        if unit.isParameterSet {
            do throws(VTError) {
                try syntax.store(parameterSet: unit)
            } catch {
                report(error)
            }
            if !options.keepsParameterSetsInSamples { return }
        }
        accessUnit.append(unit, isVCL: role == .vcl || role == .startsAccessUnit && unit.isVCL)
    }

    private mutating func emitAccessUnit(into samples: inout [SampleBuffer]) {
        defer { accessUnit = AccessUnitBuilder() }
        guard accessUnit.hasVCL else {
            if !accessUnit.units.isEmpty && accessUnit.units.contains(where: { !$0.isParameterSet }) {
                report(
                    VTError.videoDecoderBadData.with(
                        "\(accessUnit.units.count) NAL units with no picture after them were dropped"))
            }
            return
        }
        guard let format = currentFormatDescription() else {
            skippedAccessUnits += 1
            return
        }
        let duration = options.frameDuration ?? format.stream.frameDuration
        var timing = SampleTimingInfo.invalid
        if let duration {
            let unitDuration = accessUnit.isField ? duration.multiplied(byRatio: 1, 2) : duration
            let start = decodeTime ?? .zero
            timing.duration = unitDuration
            timing.decodeTimeStamp = start
            decodeTime = start + unitDuration
        }
        do throws(VTError) {
            let sample = try SampleBuffer(
                nalUnits: accessUnit.units.map(\.bytes), formatDescription: format, timing: timing,
                attachments: accessUnit.attachments)
            samples.append(sample)
            emittedAccessUnits += 1
        } catch {
            report(error)
            skippedAccessUnits += 1
        }
    }

    /// The description for the access unit being emitted: the previous one while the parameter
    /// sets have not changed, a new one when they have.
    private mutating func currentFormatDescription() -> VideoFormatDescription? {
        guard let sets = syntax.orderedSets(forSlice: accessUnit.firstVCL) else {
            if skippedAccessUnits == 0 {
                report(
                    VTError.videoDecoderBadData.with(
                        "access units before the first complete set of parameter sets cannot be described; skipping them"
                    ))
            }
            return nil
        }
        if let current = formatDescription, current.parameterSets == sets { return current }
        do throws(VTError) {
            let format = try syntax.formatDescription(
                parameterSets: sets, nalUnitHeaderLength: options.nalUnitHeaderLength)
            formatDescription = format
            formatDescriptionCount += 1
            return format
        } catch {
            report(error)
            return formatDescription
        }
    }

    private mutating func report(_ error: VTError) {
        if diagnostics.count < Self.maximumDiagnostics { diagnostics.append(error) }
    }
}
