/// The size of a VP9 frame in pixels (`FrameWidth`, `FrameHeight`).
public struct VP9FrameSize: Sendable, Hashable, CustomStringConvertible {
    /// `FrameWidth`.
    public var width: Int
    /// `FrameHeight`.
    public var height: Int

    /// Creates a size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `WIDTHxHEIGHT`.
    public var description: String { "\(width)x\(height)" }
}

/// The frame sizes held by the eight VP9 reference slots (`RefFrameWidth[]`, `RefFrameHeight[]`),
/// the state an inter frame's `frame_size_with_refs()` reads (VP9 specification v0.6 §6.2.6, §8.10).
public struct VP9ReferenceFrameSizes: Sendable, Hashable {
    /// The size in each of the 8 slots; nil until a frame with a known size refreshes it.
    public private(set) var slots: [VP9FrameSize?] = Array(repeating: nil, count: 8)

    /// Creates the state before the first frame: every slot empty.
    public init() {}

    /// The size in slot `index` (0 to 7), or nil.
    public subscript(index: Int) -> VP9FrameSize? { slots.indices.contains(index) ? slots[index] : nil }

    /// The reference update process (§8.10) for sizes: every slot whose bit is set in
    /// `refresh_frame_flags` takes the frame's size. A frame whose size is unknown empties them.
    public mutating func update(after header: VP9UncompressedHeader) {
        let size = header.frameSize
        for i in 0..<8 where header.refreshFrameFlags & (1 << i) != 0 { slots[i] = size }
    }
}
