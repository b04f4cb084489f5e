import CVAAPI
import Foundation
import Testing
import VADRMShim

/// The test VA driver (`Tests/VATestDriver`, built as `libvatbtest_drv_video.so`) and the DRM node
/// shim, as the tests use them. See Docs/TestVADriver.md.
enum TestVADriver {
    /// The name libva loads: `LIBVA_DRIVER_NAME=libvatbtest` → `libvatbtest_drv_video.so`.
    static let driverName = "libvatbtest"

    /// The vendor string the driver reports.
    static let vendor = "VAToolbox test driver 1.0"

    /// Where the two libraries are built: `test-va-libraries` beside the test executable
    /// (`.build/<triple>/<configuration>/test-va-libraries`). They are not products of the
    /// package (a dependent package must not see them), so SwiftPM does not link them;
    /// `Scripts/test-va-libraries` compiles them with the system C compiler, once per test run
    /// and only when their sources changed.
    static let buildDirectory: URL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("test-va-libraries")

    /// `libvatbtest_drv_video.so`.
    static let driverLibrary = buildDirectory.appendingPathComponent("libvatbtest_drv_video.so")

    /// `libvatbdrmshim.so`, for `LD_PRELOAD` into subprocesses.
    static let shimLibrary = buildDirectory.appendingPathComponent("libvatbdrmshim.so")

    /// What building the libraries printed when it failed; nil when they are built.
    static let buildFailure: String? = {
        let script = TestData.packageRoot.appendingPathComponent("Scripts/test-va-libraries")
        do {
            let result = try CommandRunner.run(script, [buildDirectory.path])
            return result.status == 0 ? nil : "Scripts/test-va-libraries failed: \(result.standardError)"
        } catch {
            return "Scripts/test-va-libraries could not run: \(error)"
        }
    }()

    /// Whether both libraries are built (the first use builds them).
    static var isBuilt: Bool {
        buildFailure == nil && FileManager.default.fileExists(atPath: driverLibrary.path)
            && FileManager.default.fileExists(atPath: shimLibrary.path)
    }

    /// Where subprocesses load the driver and the shim from: `VATB_SUBPROCESS_LIBRARIES` when set
    /// (`Scripts/sanitize` points it at uninstrumented builds, since a sanitized shim cannot load
    /// into the uninstrumented `ffmpeg`), else the build products folder.
    static let subprocessLibraries: URL =
        ProcessInfo.processInfo.environment["VATB_SUBPROCESS_LIBRARIES"].map(URL.init(fileURLWithPath:))
        ?? buildDirectory

    /// The environment that makes a subprocess (ffmpeg, vatoolbox) use the test driver on /dev/null.
    static func subprocessEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = subprocessLibraries.appendingPathComponent("libvatbdrmshim.so").path
        environment["LIBVA_DRIVERS_PATH"] = subprocessLibraries.path
        environment["LIBVA_DRIVER_NAME"] = driverName
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    /// The driver's process-wide counters (`VATBLiveObjects`).
    struct LiveObjects: Equatable, CustomStringConvertible {
        var drivers = 0
        var configs = 0
        var contexts = 0
        var surfaces = 0
        var buffers = 0
        var images = 0
        var endPictures = 0
        var failedEndPictures = 0
        var syncs = 0

        var description: String {
            "drivers \(drivers) configs \(configs) contexts \(contexts) surfaces \(surfaces) buffers \(buffers) "
                + "images \(images) endPictures \(endPictures) failed \(failedEndPictures) syncs \(syncs)"
        }
    }

    /// `vatb_test_driver_live_objects`, from the driver library this process keeps loaded.
    ///
    /// libva dlopens the driver at vaInitialize and dlcloses it at vaTerminate; holding our own
    /// handle on the same path keeps it (and its counters) loaded in between.
    private static let liveObjectsFunction: (@convention(c) (UnsafeMutableRawPointer) -> Void)? = {
        guard let handle = dlopen(driverLibrary.path, RTLD_NOW | RTLD_GLOBAL),
            let symbol = dlsym(handle, "vatb_test_driver_live_objects")
        else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer) -> Void).self)
    }()

    /// The current counters.
    static func liveObjects() throws -> LiveObjects {
        let function = try #require(liveObjectsFunction, "dlopen/dlsym of \(driverLibrary.path) failed")
        var values = [Int](repeating: 0, count: 9)  // nine C longs
        try values.withUnsafeMutableBytes { buffer in
            function(try #require(buffer.baseAddress))
        }
        return LiveObjects(
            drivers: values[0], configs: values[1], contexts: values[2], surfaces: values[3], buffers: values[4],
            images: values[5], endPictures: values[6], failedEndPictures: values[7], syncs: values[8])
    }

    /// Runs `body` with environment variables set (nil: unset), then restores them.
    /// Callers serialise: setenv is process-wide.
    static func withEnvironment<T>(_ variables: [String: String?], _ body: () throws -> T) rethrows -> T {
        let saved = variables.keys.map { ($0, getenv($0).map { String(cString: $0) }) }
        for (key, value) in variables {
            if let value { setenv(key, value, 1) } else { unsetenv(key) }
        }
        defer {
            for (key, value) in saved {
                if let value { setenv(key, value, 1) } else { unsetenv(key) }
            }
        }
        return try body()
    }

    /// A VA display on /dev/null driven by the test driver, through the statically linked shim.
    final class Display {
        let fd: Int32
        let display: VADisplay
        private var terminated = false

        /// Opens /dev/null and initialises libva with the test driver; `environment` holds the
        /// driver's `VATB_*` variables (read once, at vaInitialize).
        init(environment: [String: String] = [:]) throws {
            #expect(vatb_drm_shim_installed() == 1)
            let fd = open("/dev/null", O_RDWR | O_CLOEXEC)
            try #require(fd >= 0)
            guard let display = vaGetDisplayDRM(fd) else {
                close(fd)
                throw DriverTestError("vaGetDisplayDRM(/dev/null) returned NULL: the DRM shim did not take effect")
            }
            var variables: [String: String?] = [
                "LIBVA_DRIVERS_PATH": TestVADriver.buildDirectory.path,
                "LIBVA_DRIVER_NAME": TestVADriver.driverName, "LIBVA_MESSAGING_LEVEL": "0",
            ]
            for name in TestVADriver.faultVariables { variables[name] = environment[name] }
            var major: Int32 = 0
            var minor: Int32 = 0
            let status = TestVADriver.withEnvironment(variables) { vaInitialize(display, &major, &minor) }
            guard status == VA_STATUS_SUCCESS else {
                vaTerminate(display)
                close(fd)
                throw DriverTestError("vaInitialize: \(String(cString: vaErrorStr(status)))")
            }
            self.fd = fd
            self.display = display
        }

        /// vaTerminate and close the fd (once).
        func terminate() {
            guard !terminated else { return }
            terminated = true
            vaTerminate(display)
            close(fd)
        }

        deinit { terminate() }
    }

    /// The fault variables the driver reads.
    static let faultVariables = [
        "VATB_FAIL_CREATE_CONFIG", "VATB_FAIL_CREATE_CONTEXT", "VATB_FAIL_END_PICTURE", "VATB_FAIL_SYNC",
        "VATB_FAIL_PROCESSING",
        "VATB_UNSUPPORTED_PROFILES", "VATB_MAX_SIZE", "VATB_TRACE", "VATB_PERSONALITY", "VATB_CORRUPT_PICTURE",
        "VATB_FAULT_PROFILES", "VATB_LATENCY_US", "VATB_QUEUE_DEPTH", "VATB_ENGINES", "VATB_SHARED_GPU", "NVD_BACKEND",
    ]

    /// The driver personalities (`VATB_PERSONALITY`), nil for the test driver's own behaviour.
    static let personalities: [String?] = [nil, "ihd", "i965", "mesa", "nvidia"]
}

/// A failure of a test's setup, with a message.
struct DriverTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What the driver stamps at byte 0 of a decoded surface's luma plane (little-endian).
struct DriverStamp: Equatable {
    /// `VATB`, or `FALT` for a picture whose decode was failed on request.
    var magic: String
    var version: UInt32
    var poc: Int32
    /// 1-based count of successful vaEndPicture calls in the VA context.
    var decodeIndex: UInt32
    /// FNV-1a 64 over the picture's slices (each without trailing zero bytes).
    var hash: UInt64
    var sliceCount: UInt32
    var profile: Int32

    /// The stamp's size in bytes.
    static let size = 32

    init?(_ bytes: some Collection<UInt8>) {
        let bytes = Array(bytes.prefix(Self.size))
        guard bytes.count == Self.size else { return nil }
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) } }
        magic = String(decoding: bytes[0..<4], as: UTF8.self)
        version = u32(4)
        poc = Int32(bitPattern: u32(8))
        decodeIndex = u32(12)
        hash = u64(16)
        sliceCount = u32(24)
        profile = Int32(bitPattern: u32(28))
    }
}

/// FNV-1a 64, the driver's slice hash.
struct FNV1a64 {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func combine(_ bytes: some Collection<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
    }

    /// Hashes a slice as the driver does: without its trailing zero bytes.
    mutating func combineSlice(_ bytes: ArraySlice<UInt8>) {
        var end = bytes.endIndex
        while end > bytes.startIndex && bytes[end - 1] == 0 { end -= 1 }
        combine(bytes[bytes.startIndex..<end])
    }
}

/// `VADRMPRIMESurfaceDescriptor` read field by field: Swift does not import its arrays of
/// anonymous structs (`objects`, `layers`), so they are read at their C offsets.
struct PRIMEDescriptor {
    struct Object {
        var fd: Int32
        var size: UInt32
        var modifier: UInt64
    }

    struct Layer {
        var drmFormat: UInt32
        var numPlanes: UInt32
        var objectIndex: [UInt32]
        var offset: [UInt32]
        var pitch: [UInt32]
    }

    var fourcc: UInt32
    var width: UInt32
    var height: UInt32
    var objects: [Object]
    var layers: [Layer]

    /// The C layout: 4 × u32, objects[4] of 16 bytes (int fd, u32 size, u64 modifier) from byte 16,
    /// u32 num_layers at 80, layers[4] of 56 bytes (format, planes, 3 × u32[4]) from byte 84.
    static let expectedSize = 312

    init(_ descriptor: VADRMPRIMESurfaceDescriptor) {
        var descriptor = descriptor
        let bytes = withUnsafeBytes(of: &descriptor) { Array($0) }
        func u32(_ at: Int) -> UInt32 {
            bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) }
        }
        func u64(_ at: Int) -> UInt64 {
            bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt64.self) }
        }
        fourcc = u32(0)
        width = u32(4)
        height = u32(8)
        objects = (0..<Int(min(u32(12), 4))).map {
            Object(fd: Int32(bitPattern: u32(16 + 16 * $0)), size: u32(20 + 16 * $0), modifier: u64(24 + 16 * $0))
        }
        layers = (0..<Int(min(u32(80), 4))).map { index in
            let base = 84 + 56 * index
            return Layer(
                drmFormat: u32(base), numPlanes: u32(base + 4), objectIndex: (0..<4).map { u32(base + 8 + 4 * $0) },
                offset: (0..<4).map { u32(base + 24 + 4 * $0) }, pitch: (0..<4).map { u32(base + 40 + 4 * $0) })
        }
    }
}
