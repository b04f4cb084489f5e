/// One AV1 temporal unit (AV1 specification §7.5): the OBUs from one temporal delimiter to the
/// next, all with the same presentation time. It is one sample in MP4, Matroska and IVF.
///
/// The unit parses what a sample's handling needs: the sequence header it carries, and the start of
/// each frame header (``AV1FrameHeaderSummary``), from which it derives ``isSyncSample`` and
/// ``shownFrameCount``. Frame headers are read with the sequence header in force: the last one in
/// the unit before them, else the one passed in (from the `av1C` or an earlier sample). Without any,
/// the frame headers cannot be read and ``frameHeaders`` is empty (``lacksSequenceHeader``).
public struct AV1TemporalUnit: Sendable, Hashable, CustomStringConvertible {
    /// The unit's OBUs, in order.
    public let obus: [AV1OBU]
    /// The first sequence header in the unit, when it carries one.
    public let sequenceHeader: AV1SequenceHeader?
    /// The sequence header in force after the unit: the last in it, else the one passed in.
    public let activeSequenceHeader: AV1SequenceHeader?
    /// The headers of the unit's frames (frame header and frame OBUs, not redundant copies), in
    /// order; empty when no sequence header was known.
    public let frameHeaders: [AV1FrameHeaderSummary]
    /// Whether the unit has frame headers that could not be read for want of a sequence header.
    public let lacksSequenceHeader: Bool
    /// For each OBU, the index of its entry in ``frameHeaders`` when it starts a frame.
    private let frameHeaderIndex: [Int: Int]

    /// Splits a sample in the low-overhead format (MP4, Matroska, IVF) and reads its headers.
    ///
    /// - Parameters:
    ///   - sample: The sample's bytes.
    ///   - sequenceHeader: The sequence header in force before the sample, if known.
    /// - Throws: ``VTError/sampleBufferInvalidSampleData`` when the OBU framing is malformed (see
    ///   ``AV1OBU/split(_:)``); ``VTError/formatDescriptionInvalidParameter`` when a sequence header
    ///   is malformed; ``VTError/videoDecoderBadData`` when a frame header is.
    public init(_ sample: ArraySlice<UInt8>, sequenceHeader: AV1SequenceHeader? = nil) throws(VTError) {
        try self.init(obus: AV1OBU.split(sample), sequenceHeader: sequenceHeader)
    }

    /// Reads the headers of a temporal unit's OBUs (for example one from ``AV1AnnexB``).
    ///
    /// - Parameters:
    ///   - obus: The unit's OBUs.
    ///   - sequenceHeader: The sequence header in force before the unit, if known.
    /// - Throws: ``VTError/formatDescriptionInvalidParameter`` when a sequence header is malformed;
    ///   ``VTError/videoDecoderBadData`` when a frame header is.
    public init(obus: [AV1OBU], sequenceHeader: AV1SequenceHeader? = nil) throws(VTError) {
        self.obus = obus
        var first: AV1SequenceHeader?
        var active = sequenceHeader
        var headers: [AV1FrameHeaderSummary] = []
        var index: [Int: Int] = [:]
        var lacks = false
        for (position, obu) in obus.enumerated() {
            if obu.obuType == .sequenceHeader {
                let parsed = try AV1SequenceHeader(obu.payload)
                if first == nil { first = parsed }
                active = parsed
            } else if obu.obuType.startsFrame {
                guard let active else {
                    lacks = true
                    continue
                }
                index[position] = headers.count
                headers.append(try AV1FrameHeaderSummary(obu, sequenceHeader: active))
            }
        }
        self.sequenceHeader = first
        activeSequenceHeader = active
        frameHeaders = headers
        frameHeaderIndex = index
        lacksSequenceHeader = lacks
    }

    /// Whether the unit is a sync sample, a point where decoding can start: it carries a sequence
    /// header and its first frame is a key frame with `show_frame` = 1.
    ///
    /// This is the rule of the AV1 ISOBMFF binding (§2.4, "AV1 Sync Sample": the first frame header
    /// has `frame_type` `KEY_FRAME` and `show_frame` 1, and a sequence header precedes it in the
    /// sample), which Matroska and WebM follow for their key-frame flags. A shown key frame resets
    /// every reference slot (§7.20), so nothing before the unit is needed. (A hidden key frame shown
    /// later by `show_existing_frame` also starts a sequence, a "key frame dependent recovery
    /// point", which this rule does not count.)
    public var isSyncSample: Bool {
        guard sequenceHeader != nil, let firstFrame = frameHeaders.first else { return false }
        return firstFrame.frameType == .key && firstFrame.showFrame
    }

    /// How many frames the unit outputs: frames with `show_frame` = 1, plus `show_existing_frame`
    /// headers. The ordering rules (§7.5) have a temporal unit output one frame per spatial layer;
    /// every stream in the tests, from four encoders, shows exactly one per unit.
    public var shownFrameCount: Int { frameHeaders.count { $0.showsFrame } }

    /// The OBUs in order with what their headers say, for listings:
    /// `"TD, SEQ (Main@4.0 1920x1080 8-bit 4:2:0), FRAME key shown"`.
    public var description: String {
        obus.enumerated().map { position, obu in
            var text = "\(obu.obuType)"
            if obu.hasExtension { text += " T\(obu.temporalId)S\(obu.spatialId)" }
            if obu.obuType == .sequenceHeader {
                text += (try? AV1SequenceHeader(obu.payload)).map { " (\($0))" } ?? " (malformed)"
            } else if let header = frameHeaderIndex[position] {
                text += " \(frameHeaders[header])"
            } else if obu.obuType.startsFrame {
                text += " (no sequence header)"
            }
            return text
        }.joined(separator: ", ")
    }
}
