import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A render node opened through libva: a VA display, initialised, with what its driver decodes.
///
/// ```swift
/// let device = try VADevice.open(path: "/dev/dri/renderD128")
/// print(device.vendor)                      // "Intel iHD driver … 23.1.1 ()"
/// for profile in device.capabilities.decodeProfiles { print(profile) }
/// ```
///
/// Opening a path a second time returns the same device while the first is in use: its
/// capabilities are queried once. Each decoder then decodes on a display of its own
/// (`openSeparate(like:)`): a driver's per-display state (Mesa takes a per-display lock on every
/// call; the fault records of `DriverTableHooks` are per display) is not shared between
/// sessions. The display is terminated and the node closed when the last session, and the last
/// pixel buffer decoded on it, are gone — in that order: surfaces, then the display
/// (`vaTerminate`), then the file descriptor.
///
/// `LIBVA_DRIVER_NAME` and `LIBVA_DRIVERS_PATH` choose the driver as they do for every libva
/// program.
public final class VADevice: @unchecked Sendable, CustomStringConvertible {
    // Unchecked Sendable: every stored property is immutable after `init`, and libva's display
    // functions are thread-safe; the display pointer is only handed to libva.

    /// The node this device was opened on.
    public let renderNode: RenderNode
    /// The driver's vendor string (`vaQueryVendorString`), which names the driver and its version.
    public let vendor: String
    /// The VA-API version libva reports (`vaInitialize`), for example `"1.17"`.
    public let apiVersion: String
    /// What the driver decodes.
    public let capabilities: HardwareCapabilities
    /// How VAToolbox treats this driver (read-back, synchronisation, surface limit, export).
    public let quirks: DriverQuirks

    /// The initialised display.
    let display: Display
    /// Failed decodes, by surface.
    let faults: DriverTableHooks?
    /// Images kept for reading surfaces back (`vaGetImage`), by format and size.
    let images: ImageCache
    /// What the back end decoding on this display decided (its pool, its read-backs).
    let decisions: HardwareDecisionRecord
    private let fd: Int32
    private let messages: VAMessageLog

    /// `"/dev/dri/renderD128 (i915): Intel iHD driver …"`.
    public var description: String { "\(renderNode): \(vendor)" }

    /// Opens the node at `path`, or returns the device already open there.
    ///
    /// - Throws: ``VTError/couldNotFindVideoDecoder`` when the node cannot be opened (missing,
    ///   permission denied — the hint names the group to join), libva does not accept it, or no
    ///   VA driver loads for it (libva's own messages are in the reason).
    public static func open(path: String) throws(VTError) -> VADevice {
        let result: Result<VADevice, VTError> = openDevices.withLock { devices in
            if let device = devices[path]?.device { return .success(device) }
            let device: VADevice
            do throws(VTError) {
                device = try VADevice(path: path)
            } catch {
                return .failure(error)
            }
            devices[path] = WeakDevice(device: device)
            return .success(device)
        }
        return try result.get()
    }

    /// Devices in use, by path.
    private static let openDevices = Mutex<[String: WeakDevice]>([:])

    /// The VA displays this process has open through VAToolbox now, and the most it had open at
    /// once: one per render node opened (``open(path:)``) and, by default, one more per GPU
    /// session (`VATOOLBOX_SHARED_VA_DISPLAY` makes the sessions share the node's).
    public static var openDisplays: (now: Int, most: Int) { displayCount.withLock { ($0.now, $0.most) } }

    private static let displayCount = Mutex<(now: Int, most: Int)>((0, 0))

    private struct WeakDevice {
        weak var device: VADevice?
    }

    /// A new display on the node `device` was opened on, for one decoder: its driver state,
    /// and the fault records of its decodes, are its own. The capabilities are `device`'s (not
    /// queried again).
    ///
    /// - Throws: What opening `device`'s node throws.
    static func openSeparate(like device: VADevice) throws(VTError) -> VADevice {
        // Under the devices' lock: opening may set NVD_BACKEND in the environment.
        let result: Result<VADevice, VTError> = openDevices.withLock { _ in
            do throws(VTError) {
                return .success(try VADevice(path: device.renderNode.path, capabilities: device.capabilities))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private init(path: String, capabilities known: HardwareCapabilities? = nil) throws(VTError) {
        let node = RenderNode(path: path)
        let fd = try RenderNode.open(path).get()
        let opened = try Self.initialize(fd: fd, node: node)
        self.renderNode = node
        self.fd = fd
        self.display = opened.display
        self.messages = opened.messages
        self.vendor = opened.vendor
        self.apiVersion = opened.apiVersion
        self.quirks = DriverQuirks(vendor: opened.vendor)
        // The hooks first: the capability probe's calls are watched too (a hang there is named).
        self.faults = DriverTableHooks(display: opened.display)
        self.capabilities = known ?? HardwareCapabilities.query(opened.display)
        self.images = ImageCache(display: opened.display)
        self.decisions = HardwareDecisionRecord(quirks: quirks)
        Self.displayCount.withLock { count in
            count.now += 1
            count.most = max(count.most, count.now)
        }
    }

    deinit {
        images.destroyAll()
        faults?.detach()
        display.terminate()
        close(fd)
        Self.displayCount.withLock { $0.now -= 1 }
    }

    /// An initialised display on `fd`, choosing the driver where libva would choose wrongly and
    /// setting the nvidia driver's back end when the caller did not.
    private static func initialize(fd: Int32, node: RenderNode) throws(VTError) -> (
        display: Display, messages: VAMessageLog, vendor: String, apiVersion: String
    ) {
        let callerChoseBackend = getenv("NVD_BACKEND") != nil
        let driverOverride = DriverLoading.driverName(
            kernelDriver: node.kernelDriver,
            libvaDriverName: getenv("LIBVA_DRIVER_NAME").map { String(cString: $0) })
        if DriverLoading.isNVIDIA(
            kernelDriver: node.kernelDriver, libvaDriverName: getenv("LIBVA_DRIVER_NAME").map { String(cString: $0) })
        {
            DriverLoading.defaultNVIDIABackend()
        }
        var attempt = 0
        while true {
            attempt += 1
            guard let display = Display.open(drm: fd) else {
                close(fd)
                throw VTError.couldNotFindVideoDecoder.with(
                    "libva does not accept \(node.path) as a DRM render node",
                    hint: "pass a /dev/dri/renderD* node, not a card node")
            }
            let messages = VAMessageLog()
            display.routeMessages(to: messages, keepingInfo: EnvironmentVariable.vaLog.isOn)
            if let driverOverride {
                display.setDriverName(driverOverride)
            }
            let version: (major: Int32, minor: Int32)
            switch display.initialize() {
            case .success(let initialized):
                version = initialized
            case .failure(let failure):
                let said = messages.drain().joined(separator: "; ")
                display.terminate()
                close(fd)
                let driver = getenv("LIBVA_DRIVER_NAME").map { " '\(String(cString: $0))'" } ?? ""
                throw VTError.couldNotFindVideoDecoder.with(
                    "no VA-API driver\(driver) could be loaded for \(node)" + (said.isEmpty ? "" : " (libva: \(said))"),
                    cause: failure.cause,
                    hint: DriverLoading.installHint(kernelDriver: node.kernelDriver))
            }
            let vendor = display.vendor ?? "unknown"
            // nvidia-vaapi-driver reads NVD_BACKEND when it loads; a driver that came up on its EGL
            // back end (which cannot export on current NVIDIA drivers) is loaded again on the
            // direct one, unless the caller chose.
            if attempt == 1, !callerChoseBackend, DriverLoading.isNVIDIAEGLBackend(vendor: vendor) {
                DriverLoading.defaultNVIDIABackend()
                display.terminate()
                continue
            }
            return (display, messages, vendor, "\(version.major).\(version.minor)")
        }
    }

    /// libva's messages since the last call (driver loading, errors), for failure reasons.
    func recentMessages() -> [String] { messages.drain() }

    /// Checks that the driver can set up a decoder for `profile` at a size, the way libavcodec will:
    /// a decode configuration, a surface and a context on it. Catches a driver that lists a
    /// profile it cannot run, or refuses the size.
    ///
    /// - Parameter tenBit: Whether the stream has 10-bit samples (P010 surfaces).
    func probeDecoder(_ profile: HardwareDecodeProfile, width: Int, height: Int, tenBit: Bool) throws(VTError) {
        let config = try display.createConfig(profile.profile).get(
            as: .couldNotFindVideoDecoder, "the driver cannot create a \(profile.name) decoder")
        defer { display.destroyConfig(config) }
        // One render target: some drivers size their decoder from the targets a context gets.
        let surfaces = try display.createSurfaces(
            tenBit ? .p010 : .nv12, width: width, height: height, count: 1, fixingPixelFormat: false
        ).get(
            as: .couldNotFindVideoDecoder, "the driver cannot create a \(width)x\(height) surface for \(profile.name)")
        defer { display.destroySurfaces(surfaces) }
        let context = try display.createContext(config, width: width, height: height, targets: surfaces).get(
            as: .couldNotFindVideoDecoder,
            "the driver cannot create a \(width)x\(height) \(profile.name) decoding context")
        display.destroyContext(context)
    }
}
