/// An ordered collection of objects — `CFArray`.
///
/// Its own class, not an alias of `NSArray`: on Linux `NSArray.object(at:)` hands back a fresh
/// Swift copy of an element dictionary, so the attachment idiom (get the element, set a value in
/// it) would change a copy. Here ``CFArrayGetValueAtIndex(_:_:)`` returns the element itself.
public final class CFArray {
    /// The elements.
    public private(set) var elements: [AnyObject]

    /// Creates an array of `elements`.
    public init(_ elements: [AnyObject]) { self.elements = elements }

    /// The elements as an `NSArray` (the dictionaries in it are the same objects).
    public var nsArray: NSArray { NSArray(array: elements) }
}

/// The number of elements — `CFArrayGetCount`.
public func CFArrayGetCount(_ theArray: CFArray!) -> CFIndex {
    theArray?.elements.count ?? 0
}

/// The element at `idx`, unretained — `CFArrayGetValueAtIndex`. Turn it into an object with
/// `unsafeBitCast(_:to:)` or `Unmanaged.fromOpaque`, as on macOS.
///
/// - Precondition: `idx` is in `0..<CFArrayGetCount(theArray)`, as Core Foundation requires.
public func CFArrayGetValueAtIndex(_ theArray: CFArray!, _ idx: CFIndex) -> UnsafeRawPointer! {
    precondition(
        theArray != nil && theArray.elements.indices.contains(idx), "CFArrayGetValueAtIndex: index \(idx) out of range")
    return UnsafeRawPointer(Unmanaged.passUnretained(theArray.elements[idx]).toOpaque())
}

/// Sets `value` for `key` in a mutable dictionary — `CFDictionarySetValue`. Both are unretained
/// object pointers (`Unmanaged.passUnretained(_:).toOpaque()`), as on macOS.
public func CFDictionarySetValue(
    _ theDict: CFMutableDictionary!, _ key: UnsafeRawPointer!, _ value: UnsafeRawPointer!
) {
    guard let theDict, let key else { return }
    let keyObject = Unmanaged<AnyObject>.fromOpaque(key).takeUnretainedValue()
    guard let hashableKey = keyObject as? NSObject else { return }
    theDict[hashableKey] = value.map { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() }
}

/// The value for `key`, unretained, or nil — `CFDictionaryGetValue`.
///
/// Linux's `NSDictionary` hands a string value out as a new Swift `String` on every read, so a
/// string comes back as an interned `NSString` of the same characters, which lives as long as the
/// process (attachment and property values are a handful of constants); other objects are the
/// dictionary's own.
public func CFDictionaryGetValue(_ theDict: CFDictionary!, _ key: UnsafeRawPointer!) -> UnsafeRawPointer! {
    guard let theDict, let key,
        let hashableKey = Unmanaged<AnyObject>.fromOpaque(key).takeUnretainedValue() as? NSObject,
        let value = theDict[hashableKey]
    else { return nil }
    let object: AnyObject
    if let string = value as? String {
        object = InternedStrings.object(for: string)
    } else if let value = value as? NSObject {
        object = value
    } else {
        return nil
    }
    return UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
}

/// One `NSString` per distinct string handed out by pointer, kept for the life of the process.
private enum InternedStrings {
    /// The strings. `nonisolated(unsafe)`: only touched with `lock` held.
    nonisolated(unsafe) private static var table: [String: NSString] = [:]
    private static let lock = NSLock()

    static func object(for string: String) -> NSString {
        lock.lock()
        defer { lock.unlock() }
        if let object = table[string] { return object }
        let object = NSString(string: string)
        table[string] = object
        return object
    }
}

/// Whether the dictionary has `key` — `CFDictionaryContainsKey`.
public func CFDictionaryContainsKey(_ theDict: CFDictionary!, _ key: UnsafeRawPointer!) -> Bool {
    CFDictionaryGetValue(theDict, key) != nil
}
