/// HDR → SDR tone mapping: what a conversion makes of a PQ (HDR10) or HLG picture when it is
/// asked for an 8-bit format and ``ImageBufferAttributes/toneMapsHDRToSDR`` (or
/// ``PixelTransferSession/toneMapsHDRToSDR``) is on. Off by default, as VideoToolbox's is: a
/// conversion otherwise keeps the samples' code values and their HDR tags.
///
/// On the CPU it is libavfilter's chain that the `ffmpeg` CLI documents for HDR → SDR
/// (``filters``): linear light at a nominal peak of 100 cd/m², BT.2020 → BT.709 primaries in
/// 32-bit float, the Hable curve without desaturation, then BT.709 transfer and matrix, limited
/// range, 8-bit 4:2:0. `tonemap` takes the signal peak from the picture's content light level
/// (MaxCLL), else its mastering display's maximum luminance, else the transfer's nominal peak
/// (10000 cd/m² for PQ) — FFmpeg's `ff_determine_signal_peak`. The picture then goes through
/// the ordinary conversion to the format and size asked for.
///
/// On the GPU it is VA video processing's `VAProcFilterHighDynamicRangeToneMapping` with the
/// picture's HDR10 metadata, where the driver lists it (iHD); Docs/Hardware.md lists which.
public enum ToneMapping {
    /// The CPU's libavfilter chain, as the `ffmpeg` CLI's `-vf` takes it: `ffmpeg -i HDR -vf
    /// "\(ToneMapping.filters)" -f framemd5 -` gives the pictures VAToolbox's CPU tone mapping gives.
    public static let filters =
        "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
        + "zscale=t=bt709:m=bt709:r=tv,format=yuv420p"

    /// Whether `image`'s transfer is an HDR one: PQ (SMPTE ST 2084) or HLG (ARIB STD-B67).
    static func isHDR(_ image: PixelBuffer) -> Bool {
        let transfer = image.attachments.transferFunction
        return transfer == .pq || transfer == .hlg
    }

    /// Whether `format` holds SDR pictures: 8 bits a sample.
    static func isSDR(_ format: PixelFormat) -> Bool {
        guard let layout = format.ffmpeg else { return false }
        return layout.bitsPerComponent == 8
    }

    /// Whether converting `image` to `format` tone maps when tone mapping is on.
    static func applies(to image: PixelBuffer, making format: PixelFormat) -> Bool {
        isSDR(format) && isHDR(image)
    }

    /// The 8-bit format of the same layout as `format` (`x420` → `420v`, `y0l0` → `y420`): what
    /// a tone-mapping conversion makes when no format is asked for.
    static func sdrCounterpart(of format: PixelFormat) -> PixelFormat {
        switch format {
        case .p010VideoRange: .nv12VideoRange
        case .p010FullRange: .nv12FullRange
        case .yuv420Planar10, .yuv420Planar12: .yuv420Planar
        default: format
        }
    }
}

/// Tone maps pictures on the CPU with ``ToneMapping/filters``: one picture in, one out, a new
/// buffer in CPU memory (`'y420'`, BT.709, limited range) without the HDR metadata. A GPU surface
/// is read back, and an NV12 or P010 picture unpacked to planar first (exactly, as the CPU
/// decoder's planar pictures are), so a picture tone maps to the same bytes wherever it was
/// decoded.
///
/// Not thread-safe: one caller at a time.
final class ToneMapper {
    private let chain = PictureFilterChain(
        filters: ToneMapping.filters, makesProgressivePictures: false, outputFullRange: false)
    /// Unpacks NV12 and P010 pictures to planar, on the CPU.
    private let unpacker: PixelTransfer = {
        let transfer = PixelTransfer()
        transfer.convertsOnGPU = false
        return transfer
    }()

    /// The SDR picture of `image`.
    ///
    /// - Throws: what libavfilter or the read-back of a GPU surface throws;
    ///   ``VTError/pixelTransferNotSupported`` when the chain does not make one picture.
    func map(_ image: PixelBuffer) throws(VTError) -> PixelBuffer {
        let planar = try unpacked(image)
        let pictures = try chain.send(planar, time: .invalid)
        guard pictures.count == 1, let picture = pictures.first else {
            throw VTError.pixelTransferNotSupported.with("tone mapping made \(pictures.count) pictures of one")
        }
        try picture.image.withFrame { (frame: Frame) throws(VTError) in frame.removeStaticHDRMetadata() }
        return picture.image
    }

    private func unpacked(_ image: PixelBuffer) throws(VTError) -> PixelBuffer {
        let planar: PixelFormat? =
            switch image.pixelFormat {
            case .nv12VideoRange: .yuv420Planar
            case .nv12FullRange: .yuv420PlanarFullRange
            case .p010VideoRange, .p010FullRange: .yuv420Planar10
            default: nil
            }
        guard let planar else { return image }
        return try unpacker.transfer(
            image, to: planar, width: image.width, height: image.height, minimumBufferCount: 0)
    }
}
