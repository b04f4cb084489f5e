#if canImport(Glibc)
    import Glibc
#endif

/// Chooses a session's decoder back end: VA-API on a render node when the specification and the machine
/// allow it, libavcodec on the CPU otherwise.
///
/// Order: the specification's render node (or `VATOOLBOX_RENDER_NODE`), else every render node
/// in path order; the first whose VA driver has a profile for the stream, within its size limits,
/// and sets up a decoder, wins. Each node that fails adds its reason.
enum DecoderSelection {
    /// A back end, and why it is not the GPU's when it is not.
    struct Choice {
        let backend: any DecoderBackend
        let hardwareUnavailableReason: String?
    }

    /// Pictures the application may hold beyond what libavcodec needs, when the attributes ask
    /// for no more: the surface pool has this many spare surfaces.
    static let defaultHeldSurfaces = SurfacePool.defaultHeldSurfaces

    /// The specification with the user's environment applied: `VATOOLBOX_HWACCEL`
    /// (``EnvironmentVariable/hardwareAcceleration``) changes the default
    /// ``DecoderSpecification/HardwareAcceleration/preferred`` only — an application's explicit
    /// `.required` or `.disabled` stands — and `VATOOLBOX_RENDER_NODE` names the node when the
    /// specification names none.
    ///
    /// - Throws: ``VTError/parameter`` when a VAToolbox environment variable has a value it does
    ///   not take (``EnvironmentVariable/validateAll()``).
    static func effective(
        _ specification: DecoderSpecification, environment: (String) -> String? = environment
    ) throws(VTError) -> DecoderSpecification {
        try EnvironmentVariable.validateAll(environment)
        var effective = specification
        if specification.hardwareAcceleration == .preferred,
            let policy = try EnvironmentVariable.hardwareAcceleration(environment)
        {
            effective.hardwareAcceleration = policy
        }
        if effective.renderNodePath == nil, let path = environment(EnvironmentVariable.renderNode.name), !path.isEmpty {
            effective.renderNodePath = path
        }
        return effective
    }

    /// Opens the back end for a new session.
    ///
    /// - Throws: ``VTError/couldNotFindVideoDecoder`` when hardware is required and no node can
    ///   decode the stream (the reason lists each node's problem); what opening libavcodec throws.
    /// - Parameters:
    ///   - specification: The effective specification (``effective(_:environment:)``).
    ///   - requested: The application's own, when it differs: hints then name the environment
    ///     variable that changed it instead of the Swift API.
    static func choose(
        for format: VideoFormatDescription, specification: DecoderSpecification,
        requested: DecoderSpecification? = nil, heldSurfaces: Int
    ) throws(VTError) -> Choice {
        let fromEnvironment =
            requested.map { $0.hardwareAcceleration != specification.hardwareAcceleration } ?? false
        var reason: String
        switch specification.hardwareAcceleration {
        case .disabled:
            reason =
                "hardware acceleration is disabled"
                + (fromEnvironment ? " (VATOOLBOX_HWACCEL)" : " by the decoder specification")
        case .preferred, .required:
            // Opened on the watchdog's thread: a driver that hangs while the decoder opens does not
            // block the caller past the bound (Docs/Hardware.md, "A GPU that hangs"). A node the
            // caller may not open is refused here first, with the caller's credentials (a thread
            // can have a file-system user of its own, setfsuid(2)); opening a device file does
            // not wait on the GPU.
            let opening: Result<WatchdogBackend, VTError>
            if let path = specification.renderNodePath, let denied = RenderNode(path: path).accessError {
                opening = .failure(unusableNodes([(path, denied)]))
            } else {
                opening = WatchdogBackend.open(
                    limit: specification.hardwareResponseLimit, renderNode: specification.renderNodePath
                ) { () -> Result<any DecoderBackend, VTError> in
                    hardwareDecoder(for: format, specification: specification, heldSurfaces: heldSurfaces).map { $0 }
                }
            }
            switch opening {
            case .success(let watched):
                return Choice(backend: watched, hardwareUnavailableReason: nil)
            case .failure(let error):
                if specification.hardwareAcceleration == .required {
                    throw error.with(
                        "hardware decoding was required, but " + error.reason, cause: error.cause,
                        hint: [
                            error.hint,
                            fromEnvironment
                                ? "set VATOOLBOX_HWACCEL=auto, or unset it, to fall back to the CPU"
                                : "use DecoderSpecification(hardwareAcceleration: .preferred) to fall back to the CPU",
                        ].compactMap { $0 }.joined(separator: "; "))
                }
                reason = error.reason
            }
        }
        let software = try software(for: format, specification: specification)
        return Choice(backend: software, hardwareUnavailableReason: reason)
    }

    /// A software back end for the specification.
    static func software(
        for format: VideoFormatDescription, specification: DecoderSpecification
    ) throws(VTError) -> SoftwareBackend {
        try SoftwareBackend(
            formatDescription: format, configuration: softwareConfiguration(for: specification, format: format))
    }

    /// How a software back end decodes for the specification.
    static func softwareConfiguration(
        for specification: DecoderSpecification, format: VideoFormatDescription
    ) -> SoftwareDecoderConfiguration {
        .init(
            threadCount: specification.threadCount, realTime: specification.realTime,
            maximumPixels: specification.pictureLimits.maximumPixels(for: format.codecType))
    }

    /// The threads a software decoder will run for the specification: the count asked for, or
    /// one per core (what the memory estimate of ``PictureLimits`` assumes before one opens).
    static func expectedDecodingThreads(for specification: DecoderSpecification) -> Int {
        specification.threadCount > 0 ? specification.threadCount : max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    private static func hardwareDecoder(
        for format: VideoFormatDescription, specification: DecoderSpecification, heldSurfaces: Int
    ) -> Result<VAAPIBackend, VTError> {
        usableDevice(for: format, renderNodePath: specification.renderNodePath) { (device, profile) throws(VTError) in
            try VAAPIBackend(
                formatDescription: format, device: device, profile: profile, extraSurfaces: heldSurfaces,
                realTime: specification.realTime,
                maximumPixels: specification.pictureLimits.maximumPixels(for: format.codecType))
        }
    }

    /// Tries the render nodes in order until `use` succeeds with one whose driver can decode the
    /// stream; the error lists each node's problem.
    static func usableDevice<Value>(
        for format: VideoFormatDescription, renderNodePath: String?,
        _ use: (VADevice, HardwareDecodeProfile) throws(VTError) -> Value
    ) -> Result<Value, VTError> {
        let paths: [String]
        if let path = renderNodePath {
            paths = [path]
        } else {
            paths = RenderNode.all().map(\.path)
            if paths.isEmpty { return .failure(VTError.couldNotFindVideoDecoder.with(RenderNode.absenceReason())) }
        }
        var problems: [(path: String, error: VTError)] = []
        for path in paths {
            do throws(VTError) {
                let device = try VADevice.open(path: path)
                let profile = try device.capabilities.profile(for: format).get()
                let size = format.codedDimensions
                try device.probeDecoder(
                    profile, width: Int(size.width), height: Int(size.height),
                    tenBit: format.stream.bitDepthLuma > 8)
                return .success(try use(device, profile))
            } catch {
                problems.append((path, error))
            }
        }
        return .failure(unusableNodes(problems))
    }

    /// The error of render nodes none of which can decode the stream: each node's problem, and
    /// the first hint.
    private static func unusableNodes(_ problems: [(path: String, error: VTError)]) -> VTError {
        let reasons = problems.map { "\($0.path): \($0.error.reason)" + ($0.error.cause.map { " (\($0))" } ?? "") }
        return VTError.couldNotFindVideoDecoder.with(
            "no render node can decode this stream — " + reasons.joined(separator: "; "),
            hint: problems.lazy.compactMap(\.error.hint).first)
    }

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
