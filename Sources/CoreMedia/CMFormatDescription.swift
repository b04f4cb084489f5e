public import VAToolbox

/// A description of media samples — `CMFormatDescription` and `CMVideoFormatDescription`.
///
/// A handle on a VAToolbox ``VideoFormatDescription`` for compressed video, or on the size and
/// pixel format of uncompressed images (`CMVideoFormatDescriptionCreateForImageBuffer`).
public final class CMFormatDescription {
    /// What is described.
    public enum Content {
        /// Compressed video.
        case compressed(VideoFormatDescription)
        /// Uncompressed images of a size and pixel format.
        case image(width: Int32, height: Int32, pixelFormat: OSType)
    }

    /// What is described.
    public let content: Content
    /// The parameter sets, in memory that lives as long as the description (the getters lend
    /// pointers into it, as Core Media does).
    private let parameterSetStorage: [UnsafeMutableBufferPointer<UInt8>]

    /// Wraps a VAToolbox description.
    public init(_ description: VideoFormatDescription) {
        content = .compressed(description)
        parameterSetStorage = description.parameterSets.map { set in
            let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, set.count))
            _ = storage.initialize(from: set)
            return storage
        }
    }

    /// Describes uncompressed images.
    init(width: Int32, height: Int32, pixelFormat: OSType) {
        content = .image(width: width, height: height, pixelFormat: pixelFormat)
        parameterSetStorage = []
    }

    deinit {
        for storage in parameterSetStorage { storage.deallocate() }
    }

    /// The VAToolbox description of compressed video; nil for an image description.
    public var videoFormatDescription: VideoFormatDescription? {
        if case .compressed(let description) = content { return description }
        return nil
    }

    /// The parameter set at `index` and its length.
    func parameterSet(at index: Int) -> (UnsafePointer<UInt8>, Int)? {
        guard let description = videoFormatDescription, parameterSetStorage.indices.contains(index),
            let base = parameterSetStorage[index].baseAddress
        else { return nil }
        return (UnsafePointer(base), description.parameterSets[index].count)
    }
}

/// A video format description — `CMVideoFormatDescription`.
public typealias CMVideoFormatDescription = CMFormatDescription

// MARK: - Extension keys (CMFormatDescription.h), with Apple's string values

/// Codec configuration atoms (`avcC`, `hvcC`) — `kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms`.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms: CFString =
    "SampleDescriptionExtensionAtoms"
/// Whether samples use the full range — `kCMFormatDescriptionExtension_FullRangeVideo`.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_FullRangeVideo: CFString = "FullRangeVideo"
/// Fields per picture — `kCMFormatDescriptionExtension_FieldCount`.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_FieldCount: CFString = kCVImageBufferFieldCountKey
/// Pixel aspect ratio — `kCMFormatDescriptionExtension_PixelAspectRatio`.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_PixelAspectRatio: CFString =
    kCVImageBufferPixelAspectRatioKey
/// Colour primaries — `kCMFormatDescriptionExtension_ColorPrimaries`.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_ColorPrimaries: CFString = kCVImageBufferColorPrimariesKey
/// Transfer function — `kCMFormatDescriptionExtension_TransferFunction`.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_TransferFunction: CFString =
    kCVImageBufferTransferFunctionKey
/// YCbCr matrix — `kCMFormatDescriptionExtension_YCbCrMatrix`.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_YCbCrMatrix: CFString = kCVImageBufferYCbCrMatrixKey
/// The mastering display colour volume the container states, 24 bytes of `CFData` (the HEVC SEI
/// layout) — `kCMFormatDescriptionExtension_MasteringDisplayColorVolume`.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_MasteringDisplayColorVolume: CFString =
    kCVImageBufferMasteringDisplayColorVolumeKey
/// The content light level the container states, 4 bytes of `CFData` —
/// `kCMFormatDescriptionExtension_ContentLightLevelInfo`.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_ContentLightLevelInfo: CFString =
    kCVImageBufferContentLightLevelInfoKey
/// The ambient viewing environment the description states, 8 bytes of `CFData` (the SEI
/// layout) — `kCMFormatDescriptionExtension_AmbientViewingEnvironment`.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_AmbientViewingEnvironment: CFString =
    kCVImageBufferAmbientViewingEnvironmentKey
/// The transfer a display that knows it should use instead of the transfer function (an
/// `alternative_transfer_characteristics` SEI message's, HLG for a stream whose video usability
/// information says BT.2020), a transfer function string (`kCMFormatDescriptionTransferFunction_…`,
/// `kCVImageBufferTransferFunction_…`) — `kCMFormatDescriptionExtension_AlternativeTransferCharacteristics`.
/// VAToolbox attaches the stream's to each picture under the same key.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_AlternativeTransferCharacteristics: CFString =
    alternativeTransferCharacteristicsKey
/// The ICC colour profile the container states, `CFData` — `kCMFormatDescriptionExtension_ICCProfile`.
nonisolated(unsafe) public let kCMFormatDescriptionExtension_ICCProfile: CFString = kCVImageBufferICCProfileKey
/// The HLG transfer — `kCMFormatDescriptionTransferFunction_ITU_R_2100_HLG`.
nonisolated(unsafe) public let kCMFormatDescriptionTransferFunction_ITU_R_2100_HLG: CFString =
    kCVImageBufferTransferFunction_ITU_R_2100_HLG
/// The PQ transfer — `kCMFormatDescriptionTransferFunction_SMPTE_ST_2084_PQ`.
nonisolated(unsafe) public let kCMFormatDescriptionTransferFunction_SMPTE_ST_2084_PQ: CFString =
    kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ

// MARK: - Creation

/// Reads `count` parameter sets from C arrays.
private func parameterSets(_ count: Int, _ pointers: UnsafePointer<UnsafePointer<UInt8>>, _ sizes: UnsafePointer<Int>)
    -> [[UInt8]]
{
    (0..<count).map { Array(UnsafeBufferPointer(start: pointers[$0], count: sizes[$0])) }
}

/// Runs a VAToolbox initialiser and stores the description, or returns its status.
private func create(
    _ out: UnsafeMutablePointer<CMFormatDescription?>, extensions: CFDictionary? = nil,
    _ make: () throws(VTError) -> VideoFormatDescription
) -> OSStatus {
    do throws(VTError) {
        var description = try make()
        // The static HDR metadata the caller's container states (Apple's bytes): sessions attach
        // it to the pictures whose stream carries none of its own.
        if let bytes = dataValue(extensions, kCMFormatDescriptionExtension_MasteringDisplayColorVolume) {
            description.extensions.masteringDisplayColorVolume = MasteringDisplayColorVolume(appleBytes: bytes)
        }
        if let bytes = dataValue(extensions, kCMFormatDescriptionExtension_ContentLightLevelInfo) {
            description.extensions.contentLightLevel = ContentLightLevel(appleBytes: bytes)
        }
        if let bytes = dataValue(extensions, kCMFormatDescriptionExtension_AmbientViewingEnvironment) {
            description.extensions.ambientViewingEnvironment = AmbientViewingEnvironment(appleBytes: bytes)
        }
        if let name = extensions?.compatValue(forKey: kCMFormatDescriptionExtension_AlternativeTransferCharacteristics)
            as? String
        {
            description.extensions.alternativeTransferCharacteristics = CVImageBufferAttachmentKeys.transfer(
                named: name)
        }
        if let bytes = dataValue(extensions, kCMFormatDescriptionExtension_ICCProfile) {
            description.extensions.iccProfile = bytes
        }
        if let bytes = dolbyVisionAtom(extensions) {
            description.extensions.dolbyVisionConfiguration = DolbyVisionConfiguration(recordBytes: bytes)
        }
        out.pointee = CMFormatDescription(description)
        return noErr
    } catch {
        return error.status
    }
}

/// The Dolby Vision configuration record among the sample description extension atoms (`dvcC`,
/// `dvvC` or `dvwC`), nil when there is none.
private func dolbyVisionAtom(_ extensions: CFDictionary?) -> [UInt8]? {
    guard
        let atoms = extensions?.compatValue(forKey: kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms)
            as? NSDictionary
    else { return nil }
    for name in ["dvcC", "dvvC", "dvwC"] {
        switch atoms.object(forKey: name) {
        case let data as Data: return [UInt8](data)
        case let data as NSData: return [UInt8](Data(referencing: data))
        case let bytes as [UInt8]: return bytes
        default: continue
        }
    }
    return nil
}

/// The bytes of a `CFData` extension, nil when absent or not data.
private func dataValue(_ extensions: CFDictionary?, _ key: CFString) -> [UInt8]? {
    switch extensions?.compatValue(forKey: key) {
    case let data as Data: return [UInt8](data)
    case let data as NSData: return [UInt8](Data(referencing: data))
    case let bytes as [UInt8]: return bytes
    default: return nil
    }
}

/// A description from H.264 SPS and PPS NAL units (without start codes) —
/// `CMVideoFormatDescriptionCreateFromH264ParameterSets`
/// (``VideoFormatDescription/init(h264ParameterSets:nalUnitHeaderLength:)``).
///
/// - Returns: `noErr`, or `kCMFormatDescriptionError_InvalidParameter` for parameter sets that
///   do not parse or a header length other than 1, 2 or 4.
@discardableResult
public func CMVideoFormatDescriptionCreateFromH264ParameterSets(
    allocator: CFAllocator?, parameterSetCount: Int, parameterSetPointers: UnsafePointer<UnsafePointer<UInt8>>,
    parameterSetSizes: UnsafePointer<Int>, nalUnitHeaderLength NALUnitHeaderLength: Int32,
    formatDescriptionOut: UnsafeMutablePointer<CMFormatDescription?>
) -> OSStatus {
    create(formatDescriptionOut) { () throws(VTError) in
        try VideoFormatDescription(
            h264ParameterSets: parameterSets(parameterSetCount, parameterSetPointers, parameterSetSizes),
            nalUnitHeaderLength: Int(NALUnitHeaderLength))
    }
}

/// A description from HEVC VPS, SPS and PPS NAL units (without start codes) —
/// `CMVideoFormatDescriptionCreateFromHEVCParameterSets`
/// (``VideoFormatDescription/init(hevcParameterSets:nalUnitHeaderLength:)``).
///
/// - Parameter extensions: Extensions to add: the static HDR metadata
///   (`kCMFormatDescriptionExtension_MasteringDisplayColorVolume`, `…_ContentLightLevelInfo`);
///   the colour the bitstream states wins.
/// - Returns: `noErr`, or `kCMFormatDescriptionError_InvalidParameter` for parameter sets that
///   do not parse.
@discardableResult
public func CMVideoFormatDescriptionCreateFromHEVCParameterSets(
    allocator: CFAllocator?, parameterSetCount: Int, parameterSetPointers: UnsafePointer<UnsafePointer<UInt8>>,
    parameterSetSizes: UnsafePointer<Int>, nalUnitHeaderLength NALUnitHeaderLength: Int32, extensions: CFDictionary?,
    formatDescriptionOut: UnsafeMutablePointer<CMFormatDescription?>
) -> OSStatus {
    create(formatDescriptionOut, extensions: extensions) { () throws(VTError) in
        try VideoFormatDescription(
            hevcParameterSets: parameterSets(parameterSetCount, parameterSetPointers, parameterSetSizes),
            nalUnitHeaderLength: Int(NALUnitHeaderLength))
    }
}

/// A description from a codec and its configuration atom (`avcC`/`hvcC` under
/// `kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms`), as a MP4 reader makes it —
/// `CMVideoFormatDescriptionCreate`; for a pixel format codec type, an image description.
///
/// - Returns: `noErr`; `kCMFormatDescriptionError_InvalidParameter` for a compressed codec
///   without its configuration atom, or one that does not parse.
@discardableResult
public func CMVideoFormatDescriptionCreate(
    allocator: CFAllocator?, codecType: CMVideoCodecType, width: Int32, height: Int32, extensions: CFDictionary?,
    formatDescriptionOut: UnsafeMutablePointer<CMFormatDescription?>
) -> OSStatus {
    let atoms = extensions?.compatValue(forKey: kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms)
    let atom: (String) -> [UInt8]? = { name in
        guard let dictionary = atoms as? NSDictionary, let value = dictionary.object(forKey: name) else { return nil }
        if let data = value as? Data { return [UInt8](data) }
        if let data = value as? NSData { return [UInt8](Data(referencing: data)) }
        return value as? [UInt8]
    }
    switch codecType {
    case kCMVideoCodecType_H264:
        guard let avcC = atom("avcC") else { return kCMFormatDescriptionError_InvalidParameter }
        return create(formatDescriptionOut, extensions: extensions) { () throws(VTError) in
            try VideoFormatDescription(avcC: avcC)
        }
    case kCMVideoCodecType_HEVC:
        guard let hvcC = atom("hvcC") else { return kCMFormatDescriptionError_InvalidParameter }
        return create(formatDescriptionOut, extensions: extensions) { () throws(VTError) in
            try VideoFormatDescription(hvcC: hvcC)
        }
    default:
        guard PixelFormat(rawValue: codecType).ffmpegName != nil, width > 0, height > 0 else {
            return kCMFormatDescriptionError_InvalidParameter
        }
        formatDescriptionOut.pointee = CMFormatDescription(width: width, height: height, pixelFormat: codecType)
        return noErr
    }
}

/// A description of an image buffer's size and pixel format —
/// `CMVideoFormatDescriptionCreateForImageBuffer`.
@discardableResult
public func CMVideoFormatDescriptionCreateForImageBuffer(
    allocator: CFAllocator?, imageBuffer: CVImageBuffer,
    formatDescriptionOut: UnsafeMutablePointer<CMFormatDescription?>
) -> OSStatus {
    formatDescriptionOut.pointee = CMFormatDescription(
        width: Int32(CVPixelBufferGetWidth(imageBuffer)), height: Int32(CVPixelBufferGetHeight(imageBuffer)),
        pixelFormat: CVPixelBufferGetPixelFormatType(imageBuffer))
    return noErr
}

/// Whether an image description fits an image buffer — `CMVideoFormatDescriptionMatchesImageBuffer`.
public func CMVideoFormatDescriptionMatchesImageBuffer(
    _ videoDesc: CMVideoFormatDescription, imageBuffer: CVImageBuffer
) -> Bool {
    guard case .image(let width, let height, let format) = videoDesc.content else { return false }
    return Int(width) == CVPixelBufferGetWidth(imageBuffer) && Int(height) == CVPixelBufferGetHeight(imageBuffer)
        && format == CVPixelBufferGetPixelFormatType(imageBuffer)
}

// MARK: - Getters

/// The displayed size — `CMVideoFormatDescriptionGetDimensions`.
public func CMVideoFormatDescriptionGetDimensions(_ videoDesc: CMVideoFormatDescription) -> CMVideoDimensions {
    switch videoDesc.content {
    case .compressed(let description): return description.dimensions
    case .image(let width, let height, _): return CMVideoDimensions(width: width, height: height)
    }
}

/// `kCMMediaType_Video` — `CMFormatDescriptionGetMediaType`.
public func CMFormatDescriptionGetMediaType(_ desc: CMFormatDescription) -> CMMediaType { kCMMediaType_Video }

/// The codec (`'avc1'`, `'hvc1'`, …) or pixel format FourCC — `CMFormatDescriptionGetMediaSubType`.
public func CMFormatDescriptionGetMediaSubType(_ desc: CMFormatDescription) -> FourCharCode {
    switch desc.content {
    case .compressed(let description): return description.codecType.rawValue
    case .image(_, _, let format): return format
    }
}

/// The extensions: full range, field count, colour, pixel aspect ratio and the configuration
/// atom — `CMFormatDescriptionGetExtensions`.
public func CMFormatDescriptionGetExtensions(_ desc: CMFormatDescription) -> CFDictionary? {
    guard let description = desc.videoFormatDescription else { return nil }
    let extensions = description.extensions
    let dictionary = NSMutableDictionary()
    dictionary[kCMFormatDescriptionExtension_FullRangeVideo] = NSNumber(value: extensions.fullRangeVideo)
    dictionary[kCMFormatDescriptionExtension_FieldCount] = NSNumber(value: extensions.fieldCount)
    let colors = CVImageBufferAttachmentKeys.colorDictionary(
        primaries: extensions.colorPrimaries, transfer: extensions.transferFunction, matrix: extensions.yCbCrMatrix,
        pixelAspectRatio: extensions.pixelAspectRatio,
        masteringDisplayColorVolume: extensions.masteringDisplayColorVolume,
        contentLightLevel: extensions.contentLightLevel,
        ambientViewingEnvironment: extensions.ambientViewingEnvironment,
        iccProfile: extensions.iccProfile
    )
    if let value = extensions.alternativeTransferCharacteristics.flatMap({ CVImageBufferAttachmentKeys.transfers[$0] })
    {
        dictionary[kCMFormatDescriptionExtension_AlternativeTransferCharacteristics] = value
    }
    for case (let key as AnyHashable, let value) in colors { dictionary.setObject(value, forKey: key) }
    let atoms = NSMutableDictionary()
    if !extensions.decoderConfigurationRecord.isEmpty, let name = extensions.decoderConfigurationRecordName,
        reportedConfigurationAtoms.contains(name)
    {
        atoms[name] = NSData(
            bytes: extensions.decoderConfigurationRecord, length: extensions.decoderConfigurationRecord.count)
    }
    if let dolbyVision = extensions.dolbyVisionConfiguration {
        atoms[dolbyVision.boxType] = NSData(bytes: dolbyVision.recordBytes, length: dolbyVision.recordBytes.count)
    }
    if atoms.count > 0 { dictionary[kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms] = atoms }
    return dictionary
}

/// The configuration records ``CMFormatDescriptionGetExtensions(_:)`` reports as sample
/// description extension atoms: those of H.264 and HEVC.
private let reportedConfigurationAtoms: Set<String> = ["avcC", "hvcC"]

/// The extension keys that are also image buffer attachment keys, with the same meaning and
/// value — `CMVideoFormatDescriptionGetExtensionKeysCommonWithImageBuffers`: the field count,
/// pixel aspect ratio, colour code points, ICC profile and the static HDR metadata. An app copies these from a
/// description onto pictures it makes (as `CVBufferSetAttachment`), or compares them.
public func CMVideoFormatDescriptionGetExtensionKeysCommonWithImageBuffers() -> CFArray {
    CFArray(
        [
            kCMFormatDescriptionExtension_FieldCount, kCMFormatDescriptionExtension_PixelAspectRatio,
            kCMFormatDescriptionExtension_ColorPrimaries, kCMFormatDescriptionExtension_TransferFunction,
            kCMFormatDescriptionExtension_YCbCrMatrix, kCMFormatDescriptionExtension_ICCProfile,
            kCMFormatDescriptionExtension_MasteringDisplayColorVolume,
            kCMFormatDescriptionExtension_ContentLightLevelInfo,
            kCMFormatDescriptionExtension_AmbientViewingEnvironment,
        ])
}

/// One extension, or nil — `CMFormatDescriptionGetExtension`.
public func CMFormatDescriptionGetExtension(_ desc: CMFormatDescription, extensionKey: CFString) -> CFPropertyList? {
    CMFormatDescriptionGetExtensions(desc)?.compatValue(forKey: extensionKey) as AnyObject?
}

/// The displayed size, optionally corrected for pixel aspect ratio and clean aperture —
/// `CMVideoFormatDescriptionGetPresentationDimensions`.
public func CMVideoFormatDescriptionGetPresentationDimensions(
    _ videoDesc: CMVideoFormatDescription, usePixelAspectRatio: Bool, useCleanAperture: Bool
) -> CGSize {
    guard let description = videoDesc.videoFormatDescription else {
        let dimensions = CMVideoFormatDescriptionGetDimensions(videoDesc)
        return CGSize(width: Double(dimensions.width), height: Double(dimensions.height))
    }
    let size = description.presentationDimensions(usePixelAspectRatio: usePixelAspectRatio)
    return CGSize(width: size.width, height: size.height)
}

/// The clean aperture — `CMVideoFormatDescriptionGetCleanAperture`.
public func CMVideoFormatDescriptionGetCleanAperture(_ videoDesc: CMVideoFormatDescription, originIsAtTopLeft: Bool)
    -> CGRect
{
    guard let aperture = videoDesc.videoFormatDescription?.cleanAperture else {
        let dimensions = CMVideoFormatDescriptionGetDimensions(videoDesc)
        return CGRect(x: 0, y: 0, width: Double(dimensions.width), height: Double(dimensions.height))
    }
    return CGRect(x: aperture.left, y: aperture.top, width: aperture.width, height: aperture.height)
}

/// Whether two descriptions are equal — `CMFormatDescriptionEqual`.
public func CMFormatDescriptionEqual(
    _ formatDescription: CMFormatDescription?, otherFormatDescription: CMFormatDescription?
)
    -> Bool
{
    switch (formatDescription?.content, otherFormatDescription?.content) {
    case (.compressed(let lhs), .compressed(let rhs)): return lhs == rhs
    case (.image(let w1, let h1, let f1), .image(let w2, let h2, let f2)): return w1 == w2 && h1 == h2 && f1 == f2
    case (nil, nil): return true
    default: return false
    }
}

/// Lends one parameter set of a description, or its count and header length.
private func parameterSet(
    _ videoDesc: CMFormatDescription, codec: VideoCodecType, _ index: Int,
    _ pointerOut: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ sizeOut: UnsafeMutablePointer<Int>?,
    _ countOut: UnsafeMutablePointer<Int>?, _ headerLengthOut: UnsafeMutablePointer<Int32>?
) -> OSStatus {
    guard let description = videoDesc.videoFormatDescription, description.codecType == codec else {
        return kCMFormatDescriptionError_InvalidParameter
    }
    countOut?.pointee = description.parameterSetCount
    headerLengthOut?.pointee = Int32(description.nalUnitHeaderLength)
    guard pointerOut != nil || sizeOut != nil else { return noErr }
    guard let (pointer, size) = videoDesc.parameterSet(at: index) else {
        return kCMFormatDescriptionError_InvalidParameter
    }
    pointerOut?.pointee = pointer
    sizeOut?.pointee = size
    return noErr
}

/// The H.264 parameter set at an index (a pointer valid while the description lives), the count
/// and the NAL unit header length — `CMVideoFormatDescriptionGetH264ParameterSetAtIndex`.
@discardableResult
public func CMVideoFormatDescriptionGetH264ParameterSetAtIndex(
    _ videoDesc: CMFormatDescription, parameterSetIndex: Int,
    parameterSetPointerOut: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    parameterSetSizeOut: UnsafeMutablePointer<Int>?, parameterSetCountOut: UnsafeMutablePointer<Int>?,
    nalUnitHeaderLengthOut NALUnitHeaderLengthOut: UnsafeMutablePointer<Int32>?
) -> OSStatus {
    parameterSet(
        videoDesc, codec: .h264, parameterSetIndex, parameterSetPointerOut, parameterSetSizeOut, parameterSetCountOut,
        NALUnitHeaderLengthOut)
}

/// The HEVC parameter set at an index, the count and the NAL unit header length —
/// `CMVideoFormatDescriptionGetHEVCParameterSetAtIndex`.
@discardableResult
public func CMVideoFormatDescriptionGetHEVCParameterSetAtIndex(
    _ videoDesc: CMFormatDescription, parameterSetIndex: Int,
    parameterSetPointerOut: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    parameterSetSizeOut: UnsafeMutablePointer<Int>?, parameterSetCountOut: UnsafeMutablePointer<Int>?,
    nalUnitHeaderLengthOut NALUnitHeaderLengthOut: UnsafeMutablePointer<Int32>?
) -> OSStatus {
    parameterSet(
        videoDesc, codec: .hevc, parameterSetIndex, parameterSetPointerOut, parameterSetSizeOut, parameterSetCountOut,
        NALUnitHeaderLengthOut)
}
