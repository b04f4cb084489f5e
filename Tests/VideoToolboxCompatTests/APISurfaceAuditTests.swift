import Foundation
import Testing

/// The audit table of Docs/PortingFromVideoToolbox.md ("The API surface, audited") says what is
/// true: a *yes* row's symbols are called by the tests it names, an *unavailable* one is declared
/// unavailable, a *no* one is not declared, and every public C-style function of the
/// compatibility modules has a row.
@Suite struct APISurfaceAuditTests {
    static let root = SeedDecoderTests.packageRoot
    static let testsFolder = root.appendingPathComponent("Tests/VideoToolboxCompatTests")

    /// One row of the table.
    struct Row: CustomStringConvertible {
        let symbols: [String]
        let status: String
        let references: [String]
        var description: String { symbols.joined(separator: ", ") }
    }

    /// The spans between backticks.
    static func codeSpans(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map {
            String($0.element)
        }
    }

    static let rows: [Row] = {
        let url = root.appendingPathComponent("Docs/PortingFromVideoToolbox.md")
        guard let text = try? String(contentsOf: url, encoding: .utf8),
            let start = text.range(of: "\n## The API surface, audited\n")
        else { return [] }
        let section = text[start.upperBound...].components(separatedBy: "\n## ")[0]
        return section.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { line in
            let cells = line.dropFirst(2).dropLast(2).components(separatedBy: " | ")
            return Row(
                symbols: codeSpans(cells[0]), status: cells.count > 1 ? cells[1] : "",
                references: cells.count > 2 ? codeSpans(cells[2]) : [])
        }
    }()

    /// The Swift files under a folder, by path relative to it.
    static func swiftFiles(_ folder: URL) -> [String: String] {
        var files: [String: String] = [:]
        let paths = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        for path in paths where path.hasSuffix(".swift") {
            files[path] = try? String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
        }
        return files
    }

    static let testFiles = swiftFiles(testsFolder)
    static let sources = ["CoreFoundationCompat", "CoreMedia", "CoreVideo", "VideoToolbox"].flatMap {
        swiftFiles(root.appendingPathComponent("Sources").appendingPathComponent($0)).values
    }.joined(separator: "\n")

    /// A reference's text: a program under Tests/VideoToolboxCompatTests (`Seeds/…swift`), or the
    /// body of a suite's test (`Suite.test`), up to the next `@Test`.
    static func text(of reference: String) -> String? {
        if reference.hasSuffix(".swift") { return testFiles[reference] }
        let parts = reference.split(separator: ".")
        guard parts.count == 2 else { return nil }
        for file in testFiles.values {
            guard let suite = file.range(of: "struct \(parts[0])"),
                let function = file.range(of: "func \(parts[1])(", range: suite.upperBound..<file.endIndex)
            else { continue }
            let end = file.range(of: "@Test", range: function.upperBound..<file.endIndex)?.lowerBound ?? file.endIndex
            return String(file[function.lowerBound..<end])
        }
        return nil
    }

    /// Whether `text` calls or names `symbol`: a whole identifier, `.member` for `Type.member`,
    /// the call's start for `String(format:)`.
    static func mentions(_ text: String, _ symbol: String) -> Bool {
        if symbol.hasSuffix(":)") { return text.contains(symbol.dropLast()) }
        let name = symbol.contains(".") ? "." + symbol.split(separator: ".").last! : symbol
        let pattern = "(?<![A-Za-z0-9_])" + NSRegularExpression.escapedPattern(for: name) + "(?![A-Za-z0-9_])"
        return text.range(of: pattern, options: .regularExpression) != nil
    }

    @Test func theTableIsThere() {
        #expect(Self.rows.count > 50)
        #expect(Set(Self.rows.map(\.status)).isSubset(of: ["yes", "unavailable", "no", "differs"]))
    }

    @Test func everyImplementedSymbolIsCalledByTheTestsNamed() throws {
        for row in Self.rows where row.status == "yes" {
            #expect(!row.references.isEmpty, "\(row): no test named")
            let texts = row.references.compactMap(Self.text(of:))
            #expect(texts.count == row.references.count, "\(row): \(row.references) not all found")
            for symbol in row.symbols {
                #expect(texts.contains { Self.mentions($0, symbol) }, "\(symbol) is not in \(row.references)")
            }
        }
    }

    @Test func unavailableSymbolsAreDeclaredUnavailableAndMissingOnesAreNotDeclared() {
        for row in Self.rows {
            for symbol in row.symbols where row.status == "unavailable" || row.status == "no" {
                let declaration =
                    "(func|struct|class|enum|typealias|let|var) "
                    + NSRegularExpression.escapedPattern(for: symbol) + "(?![A-Za-z0-9_])"
                let declared = Self.sources.range(of: declaration, options: .regularExpression) != nil
                let unavailable =
                    Self.sources.range(
                        of: "@available\\(\\s*\\*,\\s*unavailable[^@]*?" + declaration, options: .regularExpression)
                    != nil
                if row.status == "unavailable" {
                    #expect(unavailable, "\(symbol) is not declared unavailable")
                } else {
                    #expect(!declared, "\(symbol) is declared: its row should say yes")
                }
            }
        }
    }

    @Test func everyPublicCStyleFunctionHasARow() {
        let listed = Set(Self.rows.flatMap(\.symbols))
        let pattern = try? NSRegularExpression(pattern: "public func ((CM|CV|VT|CF)[A-Za-z0-9_]+)")
        let range = NSRange(Self.sources.startIndex..., in: Self.sources)
        let declared = Set(
            (pattern?.matches(in: Self.sources, range: range) ?? []).compactMap {
                Range($0.range(at: 1), in: Self.sources).map { String(Self.sources[$0]) }
            })
        #expect(declared.count > 150)
        #expect(declared.subtracting(listed).sorted() == [], "functions without a row in the audit table")
    }
}
