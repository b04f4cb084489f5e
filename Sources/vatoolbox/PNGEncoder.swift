import CFFmpeg
import VAToolbox

/// An RGB picture in memory: 3 bytes per pixel, rows without padding.
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
}

/// Encodes pictures as PNG with libavcodec's PNG encoder (`AV_CODEC_ID_PNG`, RGB24).
enum PNGEncoder {
    /// The PNG file's bytes.
    static func encode(_ image: RGBImage) throws(CommandFailure) -> [UInt8] {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG) else {
            throw .input("this libavcodec has no PNG encoder")
        }
        var context = avcodec_alloc_context3(codec)
        var frame = av_frame_alloc()
        var packet = av_packet_alloc()
        defer {
            avcodec_free_context(&context)
            av_frame_free(&frame)
            av_packet_free(&packet)
        }
        guard let context, let frame, let packet else { throw .input("out of memory encoding a PNG") }
        context.pointee.width = Int32(image.width)
        context.pointee.height = Int32(image.height)
        context.pointee.pix_fmt = AV_PIX_FMT_RGB24
        context.pointee.time_base = AVRational(num: 1, den: 25)
        try check(avcodec_open2(context, codec, nil), "opening the PNG encoder")
        frame.pointee.width = Int32(image.width)
        frame.pointee.height = Int32(image.height)
        frame.pointee.format = AV_PIX_FMT_RGB24.rawValue
        try check(av_frame_get_buffer(frame, 0), "allocating a picture")
        guard let data = CFFmpeg_frame_data(frame, 0) else { throw .input("out of memory encoding a PNG") }
        let stride = Int(CFFmpeg_frame_linesize(frame, 0))
        image.pixels.withUnsafeBytes { pixels in
            for row in 0..<image.height {
                (data + row * stride).update(
                    from: pixels.baseAddress!.assumingMemoryBound(to: UInt8.self) + row * image.width * 3,
                    count: image.width * 3)
            }
        }
        try check(avcodec_send_frame(context, frame), "encoding the PNG")
        try check(avcodec_receive_packet(context, packet), "encoding the PNG")
        return Array(UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
    }

    /// Encodes and writes to `path`.
    static func write(_ image: RGBImage, to path: String) throws(CommandFailure) {
        let bytes = try encode(image)
        let output = try OutputFile(path: path)
        try output.append(bytes: bytes)
        try output.flush()
    }

    private static func check(_ status: Int32, _ step: String) throws(CommandFailure) {
        guard status < 0 else { return }
        var buffer = [CChar](repeating: 0, count: 128)
        let message = String(cString: CFFmpeg_av_err2str(status, &buffer, buffer.count))
        throw .input("\(step) failed: \(message)")
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
