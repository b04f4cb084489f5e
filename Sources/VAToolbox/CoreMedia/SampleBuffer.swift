/// One compressed video frame (access unit) ready to decode — `CMSampleBuffer` holding a
/// `CMBlockBuffer` of the codec's sample data.
///
/// For H.264 and HEVC the data is AVCC/HVCC: every NAL unit preceded by its length in
/// ``VideoFormatDescription/nalUnitHeaderLength`` bytes. Creation checks that the lengths tile
/// the data exactly, which catches the most common mistake of VideoToolbox code: passing Annex B
/// data (start codes) where lengths are expected. For AV1 it is one temporal unit of OBUs with
/// their size fields, for VP9 a frame or superframe, for VP8 a frame and for MPEG-2 a picture
/// with its start codes; creation checks that framing too.
public struct SampleBuffer: Sendable {
    /// The sample's bytes: length-prefixed NAL units.
    public let data: [UInt8]
    /// The format description the data is decoded with.
    public let formatDescription: VideoFormatDescription
    /// Duration, presentation and decode time stamps (`CMSampleTimingInfo`).
    public var timing: SampleTimingInfo
    /// Sample attachments: sync, dependency and display flags.
    public var attachments: SampleAttachments
    /// The HDR10+ message the container carries beside the sample's data
    /// (`kCMSampleAttachmentKey_HDR10PlusPerFrameData`, Apple's sample attachment): the ITU-T
    /// T.35 message from `itu_t_t35_country_code` (0xB5) on, as a WebM file's `BlockAdditional`
    /// (BlockAddID 4) holds it for VP9, which has no place for it in its bitstream. The file
    /// reader sets it; an app may set it on samples it makes. A session that propagates per-frame
    /// HDR metadata hands it out with the frame, before any message in the data itself. Nil when
    /// the container carries none.
    public var hdr10PlusPerFrameData: [UInt8]?

    /// Wraps one sample's data.
    ///
    /// - Parameters:
    ///   - data: For H.264/HEVC, NAL units, each preceded by its length in
    ///     `formatDescription.nalUnitHeaderLength` bytes; for the other codecs, the sample as the
    ///     type's discussion says.
    ///   - formatDescription: The description in force for this sample.
    ///   - timing: The sample's time stamps; invalid times are allowed (decode order is then
    ///     the only order the decoder knows).
    ///   - attachments: Flags; by default the sample is a sync sample.
    /// - Throws: ``VTError/sampleBufferInvalidSampleData`` when `data` is empty or not framed as
    ///   the codec's samples are (length prefixes that do not tile `data`, OBU sizes past the end,
    ///   a superframe index that lies, no start code); its ``VTError/hint`` says so when H.264/HEVC
    ///   data starts with an Annex B start code.
    public init(
        data: [UInt8], formatDescription: VideoFormatDescription, timing: SampleTimingInfo = .invalid,
        attachments: SampleAttachments = []
    ) throws(VTError) {
        guard !data.isEmpty else {
            throw VTError.sampleBufferInvalidSampleData.with("the sample has no data")
        }
        try formatDescription.codecSupport.validateSample(data[...], format: formatDescription)
        self.data = data
        self.formatDescription = formatDescription
        self.timing = timing
        self.attachments = attachments
    }

    /// Wraps a damaged sample's data as it came from the container, unchecked, flagged
    /// ``SampleAttachments/damaged``: the decoder gets the very bytes the ffmpeg CLI would give it.
    init(damagedData data: [UInt8], formatDescription: VideoFormatDescription, timing: SampleTimingInfo) {
        self.data = data
        self.formatDescription = formatDescription
        self.timing = timing
        self.attachments = [.damaged]
    }

    /// Whether decoding can start at this sample (`kCMSampleAttachmentKey_NotSync` absent).
    public var isSync: Bool { !attachments.contains(.notSync) }

    /// The presentation time stamp (`CMSampleBufferGetPresentationTimeStamp`).
    public var presentationTimeStamp: MediaTime { timing.presentationTimeStamp }
    /// The decode time stamp (`CMSampleBufferGetDecodeTimeStamp`).
    public var decodeTimeStamp: MediaTime { timing.decodeTimeStamp }
    /// The duration (`CMSampleBufferGetDuration`).
    public var duration: MediaTime { timing.duration }
}

/// The per-sample attachments of CoreMedia (`kCMSampleAttachmentKey_…`) that matter to a decoder.
///
/// `kCMSampleAttachmentKey_DisplayImmediately` has no member: it asks a display pipeline
/// (`AVSampleBufferDisplayLayer`) to show a picture at once rather than at its time stamp, and a
/// decompression session decodes and outputs a sample the same with it or without it. The
/// compatibility `CMSampleBuffer` keeps the key in the sample's attachment dictionary, as
/// CoreMedia does, for the renderer that reads it (Docs/PortingFromVideoToolbox.md).
public struct SampleAttachments: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The bit mask.
    public let rawValue: UInt32
    /// Creates attachments from a bit mask.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `kCMSampleAttachmentKey_NotSync`: decoding cannot start here.
    public static let notSync = Self(rawValue: 1 << 0)
    /// `kCMSampleAttachmentKey_PartialSync`: a recovery point that is not a full sync sample
    /// (an HEVC CRA or an H.264 recovery-point SEI).
    public static let partialSync = Self(rawValue: 1 << 1)
    /// `kCMSampleAttachmentKey_DependsOnOthers`: the frame references other frames.
    public static let dependsOnOthers = Self(rawValue: 1 << 2)
    /// `kCMSampleAttachmentKey_IsDependedOnByOthers` = false: no frame references this one, so
    /// it can be dropped without harm.
    public static let notDependedOnByOthers = Self(rawValue: 1 << 3)
    // Bit 4 stays unused, so that the other bits keep their values.
    /// `kCMSampleAttachmentKey_DoNotDisplay`: decode, but do not output — the session decodes the
    /// sample (later frames may refer to it) and outputs it as ``DecodeInfoFlags/frameDropped``
    /// without an image. ``MediaFileReader`` marks the samples outside an MP4 edit list so.
    public static let doNotDisplay = Self(rawValue: 1 << 5)
    /// `kCMSampleAttachmentKey_ResetDecoderBeforeDecoding`: the session hands out every frame the
    /// decoder holds and resets it before decoding this sample, as
    /// ``DecompressionSession/finishDelayedFrames()`` does (decoding then needs a sync sample, or
    /// an H.264 recovery point that is exact at once).
    public static let resetDecoderBeforeDecoding = Self(rawValue: 1 << 6)
    /// `kCMSampleAttachmentKey_DrainAfterDecoding`: after decoding this sample the session hands
    /// out every frame the decoder holds before the decode call returns (synchronous decoding),
    /// as ``DecompressionSession/finishDelayedFrames()`` does.
    public static let drainAfterDecoding = Self(rawValue: 1 << 7)
    /// The sample is known to be damaged (no CoreMedia counterpart): the container flagged it
    /// corrupt (libavformat's `AV_PKT_FLAG_CORRUPT`), or its NAL unit length prefixes do not tile
    /// it. ``MediaFileReader`` sets it and goes on reading; the session still decodes the sample
    /// (libavcodec conceals what it can, as the ffmpeg CLI does) and reports its frame with
    /// ``VTError/videoDecoderBadData`` (-12909).
    public static let damaged = Self(rawValue: 1 << 8)

    /// The attachments by name: `[.notSync, .dependsOnOthers]`; `[]` for none.
    public var description: String {
        describe(names: [
            (.notSync, "notSync"), (.partialSync, "partialSync"), (.dependsOnOthers, "dependsOnOthers"),
            (.notDependedOnByOthers, "notDependedOnByOthers"), (.doNotDisplay, "doNotDisplay"),
            (.resetDecoderBeforeDecoding, "resetDecoderBeforeDecoding"),
            (.drainAfterDecoding, "drainAfterDecoding"), (.damaged, "damaged"),
        ])
    }
}
