import Synchronization

/// A session's shared state behind its lock, held by the session and by its decoder.
final class SharedSessionState: Sendable {
    private let state: Mutex<SessionState>

    init(_ initial: SessionState) {
        state = Mutex(initial)
    }

    /// Runs `body` with the state locked.
    func withLock<Result, Failure: Error>(
        _ body: (inout SessionState) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try state.withLock { (value: inout SessionState) throws(Failure) -> Result in try body(&value) }
    }
}

/// What a session shares between the caller's threads and its queue, behind its lock.
struct SessionState: Sendable {
    var formatDescription: VideoFormatDescription
    /// The decoder specification, with the real-time mode and thread count as last set.
    var specification: DecoderSpecification
    /// `kVTDecompressionPropertyKey_MaximizePowerEfficiency`.
    var maximizePowerEfficiency = false
    /// The threads the current back end decodes with.
    var decodingThreads = 1
    /// The destination image buffer attributes.
    var imageBufferAttributes: ImageBufferAttributes?
    /// `kVTDecompressionPropertyKey_OutputPoolRequestedMinimumBufferCount`.
    var outputPoolMinimumBufferCount = 0
    /// `kVTDecompressionPropertyKey_PropagatePerFrameHDRDisplayMetadata`.
    var propagatesPerFrameHDRDisplayMetadata = false
    /// `kVTDecompressionPropertyKey_FieldMode` (``FieldMode``).
    var fieldMode = FieldMode.bothFields
    /// `kVTDecompressionPropertyKey_DeinterlaceMode` (``DeinterlaceMode``).
    var deinterlaceMode = DeinterlaceMode.verticalFilter
    /// Set by `invalidate()` on the caller's thread, so that no frame is accepted after it; the
    /// queue then releases the back end (``SessionDecoder/Phase/released``).
    var isInvalidated = false
    var nextToken: Int64 = 0
    /// The frames accepted and not yet handed out, by token.
    var pending: [Int64: PendingFrame] = [:]
    /// The pool of converted output, once there is one.
    var pool: PixelBufferPool?
    /// Where the last picture the attributes asked to convert was converted.
    var pixelTransferPath: PixelTransferPath?
    /// Where the field mode last deinterlaced a GPU picture (``DecompressionSession/deinterlacingPath``).
    var deinterlacingPath: PixelTransferPath?
    /// The GPU in use; nil on the CPU.
    var hardware: HardwareDecoding?
    /// Why the GPU is not in use.
    var hardwareUnavailableReason: String?
}

/// A frame accepted and not yet handed out: what the caller gave with it. What the session's
/// queue learns about it while decoding is in its ``FrameNotebook``.
struct PendingFrame: Sendable {
    let timing: SampleTimingInfo
    let flags: DecodeFrameFlags
    let refcon: (any Sendable)?
    /// The sample's `kCMSampleAttachmentKey_DoNotDisplay`: decoded as a reference, output as
    /// dropped without an image (an edit list's leading or trailing samples).
    var doNotDisplay = false

    /// The output handler's argument for this frame; `releasedAt` is the decode time stamp of the
    /// sample whose decoding released its picture.
    func output(
        status: VTError?, image: PixelBuffer?, releasedAt: MediaTime = .invalid,
        dynamicHDR: DynamicHDRMetadata? = nil
    ) -> DecompressionOutput {
        var info: DecodeInfoFlags = flags.contains(.enableAsynchronousDecompression) ? .asynchronous : []
        if image == nil { info.insert(.frameDropped) }
        if image?.isWritableWithoutCopy == true { info.insert(.imageBufferModifiable) }
        return DecompressionOutput(
            status: status, infoFlags: info, imageBuffer: image, presentationTimeStamp: timing.presentationTimeStamp,
            presentationDuration: timing.duration, frameRefcon: refcon,
            releasingDecodeTimeStamp: image == nil ? .invalid : releasedAt,
            hdr10PlusPerFrameData: image.flatMap { _ in dynamicHDR?.hdr10Plus },
            dolbyVisionRPU: image.flatMap { _ in dynamicHDR?.dolbyVisionRPU })
    }
}
