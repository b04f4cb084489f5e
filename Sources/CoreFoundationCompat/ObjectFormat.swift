// `printf`-style formatting with objects for `%@`, as Foundation does it on Apple's platforms, for
// the `NSLog` and `String(format:)` overloads in NSLog.swift.

/// A Swift value's `Optional` case, whatever its wrapped type.
private protocol AnyOptional {
    /// The wrapped value, nil for `.none`.
    var wrappedValue: Any? { get }
}

extension Optional: AnyOptional {
    fileprivate var wrappedValue: Any? { self.map { $0 as Any } }
}

/// Formats a string with `printf` conversions whose `%@` arguments are objects or any Swift
/// value.
///
/// Each conversion is formatted on its own: `%@` with the argument's description (below), any
/// other one (`%d`, `%5.2f`, `%x`, `%p`, …) by Foundation's `String(format:arguments:)` with that
/// one argument, so numbers print exactly as they do in a plain `String(format:)`. Positional
/// arguments (`%2$@`), `*` widths and precisions, and the length modifiers are understood.
enum ObjectFormat {
    /// `format` with its conversions replaced by `arguments`.
    static func string(_ format: String, _ arguments: [Any]) -> String {
        var output = String.UnicodeScalarView()
        var scanner = FormatScanner(Array(format.unicodeScalars))
        var nextArgument = 0
        func argument(at position: Int?) -> Any? {
            let index = position.map { $0 - 1 } ?? nextArgument
            if position == nil { nextArgument += 1 }
            return arguments.indices.contains(index) ? arguments[index] : nil
        }
        while let scalar = scanner.next() {
            guard scalar == "%" else {
                output.append(scalar)
                continue
            }
            guard var conversion = scanner.conversion() else { break }
            if conversion.character == "%" {
                output.append("%")
                continue
            }
            // `*` widths and precisions take their argument before the value's.
            if conversion.width == "*" { conversion.width = String(integer(argument(at: nil)) ?? 0) }
            if conversion.precision == "*" { conversion.precision = String(integer(argument(at: nil)) ?? 0) }
            output.append(contentsOf: text(of: conversion, argument(at: conversion.position)).unicodeScalars)
        }
        return String(output)
    }

    /// One conversion's text.
    private static func text(of conversion: Conversion, _ value: Any?) -> String {
        let unwrapped = unwrap(value)
        // `%@`, and `%s` given a string rather than a C string pointer.
        if conversion.character == "@" || ("sS".unicodeScalars.contains(conversion.character) && unwrapped is String) {
            return conversion.padded(describe(value))
        }
        if let number = unwrapped as? NSNumber, !(unwrapped is CVarArg) {
            // An NSNumber is not a CVarArg on Linux; pass its value as the conversion reads it.
            if "dioxXuDOUcC".unicodeScalars.contains(conversion.character) {
                return String(format: conversion.specifier(length: "ll"), arguments: [number.int64Value])
            }
            return String(format: conversion.specifier(length: ""), arguments: [number.doubleValue])
        }
        guard let argument = unwrapped as? CVarArg else { return conversion.padded(describe(value)) }
        return String(format: conversion.specifier(length: conversion.length), arguments: [argument])
    }

    /// An integer argument of a `*` width or precision.
    private static func integer(_ value: Any?) -> Int? {
        switch unwrap(value) {
        case let int as Int: return int
        case let int32 as Int32: return Int(int32)
        case let number as NSNumber: return number.intValue
        default: return nil
        }
    }

    /// The value inside any number of optionals, nil for `.none`.
    private static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if let optional = value as? AnyOptional { return unwrap(optional.wrappedValue) }
        return value
    }

    /// What `%@` prints for a value, as on Apple's platforms: `(null)` for nil, a string as it
    /// is, an `NSError` as Apple's Foundation describes it (``appleDescription(of:)``), any other
    /// object its `description`, and any other Swift value `String(describing:)`.
    static func describe(_ value: Any?) -> String {
        switch unwrap(value) {
        case nil: return "(null)"
        case let string as String: return string
        case let error as NSError: return appleDescription(of: error)
        case let object as NSObject: return object.description
        case let other?: return String(describing: other)
        }
    }

    /// An error as Apple's `-[NSError description]` writes it:
    /// `Error Domain=NSOSStatusErrorDomain Code=-12909 "(null)"`, then
    /// ` UserInfo={key=value, …}` when the user info is not empty.
    ///
    /// The quoted text is the user info's `NSLocalizedDescriptionKey`; without it, what the
    /// domain says of the code (`strerror` for `NSPOSIXErrorDomain`, Foundation's description for
    /// `NSCocoaErrorDomain`), and `(null)` for the other domains, `NSOSStatusErrorDomain`
    /// included. The user info's keys are sorted (Apple's order is its dictionary's); a nested
    /// error reads `0x… {Error Domain=…}` as on Apple's platforms. Linux's Foundation writes
    /// the failure reason instead of the description and no space before `UserInfo`, hence this.
    static func appleDescription(of error: NSError) -> String {
        let message: String
        if let description = error.userInfo[NSLocalizedDescriptionKey] {
            message = describe(description)
        } else if error.domain == NSPOSIXErrorDomain, let text = strerror(Int32(truncatingIfNeeded: error.code)) {
            message = String(cString: text)
        } else if error.domain == NSCocoaErrorDomain {
            message = error.localizedDescription
        } else {
            message = "(null)"
        }
        var text = "Error Domain=\(error.domain) Code=\(error.code) \"\(message)\""
        if !error.userInfo.isEmpty {
            let entries = error.userInfo.map { (key: $0.key, value: userInfoDescription($0.value)) }
                .sorted { $0.key < $1.key }
            text += " UserInfo={" + entries.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + "}"
        }
        return text
    }

    /// A user info value as Apple's error description writes it.
    private static func userInfoDescription(_ value: Any) -> String {
        guard let error = value as? NSError else { return describe(value) }
        let address = UInt(bitPattern: Unmanaged.passUnretained(error).toOpaque())
        return "0x\(String(address, radix: 16)) {\(appleDescription(of: error))}"
    }
}

/// One `printf` conversion: `%[position$][flags][width][.precision][length]character`.
struct Conversion {
    /// The argument's 1-based position (`%2$d`), nil for the next argument.
    var position: Int?
    /// The flags, `-+ #0'`.
    var flags = ""
    /// The width, `*` when an argument gives it, empty for none.
    var width = ""
    /// The precision, `*` when an argument gives it, nil for none.
    var precision: String?
    /// The length modifier (`l`, `ll`, `h`, `z`, …).
    var length = ""
    /// The conversion character (`d`, `@`, `%`, …).
    var character: Unicode.Scalar = "%"

    /// The conversion for Foundation's formatter, one argument, no position.
    func specifier(length: String) -> String {
        "%" + flags + width + (precision.map { "." + $0 } ?? "") + length + String(character)
    }

    /// `text` cut to the precision and padded to the width, as `%s` does.
    func padded(_ text: String) -> String {
        var text = text
        if let precision, let limit = Int(precision), text.count > limit { text = String(text.prefix(limit)) }
        guard let minimum = Int(width), text.count < minimum else { return text }
        let padding = String(repeating: " ", count: minimum - text.count)
        return flags.contains("-") ? text + padding : padding + text
    }
}

/// Reads a format string's scalars and its conversions.
struct FormatScanner {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    /// The next scalar, nil at the end.
    mutating func next() -> Unicode.Scalar? {
        guard index < scalars.count else { return nil }
        defer { index += 1 }
        return scalars[index]
    }

    /// The conversion after a `%`; nil when the format ends inside it.
    mutating func conversion() -> Conversion? {
        var conversion = Conversion()
        let start = index
        let digits = take { $0.properties.numericType != nil && $0.isASCII }
        if !digits.isEmpty, peek == "$" {
            conversion.position = Int(digits)
            index += 1
        } else {
            index = start
        }
        conversion.flags = take { "-+ #0'".unicodeScalars.contains($0) }
        conversion.width = peek == "*" ? take(count: 1) : take { $0.isASCII && $0.properties.numericType != nil }
        if peek == "." {
            index += 1
            conversion.precision =
                peek == "*" ? take(count: 1) : take { $0.isASCII && $0.properties.numericType != nil }
        }
        conversion.length = take { "hlqLzjt".unicodeScalars.contains($0) }
        guard let character = next() else { return nil }
        conversion.character = character
        return conversion
    }

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    /// The scalars from here on while `predicate` holds, as a string.
    private mutating func take(while predicate: (Unicode.Scalar) -> Bool) -> String {
        var text = String.UnicodeScalarView()
        while let scalar = peek, predicate(scalar) {
            text.append(scalar)
            index += 1
        }
        return String(text)
    }

    /// The next `count` scalars, as a string.
    private mutating func take(count: Int) -> String {
        var taken = 0
        return take { _ in
            taken += 1
            return taken <= count
        }
    }
}
