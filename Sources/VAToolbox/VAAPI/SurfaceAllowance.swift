import Synchronization

/// The surfaces a GPU back end lets the application hold: its pool has `spareSurfaces` surfaces
/// beyond libavcodec's own needs. While the application holds fewer pictures than that, the
/// surface itself is handed out (and counted until the pixel buffer goes); beyond, the picture is
/// copied to CPU memory so that its surface goes back to the pool: decoding never runs out of
/// surfaces. Decided at hand-out, not when libavcodec returns the picture, so that a batch of
/// pictures out of one drain does not count as held.
final class SurfaceAllowance: Sendable {
    private let spares: Atomic<Int>
    private let heldSurfaces = SurfaceCounter()

    init(spareSurfaces: Int) {
        spares = Atomic(spareSurfaces)
    }

    /// The surfaces the application may hold: set again when the pool is made, where a driver's
    /// surface limit can leave fewer than asked (0: every picture is handed out as a CPU copy).
    var spareSurfaces: Int {
        get { spares.load(ordering: .acquiring) }
        set { spares.store(newValue, ordering: .releasing) }
    }

    /// The surface picture itself, counted, or a CPU copy of it.
    func handOut(_ image: PixelBuffer) -> PixelBuffer {
        guard image.isGPUSurface else { return image }
        if heldSurfaces.count < spareSurfaces {
            heldSurfaces.track(image)
            return image
        }
        guard let copied = (try? image.downloadedCopy()) ?? nil else { return image }
        copied.addCopiedBytes(copied.rawVideoByteCount)
        return copied
    }
}
