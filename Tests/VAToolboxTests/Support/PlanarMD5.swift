@testable import VAToolbox

/// The MD5 of a picture in I420, the layout ffmpeg's `-f framemd5` hashes for 8-bit 4:2:0: a
/// session that moved from the GPU to the CPU keeps handing out NV12 (its native format), which
/// converts to I420 without loss, so its pictures can be checked against the fixtures' oracles.
func i420MD5(_ image: PixelBuffer) throws -> String {
    if image.pixelFormat == .yuv420Planar { return image.md5 }
    return try PixelTransferSession().transferImage(image, pixelFormat: .yuv420Planar).md5
}

/// The MD5 `ffmpeg -f framemd5` prints for a picture decoded on the CPU (`yuv420p`,
/// `yuv420p10le` …): the picture's own MD5 when it is planar, and for the bi-planar native
/// formats the MD5 of its samples taken apart here, independently of the library — NV12's
/// luma rows, then every Cb sample, then every Cr sample; P010's samples moved down from the
/// high bits into little-endian 16-bit words, as `yuv420p10le` holds them.
func planarMD5(_ image: PixelBuffer) -> String {
    let tenBit = [PixelFormat.p010VideoRange, .p010FullRange].contains(image.pixelFormat)
    guard tenBit || [PixelFormat.nv12VideoRange, .nv12FullRange].contains(image.pixelFormat) else { return image.md5 }
    let samples = image.withLockedPlanes { planes -> [UInt8] in
        guard planes.count == 2 else { return [] }
        var samples: [UInt8] = []
        /// Appends `count` samples of a row of `plane`, `step` apart from `first` on.
        func append(_ plane: PixelBuffer.Plane, row: Int, first: Int, step: Int, count: Int) {
            let bytes = plane.row(row)
            var out = [UInt8](repeating: 0, count: tenBit ? 2 * count : count)
            for index in 0..<count {
                let at = first + index * step
                if tenBit {
                    let word = (UInt16(bytes[2 * at]) | UInt16(bytes[2 * at + 1]) << 8) >> 6
                    out[2 * index] = UInt8(truncatingIfNeeded: word)
                    out[2 * index + 1] = UInt8(truncatingIfNeeded: word >> 8)
                } else {
                    out[index] = bytes[at]
                }
            }
            samples += out
        }
        for row in 0..<planes[0].height {
            append(planes[0], row: row, first: 0, step: 1, count: planes[0].width)
        }
        for component in 0..<2 {
            for row in 0..<planes[1].height {
                append(planes[1], row: row, first: component, step: 2, count: planes[1].width)
            }
        }
        return samples
    }
    var digest = MD5()
    samples.withUnsafeBytes { digest.update($0) }
    return digest.finish()
}
