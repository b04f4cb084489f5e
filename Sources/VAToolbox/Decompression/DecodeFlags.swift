/// How to decode one frame — `VTDecodeFrameFlags`.
public struct DecodeFrameFlags: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The bit mask, with Apple's bit values.
    public let rawValue: UInt32
    /// Creates flags from a bit mask.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `kVTDecodeFrame_EnableAsynchronousDecompression`: return at once and decode on the
    /// session's own thread.
    public static let enableAsynchronousDecompression = Self(rawValue: 1 << 0)
    /// `kVTDecodeFrame_DoNotOutputFrame`: decode (other frames may need it) but hand out no
    /// image; the output handler is called with ``DecodeInfoFlags/frameDropped``.
    public static let doNotOutputFrame = Self(rawValue: 1 << 1)
    /// `kVTDecodeFrame_1xRealTimePlayback`: a hint that frames are decoded for playback at normal
    /// speed. Accepted; the session decodes as fast as it can either way.
    public static let oneTimesRealTimePlayback = Self(rawValue: 1 << 2)
    /// `kVTDecodeFrame_EnableTemporalProcessing`: allow frames to be delayed so that they come out
    /// in presentation order. This session always outputs in presentation order (see
    /// ``DecompressionSession``), so the flag is accepted and changes nothing.
    public static let enableTemporalProcessing = Self(rawValue: 1 << 3)

    /// The flags by name: `[.enableAsynchronousDecompression, .doNotOutputFrame]`; `[]` for none.
    public var description: String {
        describe(names: [
            (.enableAsynchronousDecompression, "enableAsynchronousDecompression"),
            (.doNotOutputFrame, "doNotOutputFrame"), (.oneTimesRealTimePlayback, "oneTimesRealTimePlayback"),
            (.enableTemporalProcessing, "enableTemporalProcessing"),
        ])
    }
}

/// What happened to a frame — `VTDecodeInfoFlags`.
public struct DecodeInfoFlags: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The bit mask, with Apple's bit values.
    public let rawValue: UInt32
    /// Creates flags from a bit mask.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `kVTDecodeInfo_Asynchronous`: the frame is being decoded asynchronously.
    public static let asynchronous = Self(rawValue: 1 << 0)
    /// `kVTDecodeInfo_FrameDropped`: no image comes for this frame (not output on request,
    /// lost to damage, or dropped by ``DecompressionSession/invalidate()``).
    public static let frameDropped = Self(rawValue: 1 << 1)
    /// `kVTDecodeInfo_ImageBufferModifiable`: the image is the buffer's own memory, shared with
    /// neither the decoder nor the GPU, so a read-write ``PixelBuffer/lockBaseAddress(_:)`` writes
    /// to it without a copy (the CPU path's packed NV12/P010 and converted pictures; never a
    /// surface, nor a decoder's reference frame).
    public static let imageBufferModifiable = Self(rawValue: 1 << 2)

    /// The flags by name: `[.asynchronous, .frameDropped]`; `[]` for none.
    public var description: String {
        describe(names: [
            (.asynchronous, "asynchronous"), (.frameDropped, "frameDropped"),
            (.imageBufferModifiable, "imageBufferModifiable"),
        ])
    }
}

/// One call of the output handler: the result for one submitted frame.
///
/// The fields are those of `VTDecompressionOutputCallback`: status, info flags, image buffer,
/// presentation time stamp and duration, plus the frame's refcon; and one of VAToolbox's own,
/// ``releasingDecodeTimeStamp``.
public struct DecompressionOutput: Sendable {
    /// Nil when the frame decoded cleanly (`noErr`); otherwise why it did not: for example
    /// ``VTError/videoDecoderBadData`` for damaged data, ``VTError/videoDecoderReferenceMissing``
    /// when it needs a picture the decoder does not have. A damaged picture that the decoder
    /// concealed still comes with its ``imageBuffer``; check the status first.
    public let status: VTError?
    /// What happened to the frame.
    public let infoFlags: DecodeInfoFlags
    /// The decoded picture, nil when the frame was dropped or failed.
    public let imageBuffer: PixelBuffer?
    /// The presentation time stamp of the sample the picture came from.
    public let presentationTimeStamp: MediaTime
    /// The duration of that sample.
    public let presentationDuration: MediaTime
    /// The value passed as `frameRefcon` with the sample (`sourceFrameRefCon`).
    public let frameRefcon: (any Sendable)?
    /// The decode time stamp of the sample whose decoding released the picture from the
    /// decoder's reorder buffer (VAToolbox; VideoToolbox has none): libavcodec's `pkt_dts`, the
    /// same whatever the decoder's threads. Invalid when the end of the stream released it
    /// (``DecompressionSession/finishDelayedFrames()``), for a frame without a picture, and for
    /// a sample without a decode time stamp.
    ///
    /// A picture of a stream with B-frames is released a reorder depth of samples after its own.
    /// With ``presentationTimeStamp`` it is what libavcodec's `best_effort_timestamp` is made of,
    /// the time the `ffmpeg` CLI gives a picture when the file's presentation time stamps are
    /// missing (an MPEG-2 elementary stream's I and P pictures) or unusable (an MP4 remuxed
    /// from a raw stream, whose presentation time stamps are its decode time stamps).
    public let releasingDecodeTimeStamp: MediaTime
    /// The picture's HDR10+ dynamic metadata (SMPTE ST 2094-40) as its sample carried it: the
    /// ITU-T T.35 message from `itu_t_t35_country_code` (0xB5) on — the bytes of Apple's
    /// `kCMSampleAttachmentKey_HDR10PlusPerFrameData` — from an HEVC or H.264
    /// `user_data_registered_itu_t_t35` SEI message or an AV1 `METADATA_TYPE_ITUT_T35` OBU. Only
    /// while ``DecompressionSession/propagatesPerFrameHDRDisplayMetadata`` is on
    /// (`kVTDecompressionPropertyKey_PropagatePerFrameHDRDisplayMetadata`); nil otherwise, for a
    /// frame without a picture, and for a sample without one.
    public let hdr10PlusPerFrameData: [UInt8]?
    /// The picture's Dolby Vision RPU (VAToolbox; Apple's VideoToolbox has no public key for it):
    /// the HEVC NAL unit of type 62 its access unit ends with, passed through byte for byte — the
    /// two-byte NAL unit header (`0x7C 0x01`), then the RPU as coded, emulation prevention bytes
    /// included (libavcodec's `AV_FRAME_DATA_DOVI_RPU_BUFFER` is these bytes without the header).
    /// Only while ``DecompressionSession/propagatesPerFrameHDRDisplayMetadata`` is on; nil
    /// otherwise, for a frame without a picture, and for a sample without one.
    public let dolbyVisionRPU: [UInt8]?
}
