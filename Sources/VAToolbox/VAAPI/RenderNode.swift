internal import CDRM

#if canImport(Glibc)
    import Glibc
#endif

/// A DRM render node (`/dev/dri/renderD128` …): the device file through which a process may use
/// a GPU's decoder without being the display server.
public struct RenderNode: Sendable, Hashable, CustomStringConvertible {
    /// The device file, for example `/dev/dri/renderD128`.
    public let path: String
    /// The PCI vendor id (0x8086 Intel, 0x1002 AMD, 0x10de NVIDIA), when the device is on PCI.
    public let vendorID: UInt16?
    /// The PCI device id, when the device is on PCI.
    public let deviceID: UInt16?
    /// The kernel driver (`i915`, `xe`, `amdgpu`, `nouveau` …), read with `drmGetVersion`; nil
    /// when the node could not be opened.
    public let kernelDriver: String?
    /// Why this process cannot use the node (permission denied, …); nil when it can open it.
    public let accessError: VTError?

    /// `"/dev/dri/renderD128 (i915, PCI 8086:46a6)"`.
    public var description: String {
        var details: [String] = []
        if let kernelDriver { details.append(kernelDriver) }
        if let vendorID, let deviceID {
            details.append("PCI " + Self.hex(vendorID) + ":" + Self.hex(deviceID))
        }
        return details.isEmpty ? path : "\(path) (\(details.joined(separator: ", ")))"
    }

    /// Kernel drivers whose render nodes have no video decoder: software rasterisers and
    /// buffer-sharing helpers.
    static let nonDecodingDrivers: Set<String> = ["vgem", "vkms", "virtio_gpu_nodecode"]

    /// The render nodes of this machine, ordered by path (`renderD128` first), without nodes
    /// that cannot decode video (`vgem`, `vkms`).
    ///
    /// Nodes this process may not open are listed too, with ``accessError`` saying why.
    public static func all() -> [RenderNode] {
        var devices = [drmDevicePtr?](repeating: nil, count: 64)
        let count = drmGetDevices2(0, &devices, Int32(devices.count))
        guard count > 0 else { return [] }
        defer { drmFreeDevices(&devices, count) }
        var nodes: [RenderNode] = []
        for device in devices.prefix(Int(count)).compactMap({ $0 }) {
            let info = device.pointee
            guard info.available_nodes & (1 << DRM_NODE_RENDER) != 0,
                let path = info.nodes[Int(DRM_NODE_RENDER)].map({ String(cString: $0) })
            else { continue }
            let isPCI = info.bustype == DRM_BUS_PCI
            let pci = isPCI ? info.deviceinfo.pci?.pointee : nil
            let node = RenderNode(path: path, vendorID: pci?.vendor_id, deviceID: pci?.device_id)
            if let driver = node.kernelDriver, nonDecodingDrivers.contains(driver) { continue }
            nodes.append(node)
        }
        return nodes.sorted { isNaturallyOrdered($0.path, before: $1.path) }
    }

    /// Describes the node at `path`: opens it to read its kernel driver, or records why it cannot.
    public init(path: String) {
        self.init(path: path, vendorID: nil, deviceID: nil)
    }

    private init(path: String, vendorID: UInt16?, deviceID: UInt16?) {
        self.path = path
        self.vendorID = vendorID
        self.deviceID = deviceID
        switch Self.open(path) {
        case .success(let fd):
            defer { close(fd) }
            if let version = drmGetVersion(fd) {
                defer { drmFreeVersion(version) }
                kernelDriver = version.pointee.name.map { String(cString: $0) }
            } else {
                kernelDriver = nil
            }
            accessError = nil
        case .failure(let error):
            kernelDriver = nil
            accessError = error
        }
    }

    /// Opens a node for reading and writing, as libva needs it, closing it on exec.
    ///
    /// - Returns: The file descriptor, or an error that names the cause and what to do about it.
    static func open(_ path: String) -> Result<Int32, VTError> {
        let fd = Glibc.open(path, O_RDWR | O_CLOEXEC)
        if fd >= 0 { return .success(fd) }
        let code = errno
        let cause = UnderlyingCause(
            library: "libc", function: "open", code: code, message: String(cString: strerror(code)))
        switch code {
        case EACCES, EPERM:
            let group = groupName(of: path).map { "the '\($0)' group" } ?? "the group that owns it"
            return .failure(
                VTError.couldNotFindVideoDecoder.with(
                    "permission denied opening \(path)", cause: cause,
                    hint: "add the user to \(group) (sudo usermod -aG \(groupName(of: path) ?? "render") $USER, then "
                        + "log in again); in a container, pass the device and the group (docker run --device "
                        + "/dev/dri --group-add \(groupName(of: path) ?? "render"))"))
        case ENOENT, ENODEV, ENXIO:
            return .failure(
                VTError.couldNotFindVideoDecoder.with(
                    "there is no device at \(path)", cause: cause,
                    hint: "list the machine's render nodes with `vatoolbox devices`; in a container, pass "
                        + "--device /dev/dri"))
        default:
            return .failure(VTError.couldNotFindVideoDecoder.with("cannot open \(path)", cause: cause))
        }
    }

    /// The name of the group that owns a file, for the permission hint.
    private static func groupName(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, let group = getgrgid(info.st_gid), let name = group.pointee.gr_name else {
            return nil
        }
        return String(cString: name)
    }

    /// Why the machine offers no render node, when ``all()`` is empty: no `/dev/dri` at all, or
    /// no node in it that decodes video.
    public static func absenceReason() -> String {
        var info = stat()
        if stat("/dev/dri", &info) != 0 {
            return "this machine has no /dev/dri (no GPU driver is loaded, or a container was started without "
                + "--device /dev/dri)"
        }
        return "/dev/dri has no render node that can decode video"
    }

    private static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// Orders `renderD129` before `renderD1000`: node paths differ only in their number, so a
/// shorter path has the smaller number.
private func isNaturallyOrdered(_ path: String, before other: String) -> Bool {
    path.count != other.count ? path.count < other.count : path < other
}
