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
        LibavLibraries.versions.map { Library(name: $0.name, version: $0.version, isRuntimeVersion: true) }
            + [Library(name: "libva", version: Display.headerVersion, isRuntimeVersion: false)]
    }
}
