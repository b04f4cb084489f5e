import Synchronization

/// What the GPU path actually did for one session on its driver: the surface pool it allocated
/// and how it read surfaces back, beside the ``DriverQuirks`` those decisions came from.
///
/// ``DriverQuirks`` says what VAToolbox *assumes* of a driver; this says what happened, so that a
/// first run on a real GPU (`vatoolbox device-check`) shows which assumption held. Read it from
/// ``DecompressionSession/hardwareDecisions`` while the session decodes on the GPU.
public struct HardwareDecisions: Sendable, Hashable, CustomStringConvertible {
    /// The driver's quirks, from its vendor string.
    public let quirks: DriverQuirks
    /// The surfaces in the decoder's pool (the `initial_pool_size` of the VA frames context
    /// libavcodec decodes into), once the first picture set the hwaccel up; nil before. A stream
    /// that changes configuration makes a new pool: this is the latest.
    public internal(set) var surfaceCount: Int?
    /// Of ``surfaceCount``, the surfaces the application may hold at once (beyond, pictures are
    /// handed out as CPU copies).
    public internal(set) var applicationSurfaces: Int?
    /// The driver's limit on a decoder's surfaces that the pool was sized within, if any.
    public internal(set) var surfaceLimit: Int?
    /// Read-backs (locks, conversions, copies) that mapped the surface itself through
    /// `vaDeriveImage`.
    public internal(set) var derivedImageReadBacks = 0
    /// Read-backs that copied the surface into an image with `vaGetImage` (the path for drivers
    /// without a usable `vaDeriveImage`, and where deriving a surface was refused).
    public internal(set) var copiedImageReadBacks = 0

    init(quirks: DriverQuirks) {
        self.quirks = quirks
    }

    /// `"pool 23 surfaces (4 for the application), read-back vaGetImage ×30"`; `"pool not made
    /// yet"` before the first picture, `"no read-back"` before the first lock.
    public var description: String {
        let pool =
            surfaceCount.map { count in
                "pool \(count) surfaces (\(applicationSurfaces ?? 0) for the application)"
                    + (surfaceLimit.map { ", driver limit \($0)" } ?? "")
            } ?? "pool not made yet"
        var readBacks: [String] = []
        if derivedImageReadBacks > 0 { readBacks.append("vaDeriveImage ×\(derivedImageReadBacks)") }
        if copiedImageReadBacks > 0 { readBacks.append("vaGetImage ×\(copiedImageReadBacks)") }
        return pool + ", " + (readBacks.isEmpty ? "no read-back" : "read-back " + readBacks.joined(separator: " + "))
    }
}

/// Where a GPU back end records its ``HardwareDecisions``: kept by its ``VADevice`` (each back end
/// decodes on a display of its own), written by the surface negotiation and the read-back.
final class HardwareDecisionRecord: Sendable {
    private let decisions: Mutex<HardwareDecisions>

    init(quirks: DriverQuirks) {
        decisions = Mutex(HardwareDecisions(quirks: quirks))
    }

    /// The decisions so far.
    var current: HardwareDecisions { decisions.withLock { $0 } }

    /// Records the pool made for the decoder.
    func record(_ pool: SurfacePool) {
        decisions.withLock {
            $0.surfaceCount = pool.size
            $0.applicationSurfaces = pool.spares
            $0.surfaceLimit = pool.limit
        }
    }

    /// Records one read-back and how it was made.
    func recordReadBack(_ path: DriverQuirks.ReadBack) {
        decisions.withLock {
            switch path {
            case .deriveImage: $0.derivedImageReadBacks += 1
            case .getImage: $0.copiedImageReadBacks += 1
            }
        }
    }
}
