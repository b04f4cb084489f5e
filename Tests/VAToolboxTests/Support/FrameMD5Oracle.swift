import Foundation

/// The frames of an `ffmpeg -f framemd5` file: size in bytes and MD5, in output order.
struct FrameMD5Oracle {
    struct Frame: Equatable {
        let size: Int
        let md5: String
    }

    let frames: [Frame]

    /// Parses `X.framemd5` (lines `stream, dts, pts, duration, size, hash`; `#` lines are headers).
    init(contentsOf url: URL) throws {
        let text = try String(contentsOf: url, encoding: .utf8)
        frames = text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 6, let size = Int(fields[4]) else { return nil }
            return Frame(size: size, md5: fields[5])
        }
    }
}
