// The Core Foundation vocabulary that VideoToolbox code uses, for Linux: the status type, the
// allocators, the CF type names and the byte-swapping functions. On Linux the CF types are
// aliases of the Foundation classes that Apple's toll-free bridging pairs them with, so that
// `kCVPixelBufferPixelFormatTypeKey as String` and `[String: Any] as CFDictionary` compile
// as they do on macOS.

@_exported import Foundation

/// A status code: 0 (`noErr`) for success, a negative Apple error code otherwise — `OSStatus`.
public typealias OSStatus = Int32
/// A four-character code packed big-endian into 32 bits — `OSType`.
public typealias OSType = UInt32
/// A four-character code — `FourCharCode`.
public typealias FourCharCode = UInt32
/// An index or count in Core Foundation's API — `CFIndex`.
public typealias CFIndex = Int
/// Any Core Foundation object — `CFTypeRef`.
public typealias CFTypeRef = AnyObject
/// A property-list value (string, number, data, array or dictionary) — `CFPropertyList`.
public typealias CFPropertyList = AnyObject

/// Success — `noErr`.
public let noErr: OSStatus = 0

/// A string — `CFString`, toll-free bridged to `NSString`.
public typealias CFString = NSString
/// An immutable dictionary — `CFDictionary`, toll-free bridged to `NSDictionary`.
public typealias CFDictionary = NSDictionary
/// A mutable dictionary — `CFMutableDictionary`, toll-free bridged to `NSMutableDictionary`.
public typealias CFMutableDictionary = NSMutableDictionary
/// A number — `CFNumber`, toll-free bridged to `NSNumber`.
public typealias CFNumber = NSNumber
/// A Boolean — `CFBoolean`; `kCFBooleanTrue` and `kCFBooleanFalse` are `NSNumber`s.
public typealias CFBoolean = NSNumber
/// Bytes — `CFData`, toll-free bridged to `NSData`.
public typealias CFData = NSData

/// The Boolean true — `kCFBooleanTrue`.
public let kCFBooleanTrue: CFBoolean = NSNumber(value: true)
/// The Boolean false — `kCFBooleanFalse`.
public let kCFBooleanFalse: CFBoolean = NSNumber(value: false)

/// Releases a Core Foundation object — `CFRelease`. Swift manages CF objects itself.
@available(*, unavailable, message: "Core Foundation objects are automatically memory managed; drop the call")
public func CFRelease(_ object: CFTypeRef?) {}

/// Retains a Core Foundation object — `CFRetain`. Swift manages CF objects itself.
@available(*, unavailable, message: "Core Foundation objects are automatically memory managed; drop the call")
public func CFRetain(_ object: CFTypeRef?) -> CFTypeRef? { object }
