// swift-tools-version:6.0
import PackageDescription

/// Debian packages that provide the C libraries; `Scripts/bootstrap` installs them.
let ffmpegPackages = ["libavcodec-dev", "libavformat-dev", "libavutil-dev", "libswscale-dev"]

let package = Package(
    name: "VAToolbox",
    products: [
        .library(name: "VAToolbox", targets: ["VAToolbox"]),
        .executable(name: "vatoolbox", targets: ["vatoolbox"]),
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
        .testTarget(
            name: "VAToolboxTests",
            dependencies: ["VAToolbox", "CFFmpeg", "CVAAPI", "CDRM"],
            path: "Tests/VAToolboxTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
