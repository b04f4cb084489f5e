// Reading the values of attribute and property dictionaries the way Core Foundation code fills
// them: an `NSNumber`, a Swift number or Boolean bridged into a dictionary, or an array of them.

extension NSDictionary {
    /// The value for a CF string key, looked up by its string.
    public func compatValue(forKey key: CFString) -> Any? {
        object(forKey: key) ?? object(forKey: key as String)
    }
}

/// Reads an integer from a property value: an `NSNumber` or a Swift integer; nil otherwise.
public func compatInteger(_ value: Any?) -> Int? {
    switch value {
    case let number as NSNumber: return number.intValue
    case let int as Int: return int
    case let int32 as Int32: return Int(int32)
    case let uint32 as UInt32: return Int(uint32)
    case let int64 as Int64: return Int(exactly: int64)
    case let uint as UInt: return Int(exactly: uint)
    default: return nil
    }
}

/// Reads a Boolean from a property value: an `NSNumber` or a Swift `Bool`; nil otherwise.
public func compatBoolean(_ value: Any?) -> Bool? {
    switch value {
    case let bool as Bool: return bool
    case let number as NSNumber: return number.boolValue
    default: return nil
    }
}
