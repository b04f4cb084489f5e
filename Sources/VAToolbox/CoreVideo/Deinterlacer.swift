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
/// A session's own ``DecompressionPropertyKey/fieldMode`` covers the modes that need no later
/// picture (``FieldMode/deinterlaceFields`` with the vertical filter, one field); this is its
/// temporal deinterlacing (`kVTDecompressionProperty_DeinterlaceMode_Temporal`). It runs on the
/// CPU for GPU pictures too: VA's motion-adaptive deinterlacing has no CPU equivalent to check it
/// against (Docs/Hardware.md, "Video processing").
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
    /// The filter, one call at a time.
    private let chain: Mutex<PictureFilterChain>

    /// Creates a deinterlacer; its filter is made at the first picture.
    ///
    /// - Parameters:
    ///   - method: The filter.
    ///   - rate: One picture per picture or per field.
    public init(method: Method = .bwdif, rate: Rate = .frame) {
        self.method = method
        self.rate = rate
        chain = Mutex(
            PictureFilterChain(
                filters:
                    "\(method.rawValue)=mode=\(rate == .frame ? "send_frame" : "send_field"):parity=auto:deint=all",
                makesProgressivePictures: true))
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
        try chain.withLock { (chain: inout PictureFilterChain) throws(VTError) -> [Output] in
            try chain.send(image, time: presentationTimeStamp).map {
                Output(image: $0.image, presentationTimeStamp: $0.time)
            }
        }
    }

    /// Gives the pictures the filter still holds (the last input's), and starts over: the next
    /// picture starts a new filter.
    public func finish() throws(VTError) -> [Output] {
        try chain.withLock { (chain: inout PictureFilterChain) throws(VTError) -> [Output] in
            try chain.finish().map { Output(image: $0.image, presentationTimeStamp: $0.time) }
        }
    }
}
