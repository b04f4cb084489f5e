import VAToolbox

/// An RGB picture in memory: 3 bytes per pixel, rows without padding — what `snapshot` and
/// `thumbnails` draw into before the library encodes it as PNG.
struct RGBImage {
    let width: Int
    let height: Int
    var pixels: [UInt8]

    /// A picture filled with one colour.
    init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8) = (0, 0, 0)) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        for index in stride(from: 0, to: pixels.count, by: 3) {
            pixels[index] = fill.0
            pixels[index + 1] = fill.1
            pixels[index + 2] = fill.2
        }
    }

    /// Copies `other` with its top-left corner at (`x`, `y`), clipped to this picture.
    mutating func draw(_ other: RGBImage, x: Int, y: Int) {
        for row in 0..<other.height where (0..<height).contains(y + row) {
            let columns = max(0, min(other.width, width - x))
            guard columns > 0, x >= 0 else { continue }
            let source = row * other.width * 3
            let destination = ((y + row) * width + x) * 3
            pixels.replaceSubrange(
                destination..<destination + columns * 3, with: other.pixels[source..<source + columns * 3])
        }
    }

    /// Sets one pixel, ignoring coordinates outside the picture.
    mutating func set(x: Int, y: Int, _ colour: (UInt8, UInt8, UInt8)) {
        guard (0..<width).contains(x), (0..<height).contains(y) else { return }
        let index = (y * width + x) * 3
        pixels[index] = colour.0
        pixels[index + 1] = colour.1
        pixels[index + 2] = colour.2
    }

    /// The picture as a `PixelFormat.rgb24` pixel buffer.
    func pixelBuffer() throws(VTError) -> PixelBuffer {
        let buffer = try PixelBufferPool(pixelFormat: .rgb24, width: width, height: height).makePixelBuffer()
        try buffer.withLockedPlanesForWriting { (planes: [PixelBuffer.Plane]) throws(VTError) in
            guard let plane = planes.first else { throw VTError.allocationFailed.with("an RGB buffer without planes") }
            pixels.withUnsafeBytes { source in
                guard let start = source.baseAddress else { return }
                for row in 0..<height {
                    (plane.baseAddress + row * plane.bytesPerRow).copyMemory(
                        from: start + row * width * 3, byteCount: width * 3)
                }
            }
        }
        return buffer
    }

    /// Encodes the picture as PNG (``PixelBuffer/pngData()``) and writes it to `path`.
    func writePNG(to path: String) throws(CommandFailure) {
        let bytes: [UInt8]
        do throws(VTError) {
            bytes = try pixelBuffer().pngData()
        } catch {
            throw CommandFailure(error)
        }
        let output = try OutputFile(path: path)
        try output.append(bytes: bytes)
        try output.flush()
    }
}

extension RGBImage {
    /// The RGB samples of a `'BGRA'` pixel buffer.
    init(bgra image: PixelBuffer) {
        self.init(width: image.width, height: image.height)
        let width = image.width
        pixels.withUnsafeMutableBufferPointer { destination in
            image.withLockedPlanes { planes in
                guard let plane = planes.first else { return }
                for row in 0..<plane.height {
                    let source = plane.row(row)
                    let base = row * width * 3
                    for column in 0..<width {
                        destination[base + column * 3] = source[column * 4 + 2]
                        destination[base + column * 3 + 1] = source[column * 4 + 1]
                        destination[base + column * 3 + 2] = source[column * 4]
                    }
                }
            }
        }
    }
}
