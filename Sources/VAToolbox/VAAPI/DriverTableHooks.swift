internal import CVAAPI
import Synchronization

/// Wraps entry points of a display's driver table to make up for what the linked libavcodec gets
/// wrong on the VA-API path, each where its ``LibavcodecVersion`` predicate holds, and to record
/// the calls in flight. (The table is per display, and libva reaches the driver only through it;
/// every wrapper calls the driver's own entry point.)
///
/// **Failed pictures** (``LibavcodecVersion/mishandlesFailedPictureSubmission``). libavcodec must
/// not hear of a failed `vaBeginPicture`, `vaRenderPicture` or `vaEndPicture`: its HEVC decoder
/// drops the picture and fails the packet, its H.264 decoder fails the packet, skips an innocent
/// picture due for output and later outputs the failed one with stale pixels, its AV1 decoder
/// reads the failed frame's missing state on the next packet. The hooks record the failure
/// against the surface being decoded and answer success, so that decoding goes on in order and
/// exactly the failed picture is reported, as ``VTError/videoDecoderMalfunction``, when it comes
/// out. A failed `vaCreateBuffer` is asked for once more, and its picture is faulted either way.
/// (How `Scripts/faults` found these: Docs/Reliability.md, "Every VA call failing".)
///
/// **Forgotten buffers** (``LibavcodecVersion/forgetsBuffersOfAbandonedPictures``). libavcodec
/// creates a picture's buffers, then calls `vaBeginPicture`, `vaEndPicture`, and destroys them;
/// on some damaged HEVC data it abandons a picture without destroying its parameter buffer. So a
/// buffer still alive when the picture after the next one begins was forgotten: the hooks destroy
/// it then, and a context's leftovers with the context.
///
/// Video-processing contexts (``VideoProcessor``) are not libavcodec's: their calls' statuses
/// pass through unchanged (``passThrough(processingContext:)``).
///
/// **Calls in flight.** Every hooked entry point, and every other one that may wait for the GPU
/// (creating configs, contexts, surfaces and images, mapping, synchronising, reading back,
/// exporting), records itself in flight on its thread (``DriverCallsInFlight``), so that a hang
/// is reported with the entry point it is stuck in.
final class DriverTableHooks: Sendable {
    private struct Entry {
        /// The driver's own entry points, called through.
        var original: VADriverVTable
        /// Whether failed picture submissions are kept from libavcodec
        /// (``LibavcodecVersion/mishandlesFailedPictureSubmission``).
        var recordsFailedPictures = LibavcodecVersion.linked.mishandlesFailedPictureSubmission
        /// Whether forgotten buffers are destroyed (``LibavcodecVersion/forgetsBuffersOfAbandonedPictures``).
        var destroysForgottenBuffers = LibavcodecVersion.linked.forgetsBuffersOfAbandonedPictures
        /// The surface each context is decoding into.
        var targets: [VAContextID: VASurfaceID] = [:]
        /// Surfaces whose last decode failed, with the failure.
        var faulted: [VASurfaceID: VTError] = [:]
        /// A buffer of the picture a context is putting together could not be made: the picture
        /// it begins next is faulted.
        var failedBuffers: [VAContextID: VTError] = [:]
        /// Decodes that failed since the display was opened.
        var failures = 0
        /// `vaBeginPicture` calls per context.
        var pictures: [VAContextID: Int] = [:]
        /// Live buffers: their context and how many pictures it had begun when they were made.
        var buffers: [VABufferID: (context: VAContextID, picture: Int)] = [:]
        /// Video-processing contexts, whose failures are their caller's to see.
        var processingContexts: Set<VAContextID> = []
    }

    /// Every watched display, by its driver context.
    private static let entries = Mutex<[UInt: Entry]>([:])

    private let key: UInt

    /// Starts watching a display's driver table.
    init?(display: Display) {
        guard let driver = CVAAPI_driver_context(display.handle), let table = driver.pointee.vtable else { return nil }
        key = UInt(bitPattern: driver)
        Self.entries.withLock { $0[key] = Entry(original: table.pointee) }
        Self.trackCallsThatMayWait(in: table)
        table.pointee.vaBeginPicture = { driver, context, target in
            let key = UInt(bitPattern: driver)
            let (begin, forgotten, destroy) = DriverTableHooks.entries.withLock { entries in
                entries[key]?.targets[context] = target
                let failedBuffer = entries[key]?.failedBuffers.removeValue(forKey: context)
                entries[key]?.faulted[target] = failedBuffer
                let picture = (entries[key]?.pictures[context] ?? 0) + 1
                entries[key]?.pictures[context] = picture
                // Buffers of this picture were made after picture − 1 began; older ones are
                // from a picture that is over.
                let forgotten =
                    entries[key]?.destroysForgottenBuffers == true
                    ? entries[key]?.buffers.filter { $0.value.context == context && $0.value.picture < picture - 1 }
                        .map(\.key) ?? [] : []
                for buffer in forgotten { entries[key]?.buffers[buffer] = nil }
                return (entries[key]?.original.vaBeginPicture, forgotten, entries[key]?.original.vaDestroyBuffer)
            }
            for buffer in forgotten { _ = destroy?(driver, buffer) }
            guard let begin else { return VAStatusCheck.operationFailed }
            let status = DriverCallsInFlight.during("vaBeginPicture") { begin(driver, context, target) }
            return DriverTableHooks.recordFailure(of: status, "vaBeginPicture", key: key, context: context)
        }
        table.pointee.vaRenderPicture = { driver, context, buffers, count in
            let key = UInt(bitPattern: driver)
            guard let render = DriverTableHooks.entries.withLock({ $0[key]?.original.vaRenderPicture }) else {
                return VAStatusCheck.operationFailed
            }
            let status = DriverCallsInFlight.during("vaRenderPicture") { render(driver, context, buffers, count) }
            return DriverTableHooks.recordFailure(of: status, "vaRenderPicture", key: key, context: context)
        }
        table.pointee.vaEndPicture = { driver, context in
            let key = UInt(bitPattern: driver)
            guard let end = DriverTableHooks.entries.withLock({ $0[key]?.original.vaEndPicture }) else {
                return VAStatusCheck.operationFailed
            }
            let status = DriverCallsInFlight.during("vaEndPicture") { end(driver, context) }
            return DriverTableHooks.recordFailure(of: status, "vaEndPicture", key: key, context: context)
        }
        table.pointee.vaCreateBuffer = { driver, context, type, size, count, data, buffer in
            let key = UInt(bitPattern: driver)
            guard let create = DriverTableHooks.entries.withLock({ $0[key]?.original.vaCreateBuffer }) else {
                return VAStatusCheck.operationFailed
            }
            let attempt = {
                DriverCallsInFlight.during("vaCreateBuffer") {
                    create(driver, context, type, size, count, data, buffer)
                }
            }
            var status = attempt()
            if !VAStatusCheck.succeeded(status),
                DriverTableHooks.entries.withLock({
                    $0[key]?.recordsFailedPictures == true && $0[key]?.processingContexts.contains(context) == false
                })
            {
                // libavcodec drops what a failed buffer held (a slice) and submits the picture
                // without it, and its AV1 decoder reads the failed frame's missing state on the
                // next packet: the buffer is asked for once more, and the picture it is for is
                // faulted either way.
                let error = VAStatusCheck.error(
                    status, "vaCreateBuffer", as: .videoDecoderMalfunction,
                    "the GPU driver could not take a buffer of the picture")
                DriverTableHooks.entries.withLock { entries in
                    entries[key]?.failedBuffers[context] = error
                    entries[key]?.failures += 1
                }
                status = attempt()
            }
            if VAStatusCheck.succeeded(status), let id = buffer?.pointee {
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
                return entries[key]?.original.vaDestroyBuffer
            }
            guard let destroy else { return VAStatusCheck.operationFailed }
            return DriverCallsInFlight.during("vaDestroyBuffer") { destroy(driver, buffer) }
        }
        table.pointee.vaDestroyContext = { driver, context in
            let key = UInt(bitPattern: driver)
            let (leftovers, destroyBuffer, destroyContext) = DriverTableHooks.entries.withLock { entries in
                let leftovers = entries[key]?.buffers.filter { $0.value.context == context }.map(\.key) ?? []
                for buffer in leftovers { entries[key]?.buffers[buffer] = nil }
                entries[key]?.pictures[context] = nil
                entries[key]?.targets[context] = nil
                entries[key]?.failedBuffers[context] = nil
                entries[key]?.processingContexts.remove(context)
                return (leftovers, entries[key]?.original.vaDestroyBuffer, entries[key]?.original.vaDestroyContext)
            }
            for buffer in leftovers { _ = destroyBuffer?(driver, buffer) }
            guard let destroyContext else { return VAStatusCheck.operationFailed }
            return DriverCallsInFlight.during("vaDestroyContext") { destroyContext(driver, context) }
        }
    }

    /// Wraps the other entry points that may wait for the GPU, so that each call is recorded in
    /// flight on its thread (``DriverCallsInFlight``) for a watchdog that gives up on the thread
    /// to name (``WatchdogBackend``). An entry point the driver leaves empty stays empty.
    private static func trackCallsThatMayWait(in table: UnsafeMutablePointer<VADriverVTable>) {
        if table.pointee.vaCreateConfig != nil {
            table.pointee.vaCreateConfig = { driver, profile, entrypoint, attributes, count, config in
                DriverTableHooks.callThrough(driver, "vaCreateConfig", \.vaCreateConfig) {
                    $0(driver, profile, entrypoint, attributes, count, config)
                }
            }
        }
        if table.pointee.vaCreateSurfaces2 != nil {
            table.pointee.vaCreateSurfaces2 = {
                driver, format, width, height, surfaces, count, attributes, attributeCount in
                DriverTableHooks.callThrough(driver, "vaCreateSurfaces", \.vaCreateSurfaces2) {
                    $0(driver, format, width, height, surfaces, count, attributes, attributeCount)
                }
            }
        }
        if table.pointee.vaDestroySurfaces != nil {
            table.pointee.vaDestroySurfaces = { driver, surfaces, count in
                DriverTableHooks.callThrough(driver, "vaDestroySurfaces", \.vaDestroySurfaces) {
                    $0(driver, surfaces, count)
                }
            }
        }
        if table.pointee.vaCreateContext != nil {
            table.pointee.vaCreateContext = { driver, config, width, height, flag, targets, count, context in
                DriverTableHooks.callThrough(driver, "vaCreateContext", \.vaCreateContext) {
                    $0(driver, config, width, height, flag, targets, count, context)
                }
            }
        }
        if table.pointee.vaMapBuffer != nil {
            table.pointee.vaMapBuffer = { driver, buffer, data in
                DriverTableHooks.callThrough(driver, "vaMapBuffer", \.vaMapBuffer) { $0(driver, buffer, data) }
            }
        }
        if table.pointee.vaSyncSurface != nil {
            table.pointee.vaSyncSurface = { driver, surface in
                DriverTableHooks.callThrough(driver, "vaSyncSurface", \.vaSyncSurface) { $0(driver, surface) }
            }
        }
        if table.pointee.vaSyncSurface2 != nil {
            table.pointee.vaSyncSurface2 = { driver, surface, timeout in
                DriverTableHooks.callThrough(driver, "vaSyncSurface2", \.vaSyncSurface2) {
                    $0(driver, surface, timeout)
                }
            }
        }
        if table.pointee.vaQuerySurfaceStatus != nil {
            table.pointee.vaQuerySurfaceStatus = { driver, surface, status in
                DriverTableHooks.callThrough(driver, "vaQuerySurfaceStatus", \.vaQuerySurfaceStatus) {
                    $0(driver, surface, status)
                }
            }
        }
        if table.pointee.vaCreateImage != nil {
            table.pointee.vaCreateImage = { driver, format, width, height, image in
                DriverTableHooks.callThrough(driver, "vaCreateImage", \.vaCreateImage) {
                    $0(driver, format, width, height, image)
                }
            }
        }
        if table.pointee.vaDeriveImage != nil {
            table.pointee.vaDeriveImage = { driver, surface, image in
                DriverTableHooks.callThrough(driver, "vaDeriveImage", \.vaDeriveImage) { $0(driver, surface, image) }
            }
        }
        if table.pointee.vaGetImage != nil {
            table.pointee.vaGetImage = { driver, surface, x, y, width, height, image in
                DriverTableHooks.callThrough(driver, "vaGetImage", \.vaGetImage) {
                    $0(driver, surface, x, y, width, height, image)
                }
            }
        }
        if table.pointee.vaDestroyImage != nil {
            table.pointee.vaDestroyImage = { driver, image in
                DriverTableHooks.callThrough(driver, "vaDestroyImage", \.vaDestroyImage) { $0(driver, image) }
            }
        }
        if table.pointee.vaExportSurfaceHandle != nil {
            table.pointee.vaExportSurfaceHandle = { driver, surface, memoryType, flags, descriptor in
                DriverTableHooks.callThrough(driver, "vaExportSurfaceHandle", \.vaExportSurfaceHandle) {
                    $0(driver, surface, memoryType, flags, descriptor)
                }
            }
        }
    }

    /// Calls the driver's own `entry` with `call` recorded as in flight on this thread.
    private static func callThrough<Function: Sendable>(
        _ driver: VADriverContextP?, _ call: StaticString, _ entry: KeyPath<VADriverVTable, Function?>,
        _ invoke: (Function) -> VAStatus
    ) -> VAStatus {
        guard let function = entries.withLock({ $0[UInt(bitPattern: driver)]?.original[keyPath: entry] }) else {
            return VAStatusCheck.operationFailed
        }
        return DriverCallsInFlight.during(call) { invoke(function) }
    }

    /// A failed `vaBeginPicture`, `vaRenderPicture` or `vaEndPicture`, recorded against the
    /// surface the context is decoding into and answered as success, so that libavcodec goes on
    /// in order and the picture is reported as a device fault when it comes out. Not recorded (no
    /// `vaBeginPicture` seen for the context): libavcodec hears of it.
    private static func recordFailure(
        of status: VAStatus, _ call: StaticString, key: UInt, context: VAContextID
    ) -> VAStatus {
        guard !VAStatusCheck.succeeded(status) else { return status }
        guard
            entries.withLock({
                $0[key]?.recordsFailedPictures == true && $0[key]?.processingContexts.contains(context) == false
            })
        else { return status }
        let error = VAStatusCheck.error(
            status, call, as: .videoDecoderMalfunction, "the GPU failed to decode the picture")
        let recorded = entries.withLock { entries -> Bool in
            guard let target = entries[key]?.targets[context] else { return false }
            if entries[key]?.faulted[target] == nil { entries[key]?.faulted[target] = error }
            entries[key]?.failures += 1
            return true
        }
        return recorded ? VAStatusCheck.success : status
    }

    /// Stops recording (the driver table goes away with `vaTerminate`).
    func detach() {
        _ = Self.entries.withLock { $0.removeValue(forKey: key) }
    }

    /// Lets the statuses of a video-processing context's calls through as the driver returns them
    /// (until the context is destroyed): its caller, not libavcodec, handles them.
    func passThrough(processingContext context: Display.ContextID) {
        _ = Self.entries.withLock { $0[key]?.processingContexts.insert(context) }
    }

    /// The failure of the last decode into `surface`, if it failed.
    func fault(of surface: Display.SurfaceID) -> VTError? {
        Self.entries.withLock { $0[key]?.faulted[surface] }
    }

    /// Decodes that failed on this display so far.
    var failureCount: Int { Self.entries.withLock { $0[key]?.failures ?? 0 } }
}
