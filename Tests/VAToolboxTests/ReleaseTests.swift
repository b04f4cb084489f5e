import Foundation
import Testing

@testable import VAToolbox

/// The release bookkeeping of Docs/Releasing.md: the version constant, the changelog, the
/// licence and the tool's `version` command agree.
@Suite("PackageVersion and the changelog")
struct ReleaseTests {
    /// The versions the changelog's `## [x.y.z] - date` headings name, newest first.
    static func changelogVersions() throws -> [String] {
        let text = try String(
            contentsOf: TestData.packageRoot.appendingPathComponent("Docs/CHANGELOG.md"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("## ["), let close = line.firstIndex(of: "]") else { return nil }
            let name = line[line.index(line.startIndex, offsetBy: 4)..<close]
            return name == "Unreleased" ? nil : String(name)
        }
    }

    @Test("the changelog's newest version is the constant")
    func changelogMatchesConstant() throws {
        let versions = try Self.changelogVersions()
        #expect(versions.first == PackageVersion.string, "Docs/CHANGELOG.md lists \(versions)")
    }

    @Test("the constant is major.minor.patch")
    func constantIsSemanticVersion() {
        let parts = PackageVersion.string.split(separator: ".").map { Int($0) }
        #expect(parts == [PackageVersion.major, PackageVersion.minor, PackageVersion.patch])
    }

    @Test("the licence is the Apache License 2.0, in full")
    func licence() throws {
        let text = try String(contentsOf: TestData.packageRoot.appendingPathComponent("LICENSE"), encoding: .utf8)
        #expect(text.contains("Apache License"))
        #expect(text.contains("Version 2.0, January 2004"))
        #expect(text.contains("END OF TERMS AND CONDITIONS"))
    }

    @Test(
        "vatoolbox version and --version print the constant, then the C libraries",
        .enabled(if: CommandRunner.hasTool), arguments: ["version", "--version"])
    func toolPrintsVersion(command: String) throws {
        let result = try CommandRunner.vatoolbox([command])
        #expect(result.status == 0)
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(lines.first == "vatoolbox \(PackageVersion.string)")
        #expect(Array(lines.dropFirst()) == LinkedLibraries.all.map(\.description))
    }
}
