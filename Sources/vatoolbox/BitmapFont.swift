/// A 5×7 pixel font with just the characters time stamps need (digits, `:`, `.`, `#`, space),
/// drawn into ``RGBImage``s at an integer scale.
enum BitmapFont {
    /// Glyph width and height in font pixels, and the gap between glyphs.
    static let glyphWidth = 5
    static let glyphHeight = 7
    static let spacing = 1

    /// Each glyph as seven rows of five bits, the leftmost pixel in bit 4.
    static let glyphs: [Character: [UInt8]] = [
        "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
        "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
        "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
        "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
        "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
        "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        ":": [0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00],
        ".": [0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C],
        "#": [0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A],
        " ": [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00],
    ]

    /// The width in image pixels of `text` drawn at `scale`.
    static func width(of text: String, scale: Int) -> Int {
        max(0, text.count * (glyphWidth + spacing) - spacing) * scale
    }

    /// Draws `text` with its top-left corner at (`x`, `y`); unknown characters are left blank.
    static func draw(
        _ text: String, into image: inout RGBImage, x: Int, y: Int, scale: Int, colour: (UInt8, UInt8, UInt8)
    ) {
        for (position, character) in text.enumerated() {
            guard let rows = glyphs[character] else { continue }
            let left = x + position * (glyphWidth + spacing) * scale
            for (row, bits) in rows.enumerated() {
                for column in 0..<glyphWidth where bits & (0x10 >> UInt8(column)) != 0 {
                    for dy in 0..<scale {
                        for dx in 0..<scale {
                            image.set(x: left + column * scale + dx, y: y + row * scale + dy, colour)
                        }
                    }
                }
            }
        }
    }
}
