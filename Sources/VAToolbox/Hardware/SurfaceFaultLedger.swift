internal import CVAAPI
import Synchronization

/// Records which surfaces the driver failed to decode into, by watching `vaBeginPicture` and
/// `vaEndPicture` on a display.
///
/// Why: libavcodec handles a failed `vaEndPicture` badly for a caller that reports per frame.
/// Its HEVC decoder drops the picture and fails the packet; its H.264 decoder fails the packet,
/// skips the picture it was about to output (an innocent one), and later outputs the failed
/// picture, whose surface holds stale pixels — silent wrong output. The ledger wraps two entry
/// points of the display's driver table (the table is per display, and libva reaches the driver
/// only through it): it records the failure against the surface being decoded and tells
/// libavcodec the call succeeded, so that decoding goes on in order and exactly the failed
/// picture is reported, as ``VTError/videoDecoderMalfunction``, when it comes out.
final class SurfaceFaultLedger: Sendable {
    private struct Entry {
        /// The driver's own entry points, called through.
        var begin: (@convention(c) (VADriverContextP?, VAContextID, VASurfaceID) -> VAStatus)?
        var end: (@convention(c) (VADriverContextP?, VAContextID) -> VAStatus)?
        /// The surface each context is decoding into.
        var targets: [VAContextID: VASurfaceID] = [:]
        /// Surfaces whose last decode failed, with the failure.
        var faulted: [VASurfaceID: VTError] = [:]
        /// Decodes that failed since the display was opened.
        var failures = 0
    }

    /// Every watched display, by its driver context.
    private static let entries = Mutex<[UInt: Entry]>([:])

    private let key: UInt

    /// Starts watching a display's driver table.
    init?(display: VADisplay) {
        guard let driver = CVAAPI_driver_context(display), let table = driver.pointee.vtable else { return nil }
        key = UInt(bitPattern: driver)
        let entry = Entry(begin: table.pointee.vaBeginPicture, end: table.pointee.vaEndPicture)
        Self.entries.withLock { $0[key] = entry }
        table.pointee.vaBeginPicture = { driver, context, target in
            let key = UInt(bitPattern: driver)
            let begin = SurfaceFaultLedger.entries.withLock { entries in
                entries[key]?.targets[context] = target
                entries[key]?.faulted[target] = nil
                return entries[key]?.begin
            }
            return begin?(driver, context, target) ?? VA_STATUS_ERROR_OPERATION_FAILED
        }
        table.pointee.vaEndPicture = { driver, context in
            let key = UInt(bitPattern: driver)
            guard let end = SurfaceFaultLedger.entries.withLock({ $0[key]?.end }) else {
                return VA_STATUS_ERROR_OPERATION_FAILED
            }
            let status = end(driver, context)
            if status != VA_STATUS_SUCCESS {
                let error = VAStatusCheck.error(
                    status, "vaEndPicture", as: .videoDecoderMalfunction, "the GPU failed to decode the picture")
                let recorded = SurfaceFaultLedger.entries.withLock { entries -> Bool in
                    guard let target = entries[key]?.targets[context] else { return false }
                    entries[key]?.faulted[target] = error
                    entries[key]?.failures += 1
                    return true
                }
                // Recorded: the picture is reported when it comes out. Not recorded (no
                // vaBeginPicture seen for the context): libavcodec hears of it.
                return recorded ? VA_STATUS_SUCCESS : status
            }
            return status
        }
    }

    /// Stops recording (the driver table goes away with `vaTerminate`).
    func detach() {
        _ = Self.entries.withLock { $0.removeValue(forKey: key) }
    }

    /// The failure of the last decode into `surface`, if it failed.
    func fault(of surface: VASurfaceID) -> VTError? {
        Self.entries.withLock { $0[key]?.faulted[surface] }
    }

    /// Decodes that failed on this display so far.
    var failureCount: Int { Self.entries.withLock { $0[key]?.failures ?? 0 } }
}
