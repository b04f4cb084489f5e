extension PixelBuffer {
    /// The MD5 of the picture's samples, as lowercase hex: the planes in order, each row without
    /// its padding — the bytes `ffmpeg -f rawvideo` writes, and so the hash `ffmpeg -f framemd5`
    /// prints for the same picture in the same pixel format.
    public var md5: String {
        var digest = MD5()
        appendSamples(to: &digest)
        return digest.finish()
    }

    /// ``md5``, or the error when a GPU surface cannot be read back (``md5`` then hashes no
    /// samples at all).
    ///
    /// - Throws: What ``withReadablePlanes(_:)`` throws.
    public func samplesMD5() throws(VTError) -> String {
        var digest = MD5()
        try withReadablePlanes { (planes) throws(VTError) in
            for plane in planes {
                for row in 0..<plane.height { digest.update(plane.row(row)) }
            }
        }
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
    ///
    /// A GPU surface's size comes from its layout: it is not read back for it.
    public var rawVideoByteCount: Int {
        let surfaceSize = try? withSurface { (frame) throws(VTError) -> Int? in
            frame.flatMap { $0.sampleLayout.bufferSize(width: width, height: height, alignment: 1) }
        }
        if let surfaceSize { return surfaceSize }
        return withLockedPlanes { planes in planes.reduce(0) { $0 + $1.bytesPerRowOfPixels * $1.height } }
    }
}
