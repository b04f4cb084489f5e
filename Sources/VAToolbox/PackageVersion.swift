/// The version of this VAToolbox package, the number a release's git tag and the changelog's
/// newest entry carry.
///
/// VideoToolbox's counterpart is the framework's bundle version; a Swift package has none, so
/// the version is stated here and checked against `Docs/CHANGELOG.md` by the tests (see
/// `Docs/Releasing.md`). Versions follow Semantic Versioning. (Not `VAToolboxVersion`: the
/// symbol graph leaves out types named after the module plus `Version`, as it does Xcode's
/// generated `…VersionNumber`, so the reference would not show it.)
public enum PackageVersion {
    /// The major version: 0 while the public API may still change in a minor release.
    public static let major = 0

    /// The minor version.
    public static let minor = 1

    /// The patch version.
    public static let patch = 0

    /// `"major.minor.patch"`, for example `"0.1.0"`: the release's git tag.
    public static var string: String { "\(major).\(minor).\(patch)" }
}
