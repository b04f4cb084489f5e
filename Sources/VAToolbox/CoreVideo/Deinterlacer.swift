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
/// A GPU surface is read back first. Pictures whose size or format changes start a new filter
/// (the old one is finished first). The output is a new buffer in CPU memory, in the input's
/// planar layout (an NV12 or P010 input comes out as 4:2:0 planar: the filters take no
/// interleaved chroma, and libavfilter converts as the ffmpeg CLI does).
///
/// Not yet on the GPU (VA video processing) nor a ``DecompressionSession`` property
/// (`kVTDecompressionPropertyKey_FieldMode`, `DeinterlaceMode`).
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
    /// The filter graph and what it was made for, one call at a time.
    private let state = Mutex(State())

    /// Creates a deinterlacer; its filter is made at the first picture.
    ///
    /// - Parameters:
    ///   - method: The filter.
    ///   - rate: One picture per picture or per field.
    public init(method: Method = .bwdif, rate: Rate = .frame) {
        self.method = method
        self.rate = rate
    }

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
        let arguments = "mode=\(rate == .frame ? "send_frame" : "send_field"):parity=auto:deint=all"
        let filter = method.rawValue
        return try state.withLock { (state: inout State) throws(VTError) -> [Output] in
            try image.withFrame { (frame: Frame) throws(VTError) -> [Output] in
                var outputs: [Output] = []
                let key = State.Key(width: frame.width, height: frame.height, layout: frame.layout)
                if state.key != key {
                    outputs += try state.finish()
                    let timescale = presentationTimeStamp.isNumeric ? presentationTimeStamp.timescale : 1
                    let aspect = frame.sampleAspectRatio
                    state.graph = try FilterGraph(
                        filter: filter, arguments: arguments, width: key.width, height: key.height,
                        layout: key.layout, timeBase: (1, timescale), sampleAspectRatio: aspect)
                    state.key = key
                    state.timescale = timescale
                    state.fullRange = frame.isFullRange
                }
                let pts =
                    presentationTimeStamp.isNumeric
                    ? presentationTimeStamp.convertScale(state.timescale).value : state.count
                state.count += 1
                try state.graph?.send(frame, pts: pts)
                return outputs + (try state.receiveAll())
            }
        }
    }

    /// Gives the pictures the filter still holds (the last input's), and starts over: the next
    /// picture starts a new filter.
    public func finish() throws(VTError) -> [Output] {
        try state.withLock { (state: inout State) throws(VTError) -> [Output] in try state.finish() }
    }

    /// The filter graph and the pictures it was made for.
    private struct State: ~Copyable {
        struct Key: Equatable {
            var width: Int
            var height: Int
            var layout: PixelLayout
        }
        var graph: FilterGraph?
        var key: Key?
        var timescale: Int32 = 1
        var fullRange = false
        /// Pictures sent, the time stamp of one without a numeric time.
        var count: Int64 = 0

        mutating func finish() throws(VTError) -> [Output] {
            guard let graph else { return [] }
            try graph.sendEnd()
            let outputs = try receiveAll()
            self.graph = nil
            key = nil
            count = 0
            return outputs
        }

        func receiveAll() throws(VTError) -> [Output] {
            guard let graph else { return [] }
            var outputs: [Output] = []
            while let frame = try graph.receive() {
                let lent = frame.frame
                let pts = lent.timeStamp
                guard let format = PixelFormat.from(ffmpeg: lent.layout, fullRange: fullRange) else {
                    throw VTError.pixelTransferNotSupported.with(
                        "the deinterlacer made pixel format \(lent.layout.name ?? "\(lent.layout.rawValue)"), "
                            + "which VAToolbox cannot hand out")
                }
                let base = graph.outputTimeBase
                let time = MediaTime(value: pts * Int64(base.numerator), timescale: base.denominator)
                outputs.append(
                    Output(image: PixelBuffer(taking: frame, pixelFormat: format), presentationTimeStamp: time))
            }
            return outputs
        }
    }
}
