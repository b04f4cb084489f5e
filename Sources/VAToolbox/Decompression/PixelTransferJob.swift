/// The conversion a session's image buffer attributes ask for.
///
/// Unchecked `Sendable`: like the back end, the converter is used only on the session's serial
/// queue (from ``SessionDecoder``), never from two threads at once.
final class PixelTransferJob: @unchecked Sendable {
    let transfer = PixelTransfer()
    let attributes: ImageBufferAttributes
    init(attributes: ImageBufferAttributes) {
        self.attributes = attributes
        transfer.toneMapsHDRToSDR = attributes.toneMapsHDRToSDR
    }

    /// The same conversion into a new pool that keeps `count` buffers.
    func withMinimumBufferCount(_ count: Int) -> PixelTransferJob {
        var attributes = attributes
        attributes.minimumBufferCount = count
        return PixelTransferJob(attributes: attributes)
    }

    /// The format `image` is converted to: the requested one, or the native one when only a
    /// size is requested (its 8-bit counterpart for an HDR picture to tone map).
    func targetFormat(for image: PixelBuffer) -> PixelFormat {
        if let format = attributes.pixelFormat { return format }
        let native = BiPlanarPacker.handOutFormat(of: image)
        guard attributes.toneMapsHDRToSDR, ToneMapping.isHDR(image) else { return native }
        return ToneMapping.sdrCounterpart(of: native)
    }

    /// Whether converting `image` changes it: another format or size than its own, or tone
    /// mapping.
    func changes(_ image: PixelBuffer) -> Bool {
        let format = targetFormat(for: image)
        return format != image.pixelFormat || (attributes.width ?? image.width) != image.width
            || (attributes.height ?? image.height) != image.height
            || (attributes.toneMapsHDRToSDR && ToneMapping.applies(to: image, making: format))
    }

    func convert(_ image: PixelBuffer) throws(VTError) -> PixelBuffer {
        try transfer.transfer(
            image, to: targetFormat(for: image), width: attributes.width ?? image.width,
            height: attributes.height ?? image.height, minimumBufferCount: attributes.minimumBufferCount)
    }
}
