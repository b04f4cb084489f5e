import Foundation
import Testing

@testable import VAToolbox

/// The docs against the code: every Swift block compiles (as a snippet in
/// DocumentationSnippets.swift), the DocC catalog's articles are the guides in Docs/, and the
/// tables of Swift names list what the library declares.
@Suite("Documentation")
struct DocumentationTests {
    /// One Swift block: where it is and its lines, without its leading `import` lines and
    /// without the indentation of its fence.
    struct Block: Hashable, CustomStringConvertible {
        var file: String
        var number: Int
        var lines: [String]
        var description: String { "\(file) \(number)" }
    }

    /// The Markdown files whose Swift blocks must compile: the README, Docs/*.md, and the
    /// catalog's own pages (its articles are Docs/ files).
    static func documents() throws -> [String] {
        let manager = FileManager.default
        let docs = try manager.contentsOfDirectory(atPath: TestData.packageRoot.appendingPathComponent("Docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "Docs/\($0)" }
        let catalog = try manager.contentsOfDirectory(atPath: catalogURL.path).filter { $0.hasSuffix(".md") }.sorted()
            .map { "Sources/VAToolbox/VAToolbox.docc/\($0)" }
            .filter { (try? manager.destinationOfSymbolicLink(atPath: root($0).path)) == nil }
        return ["README.md"] + docs + catalog
    }

    static let catalogURL = TestData.packageRoot.appendingPathComponent("Sources/VAToolbox/VAToolbox.docc")

    static func root(_ path: String) -> URL { TestData.packageRoot.appendingPathComponent(path) }

    /// The ```swift blocks of a Markdown file.
    static func blocks(in file: String) throws -> [Block] {
        let text = try String(contentsOf: root(file), encoding: .utf8)
        var blocks: [Block] = []
        var current: [String]?
        var indent = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
                indent = line.prefix { $0 == " " }.count
            } else if let lines = current, trimmed == "```" {
                var body = lines
                while let first = body.first, first.hasPrefix("import ") || first.isEmpty { body.removeFirst() }
                blocks.append(Block(file: file, number: blocks.count + 1, lines: body))
                current = nil
            } else if current != nil {
                current?.append(line.prefix(indent).allSatisfy { $0 == " " } ? String(line.dropFirst(indent)) : line)
            }
        }
        return blocks
    }

    /// The snippets of DocumentationSnippets.swift, by "FILE N", their lines without the four
    /// spaces of the function body.
    static func snippets() throws -> [String: [String]] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("DocumentationSnippets.swift")
        let text = try String(contentsOf: url, encoding: .utf8)
        var snippets: [String: [String]] = [:]
        var current: (key: String, lines: [String])?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// snippet: ") {
                current = (String(trimmed.dropFirst("// snippet: ".count)), [])
            } else if trimmed == "// end snippet", let finished = current {
                snippets[finished.key] = finished.lines
                current = nil
            } else if current != nil {
                current?.lines.append(line.hasPrefix("    ") ? String(line.dropFirst(4)) : line)
            }
        }
        return snippets
    }

    @Test("every Swift block in the README and Docs is a compiled snippet, verbatim")
    func blocksAreCompiled() throws {
        let snippets = try Self.snippets()
        var found: Set<String> = []
        for file in try Self.documents() {
            for block in try Self.blocks(in: file) {
                found.insert(block.description)
                let snippet = try #require(
                    snippets[block.description],
                    "\(block) has no snippet in Tests/VAToolboxTests/Documentation/DocumentationSnippets.swift")
                #expect(snippet == block.lines, "\(block) differs from its snippet")
            }
        }
        #expect(Set(snippets.keys) == found, "snippets whose block is gone: \(Set(snippets.keys).subtracting(found))")
        #expect(found.count >= 9)
    }

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
