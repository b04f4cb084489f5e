package import VAToolbox

// The keys are `nonisolated(unsafe)`: Foundation on Linux does not mark `NSString` `Sendable`, but
// these are immutable string constants, never mutated after their one initialisation, and they
// must be stored (not computed) so that `Unmanaged.passUnretained(key)` points at a live object.

// The image buffer attachment keys and values (CVImageBuffer.h), with Apple's string values.

/// Colour primaries — `kCVImageBufferColorPrimariesKey`.
nonisolated(unsafe) public let kCVImageBufferColorPrimariesKey: CFString = "CVImageBufferColorPrimaries"
/// BT.709 primaries — `kCVImageBufferColorPrimaries_ITU_R_709_2`.
nonisolated(unsafe) public let kCVImageBufferColorPrimaries_ITU_R_709_2: CFString = "ITU_R_709_2"
/// EBU 3213 primaries — `kCVImageBufferColorPrimaries_EBU_3213`.
nonisolated(unsafe) public let kCVImageBufferColorPrimaries_EBU_3213: CFString = "EBU_3213"
/// SMPTE C primaries — `kCVImageBufferColorPrimaries_SMPTE_C`.
nonisolated(unsafe) public let kCVImageBufferColorPrimaries_SMPTE_C: CFString = "SMPTE_C"
/// BT.2020 primaries — `kCVImageBufferColorPrimaries_ITU_R_2020`.
nonisolated(unsafe) public let kCVImageBufferColorPrimaries_ITU_R_2020: CFString = "ITU_R_2020"
/// DCI-P3 primaries — `kCVImageBufferColorPrimaries_DCI_P3`.
nonisolated(unsafe) public let kCVImageBufferColorPrimaries_DCI_P3: CFString = "DCI_P3"
/// P3 D65 primaries — `kCVImageBufferColorPrimaries_P3_D65`.
nonisolated(unsafe) public let kCVImageBufferColorPrimaries_P3_D65: CFString = "P3_D65"
/// Transfer function — `kCVImageBufferTransferFunctionKey`.
nonisolated(unsafe) public let kCVImageBufferTransferFunctionKey: CFString = "CVImageBufferTransferFunction"
/// BT.709 transfer — `kCVImageBufferTransferFunction_ITU_R_709_2`.
nonisolated(unsafe) public let kCVImageBufferTransferFunction_ITU_R_709_2: CFString = "ITU_R_709_2"
/// SMPTE ST 2084 (PQ) transfer — `kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ`.
nonisolated(unsafe) public let kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ: CFString = "SMPTE_ST_2084_PQ"
/// BT.2100 HLG transfer — `kCVImageBufferTransferFunction_ITU_R_2100_HLG`.
nonisolated(unsafe) public let kCVImageBufferTransferFunction_ITU_R_2100_HLG: CFString = "ITU_R_2100_HLG"
/// sRGB transfer — `kCVImageBufferTransferFunction_sRGB`.
nonisolated(unsafe) public let kCVImageBufferTransferFunction_sRGB: CFString = "IEC_sRGB"
/// BT.2020 transfer (H.273's 14 and 15) — `kCVImageBufferTransferFunction_ITU_R_2020`.
nonisolated(unsafe) public let kCVImageBufferTransferFunction_ITU_R_2020: CFString = "ITU_R_2020"
/// SMPTE 240M transfer — `kCVImageBufferTransferFunction_SMPTE_240M_1995`.
nonisolated(unsafe) public let kCVImageBufferTransferFunction_SMPTE_240M_1995: CFString = "SMPTE_240M_1995"
/// Linear transfer — `kCVImageBufferTransferFunction_Linear`.
nonisolated(unsafe) public let kCVImageBufferTransferFunction_Linear: CFString = "Linear"
/// SMPTE ST 428-1 transfer — `kCVImageBufferTransferFunction_SMPTE_ST_428_1`.
nonisolated(unsafe) public let kCVImageBufferTransferFunction_SMPTE_ST_428_1: CFString = "SMPTE_ST_428_1"
/// YCbCr matrix — `kCVImageBufferYCbCrMatrixKey`.
nonisolated(unsafe) public let kCVImageBufferYCbCrMatrixKey: CFString = "CVImageBufferYCbCrMatrix"
/// BT.709 matrix — `kCVImageBufferYCbCrMatrix_ITU_R_709_2`.
nonisolated(unsafe) public let kCVImageBufferYCbCrMatrix_ITU_R_709_2: CFString = "ITU_R_709_2"
/// BT.601 matrix — `kCVImageBufferYCbCrMatrix_ITU_R_601_4`.
nonisolated(unsafe) public let kCVImageBufferYCbCrMatrix_ITU_R_601_4: CFString = "ITU_R_601_4"
/// BT.2020 matrix — `kCVImageBufferYCbCrMatrix_ITU_R_2020`.
nonisolated(unsafe) public let kCVImageBufferYCbCrMatrix_ITU_R_2020: CFString = "ITU_R_2020"
/// Fields per picture, 1 or 2 — `kCVImageBufferFieldCountKey`.
nonisolated(unsafe) public let kCVImageBufferFieldCountKey: CFString = "CVFieldCount"
/// Field order — `kCVImageBufferFieldDetailKey`.
nonisolated(unsafe) public let kCVImageBufferFieldDetailKey: CFString = "CVFieldDetail"
/// Top field first — `kCVImageBufferFieldDetailTemporalTopFirst`.
nonisolated(unsafe) public let kCVImageBufferFieldDetailTemporalTopFirst: CFString = "TemporalTopFirst"
/// Bottom field first — `kCVImageBufferFieldDetailTemporalBottomFirst`.
nonisolated(unsafe) public let kCVImageBufferFieldDetailTemporalBottomFirst: CFString = "TemporalBottomFirst"
/// Pixel aspect ratio, a dictionary of the two spacings — `kCVImageBufferPixelAspectRatioKey`.
nonisolated(unsafe) public let kCVImageBufferPixelAspectRatioKey: CFString = "CVPixelAspectRatio"
/// Horizontal spacing — `kCVImageBufferPixelAspectRatioHorizontalSpacingKey`.
nonisolated(unsafe) public let kCVImageBufferPixelAspectRatioHorizontalSpacingKey: CFString = "HorizontalSpacing"
/// Vertical spacing — `kCVImageBufferPixelAspectRatioVerticalSpacingKey`.
nonisolated(unsafe) public let kCVImageBufferPixelAspectRatioVerticalSpacingKey: CFString = "VerticalSpacing"
/// The mastering display colour volume, 24 bytes of `CFData` as the HEVC SEI message's payload
/// (big-endian; primaries green, blue, red, white point, maximum and minimum luminance) —
/// `kCVImageBufferMasteringDisplayColorVolumeKey`.
nonisolated(unsafe) public let kCVImageBufferMasteringDisplayColorVolumeKey: CFString = "MasteringDisplayColorVolume"
/// The content light level, 4 bytes of `CFData` (MaxCLL, MaxFALL, big-endian) —
/// `kCVImageBufferContentLightLevelInfoKey`.
nonisolated(unsafe) public let kCVImageBufferContentLightLevelInfoKey: CFString = "ContentLightLevelInfo"
/// The ambient viewing environment the picture was graded for, 8 bytes of `CFData` as the
/// `ambient_viewing_environment` SEI message's payload (illuminance in 0.0001 lux, light x and y
/// in 0.00002, big-endian) — `kCVImageBufferAmbientViewingEnvironmentKey`.
nonisolated(unsafe) public let kCVImageBufferAmbientViewingEnvironmentKey: CFString = "AmbientViewingEnvironment"
/// The ICC colour profile, `CFData` — `kCVImageBufferICCProfileKey`.
nonisolated(unsafe) public let kCVImageBufferICCProfileKey: CFString = "CVImageBufferICCProfile"
/// The name of CoreMedia's `kCMFormatDescriptionExtension_AlternativeTransferCharacteristics`,
/// under which VAToolbox also attaches a picture's preferred transfer (Apple's CoreVideo has no
/// key of its own for it): a transfer function string.
nonisolated(unsafe) package let alternativeTransferCharacteristicsKey: CFString = "AlternativeTransferCharacteristics"

/// The attachments a decoded picture starts with (and the colour extensions of a format
/// description, in CoreMedia).
package enum CVImageBufferAttachmentKeys {
    static var primaries: [ColorPrimaries: CFString] {
        [
            .itu709: kCVImageBufferColorPrimaries_ITU_R_709_2, .ebu3213: kCVImageBufferColorPrimaries_EBU_3213,
            .smpteC: kCVImageBufferColorPrimaries_SMPTE_C, .itu2020: kCVImageBufferColorPrimaries_ITU_R_2020,
            .dciP3: kCVImageBufferColorPrimaries_DCI_P3, .p3D65: kCVImageBufferColorPrimaries_P3_D65,
        ]
    }
    package static var transfers: [TransferFunction: CFString] {
        [
            .itu709: kCVImageBufferTransferFunction_ITU_R_709_2, .smpte170M: kCVImageBufferTransferFunction_ITU_R_709_2,
            .sRGB: kCVImageBufferTransferFunction_sRGB, .pq: kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ,
            .hlg: kCVImageBufferTransferFunction_ITU_R_2100_HLG,
            .itu2020TenBit: kCVImageBufferTransferFunction_ITU_R_2020,
            .itu2020TwelveBit: kCVImageBufferTransferFunction_ITU_R_2020,
            .smpte240M: kCVImageBufferTransferFunction_SMPTE_240M_1995, .linear: kCVImageBufferTransferFunction_Linear,
            .smpte428: kCVImageBufferTransferFunction_SMPTE_ST_428_1,
        ]
    }
    /// The transfer a CoreVideo transfer function string names (the code point
    /// `CVTransferFunctionGetIntegerCodePointForString` gives: BT.2020 is 14); nil for strings
    /// it does not know.
    package static func transfer(named name: String) -> TransferFunction? {
        let codes: [String: TransferFunction] = [
            kCVImageBufferTransferFunction_ITU_R_709_2 as String: .itu709,
            kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ as String: .pq,
            kCVImageBufferTransferFunction_ITU_R_2100_HLG as String: .hlg,
            kCVImageBufferTransferFunction_sRGB as String: .sRGB,
            kCVImageBufferTransferFunction_ITU_R_2020 as String: .itu2020TenBit,
            kCVImageBufferTransferFunction_SMPTE_240M_1995 as String: .smpte240M,
            kCVImageBufferTransferFunction_Linear as String: .linear,
            kCVImageBufferTransferFunction_SMPTE_ST_428_1 as String: .smpte428,
        ]
        return codes[name]
    }
    static var matrices: [YCbCrMatrix: CFString] {
        [
            .itu709: kCVImageBufferYCbCrMatrix_ITU_R_709_2, .bt470BG: kCVImageBufferYCbCrMatrix_ITU_R_601_4,
            .itu601: kCVImageBufferYCbCrMatrix_ITU_R_601_4, .itu2020: kCVImageBufferYCbCrMatrix_ITU_R_2020,
        ]
    }

    /// The `kCVImageBuffer…` dictionary of a picture's attachments.
    static func dictionary(for attachments: ImageBufferAttachments) -> NSMutableDictionary {
        let dictionary = colorDictionary(
            primaries: attachments.colorPrimaries, transfer: attachments.transferFunction,
            matrix: attachments.yCbCrMatrix, pixelAspectRatio: attachments.pixelAspectRatio,
            masteringDisplayColorVolume: attachments.masteringDisplayColorVolume,
            contentLightLevel: attachments.contentLightLevel,
            ambientViewingEnvironment: attachments.ambientViewingEnvironment, iccProfile: attachments.iccProfile)
        if let value = attachments.alternativeTransferCharacteristics.flatMap({ transfers[$0] }) {
            dictionary[alternativeTransferCharacteristicsKey] = value
        }
        dictionary[kCVImageBufferFieldCountKey] = NSNumber(value: attachments.fieldCount)
        if attachments.fieldCount == 2 {
            dictionary[kCVImageBufferFieldDetailKey] =
                attachments.topFieldFirst
                ? kCVImageBufferFieldDetailTemporalTopFirst : kCVImageBufferFieldDetailTemporalBottomFirst
        }
        return dictionary
    }

    /// The colour and aspect keys for the code points CoreVideo has constants for, the static
    /// HDR metadata as Apple's bytes, and the ICC profile.
    package static func colorDictionary(
        primaries: ColorPrimaries?, transfer: TransferFunction?, matrix: YCbCrMatrix?,
        pixelAspectRatio: PixelAspectRatio?, masteringDisplayColorVolume: MasteringDisplayColorVolume?,
        contentLightLevel: ContentLightLevel?, ambientViewingEnvironment: AmbientViewingEnvironment?,
        iccProfile: [UInt8]?
    ) -> NSMutableDictionary {
        let dictionary = NSMutableDictionary()
        if let value = primaries.flatMap({ Self.primaries[$0] }) {
            dictionary[kCVImageBufferColorPrimariesKey] = value
        }
        if let value = transfer.flatMap({ transfers[$0] }) {
            dictionary[kCVImageBufferTransferFunctionKey] = value
        }
        if let value = matrix.flatMap({ matrices[$0] }) {
            dictionary[kCVImageBufferYCbCrMatrixKey] = value
        }
        if let ratio = pixelAspectRatio {
            let spacing = NSMutableDictionary()
            spacing[kCVImageBufferPixelAspectRatioHorizontalSpacingKey] = NSNumber(value: ratio.horizontalSpacing)
            spacing[kCVImageBufferPixelAspectRatioVerticalSpacingKey] = NSNumber(value: ratio.verticalSpacing)
            dictionary[kCVImageBufferPixelAspectRatioKey] = spacing
        }
        if let bytes = masteringDisplayColorVolume?.appleBytes {
            dictionary[kCVImageBufferMasteringDisplayColorVolumeKey] = NSData(bytes: bytes, length: bytes.count)
        }
        if let bytes = contentLightLevel?.appleBytes {
            dictionary[kCVImageBufferContentLightLevelInfoKey] = NSData(bytes: bytes, length: bytes.count)
        }
        if let bytes = ambientViewingEnvironment?.appleBytes {
            dictionary[kCVImageBufferAmbientViewingEnvironmentKey] = NSData(bytes: bytes, length: bytes.count)
        }
        if let bytes = iccProfile {
            dictionary[kCVImageBufferICCProfileKey] = NSData(bytes: bytes, length: bytes.count)
        }
        return dictionary
    }
}
