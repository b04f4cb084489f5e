internal import VAToolbox

// What a session says about its properties (VTSession.h): the supported-property dictionary and
// the serializable properties, with Apple's keys and string values.

// The keys are `nonisolated(unsafe)`: Foundation on Linux does not mark `NSString` `Sendable`, but
// these are immutable constants, stored so that `Unmanaged.passUnretained(key)` points at a live
// object.

/// A property's value type — `kVTPropertyTypeKey`.
nonisolated(unsafe) public let kVTPropertyTypeKey: CFString = "PropertyType"
/// One of a list of values — `kVTPropertyType_Enumeration`.
nonisolated(unsafe) public let kVTPropertyType_Enumeration: CFString = "Enumeration"
/// A Boolean — `kVTPropertyType_Boolean`.
nonisolated(unsafe) public let kVTPropertyType_Boolean: CFString = "Boolean"
/// A number — `kVTPropertyType_Number`.
nonisolated(unsafe) public let kVTPropertyType_Number: CFString = "Number"
/// Whether a property can be set — `kVTPropertyReadWriteStatusKey`.
nonisolated(unsafe) public let kVTPropertyReadWriteStatusKey: CFString = "ReadWriteStatus"
/// Read only — `kVTPropertyReadWriteStatus_ReadOnly`.
nonisolated(unsafe) public let kVTPropertyReadWriteStatus_ReadOnly: CFString = "ReadOnly"
/// Read and write — `kVTPropertyReadWriteStatus_ReadWrite`.
nonisolated(unsafe) public let kVTPropertyReadWriteStatus_ReadWrite: CFString = "ReadWrite"
/// Whether `VTSessionCopySerializableProperties` includes the property — `kVTPropertyShouldBeSerializedKey`.
nonisolated(unsafe) public let kVTPropertyShouldBeSerializedKey: CFString = "ShouldBeSerialized"
/// The smallest value — `kVTPropertySupportedValueMinimumKey`.
nonisolated(unsafe) public let kVTPropertySupportedValueMinimumKey: CFString = "SupportedValueMinimum"
/// The largest value — `kVTPropertySupportedValueMaximumKey`.
nonisolated(unsafe) public let kVTPropertySupportedValueMaximumKey: CFString = "SupportedValueMaximum"
/// The values of an enumeration — `kVTPropertySupportedValueListKey`.
nonisolated(unsafe) public let kVTPropertySupportedValueListKey: CFString = "SupportedValueList"
/// A link to the property's documentation — `kVTPropertyDocumentationKey`.
nonisolated(unsafe) public let kVTPropertyDocumentationKey: CFString = "DocumentationLink"

/// The value type of a property: Boolean for `PropertyValues.booleanKeys`, number or enumeration
/// for the others that have one, nil for a dictionary or an object.
private func propertyType(_ key: DecompressionPropertyKey) -> CFString? {
    if PropertyValues.booleanKeys.contains(key) { return kVTPropertyType_Boolean }
    switch key {
    case .threadCount, .outputPoolRequestedMinimumBufferCount, .numberOfFramesBeingDecoded, .usingGPURegistryID:
        return kVTPropertyType_Number
    case .fieldMode, .deinterlaceMode:
        return kVTPropertyType_Enumeration
    default:
        return nil
    }
}

/// What the supported-property dictionary says of one key.
private func propertyDescription(_ key: DecompressionPropertyKey) -> NSDictionary {
    let description = NSMutableDictionary()
    if let type = propertyType(key) { description[kVTPropertyTypeKey] = type }
    let writable = key.access == .readWrite
    description[kVTPropertyReadWriteStatusKey] =
        writable ? kVTPropertyReadWriteStatus_ReadWrite : kVTPropertyReadWriteStatus_ReadOnly
    description[kVTPropertyShouldBeSerializedKey] = writable ? kCFBooleanTrue : kCFBooleanFalse
    if key == .fieldMode {
        description[kVTPropertySupportedValueListKey] = NSArray(
            array: [
                FieldMode.bothFields, FieldMode.topFieldOnly, FieldMode.bottomFieldOnly, FieldMode.singleField,
                FieldMode.deinterlaceFields,
            ].map { NSString(string: $0) })
    }
    if key == .deinterlaceMode {
        description[kVTPropertySupportedValueListKey] = NSArray(array: [
            NSString(string: DeinterlaceMode.verticalFilter), NSString(string: DeinterlaceMode.temporal),
        ])
    }
    if key == .threadCount || key == .outputPoolRequestedMinimumBufferCount {
        description[kVTPropertySupportedValueMinimumKey] = NSNumber(value: 0)
    }
    return description
}

/// The properties the session implements, each with its type, whether it can be set and whether
/// it is serialized — `VTSessionCopySupportedPropertyDictionary`. Keys the session does not
/// implement (``DecompressionPropertyKey/access`` `.notSupported`) are left out; a pixel transfer
/// session has none.
///
/// - Returns: `noErr`; `kVTParameterErr` for an object that is not a session.
@discardableResult
public func VTSessionCopySupportedPropertyDictionary(
    _ session: VTSession, supportedPropertyDictionaryOut: UnsafeMutablePointer<CFDictionary?>
) -> OSStatus {
    if session is VTPixelTransferSession {
        supportedPropertyDictionaryOut.pointee = NSDictionary()
        return noErr
    }
    guard session is VTDecompressionSession else { return kVTParameterErr }
    let dictionary = NSMutableDictionary()
    for key in DecompressionPropertyKey.allDocumented where key.access != .notSupported {
        dictionary[NSString(string: key.rawValue)] = propertyDescription(key)
    }
    supportedPropertyDictionaryOut.pointee = dictionary
    return noErr
}

/// The current values of the properties marked `kVTPropertyShouldBeSerializedKey` (those that can
/// be set), to set again on another session with `VTSessionSetProperties` —
/// `VTSessionCopySerializableProperties`.
///
/// - Returns: `noErr`; `kVTInvalidSessionErr` after invalidation; `kVTParameterErr` for an object
///   that is not a session.
@discardableResult
public func VTSessionCopySerializableProperties(
    _ session: VTSession, allocator: CFAllocator?, dictionaryOut: UnsafeMutablePointer<CFDictionary?>
) -> OSStatus {
    if session is VTPixelTransferSession {
        dictionaryOut.pointee = NSDictionary()
        return noErr
    }
    guard let session = session as? VTDecompressionSession else { return kVTParameterErr }
    let dictionary = NSMutableDictionary()
    do throws(VTError) {
        for key in DecompressionPropertyKey.allDocumented where key.access == .readWrite {
            if let value = PropertyValues.object(try session.decompressionSession.property(key)) {
                dictionary[NSString(string: key.rawValue)] = value
            }
        }
    } catch {
        return error.status
    }
    dictionaryOut.pointee = dictionary
    return noErr
}
