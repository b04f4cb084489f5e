import VAToolbox

/// The MD5 of a picture in I420, the layout ffmpeg's `-f framemd5` hashes for 8-bit 4:2:0: a
/// session that moved from the GPU to the CPU keeps handing out NV12 (its native format), which
/// converts to I420 without loss, so its pictures can be checked against the fixtures' oracles.
func i420MD5(_ image: PixelBuffer) throws -> String {
    if image.pixelFormat == .yuv420Planar { return image.md5 }
    return try PixelTransferSession().transferImage(image, pixelFormat: .yuv420Planar).md5
}
