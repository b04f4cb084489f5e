// Comparing format descriptions while ignoring some of their extensions (CMFormatDescription.h).

/// The keys a `…KeysToIgnore` argument names: one key, or an array of them.
private func keys(_ value: CFTypeRef?) -> [AnyHashable] {
    switch value {
    case nil: return []
    case let array as NSArray: return array.compactMap { $0 as? AnyHashable }
    case let array as CFArray: return array.elements.compactMap { $0 as? AnyHashable }
    case let key as NSString: return [key]
    default: return []
    }
}

/// A description's extensions without the keys to ignore.
private func extensions(
    _ description: CMFormatDescription, ignoring extensionKeys: [AnyHashable], atoms atomKeys: [AnyHashable]
) -> NSDictionary {
    guard let extensions = CMFormatDescriptionGetExtensions(description)?.mutableCopy() as? NSMutableDictionary else {
        return NSDictionary()
    }
    for key in extensionKeys { extensions.removeObject(forKey: key) }
    let atomsKey = kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms
    if !atomKeys.isEmpty, let atoms = extensions.compatValue(forKey: atomsKey) as? NSDictionary,
        let kept = atoms.mutableCopy() as? NSMutableDictionary
    {
        for key in atomKeys { kept.removeObject(forKey: key) }
        extensions[atomsKey] = kept
    }
    return extensions
}

/// Whether two descriptions are equal but for the extensions named, and the sample description
/// extension atoms named (`"avcC"`, …) — `CMFormatDescriptionEqualIgnoringExtensionKeys`.
///
/// - Parameters:
///   - extensionKeysToIgnore: A key or an array of keys (`kCMFormatDescriptionExtension_…`).
///   - sampleDescriptionExtensionAtomKeysToIgnore: An atom name or an array of them.
public func CMFormatDescriptionEqualIgnoringExtensionKeys(
    _ formatDescription: CMFormatDescription, otherFormatDescription: CMFormatDescription,
    extensionKeysToIgnore: CFTypeRef?, sampleDescriptionExtensionAtomKeysToIgnore: CFTypeRef?
) -> Bool {
    switch (formatDescription.content, otherFormatDescription.content) {
    case (.compressed(let lhs), .compressed(let rhs)):
        guard lhs.codecType == rhs.codecType, lhs.dimensions == rhs.dimensions else { return false }
        let ignored = keys(extensionKeysToIgnore)
        let atoms = keys(sampleDescriptionExtensionAtomKeysToIgnore)
        return extensions(formatDescription, ignoring: ignored, atoms: atoms)
            .isEqual(extensions(otherFormatDescription, ignoring: ignored, atoms: atoms))
    default:
        return CMFormatDescriptionEqual(formatDescription, otherFormatDescription: otherFormatDescription)
    }
}
