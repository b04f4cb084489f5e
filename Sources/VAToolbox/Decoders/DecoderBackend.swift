/// A decoder back end: where and how pictures are decoded — libavcodec on the CPU
/// (``SoftwareBackend``) or libavcodec's VA-API hwaccel on a render node (``VAAPIBackend``).
///
/// The session talks to a back end only through this protocol, and never asks it anything after
/// the fact: every answer travels with the picture or the step it belongs to. Back ends are not
/// thread-safe; the session uses one from its own serial queue.
protocol DecoderBackend: AnyObject {
    /// The GPU decoding, for a hardware back end; nil on the CPU.
    var hardware: HardwareDecoding? { get }

    /// Decodes one sample's data (framed as its codec's samples are).
    ///
    /// - Parameters:
    ///   - data: The sample's bytes, with any in-band configuration in front.
    ///   - token: The sample's number; each picture carries the token of its sample.
    /// - Returns: The pictures that became ready, in presentation order, and what went wrong.
    func decode(_ data: [UInt8], token: Int64) -> DecodeStep

    /// Returns every picture the decoder still holds (end of stream), then makes it ready to
    /// decode again from the next sync sample.
    func drain() -> [DecodedPicture]

    /// Records that the stream goes on with `format`, whose configuration the session sends in
    /// band ahead of the next sample.
    func reconfigure(for format: VideoFormatDescription)

    /// The threads the decoder runs (`kVTDecompressionPropertyKey_ThreadCount` reads it).
    var decodingThreads: Int { get }

    /// Whether decoding with `configuration` takes a new back end: a CPU decoder opened with
    /// another one (libavcodec fixes its threads when it opens). A GPU back end keeps decoding
    /// as it is; the configuration waits for a move to the CPU.
    func needsReopening(for configuration: SoftwareDecoderConfiguration) -> Bool

    /// Runs work that waits on the back end's device — reading a decoded surface back,
    /// converting it — bounded as the back end's own calls are: a GPU back end watched by a
    /// ``WatchdogBackend`` waits for it at most its limit; the others run it as it is.
    ///
    /// - Throws: What `work` throws, or the hang when the device did not answer in time.
    func boundingWaits<Value: Sendable>(
        _ work: @escaping @Sendable () throws(VTError) -> Value
    ) throws(VTError) -> Value

    /// Whether the back end was abandoned because its device stopped answering
    /// (``DecodeFailure/deviceHung(_:)``).
    var hasHung: Bool { get }
}

extension DecoderBackend {
    /// One: a GPU back end drives the GPU from one libavcodec thread.
    var decodingThreads: Int { 1 }

    /// Runs `work` as it is: nothing bounds this back end's waits.
    func boundingWaits<Value: Sendable>(
        _ work: @escaping @Sendable () throws(VTError) -> Value
    ) throws(VTError) -> Value {
        try work()
    }

    /// False: only a watched back end is abandoned.
    var hasHung: Bool { false }

    /// Decodes samples again for their reference pictures only, after a drain: every picture
    /// they give, now or later, carries a negative token, which the session never hands out.
    /// Their failures were reported when they were first decoded.
    func replay(_ samples: [[UInt8]]) {
        for (index, data) in samples.enumerated() {
            _ = decode(data, token: -1 - Int64(index))
        }
    }
}

/// The GPU a hardware back end decodes on.
struct HardwareDecoding: Sendable {
    /// The render node.
    let renderNode: RenderNode
    /// What its driver decodes.
    let capabilities: HardwareCapabilities
    /// What the back end decided on its driver (``DecompressionSession/hardwareDecisions``).
    let decisions: HardwareDecisionRecord
}

/// A picture out of a back end, with the token of the sample it came from and its own answers:
/// its status, whether the device failed it, and how it is to be handed out.
struct DecodedPicture: Sendable {
    /// The token given with the sample.
    let token: Int64
    /// The picture; nil when there is none to hand out (the GPU failed to decode it).
    let pixelBuffer: PixelBuffer?
    /// Nil for a clean picture; otherwise why it is damaged (the decoder concealed errors, or a
    /// reference picture was missing) or missing.
    var status: VTError?
    /// Whether the device failed this picture: it counts toward moving to the CPU.
    var isDeviceFault = false
    /// How the picture is to be handed to the application.
    var handOut = HandOut.asIs
    /// The token of the sample whose decoding released the picture from the decoder's reorder
    /// buffer (libavcodec's `pkt_dts`, the same with or without frame threads); nil when the end
    /// of the stream released it (a drain).
    var releasedBy: Int64?
}

/// How a picture is handed to the application, decided by the back end that made it and
/// applied by the session at the moment of hand-out.
enum HandOut: Sendable {
    /// The picture as it is.
    case asIs
    /// A GPU surface, handed out while the application holds fewer surfaces than the pool has
    /// spare, copied to CPU memory beyond that so that decoding never runs out of surfaces.
    case surface(SurfaceAllowance)

    /// The pixel buffer to give the application for `image`.
    func apply(to image: PixelBuffer) -> PixelBuffer {
        switch self {
        case .asIs: image
        case .surface(let allowance): allowance.handOut(image)
        }
    }
}

/// What went wrong while decoding one sample.
enum DecodeFailure: Sendable {
    /// The sample could not be decoded; decoding goes on with the next one. `isDeviceFault`
    /// says whether the device failed (it counts toward moving to the CPU).
    case sample(VTError, isDeviceFault: Bool)
    /// The back end cannot decode the stream as it now is (libavcodec could not start the
    /// hwaccel for a new stream configuration); another back end may.
    case backEndCannotContinue(VTError)
    /// The GPU did not answer within the session's bound (``WatchdogBackend``): the back end is
    /// abandoned, and every frame it was given and has not returned is lost with it.
    case deviceHung(VTError)
}

/// The result of decoding one sample.
struct DecodeStep: Sendable {
    /// The pictures that became ready, in presentation order.
    var pictures: [DecodedPicture] = []
    /// Why the sample failed, when it did.
    var failure: DecodeFailure?
    /// Whether the device failed a picture while decoding this sample: that picture reports it
    /// when it comes out, and the frames decoded after it may refer to it.
    var deviceFaulted = false
}
