internal import CVAAPI
import Synchronization

/// Wraps a few entry points of a display's driver table to make up for two things libavcodec 5.1
/// gets wrong on the VA-API path. (The table is per display, and libva reaches the driver only
/// through it; every wrapper calls the driver's own entry point.)
///
/// **Failed pictures.** libavcodec handles a failed `vaEndPicture` badly for a caller that
/// reports per frame. Its HEVC decoder drops the picture and fails the packet; its H.264 decoder
/// fails the packet, skips the picture it was about to output (an innocent one), and later
/// outputs the failed picture, whose surface holds stale pixels — silent wrong output. The hooks
/// record the failure against the surface being decoded and tell libavcodec the call succeeded,
/// so that decoding goes on in order and exactly the failed picture is reported, as
/// ``VTError/videoDecoderMalfunction``, when it comes out.
///
/// **Forgotten buffers.** On some damaged HEVC data libavcodec creates a picture's parameter
/// buffer and then abandons the picture without destroying it (the ffmpeg CLI shows the same
/// leak through the test driver): one VA buffer per damaged picture, for as long as the display
/// lives. libavcodec creates a picture's buffers, then calls `vaBeginPicture`, `vaEndPicture`,
/// and destroys them. So a buffer still alive when the picture after the next one begins was
/// forgotten; the hooks destroy it then, and destroy a context's leftovers with the context.
final class DriverTableHooks: Sendable {
    private struct Entry {
        /// The driver's own entry points, called through.
        var begin: (@convention(c) (VADriverContextP?, VAContextID, VASurfaceID) -> VAStatus)?
        var end: (@convention(c) (VADriverContextP?, VAContextID) -> VAStatus)?
        var createBuffer:
            (
                @convention(c) (
                    VADriverContextP?, VAContextID, VABufferType, UInt32, UInt32, UnsafeMutableRawPointer?,
                    UnsafeMutablePointer<VABufferID>?
                ) -> VAStatus
            )?
        var destroyBuffer: (@convention(c) (VADriverContextP?, VABufferID) -> VAStatus)?
        var destroyContext: (@convention(c) (VADriverContextP?, VAContextID) -> VAStatus)?
        /// The surface each context is decoding into.
        var targets: [VAContextID: VASurfaceID] = [:]
        /// Surfaces whose last decode failed, with the failure.
        var faulted: [VASurfaceID: VTError] = [:]
        /// Decodes that failed since the display was opened.
        var failures = 0
        /// `vaBeginPicture` calls per context.
        var pictures: [VAContextID: Int] = [:]
        /// Live buffers: their context and how many pictures it had begun when they were made.
        var buffers: [VABufferID: (context: VAContextID, picture: Int)] = [:]
    }

    /// Every watched display, by its driver context.
    private static let entries = Mutex<[UInt: Entry]>([:])

    private let key: UInt

    /// Starts watching a display's driver table.
    init?(display: VADisplay) {
        guard let driver = CVAAPI_driver_context(display), let table = driver.pointee.vtable else { return nil }
        key = UInt(bitPattern: driver)
        let entry = Entry(
            begin: table.pointee.vaBeginPicture, end: table.pointee.vaEndPicture,
            createBuffer: table.pointee.vaCreateBuffer, destroyBuffer: table.pointee.vaDestroyBuffer,
            destroyContext: table.pointee.vaDestroyContext)
        Self.entries.withLock { $0[key] = entry }
        table.pointee.vaBeginPicture = { driver, context, target in
            let key = UInt(bitPattern: driver)
            let (begin, forgotten, destroy) = DriverTableHooks.entries.withLock { entries in
                entries[key]?.targets[context] = target
                entries[key]?.faulted[target] = nil
                let picture = (entries[key]?.pictures[context] ?? 0) + 1
                entries[key]?.pictures[context] = picture
                // Buffers of this picture were made after picture − 1 began; older ones are
                // from a picture that is over.
                let forgotten =
                    entries[key]?.buffers.filter { $0.value.context == context && $0.value.picture < picture - 1 }
                    .map(\.key) ?? []
                for buffer in forgotten { entries[key]?.buffers[buffer] = nil }
                return (entries[key]?.begin, forgotten, entries[key]?.destroyBuffer)
            }
            for buffer in forgotten { _ = destroy?(driver, buffer) }
            return begin?(driver, context, target) ?? VA_STATUS_ERROR_OPERATION_FAILED
        }
        table.pointee.vaEndPicture = { driver, context in
            let key = UInt(bitPattern: driver)
            guard let end = DriverTableHooks.entries.withLock({ $0[key]?.end }) else {
                return VA_STATUS_ERROR_OPERATION_FAILED
            }
            let status = end(driver, context)
            if status != VA_STATUS_SUCCESS {
                let error = VAStatusCheck.error(
                    status, "vaEndPicture", as: .videoDecoderMalfunction, "the GPU failed to decode the picture")
                let recorded = DriverTableHooks.entries.withLock { entries -> Bool in
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
        table.pointee.vaCreateBuffer = { driver, context, type, size, count, data, buffer in
            let key = UInt(bitPattern: driver)
            guard let create = DriverTableHooks.entries.withLock({ $0[key]?.createBuffer }) else {
                return VA_STATUS_ERROR_OPERATION_FAILED
            }
            let status = create(driver, context, type, size, count, data, buffer)
            if status == VA_STATUS_SUCCESS, let id = buffer?.pointee {
                DriverTableHooks.entries.withLock { entries in
                    let picture = entries[key]?.pictures[context] ?? 0
                    entries[key]?.buffers[id] = (context, picture)
                }
            }
            return status
        }
        table.pointee.vaDestroyBuffer = { driver, buffer in
            let key = UInt(bitPattern: driver)
            let destroy = DriverTableHooks.entries.withLock { entries in
                entries[key]?.buffers[buffer] = nil
                return entries[key]?.destroyBuffer
            }
            return destroy?(driver, buffer) ?? VA_STATUS_ERROR_OPERATION_FAILED
        }
        table.pointee.vaDestroyContext = { driver, context in
            let key = UInt(bitPattern: driver)
            let (leftovers, destroyBuffer, destroyContext) = DriverTableHooks.entries.withLock { entries in
                let leftovers = entries[key]?.buffers.filter { $0.value.context == context }.map(\.key) ?? []
                for buffer in leftovers { entries[key]?.buffers[buffer] = nil }
                entries[key]?.pictures[context] = nil
                entries[key]?.targets[context] = nil
                return (leftovers, entries[key]?.destroyBuffer, entries[key]?.destroyContext)
            }
            for buffer in leftovers { _ = destroyBuffer?(driver, buffer) }
            return destroyContext?(driver, context) ?? VA_STATUS_ERROR_OPERATION_FAILED
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
