import Synchronization

/// Makes progressive pictures of interlaced ones on the CPU, with libavfilter's `bwdif` or
/// `yadif`: picture for picture what the `ffmpeg` CLI's `-vf bwdif=mode=…` or `-vf yadif=mode=…`
/// gives (the same filter code, with its automatic field parity from each picture's field
/// order, and its deinterlacing of every picture, interlaced or not).
///
/// The filters are temporal: a picture's output needs the next picture, so output lags input by
/// one picture and ``finish()`` gives the last. Feed the pictures in presentation order, as a
/// ``DecompressionSession`` hands them out:
///
/// ```swift
/// let deinterlacer = Deinterlacer(method: .bwdif, rate: .field)
/// for output in try deinterlacer.deinterlace(pixelBuffer, presentationTimeStamp: .zero) {
///     log("\(output.presentationTimeStamp): \(output.image)")
/// }
/// let last = try deinterlacer.finish()
/// ```
///
/// Pictures whose size or format changes start a new filter (the old one is finished first).
/// On the CPU the output is a new buffer in CPU memory, in the input's planar layout (an NV12 or
/// P010 input comes out as 4:2:0 planar: the filters take no interleaved chroma, and libavfilter
/// converts as the ffmpeg CLI does).
///
/// GPU surfaces are deinterlaced on their GPU with ``Method/bwdif`` where the driver's
/// motion-adaptive deinterlacer (`VAProcDeinterlacingMotionAdaptive`) takes the next picture
/// as bwdif does (Mesa's does; iHD's takes none and keeps its own history): each picture goes to
/// the driver with the pictures before and after it that it asks for, and comes out an NV12 GPU
/// surface, never read back; ``path`` says where it ran, or why not. A real driver's
/// motion-adaptive deinterlacer is its own algorithm, so its pictures are close to bwdif's, not
/// equal to them (the test driver's model *is* bwdif: Docs/TestVADriver.md). 10-bit pictures,
/// ``Method/yadif``, other drivers, a refusal or a failed call read the surfaces back and filter
/// on the CPU from that picture on, with the same pictures and times as if the CPU had run from
/// the start. Pass `usesGPU: false` for the CPU's bwdif on every picture.
///
/// A session deinterlaces itself with ``DecompressionPropertyKey/fieldMode``
/// (``FieldMode/deinterlaceFields``): the vertical filter, or with ``DeinterlaceMode/temporal``
/// this deinterlacer's bwdif, a picture per picture, on the frames decoded with
/// ``DecodeFrameFlags/enableTemporalProcessing``. A deinterlacer of one's own gives a picture per
/// field, yadif, or deinterlacing of pictures from elsewhere.
public final class Deinterlacer: Sendable {
    /// The filter.
    public enum Method: String, Sendable, CaseIterable {
        /// Bob weaver deinterlacing (`bwdif`): yadif's motion-adaptive interpolation with
        /// w3fdif's cubic filters; the ffmpeg CLI's better default.
        case bwdif
        /// Yet another deinterlacing filter (`yadif`), motion-adaptive.
        case yadif
    }

    /// How many pictures come out.
    public enum Rate: String, Sendable, CaseIterable {
        /// One picture per picture (`mode=send_frame`), at the input's times.
        case frame
        /// One picture per field (`mode=send_field`): twice the rate, each second picture half a
        /// picture's duration after the first.
        case field
    }

    /// One deinterlaced picture.
    public struct Output: Sendable {
        /// The progressive picture.
        public let image: PixelBuffer
        /// When it is shown: the input's time, or for ``Rate/field`` the field's.
        public let presentationTimeStamp: MediaTime
    }

    /// The filter chosen.
    public let method: Method
    /// The output rate chosen.
    public let rate: Rate
    /// Whether GPU surfaces are deinterlaced on their GPU where the driver can.
    public let usesGPU: Bool
    /// Only interlaced pictures are filtered; progressive ones pass through.
    private let interlacedOnly: Bool
    /// The filters and where they run, one call at a time.
    private let state: Mutex<State>

    private struct State {
        var chain: PictureFilterChain
        var mode: Mode = .undecided
        var path: PixelTransferPath?
        /// The GPU deinterlaced pictures of this sequence: their times are numbered here.
        var fromGPU = false
        /// The size and format of the pictures numbered, and the next one's number.
        var numbering: (width: Int, height: Int, format: PixelFormat)?
        var number: Int64 = 0
    }

    /// Where the pictures go: decided at the first picture, the CPU for good once the GPU stops.
    private enum Mode {
        case undecided
        case gpu(GPUTemporalDeinterlacing)
        case cpu
    }

    /// Creates a deinterlacer; its filter is made at the first picture.
    ///
    /// - Parameters:
    ///   - method: The filter.
    ///   - rate: One picture per picture or per field.
    ///   - usesGPU: Deinterlace GPU surfaces on their GPU where the driver can (see above);
    ///     false: on the CPU, read back.
    public convenience init(method: Method = .bwdif, rate: Rate = .frame, usesGPU: Bool = true) {
        self.init(method: method, rate: rate, usesGPU: usesGPU, interlacedOnly: false)
    }

    /// Creates a deinterlacer that filters only the interlaced pictures
    /// (``ImageBufferAttachments/fieldCount`` 2: `deint=interlaced`) with `interlacedOnly`, and
    /// passes progressive ones through as they are (still one picture behind): a session's
    /// temporal deinterlace mode.
    init(method: Method, rate: Rate, usesGPU: Bool, interlacedOnly: Bool) {
        self.method = method
        self.rate = rate
        self.usesGPU = usesGPU
        self.interlacedOnly = interlacedOnly
        let mode = rate == .frame ? "send_frame" : "send_field"
        state = Mutex(
            State(
                chain: PictureFilterChain(
                    filters:
                        "\(method.rawValue)=mode=\(mode):parity=auto:deint=\(interlacedOnly ? "interlaced" : "all")",
                    makesProgressivePictures: true)))
    }

    /// Where the GPU pictures were deinterlaced: ``PixelTransferPath/gpu`` while the GPU does,
    /// ``PixelTransferPath/cpu(reason:)`` with why once they go to the CPU; nil before the first
    /// GPU picture (and for pictures in CPU memory).
    public var path: PixelTransferPath? { state.withLock { $0.path } }

    /// Deinterlaces one picture.
    ///
    /// - Parameters:
    ///   - image: The next picture in presentation order.
    ///   - presentationTimeStamp: Its time; pictures without a numeric time are numbered 0, 1, 2 …
    ///     in a time scale of 1.
    /// - Returns: The pictures that became ready: none for the first, then one (``Rate/frame``)
    ///   or two (``Rate/field``) per picture.
    /// - Throws: ``VTError/allocationFailed`` when memory runs out; ``VTError/parameter`` when
    ///   libavfilter refuses the picture's format; a read-back error for a GPU surface.
    public func deinterlace(_ image: PixelBuffer, presentationTimeStamp: MediaTime) throws(VTError) -> [Output] {
        try state.withLock { (state: inout State) throws(VTError) -> [Output] in
            if case .undecided = state.mode { state.mode = decide(for: image, &state.path) }
            guard case .gpu(let gpu) = state.mode else {
                let time =
                    state.fromGPU ? Self.sequenceTime(image, presentationTimeStamp, &state) : presentationTimeStamp
                return try Self.outputs(state.chain.send(image, time: time))
            }
            let time = Self.sequenceTime(image, presentationTimeStamp, &state)
            guard image.surfaceDevice != nil else {
                let handover = gpu.handOver(because: "a picture is not a GPU surface")
                return try Self.takeOver(handover, then: (image, time), &state)
            }
            do throws(GPUTemporalDeinterlacing.Handover) {
                let outputs = try gpu.send(image, time: time)
                state.path = .gpu
                return outputs
            } catch {
                return try Self.takeOver(error, then: nil, &state)
            }
        }
    }

    /// Gives the pictures the filter still holds (the last input's), and starts over: the next
    /// picture starts a new filter.
    public func finish() throws(VTError) -> [Output] {
        try state.withLock { (state: inout State) throws(VTError) -> [Output] in
            state.numbering = nil
            if case .gpu(let gpu) = state.mode {
                do throws(GPUTemporalDeinterlacing.Handover) {
                    return try gpu.finish()
                } catch {
                    return try Self.takeOver(error, then: nil, &state) + Self.outputs(state.chain.finish())
                }
            }
            return try Self.outputs(state.chain.finish())
        }
    }

    /// Where the pictures go, at the first picture: the GPU for a GPU surface to bwdif when
    /// allowed (the driver may still refuse at once); `path` says why not for other GPU surfaces.
    private func decide(for image: PixelBuffer, _ path: inout PixelTransferPath?) -> Mode {
        guard image.surfaceDevice != nil else { return .cpu }
        guard usesGPU else {
            path = .cpu(reason: "the deinterlacer was made to run on the CPU")
            return .cpu
        }
        guard method == .bwdif else {
            path = .cpu(reason: "yadif runs on the CPU (the GPU's motion-adaptive deinterlacing stands in for bwdif)")
            return .cpu
        }
        return .gpu(GPUTemporalDeinterlacing(secondFields: rate == .field, interlacedOnly: interlacedOnly))
    }

    /// The time a picture of a GPU sequence goes in with, on the GPU or (after a handover) on the
    /// CPU: its own, or for one without a numeric time its number since the size or format last
    /// changed, as the CPU filter numbers such pictures, so the numbers go on across a handover.
    private static func sequenceTime(_ image: PixelBuffer, _ time: MediaTime, _ state: inout State) -> MediaTime {
        state.fromGPU = true
        if let numbering = state.numbering,
            numbering != (width: image.width, height: image.height, format: image.pixelFormat)
        {
            state.numbering = nil
        }
        if state.numbering == nil {
            state.numbering = (image.width, image.height, image.pixelFormat)
            state.number = 0
        }
        defer { state.number += 1 }
        return time.isNumeric ? time : MediaTime(value: state.number, timescale: 1)
    }

    /// The CPU filter takes over from the GPU, for good: the picture before the ones handed back
    /// goes in first as their previous picture (its own pictures, which the GPU gave, are
    /// dropped), then those, then `next` when given.
    private static func takeOver(
        _ handover: GPUTemporalDeinterlacing.Handover, then next: (PixelBuffer, MediaTime)?, _ state: inout State
    ) throws(VTError) -> [Output] {
        state.path = .cpu(reason: handover.reason)
        state.mode = .cpu
        var pictures = handover.pending.map { ($0.image, $0.time) }
        if let next { pictures.append(next) }
        var result: [Output] = []
        if let before = handover.before { _ = try state.chain.send(before.image, time: before.time) }
        for (index, (image, time)) in pictures.enumerated() {
            let filtered = try outputs(state.chain.send(image, time: time))
            if index > 0 || handover.before == nil { result += filtered }
        }
        return result
    }

    private static func outputs(_ pictures: [PictureFilterChain.Picture]) -> [Output] {
        pictures.map { Output(image: $0.image, presentationTimeStamp: $0.time) }
    }
}
