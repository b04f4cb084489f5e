internal import CFFmpeg

extension PixelBuffer {
    /// The MD5 of the picture's samples, as lowercase hex: the planes in order, each row without
    /// its padding — the bytes `ffmpeg -f rawvideo` writes, and so the hash `ffmpeg -f framemd5`
    /// prints for the same picture in the same pixel format.
    public var md5: String {
        var digest = MD5()
        appendSamples(to: &digest)
        return digest.finish()
    }

    /// Feeds the picture's samples, in `ffmpeg -f rawvideo` order, to an MD5 computation.
    func appendSamples(to digest: inout MD5) {
        withLockedPlanes { planes in
            for plane in planes {
                for row in 0..<plane.height { digest.update(plane.row(row)) }
            }
        }
    }

    /// The number of bytes ``md5`` hashes: the size of the picture in `ffmpeg -f rawvideo` form.
    public var rawVideoByteCount: Int {
        withLockedPlanes { planes in planes.reduce(0) { $0 + $1.bytesPerRowOfPixels * $1.height } }
    }
}

/// An MD5 computation (libavutil's `av_md5_*`), for checksums comparable with FFmpeg's.
struct MD5: ~Copyable {
    private let context: OpaquePointer?

    init() {
        context = av_md5_alloc()
        av_md5_init(context)
    }

    deinit { av_free(UnsafeMutableRawPointer(context)) }

    /// Adds bytes.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        av_md5_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    /// The digest as lowercase hex. The computation cannot be used afterwards.
    consuming func finish() -> String {
        var digest = [UInt8](repeating: 0, count: 16)
        digest.withUnsafeMutableBufferPointer { av_md5_final(context, $0.baseAddress) }
        return digest.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            .joined()
    }
}
