import Foundation
import Testing

@testable import VAToolbox

/// The docs against the code: the DocC catalog's articles are the guides in Docs/, and the
/// tables of Swift names list what the library declares. (That every Swift block of the guides
/// compiles is checked by Scripts/check-snippets, which builds them as a dependent package.)
@Suite("Documentation")
struct DocumentationTests {
    static let catalogURL = TestData.packageRoot.appendingPathComponent("Sources/VAToolbox/VAToolbox.docc")

    static func root(_ path: String) -> URL { TestData.packageRoot.appendingPathComponent(path) }

    @Test("the catalog's articles are the guides in Docs/ (links, not copies)")
    func catalogArticlesAreDocs() throws {
        let manager = FileManager.default
        // Article name in the catalog → the guide in Docs/ (an article may not share a symbol's name).
        let articles = [
            "GettingStarted": "GettingStarted", "DecompressionSessionGuide": "DecompressionSession",
            "Hardware": "Hardware", "CLI": "CLI", "Architecture": "Architecture",
        ]
        for (article, guide) in articles {
            let path = Self.catalogURL.appendingPathComponent("\(article).md").path
            let destination = try manager.destinationOfSymbolicLink(atPath: path)
            #expect(destination == "../../../Docs/\(guide).md")
            let linked = try String(contentsOfFile: path, encoding: .utf8)
            let original = try String(contentsOf: Self.root("Docs/\(guide).md"), encoding: .utf8)
            #expect(linked == original)
        }
        let landing = try String(contentsOf: Self.catalogURL.appendingPathComponent("VAToolbox.md"), encoding: .utf8)
        for article in articles.keys { #expect(landing.contains("<doc:\(article)>"), "VAToolbox.md lists \(article)") }
    }

    /// Every pixel format constant, by its Swift name.
    static let pixelFormats: [String: PixelFormat] = [
        "yuv420Planar": .yuv420Planar, "yuv420PlanarFullRange": .yuv420PlanarFullRange,
        "nv12VideoRange": .nv12VideoRange, "nv12FullRange": .nv12FullRange, "p010VideoRange": .p010VideoRange,
        "p010FullRange": .p010FullRange, "nv16VideoRange": .nv16VideoRange, "p210VideoRange": .p210VideoRange,
        "nv24VideoRange": .nv24VideoRange, "p410VideoRange": .p410VideoRange, "bgra": .bgra, "rgb24": .rgb24,
        "yuv422Planar": .yuv422Planar, "yuv444Planar": .yuv444Planar, "gray8": .gray8,
        "yuv420Planar10": .yuv420Planar10, "yuv422Planar10": .yuv422Planar10, "yuv444Planar10": .yuv444Planar10,
        "yuv420Planar12": .yuv420Planar12, "yuv422Planar12": .yuv422Planar12, "yuv444Planar12": .yuv444Planar12,
        "gray10": .gray10, "yuv440Planar": .yuv440Planar, "yuv440Planar10": .yuv440Planar10,
        "yuv440Planar12": .yuv440Planar12,
    ]

    @Test("the pixel format table names every constant beside its FourCC")
    func pixelFormatTable() throws {
        let text = try String(contentsOf: Self.root("Docs/DecompressionSession.md"), encoding: .utf8)
        var listed: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, cells[1].hasPrefix("`.") else { continue }
            listed[String(cells[1].dropFirst(2).dropLast())] = String(cells[0].dropFirst().dropLast())
        }
        #expect(Set(listed.keys) == Set(Self.pixelFormats.keys))
        for (name, code) in listed {
            let format = try #require(Self.pixelFormats[name], "\(name) is not a PixelFormat constant")
            #expect(code == format.description, "\(name)")
        }
    }
}
