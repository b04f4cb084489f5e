// swift-tools-version:6.0
import PackageDescription

/// Debian packages that provide the C libraries; `Scripts/bootstrap` installs them.
let ffmpegPackages = ["libavcodec-dev", "libavformat-dev", "libavutil-dev", "libswscale-dev", "libavfilter-dev"]

let package = Package(
    name: "VAToolbox",
    products: [
        .library(name: "VAToolbox", targets: ["VAToolbox"]),
        .executable(name: "vatoolbox", targets: ["vatoolbox"]),
        // Source compatibility with Apple's frameworks (Docs/PortingFromVideoToolbox.md): each
        // re-exports the one below, down to the Core Foundation vocabulary.
        .library(name: "VideoToolbox", targets: ["VideoToolbox"]),
        .library(name: "CoreMedia", targets: ["CoreMedia"]),
        .library(name: "CoreVideo", targets: ["CoreVideo"]),
        // Nothing else: the test VA driver and the DRM shim are test tools, not products;
        // Scripts/test-va-libraries builds their shared libraries (Docs/TestVADriver.md).
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
        // The compatibility veneer over VAToolbox: Apple's C-style API, no decoding of its own.
        .target(name: "CoreFoundationCompat"),
        .target(name: "CoreVideo", dependencies: ["CoreFoundationCompat", "VAToolbox"]),
        .target(name: "CoreMedia", dependencies: ["CoreVideo", "VAToolbox"]),
        .target(name: "VideoToolbox", dependencies: ["CoreMedia", "VAToolbox"]),
        .executableTarget(
            name: "vatoolbox",
            dependencies: ["VAToolbox"]
        ),
        // The test VA driver (C): a libva back end without a GPU that stamps pictures instead of
        // decoding them, or, given VATB_REFERENCE_STREAM, fills them with the pictures libavcodec
        // decodes from that stream (linked, not dlopened: the clients that load the driver,
        // ffmpeg and VAToolbox, have the same libav* libraries loaded already). Compiled here to
        // check it builds cleanly; libva loads it as a shared library that Scripts/test-va-libraries
        // builds from the same sources. Not linked into anything.
        // The libraries are named here rather than through CFFmpeg: a C target gets a system
        // library's pkg-config flags (only -lavcodec) but not its module map's link lines.
        .target(
            name: "VATestDriver",
            path: "Tests/VATestDriver",
            linkerSettings: [.linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("avutil")]
        ),
        // drmGetNodeTypeFromFd calling /dev/null a render node; linked into the tests so that
        // libva-drm's call resolves to it.
        .target(name: "VADRMShim", path: "Tests/VADRMShim"),
        .testTarget(
            name: "VAToolboxTests",
            // CoreVideo (the compatibility module): Apple's attachment keys of GPU sessions'
            // pictures, compared with the CPU's on the test driver.
            dependencies: ["VAToolbox", "CoreVideo", "CFFmpeg", "CVAAPI", "CDRM", "VADRMShim"],
            path: "Tests/VAToolboxTests"
        ),
        // The seeds' decoders written against Apple's API (Seeds/), compiled unchanged against the
        // compatibility modules and checked against the ffmpeg CLI.
        .testTarget(
            name: "VideoToolboxCompatTests",
            dependencies: ["VideoToolbox", "VAToolbox"],
            path: "Tests/VideoToolboxCompatTests",
            exclude: ["Acceptance"]
        ),
        // An app's decoder written as an iOS developer writes it (Acceptance/), compiled unchanged
        // in Swift 5 language mode, as most apps still are, and checked against the ffmpeg CLI.
        .testTarget(
            name: "VideoToolboxAcceptanceTests",
            dependencies: ["VideoToolbox", "VAToolbox"],
            path: "Tests/VideoToolboxCompatTests/Acceptance",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
