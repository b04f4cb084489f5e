import Foundation
import Testing

/// What a package that depends on VAToolbox sees (`Scripts/dependent-check` tries it with a real
/// dependent package): the library and the tool, not the test VA driver or DRM shim.
@Suite("Package products")
struct PackageProductsTests {
    @Test("the manifest offers the library and the tool, and no product of test support")
    func products() throws {
        let scratch = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        // Its own scratch folder: `swift test` holds the package's .build while this runs.
        let result = try CommandRunner.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "swift", "package", "--package-path", TestData.packageRoot.path, "--scratch-path", scratch.path,
                "dump-package",
            ])
        try #require(result.status == 0, "swift package dump-package failed: \(result.standardError)")
        let manifest = try #require(try JSONSerialization.jsonObject(with: result.standardOutput) as? [String: Any])
        let products = try #require(manifest["products"] as? [[String: Any]])
        let names = products.compactMap { $0["name"] as? String }
        #expect(names.contains("VAToolbox") && names.contains("vatoolbox"))
        let testSupport: Set = ["VATestDriver", "VADRMShim"]
        for product in products {
            let targets = Set(product["targets"] as? [String] ?? [])
            #expect(targets.isDisjoint(with: testSupport), "product \(product["name"] ?? "?") exposes \(targets)")
        }
        #expect(!names.contains("vatbtest_drv_video") && !names.contains("vatbdrmshim"))
        let targets = (manifest["targets"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(targets.contains("VATestDriver"), "the driver's C still compiles in the package's own build")
    }
}
