// swift-tools-version:6.0
import PackageDescription

/// Debian packages that provide the C libraries; `Scripts/bootstrap` installs them.
let ffmpegPackages = ["libavcodec-dev", "libavformat-dev", "libavutil-dev", "libswscale-dev"]

let package = Package(
    name: "VAToolbox",
    products: [
        .library(name: "VAToolbox", targets: ["VAToolbox"]),
        .executable(name: "vatoolbox", targets: ["vatoolbox"]),
        // Test support, see Docs/TestVADriver.md: the test VA driver, loaded by libva with
        // LIBVA_DRIVERS_PATH=<build dir> LIBVA_DRIVER_NAME=libvatbtest, and the DRM node shim
        // for LD_PRELOAD into the ffmpeg and vatoolbox CLIs.
        .library(name: "vatbtest_drv_video", type: .dynamic, targets: ["VATestDriver"]),
        .library(name: "vatbdrmshim", type: .dynamic, targets: ["VADRMShim"]),
    ],
    targets: [
        // C libraries, one system-library target per pkg-config family. Each module map
        // links every library it uses: Debian's libavcodec.pc does not pull in libavutil.
        .systemLibrary(
            name: "CFFmpeg",
            path: "Sources/CFFmpeg",
            pkgConfig: "libavcodec",
            providers: [.apt(ffmpegPackages)]
        ),
        .systemLibrary(
            name: "CVAAPI",
            path: "Sources/CVAAPI",
            pkgConfig: "libva-drm",
            providers: [.apt(["libva-dev"])]
        ),
        .systemLibrary(
            name: "CDRM",
            path: "Sources/CDRM",
            pkgConfig: "libdrm",
            providers: [.apt(["libdrm-dev"])]
        ),
        .target(
            name: "VAToolbox",
            dependencies: ["CFFmpeg", "CVAAPI", "CDRM"]
        ),
        .executableTarget(
            name: "vatoolbox",
            dependencies: ["VAToolbox", "CFFmpeg"]
        ),
        // The test VA driver (C): a libva back end without a GPU that stamps pictures instead of
        // decoding them. Tests dlopen it; it is not linked into anything.
        .target(name: "VATestDriver", path: "Tests/VATestDriver"),
        // drmGetNodeTypeFromFd calling /dev/null a render node; linked into the tests so that
        // libva-drm's call resolves to it.
        .target(name: "VADRMShim", path: "Tests/VADRMShim"),
        .testTarget(
            name: "VAToolboxTests",
            dependencies: ["VAToolbox", "CFFmpeg", "CVAAPI", "CDRM", "VADRMShim"],
            path: "Tests/VAToolboxTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
