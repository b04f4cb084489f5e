/// The per-picture filter a session's field mode asks for
/// (``DecompressionPropertyKey/fieldMode``, ``DecompressionPropertyKey/deinterlaceMode``): one
/// picture in, one out, before the conversion the image buffer attributes ask for: on the CPU
/// with libavfilter (a GPU surface is read back first), or for a GPU surface to deinterlace on
/// the GPU (below).
///
/// - ``FieldMode/deinterlaceFields`` with ``DeinterlaceMode/verticalFilter``: each interlaced
///   picture (``ImageBufferAttachments/fieldCount`` 2) filtered vertically with (1 2 1)/4, as
///   Apple documents the mode — libpostproc's linear blend deinterlacer, the ffmpeg CLI's
///   `-vf pp=lb`; progressive pictures go out as decoded.
/// - ``FieldMode/topFieldOnly`` (and ``FieldMode/singleField``) and ``FieldMode/bottomFieldOnly``:
///   every picture's even or odd lines, half its height — the ffmpeg CLI's `-vf field=type=top`
///   or `bottom`.
///
/// An interlaced GPU surface is deinterlaced on the GPU when its driver lists VA's single-picture
/// spatial deinterlacer (`VAProcDeinterlacingBob`, through ``SurfaceProcessing``): the result is
/// a GPU surface too, and ``path`` says where (the test driver's Bob is the vertical filter, so
/// the pictures are the CPU's; a real driver's Bob is its own). The one-field modes read the
/// surface back and filter on the CPU.
///
/// With ``DeinterlaceMode/temporal``, ``temporal`` is a ``Deinterlacer`` (bwdif, a picture per
/// picture, interlaced pictures only) for the frames decoded with
/// ``DecodeFrameFlags/enableTemporalProcessing`` (``SessionDecoder`` delays their output by a
/// picture); the others take the vertical filter, as Apple documents the mode.
///
/// Unchecked `Sendable`: used only on the session's serial queue (from ``SessionDecoder``).
final class FieldModeFilter: @unchecked Sendable {
    /// The field mode it implements.
    let mode: String
    private let chain: PictureFilterChain
    private let interlacedOnly: Bool
    /// The GPU deinterlacer of the surfaces' device, made at the first interlaced GPU surface.
    private var processor: (any SurfaceProcessing)?
    /// Where the last interlaced GPU surface was deinterlaced; nil before the first.
    private(set) var path: PixelTransferPath?

    /// The temporal deinterlacer of ``DeinterlaceMode/temporal``; nil for the other modes.
    let temporal: Deinterlacer?

    private init(mode: String, filters: String, deinterlaces: Bool, temporal: Deinterlacer? = nil) {
        self.mode = mode
        chain = PictureFilterChain(filters: filters, makesProgressivePictures: deinterlaces)
        interlacedOnly = deinterlaces
        self.temporal = temporal
    }

    /// The filter for a field mode and deinterlace mode; nil for ``FieldMode/bothFields``
    /// (pictures as decoded).
    static func forMode(_ mode: String, deinterlaceMode: String = DeinterlaceMode.verticalFilter) -> FieldModeFilter? {
        switch mode {
        case FieldMode.deinterlaceFields:
            FieldModeFilter(
                mode: mode, filters: "pp=lb", deinterlaces: true,
                temporal: deinterlaceMode == DeinterlaceMode.temporal
                    ? Deinterlacer(method: .bwdif, rate: .frame, usesGPU: true, interlacedOnly: true) : nil)
        case FieldMode.topFieldOnly, FieldMode.singleField:
            FieldModeFilter(mode: mode, filters: "field=type=top", deinterlaces: false)
        case FieldMode.bottomFieldOnly:
            FieldModeFilter(mode: mode, filters: "field=type=bottom", deinterlaces: false)
        default:
            nil
        }
    }

    /// The picture the mode makes of `image`, shown at `time`.
    ///
    /// - Throws: what libavfilter or the read-back of a GPU surface throws.
    func apply(_ image: PixelBuffer, time: MediaTime) throws(VTError) -> PixelBuffer {
        if interlacedOnly && image.attachments.fieldCount != 2 { return image }
        if interlacedOnly, let device = image.surfaceDevice {
            let processor = self.processor ?? device.makeProcessor()
            self.processor = processor
            switch processor.deinterlace(image) {
            case .success(let picture):
                path = .gpu
                return picture
            case .failure(let refusal):
                path = .cpu(reason: refusal.reason)
            }
        }
        let pictures = try chain.send(image, time: time)
        guard pictures.count == 1, let picture = pictures.first else {
            throw VTError.pixelTransferNotSupported.with(
                "the \(mode) filter made \(pictures.count) pictures of one")
        }
        return picture.image
    }
}
