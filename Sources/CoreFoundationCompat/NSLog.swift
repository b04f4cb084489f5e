// `NSLog` and `String(format:)` with objects for `%@`, as on Apple's platforms.
//
// On Linux, Foundation's `NSLog(_:_:)` and `String(format:_:)` take `CVarArg...`, and `NSObject`
// is not `CVarArg` there: `NSLog("failed: %@", error)` with an `NSError` (or an `NSNumber`, an
// `NSDictionary`, any object) does not compile. These overloads take `Any...`. A call whose
// arguments are all `CVarArg` still goes to Foundation's, which Swift prefers as the more specific
// overload, so `NSLog("%d frames", count)` is unchanged; a call with an object argument comes here
// and prints what Apple prints: `%@` is the object's description (an `NSError` reads
// `Error Domain=NSOSStatusErrorDomain Code=-12909 "(null)"` as Apple writes it), and every other
// conversion is Foundation's.

/// Logs a message to standard error with the date, process and thread, as Foundation's `NSLog`
/// does, with objects (an `NSError`, an `NSNumber`, …) or any value as `%@` arguments — `NSLog`.
///
/// - Parameters:
///   - format: A `printf` format whose `%@` conversions print their argument's description.
///   - args: The arguments, in order.
public func NSLog(_ format: String, _ args: Any...) {
    Foundation.NSLog("%@", ObjectFormat.string(format, args))
}

extension String {
    /// A string made from a `printf` format, with objects (an `NSError`, an `NSNumber`, …) or any
    /// value as `%@` arguments — `String(format:_:)` as on Apple's platforms.
    ///
    /// - Parameters:
    ///   - format: A `printf` format whose `%@` conversions print their argument's description.
    ///   - arguments: The arguments, in order.
    public init(format: String, _ arguments: Any...) {
        self = ObjectFormat.string(format, arguments)
    }
}

extension NSString {
    /// A string made from a `printf` format, with objects or any value as `%@` arguments —
    /// `NSString(format:_:)` as on Apple's platforms.
    ///
    /// - Parameters:
    ///   - format: A `printf` format whose `%@` conversions print their argument's description.
    ///   - arguments: The arguments, in order.
    public convenience init(format: String, _ arguments: Any...) {
        self.init(string: ObjectFormat.string(format, arguments))
    }
}
