import Foundation

/// A JSON value that keeps its objects' members in order, repeated keys included — as ffprobe
/// writes them (its HDR10+ side data repeats `maxscl` and the percentile keys), which
/// `JSONSerialization` would fold into one.
indirect enum OrderedJSON: Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    /// A number, as its text (`1`, `0.5`): compared as written.
    case number(String)
    case string(String)
    case array([OrderedJSON])
    case object([Member])

    /// An object member.
    struct Member: Equatable {
        var key: String
        var value: OrderedJSON
    }

    /// The parse error: what was expected and where.
    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    /// Parses a whole JSON text.
    static func parse(_ data: Data) throws -> OrderedJSON {
        var parser = Parser(bytes: Array(data))
        let value = try parser.value()
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.error("text after the value") }
        return value
    }

    /// The members of an object, empty for any other value.
    var members: [Member] {
        if case .object(let members) = self { return members }
        return []
    }

    /// The elements of an array, empty for any other value.
    var elements: [OrderedJSON] {
        if case .array(let elements) = self { return elements }
        return []
    }

    /// The first member named `key`.
    subscript(key: String) -> OrderedJSON? { members.first { $0.key == key }?.value }

    /// The value of a string.
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .number(let text): text
        case .string(let text): "\"\(text)\""
        case .array(let elements): "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .object(let members): "{" + members.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
        }
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        func error(_ what: String) -> ParseError { ParseError(description: "JSON: \(what) at byte \(index)") }

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        mutating func value() throws -> OrderedJSON {
            skipSpace()
            guard index < bytes.count else { throw error("a value expected") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object()
            case UInt8(ascii: "["): return try array()
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return try number()
            }
        }

        mutating func literal(_ text: String, _ value: OrderedJSON) throws -> OrderedJSON {
            let word = Array(text.utf8)
            guard bytes[index...].starts(with: word) else { throw error("\(text) expected") }
            index += word.count
            return value
        }

        mutating func number() throws -> OrderedJSON {
            let start = index
            while index < bytes.count, "+-.0123456789eE".utf8.contains(bytes[index]) { index += 1 }
            guard index > start else { throw error("a value expected") }
            return .number(String(decoding: bytes[start..<index], as: UTF8.self))
        }

        mutating func string() throws -> String {
            index += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                if bytes[index] == UInt8(ascii: "\\") {
                    scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                    raw = []
                    index += 1
                    guard index < bytes.count else { break }
                    let escaped = bytes[index]
                    switch escaped {
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "u"):
                        guard index + 4 < bytes.count,
                            let code = UInt32(
                                String(decoding: bytes[(index + 1)...(index + 4)], as: UTF8.self), radix: 16),
                            let scalar = Unicode.Scalar(code)
                        else { throw error("a \\u escape expected") }
                        scalars.append(scalar)
                        index += 4
                    default: scalars.append(Unicode.Scalar(escaped))
                    }
                } else {
                    raw.append(bytes[index])
                }
                index += 1
            }
            guard index < bytes.count else { throw error("an unterminated string") }
            index += 1
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            return String(scalars)
        }

        mutating func array() throws -> OrderedJSON {
            index += 1
            var elements: [OrderedJSON] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                elements.append(try value())
                skipSpace()
                guard index < bytes.count else { throw error("] expected") }
                index += 1
                if bytes[index - 1] == UInt8(ascii: "]") { return .array(elements) }
                guard bytes[index - 1] == UInt8(ascii: ",") else { throw error(", or ] expected") }
            }
        }

        mutating func object() throws -> OrderedJSON {
            index += 1
            var members: [Member] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("a key expected") }
                let key = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error(": expected") }
                index += 1
                members.append(Member(key: key, value: try value()))
                skipSpace()
                guard index < bytes.count else { throw error("} expected") }
                index += 1
                if bytes[index - 1] == UInt8(ascii: "}") { return .object(members) }
                guard bytes[index - 1] == UInt8(ascii: ",") else { throw error(", or } expected") }
            }
        }
    }
}
