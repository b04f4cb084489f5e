// swift-tools-version:6.0
import PackageDescription

/// Debian packages that provide the C libraries; `Scripts/bootstrap` installs them.
let ffmpegPackages = ["libavcodec-dev", "libavformat-dev", "libavutil-dev", "libswscale-dev"]

let package = Package(
    name: "VAToolbox",
    products: [
        .library(name: "VAToolbox", targets: ["VAToolbox"]),
        .executable(name: "vatoolbox", targets: ["vatoolbox"]),
        // Only the library and the tool: a dependent package sees nothing else. The test VA
        // driver and the DRM shim are test tools; Scripts/test-va-libraries builds their shared
        // libraries (Docs/TestVADriver.md).
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
        // decoding them. Compiled here to check it builds cleanly; libva loads it as a shared library
        // that Scripts/test-va-libraries builds from the same sources. Not linked into anything.
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
