internal import CVAAPI
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
    let display: VADisplay
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
        self.capabilities = known ?? Self.queryCapabilities(opened.display)
        self.faults = DriverTableHooks(display: opened.display)
        self.images = ImageCache(display: opened.display)
        self.decisions = HardwareDecisionRecord(quirks: quirks)
    }

    deinit {
        images.destroyAll()
        faults?.detach()
        vaTerminate(display)
        close(fd)
    }

    /// An initialised display on `fd`, choosing the driver where libva would choose wrongly and
    /// setting the nvidia driver's back end when the caller did not.
    private static func initialize(fd: Int32, node: RenderNode) throws(VTError) -> (
        display: VADisplay, messages: VAMessageLog, vendor: String, apiVersion: String
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
            guard let display = vaGetDisplayDRM(fd) else {
                close(fd)
                throw VTError.couldNotFindVideoDecoder.with(
                    "libva does not accept \(node.path) as a DRM render node",
                    hint: "pass a /dev/dri/renderD* node, not a card node")
            }
            let messages = VAMessageLog()
            messages.attach(to: display)
            if let driverOverride {
                _ = driverOverride.withCString { vaSetDriverName(display, UnsafeMutablePointer(mutating: $0)) }
            }
            var major: Int32 = 0
            var minor: Int32 = 0
            let status = vaInitialize(display, &major, &minor)
            guard status == CVAAPI_STATUS_SUCCESS else {
                let said = messages.drain().joined(separator: "; ")
                vaTerminate(display)
                close(fd)
                let driver = getenv("LIBVA_DRIVER_NAME").map { " '\(String(cString: $0))'" } ?? ""
                throw VTError.couldNotFindVideoDecoder.with(
                    "no VA-API driver\(driver) could be loaded for \(node)" + (said.isEmpty ? "" : " (libva: \(said))"),
                    cause: VAStatusCheck.cause(status, "vaInitialize"),
                    hint: DriverLoading.installHint(kernelDriver: node.kernelDriver))
            }
            let vendor = vaQueryVendorString(display).map { String(cString: $0) } ?? "unknown"
            // nvidia-vaapi-driver reads NVD_BACKEND when it loads; a driver that came up on its EGL
            // back end (which cannot export on current NVIDIA drivers) is loaded again on the
            // direct one, unless the caller chose.
            if attempt == 1, !callerChoseBackend, DriverLoading.isNVIDIAEGLBackend(vendor: vendor) {
                DriverLoading.defaultNVIDIABackend()
                vaTerminate(display)
                continue
            }
            return (display, messages, vendor, "\(major).\(minor)")
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
        var config = VAConfigID(CVAAPI_INVALID_ID)
        try VAStatusCheck.check(
            vaCreateConfig(display, VAProfile(rawValue: profile.vaProfile), VAEntrypointVLD, nil, 0, &config),
            "vaCreateConfig", as: .couldNotFindVideoDecoder, "the driver cannot create a \(profile.name) decoder")
        defer { vaDestroyConfig(display, config) }
        // One render target: some drivers size their decoder from the targets a context gets.
        var surface = VASurfaceID(CVAAPI_INVALID_ID)
        try VAStatusCheck.check(
            vaCreateSurfaces(
                display, tenBit ? CVAAPI_RT_FORMAT_YUV420_10 : CVAAPI_RT_FORMAT_YUV420, UInt32(width), UInt32(height),
                &surface, 1, nil, 0),
            "vaCreateSurfaces", as: .couldNotFindVideoDecoder,
            "the driver cannot create a \(width)x\(height) surface for \(profile.name)")
        defer { vaDestroySurfaces(display, &surface, 1) }
        var context = VAContextID(CVAAPI_INVALID_ID)
        try VAStatusCheck.check(
            vaCreateContext(display, config, Int32(width), Int32(height), Int32(VA_PROGRESSIVE), &surface, 1, &context),
            "vaCreateContext", as: .couldNotFindVideoDecoder,
            "the driver cannot create a \(width)x\(height) \(profile.name) decoding context")
        vaDestroyContext(display, context)
    }

    private static func queryCapabilities(_ display: VADisplay) -> HardwareCapabilities {
        var profiles = [VAProfile](repeating: VAProfileNone, count: Int(max(1, vaMaxNumProfiles(display))))
        var count: Int32 = 0
        guard vaQueryConfigProfiles(display, &profiles, &count) == CVAAPI_STATUS_SUCCESS else {
            return HardwareCapabilities(decodeProfiles: [])
        }
        let offered = Set(profiles.prefix(Int(count)).map(\.rawValue))
        var decodeProfiles: [HardwareDecodeProfile] = []
        for (profile, codec) in HardwareCapabilities.knownProfiles where offered.contains(profile.rawValue) {
            guard decodes(display, profile) else { continue }
            decodeProfiles.append(describe(display, profile, codec))
        }
        return HardwareCapabilities(decodeProfiles: decodeProfiles)
    }

    /// Whether the profile has the VLD (bitstream decoding) entry point.
    private static func decodes(_ display: VADisplay, _ profile: VAProfile) -> Bool {
        var entrypoints = [VAEntrypoint](repeating: VAEntrypoint(0), count: Int(max(1, vaMaxNumEntrypoints(display))))
        var count: Int32 = 0
        guard vaQueryConfigEntrypoints(display, profile, &entrypoints, &count) == CVAAPI_STATUS_SUCCESS else {
            return false
        }
        return entrypoints.prefix(Int(count)).contains(VAEntrypointVLD)
    }

    private static func describe(_ display: VADisplay, _ profile: VAProfile, _ codec: VideoCodecType)
        -> HardwareDecodeProfile
    {
        let name = vaProfileStr(profile).map { String(String(cString: $0).dropFirst("VAProfile".count)) } ?? "?"
        var attributes = [VAConfigAttribRTFormat, VAConfigAttribMaxPictureWidth, VAConfigAttribMaxPictureHeight].map {
            VAConfigAttrib(type: $0, value: CVAAPI_ATTRIB_NOT_SUPPORTED)
        }
        _ = vaGetConfigAttributes(display, profile, VAEntrypointVLD, &attributes, Int32(attributes.count))
        let known = { (value: UInt32) -> Int? in value == CVAAPI_ATTRIB_NOT_SUPPORTED ? nil : Int(value) }
        let rtFormats = known(attributes[0].value) ?? 0
        var maximumWidth = known(attributes[1].value) ?? 0
        var maximumHeight = known(attributes[2].value) ?? 0
        var minimumSize = (width: 1, height: 1)
        var unusable: String?
        var config = VAConfigID(CVAAPI_INVALID_ID)
        let status = vaCreateConfig(display, profile, VAEntrypointVLD, nil, 0, &config)
        if status == CVAAPI_STATUS_SUCCESS {
            let limits = surfaceLimits(display, config)
            maximumWidth = limits.maximum.width ?? maximumWidth
            maximumHeight = limits.maximum.height ?? maximumHeight
            minimumSize = (limits.minimum.width ?? 1, limits.minimum.height ?? 1)
            vaDestroyConfig(display, config)
        } else {
            unusable = "\(VAStatusCheck.cause(status, "vaCreateConfig"))"
        }
        return HardwareDecodeProfile(
            codec: codec, name: name, vaProfile: profile.rawValue, minimumWidth: minimumSize.width,
            minimumHeight: minimumSize.height, maximumWidth: maximumWidth, maximumHeight: maximumHeight,
            decodes8Bit420: rtFormats & Int(CVAAPI_RT_FORMAT_YUV420) != 0,
            decodes10Bit420: rtFormats & Int(CVAAPI_RT_FORMAT_YUV420_10) != 0, unusableReason: unusable)
    }

    /// The smallest and largest surfaces a decode configuration accepts (`vaQuerySurfaceAttributes`;
    /// each nil where the driver does not say).
    private static func surfaceLimits(_ display: VADisplay, _ config: VAConfigID) -> (
        minimum: (width: Int?, height: Int?), maximum: (width: Int?, height: Int?)
    ) {
        var count: UInt32 = 0
        guard vaQuerySurfaceAttributes(display, config, nil, &count) == CVAAPI_STATUS_SUCCESS, count > 0 else {
            return ((nil, nil), (nil, nil))
        }
        var attributes = [VASurfaceAttrib](repeating: VASurfaceAttrib(), count: Int(count))
        guard vaQuerySurfaceAttributes(display, config, &attributes, &count) == CVAAPI_STATUS_SUCCESS else {
            return ((nil, nil), (nil, nil))
        }
        var values: [Int32: Int] = [:]
        for attribute in attributes.prefix(Int(count))
        where attribute.value.type.rawValue == CVAAPI_GENERIC_VALUE_INTEGER {
            values[Int32(attribute.type.rawValue)] = Int(attribute.value.value.i)
        }
        return (
            (values[CVAAPI_SURFACE_ATTRIB_MIN_WIDTH], values[CVAAPI_SURFACE_ATTRIB_MIN_HEIGHT]),
            (values[CVAAPI_SURFACE_ATTRIB_MAX_WIDTH], values[CVAAPI_SURFACE_ATTRIB_MAX_HEIGHT])
        )
    }
}

/// Collects libva's messages for one display instead of letting libva print them to standard
/// error, so that a failure can quote them (`vaSetErrorCallback`, `vaSetInfoCallback`).
final class VAMessageLog: Sendable {
    private let lines = Mutex<[String]>([])

    /// Routes the display's error messages here and drops its informational ones ("VA-API
    /// version …", "Trying to open …"), unless `VATOOLBOX_VA_LOG` is on.
    func attach(to display: VADisplay) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        vaSetErrorCallback(
            display,
            { context, message in
                guard let context, let message else { return }
                let log = Unmanaged<VAMessageLog>.fromOpaque(context).takeUnretainedValue()
                let text = String(cString: message).trimmingTrailingNewlines
                log.lines.withLock { $0 = Array(($0 + [text]).suffix(16)) }
            }, context)
        if !EnvironmentVariable.vaLog.isOn {
            vaSetInfoCallback(display, nil, nil)
        }
    }

    /// The messages since the last call.
    func drain() -> [String] {
        lines.withLock { lines in
            defer { lines.removeAll() }
            return lines
        }
    }
}

extension String {
    /// The string without the newlines at its end.
    var trimmingTrailingNewlines: String {
        var text = Substring(self)
        while text.last == "\n" || text.last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
