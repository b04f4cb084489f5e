internal import CFFmpeg

/// An MD5 computation (libavutil's `av_md5_*`), for checksums comparable with FFmpeg's.
struct MD5: ~Copyable {
    private let context: OpaquePointer?

    /// Starts a computation (`av_md5_alloc`, `av_md5_init`).
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
