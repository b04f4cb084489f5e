internal import CFFmpeg
internal import CVAAPI

/// The C libraries VAToolbox runs on, with their versions — what a bug report needs.
public enum LinkedLibraries {
    /// One library and its version.
    public struct Library: Sendable, Hashable, CustomStringConvertible {
        /// The library's name, for example `"libavcodec"`.
        public let name: String
        /// Its version, `"major.minor.micro"`.
        public let version: String
        /// Whether the version is the one loaded at run time (true) or the one of the headers
        /// the package was built against (false: libva has no run-time query without a display).
        public let isRuntimeVersion: Bool

        /// `"libavcodec 59.37.100"`.
        public var description: String { "\(name) \(version)\(isRuntimeVersion ? "" : " (headers)")" }
    }

    /// The libraries, FFmpeg's first.
    public static var all: [Library] {
        [
            Library(name: "libavcodec", version: dotted(avcodec_version()), isRuntimeVersion: true),
            Library(name: "libavformat", version: dotted(avformat_version()), isRuntimeVersion: true),
            Library(name: "libavutil", version: dotted(avutil_version()), isRuntimeVersion: true),
            Library(name: "libswscale", version: dotted(swscale_version()), isRuntimeVersion: true),
            Library(
                name: "libva", version: "\(CVAAPI_MAJOR_VERSION).\(CVAAPI_MINOR_VERSION).\(CVAAPI_MICRO_VERSION)",
                isRuntimeVersion: false),
        ]
    }

    /// FFmpeg packs versions as `major << 16 | minor << 8 | micro` (`AV_VERSION_INT`).
    private static func dotted(_ packed: UInt32) -> String {
        "\(packed >> 16).\((packed >> 8) & 0xFF).\(packed & 0xFF)"
    }
}
