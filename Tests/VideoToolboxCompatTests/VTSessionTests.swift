import Foundation
import Testing
import VAToolbox
import VideoToolbox

/// VTSession.h, the rest of VTDecompressionSession.h and VTPixelTransferSession.h as VideoToolbox
/// code calls them, and every status code of ../shared/apple-status-codes.md.
@Suite struct VTSessionTests {
    /// A session for `format` (by default the first sample's of h264-baseline-cavlc.264).
    static func session(
        _ format: CMVideoFormatDescription? = nil, attributes: CFDictionary? = nil
    ) throws -> VTDecompressionSession {
        let format =
            try format
            ?? CompatibilityAPITests.formatDescription(
                try CompatibilityAPITests.samples("h264-baseline-cavlc.264", codec: .h264)[0].formatDescription)
        var created: VTDecompressionSession?
        #expect(
            VTDecompressionSessionCreate(
                allocator: nil, formatDescription: format, decoderSpecification: nil, imageBufferAttributes: attributes,
                outputCallback: nil, decompressionSessionOut: &created) == noErr)
        return try #require(created)
    }

    @Test func supportedPropertiesSayTheirTypeAndAccess() throws {
        let session = try Self.session()
        defer { VTDecompressionSessionInvalidate(session) }
        var supported: CFDictionary?
        #expect(VTSessionCopySupportedPropertyDictionary(session, supportedPropertyDictionaryOut: &supported) == noErr)
        let properties = try #require(supported)
        func entry(_ key: CFString) -> NSDictionary? { properties[key] as? NSDictionary }
        #expect(
            entry(kVTDecompressionPropertyKey_RealTime)?[kVTPropertyTypeKey] as? NSString == kVTPropertyType_Boolean)
        #expect(
            entry(kVTDecompressionPropertyKey_RealTime)?[kVTPropertyReadWriteStatusKey] as? NSString
                == kVTPropertyReadWriteStatus_ReadWrite)
        #expect(
            entry(kVTDecompressionPropertyKey_ThreadCount)?[kVTPropertyTypeKey] as? NSString == kVTPropertyType_Number)
        #expect(
            entry(kVTDecompressionPropertyKey_FieldMode)?[kVTPropertySupportedValueListKey] as? NSArray
                == [
                    kVTDecompressionProperty_FieldMode_BothFields, kVTDecompressionProperty_FieldMode_TopFieldOnly,
                    kVTDecompressionProperty_FieldMode_BottomFieldOnly, kVTDecompressionProperty_FieldMode_SingleField,
                    kVTDecompressionProperty_FieldMode_DeinterlaceFields,
                ] as NSArray)
        #expect(
            entry(kVTDecompressionPropertyKey_DeinterlaceMode)?[kVTPropertySupportedValueListKey] as? NSArray
                == [
                    kVTDecompressionProperty_DeinterlaceMode_VerticalFilter,
                    kVTDecompressionProperty_DeinterlaceMode_Temporal,
                ] as NSArray)
        #expect(
            entry(kVTDecompressionPropertyKey_UsingHardwareAcceleratedVideoDecoder)?[kVTPropertyReadWriteStatusKey]
                as? NSString == kVTPropertyReadWriteStatus_ReadOnly)
        #expect(entry(kVTDecompressionPropertyKey_ReducedFrameDelivery) == nil, "not implemented, not listed")
        #expect(
            VTSessionSetProperty(
                session, key: kVTDecompressionPropertyKey_ReducedFrameDelivery, value: NSNumber(value: 0.5))
                == kVTPropertyNotSupportedErr)
        for (key, description) in properties {
            let access = DecompressionPropertyKey(rawValue: "\(key)").access
            #expect(access != .notSupported, "\(key)")
            let status = (description as? NSDictionary)?[kVTPropertyReadWriteStatusKey] as? NSString
            #expect(
                status
                    == (access == .readWrite
                        ? kVTPropertyReadWriteStatus_ReadWrite : kVTPropertyReadWriteStatus_ReadOnly))
        }
    }

    /// What is serialized can be set on another session as it is.
    @Test func serializablePropertiesCarryToAnotherSession() throws {
        let session = try Self.session()
        defer { VTDecompressionSessionInvalidate(session) }
        #expect(
            VTSessionSetProperty(session, key: kVTDecompressionPropertyKey_RealTime, value: kCFBooleanFalse) == noErr)
        #expect(
            VTSessionSetProperty(
                session, key: kVTDecompressionPropertyKey_OutputPoolRequestedMinimumBufferCount,
                value: NSNumber(value: 3))
                == noErr)
        var serialized: CFDictionary?
        #expect(VTSessionCopySerializableProperties(session, allocator: nil, dictionaryOut: &serialized) == noErr)
        let properties = try #require(serialized)
        #expect(properties[kVTDecompressionPropertyKey_RealTime] as? NSNumber == kCFBooleanFalse)
        #expect(
            (properties[kVTDecompressionPropertyKey_OutputPoolRequestedMinimumBufferCount] as? NSNumber)?.intValue == 3)
        #expect(properties[kVTDecompressionPropertyKey_UsingHardwareAcceleratedVideoDecoder] == nil, "read-only")

        let other = try Self.session()
        defer { VTDecompressionSessionInvalidate(other) }
        #expect(VTSessionSetProperties(other, propertyDictionary: properties) == noErr)
        var value: CFTypeRef?
        // Through a typed pointer: Apple's `&value` idiom on an optional object draws Swift's warning.
        let copied = withUnsafeMutablePointer(to: &value) {
            VTSessionCopyProperty(other, key: kVTDecompressionPropertyKey_RealTime, allocator: nil, valueOut: $0)
        }
        #expect(copied == noErr)
        #expect((value as? NSNumber)?.boolValue == false)
    }

    @Test func decompressionPropertyKeysHaveApplesValues() {
        let keys: [(CFString, DecompressionPropertyKey)] = [
            (kVTDecompressionPropertyKey_PixelBufferPoolIsShared, .pixelBufferPoolIsShared),
            (
                kVTDecompressionPropertyKey_MinOutputPresentationTimeStampOfFramesBeingDecoded,
                .minOutputPresentationTimeStampOfFramesBeingDecoded
            ),
            (
                kVTDecompressionPropertyKey_MaxOutputPresentationTimeStampOfFramesBeingDecoded,
                .maxOutputPresentationTimeStampOfFramesBeingDecoded
            ),
            (kVTDecompressionPropertyKey_ContentHasInterframeDependencies, .contentHasInterframeDependencies),
            (kVTDecompressionPropertyKey_UsingGPURegistryID, .usingGPURegistryID),
            (kVTDecompressionPropertyKey_DeinterlaceMode, .deinterlaceMode),
            (kVTDecompressionPropertyKey_ReducedResolutionDecode, .reducedResolutionDecode),
            (kVTDecompressionPropertyKey_ReducedCoefficientDecode, .reducedCoefficientDecode),
            (kVTDecompressionPropertyKey_ReducedFrameDelivery, .reducedFrameDelivery),
            (kVTDecompressionPropertyKey_OnlyTheseFrames, .onlyTheseFrames),
            (kVTDecompressionProperty_TemporalLevelLimit, .temporalLevelLimit),
            (kVTDecompressionPropertyKey_SuggestedQualityOfServiceTiers, .suggestedQualityOfServiceTiers),
            (kVTDecompressionPropertyKey_SupportedPixelFormatsOrderedByQuality, .supportedPixelFormatsOrderedByQuality),
            (
                kVTDecompressionPropertyKey_SupportedPixelFormatsOrderedByPerformance,
                .supportedPixelFormatsOrderedByPerformance
            ),
            (
                kVTDecompressionPropertyKey_PixelFormatsWithReducedResolutionSupport,
                .pixelFormatsWithReducedResolutionSupport
            ),
            (kVTDecompressionPropertyKey_PixelTransferProperties, .pixelTransferProperties),
        ]
        for (key, native) in keys { #expect(key == native.rawValue as NSString) }
        #expect(kVTDecompressionProperty_FieldMode_TopFieldOnly == FieldMode.topFieldOnly as NSString)
        #expect(kVTDecompressionProperty_FieldMode_DeinterlaceFields == FieldMode.deinterlaceFields as NSString)
        #expect(kVTDecompressionProperty_OnlyTheseFrames_KeyFrames == "KeyFrames")
        #expect(kVTPropertyTypeKey == "PropertyType" && kVTPropertyReadWriteStatusKey == "ReadWriteStatus")
    }

    /// Black in the session's output format: Y 16 (video range) or 0 (full range), chroma 128.
    @Test func blackPixelBuffersAreBlackInTheOutputFormat() throws {
        let native = try Self.session()
        var black: CVPixelBuffer?
        #expect(VTDecompressionSessionCopyBlackPixelBuffer(native, pixelBufferOut: &black) == noErr)
        var buffer = try #require(black)
        #expect(CVPixelBufferGetPixelFormatType(buffer) == kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        #expect(CVPixelBufferGetWidth(buffer) == 320 && CVPixelBufferGetHeight(buffer) == 240)
        #expect(CVPixelBufferLockBaseAddress(buffer, .readOnly) == kCVReturnSuccess)
        let luma = try #require(CVPixelBufferGetBaseAddressOfPlane(buffer, 0)).assumingMemoryBound(to: UInt8.self)
        let chroma = try #require(CVPixelBufferGetBaseAddressOfPlane(buffer, 1)).assumingMemoryBound(to: UInt8.self)
        #expect(luma[0] == 16 && luma[319] == 16 && chroma[0] == 128 && chroma[1] == 128)
        CVPixelBufferUnlockBaseAddress(buffer, .readOnly)
        VTDecompressionSessionInvalidate(native)
        #expect(VTDecompressionSessionCopyBlackPixelBuffer(native, pixelBufferOut: &black) == kVTInvalidSessionErr)

        let attributes: [NSString: Any] = [
            kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_32BGRA, kCVPixelBufferWidthKey: 64,
            kCVPixelBufferHeightKey: 32,
        ]
        let bgra = try Self.session(attributes: attributes as CFDictionary)
        defer { VTDecompressionSessionInvalidate(bgra) }
        #expect(VTDecompressionSessionCopyBlackPixelBuffer(bgra, pixelBufferOut: &black) == noErr)
        buffer = try #require(black)
        #expect(CVPixelBufferGetPixelFormatType(buffer) == kCVPixelFormatType_32BGRA)
        #expect(CVPixelBufferGetWidth(buffer) == 64 && CVPixelBufferGetHeight(buffer) == 32)
        #expect(CVPixelBufferLockBaseAddress(buffer, .readOnly) == kCVReturnSuccess)
        let pixel = try #require(CVPixelBufferGetBaseAddress(buffer)).assumingMemoryBound(to: UInt8.self)
        #expect([pixel[0], pixel[1], pixel[2], pixel[3]] == [0, 0, 0, 255])
        CVPixelBufferUnlockBaseAddress(buffer, .readOnly)
    }

    /// A white NV12 picture (Y 235, chroma 128, video range) converts to white BGRA (libswscale's
    /// integer matrix gives 253 to 255).
    @Test func pixelTransferConvertsAndCopiesTheColourAttachments() throws {
        let source = try CVImageBufferTests.buffer(32, 16)
        #expect(CVPixelBufferLockBaseAddress(source, []) == kCVReturnSuccess)
        for (plane, value) in [(0, 235), (1, 128)] {
            let base = try #require(CVPixelBufferGetBaseAddressOfPlane(source, plane))
            memset(
                base, Int32(value),
                CVPixelBufferGetBytesPerRowOfPlane(source, plane) * CVPixelBufferGetHeightOfPlane(source, plane))
        }
        CVPixelBufferUnlockBaseAddress(source, [])
        CVBufferSetAttachment(
            source, kCVImageBufferYCbCrMatrixKey, kCVImageBufferYCbCrMatrix_ITU_R_709_2, .shouldPropagate)
        var created: CVPixelBuffer?
        #expect(CVPixelBufferCreate(nil, 32, 16, kCVPixelFormatType_32BGRA, nil, &created) == kCVReturnSuccess)
        let destination = try #require(created)

        var made: VTPixelTransferSession?
        #expect(VTPixelTransferSessionCreate(allocator: kCFAllocatorDefault, pixelTransferSessionOut: &made) == noErr)
        let transfer = try #require(made)
        #expect(VTPixelTransferSessionTransferImage(transfer, from: source, to: destination) == noErr)
        #expect(CVPixelBufferLockBaseAddress(destination, .readOnly) == kCVReturnSuccess)
        let pixel = try #require(CVPixelBufferGetBaseAddress(destination)).assumingMemoryBound(to: UInt8.self)
        #expect((0..<3).allSatisfy { pixel[$0] >= 250 } && pixel[3] == 255, "white: \([pixel[0], pixel[1], pixel[2]])")
        CVPixelBufferUnlockBaseAddress(destination, .readOnly)
        #expect(
            CVBufferCopyAttachment(destination, kCVImageBufferYCbCrMatrixKey, nil) as? NSString
                == kCVImageBufferYCbCrMatrix_ITU_R_709_2)
        #expect(
            VTSessionSetProperty(transfer, key: "ScalingMode" as CFString, value: "Trim" as NSString)
                == kVTPropertyNotSupportedErr)
        VTPixelTransferSessionInvalidate(transfer)
        #expect(VTPixelTransferSessionTransferImage(transfer, from: source, to: destination) == kVTInvalidSessionErr)
    }

    /// Every row of ../shared/apple-status-codes.md has its constant, with Apple's value.
    @Test(.enabled(if: !CompatibilityAPITests.referenceRows.isEmpty)) func everyStatusCodeHasItsConstant() {
        let constants: [String: OSStatus] = [
            "kVTPropertyNotSupportedErr": kVTPropertyNotSupportedErr, "kVTPropertyReadOnlyErr": kVTPropertyReadOnlyErr,
            "kVTParameterErr": kVTParameterErr, "kVTInvalidSessionErr": kVTInvalidSessionErr,
            "kVTAllocationFailedErr": kVTAllocationFailedErr,
            "kVTPixelTransferNotSupportedErr": kVTPixelTransferNotSupportedErr,
            "kVTCouldNotFindVideoDecoderErr": kVTCouldNotFindVideoDecoderErr,
            "kVTCouldNotCreateInstanceErr": kVTCouldNotCreateInstanceErr,
            "kVTCouldNotFindVideoEncoderErr": kVTCouldNotFindVideoEncoderErr,
            "kVTVideoDecoderBadDataErr": kVTVideoDecoderBadDataErr,
            "kVTVideoDecoderUnsupportedDataFormatErr": kVTVideoDecoderUnsupportedDataFormatErr,
            "kVTVideoDecoderMalfunctionErr": kVTVideoDecoderMalfunctionErr,
            "kVTVideoEncoderMalfunctionErr": kVTVideoEncoderMalfunctionErr,
            "kVTVideoDecoderNotAvailableNowErr": kVTVideoDecoderNotAvailableNowErr,
            "kVTImageRotationNotSupportedErr": kVTImageRotationNotSupportedErr,
            "kVTVideoEncoderNotAvailableNowErr": kVTVideoEncoderNotAvailableNowErr,
            "kVTFormatDescriptionChangeNotSupportedErr": kVTFormatDescriptionChangeNotSupportedErr,
            "kVTInsufficientSourceColorDataErr": kVTInsufficientSourceColorDataErr,
            "kVTCouldNotCreateColorCorrectionDataErr": kVTCouldNotCreateColorCorrectionDataErr,
            "kVTColorSyncTransformConvertFailedErr": kVTColorSyncTransformConvertFailedErr,
            "kVTVideoDecoderAuthorizationErr": kVTVideoDecoderAuthorizationErr,
            "kVTVideoEncoderAuthorizationErr": kVTVideoEncoderAuthorizationErr,
            "kVTColorCorrectionPixelTransferFailedErr": kVTColorCorrectionPixelTransferFailedErr,
            "kVTMultiPassStorageIdentifierMismatchErr": kVTMultiPassStorageIdentifierMismatchErr,
            "kVTMultiPassStorageInvalidErr": kVTMultiPassStorageInvalidErr,
            "kVTFrameSiloInvalidTimeStampErr": kVTFrameSiloInvalidTimeStampErr,
            "kVTFrameSiloInvalidTimeRangeErr": kVTFrameSiloInvalidTimeRangeErr,
            "kVTCouldNotFindTemporalFilterErr": kVTCouldNotFindTemporalFilterErr,
            "kVTPixelTransferNotPermittedErr": kVTPixelTransferNotPermittedErr,
            "kCMFormatDescriptionError_InvalidParameter": kCMFormatDescriptionError_InvalidParameter,
            "kCMFormatDescriptionError_AllocationFailed": kCMFormatDescriptionError_AllocationFailed,
            "kCMFormatDescriptionError_ValueNotAvailable": kCMFormatDescriptionError_ValueNotAvailable,
            "kCMBlockBufferNoErr": kCMBlockBufferNoErr,
            "kCMBlockBufferStructureAllocationFailedErr": kCMBlockBufferStructureAllocationFailedErr,
            "kCMBlockBufferBlockAllocationFailedErr": kCMBlockBufferBlockAllocationFailedErr,
            "kCMBlockBufferBadCustomBlockSourceErr": kCMBlockBufferBadCustomBlockSourceErr,
            "kCMBlockBufferBadOffsetParameterErr": kCMBlockBufferBadOffsetParameterErr,
            "kCMBlockBufferBadLengthParameterErr": kCMBlockBufferBadLengthParameterErr,
            "kCMBlockBufferBadPointerParameterErr": kCMBlockBufferBadPointerParameterErr,
            "kCMBlockBufferEmptyBBufErr": kCMBlockBufferEmptyBBufErr,
            "kCMBlockBufferUnallocatedBlockErr": kCMBlockBufferUnallocatedBlockErr,
            "kCMBlockBufferInsufficientSpaceErr": kCMBlockBufferInsufficientSpaceErr,
            "kCMSampleBufferError_AllocationFailed": kCMSampleBufferError_AllocationFailed,
            "kCMSampleBufferError_RequiredParameterMissing": kCMSampleBufferError_RequiredParameterMissing,
            "kCMSampleBufferError_AlreadyHasDataBuffer": kCMSampleBufferError_AlreadyHasDataBuffer,
            "kCMSampleBufferError_BufferNotReady": kCMSampleBufferError_BufferNotReady,
            "kCMSampleBufferError_SampleIndexOutOfRange": kCMSampleBufferError_SampleIndexOutOfRange,
            "kCMSampleBufferError_BufferHasNoSampleSizes": kCMSampleBufferError_BufferHasNoSampleSizes,
            "kCMSampleBufferError_BufferHasNoSampleTimingInfo": kCMSampleBufferError_BufferHasNoSampleTimingInfo,
            "kCMSampleBufferError_ArrayTooSmall": kCMSampleBufferError_ArrayTooSmall,
            "kCMSampleBufferError_InvalidEntryCount": kCMSampleBufferError_InvalidEntryCount,
            "kCMSampleBufferError_CannotSubdivide": kCMSampleBufferError_CannotSubdivide,
            "kCMSampleBufferError_SampleTimingInfoInvalid": kCMSampleBufferError_SampleTimingInfoInvalid,
            "kCMSampleBufferError_InvalidMediaTypeForOperation": kCMSampleBufferError_InvalidMediaTypeForOperation,
            "kCMSampleBufferError_InvalidSampleData": kCMSampleBufferError_InvalidSampleData,
            "kCMSampleBufferError_InvalidMediaFormat": kCMSampleBufferError_InvalidMediaFormat,
            "kCMSampleBufferError_Invalidated": kCMSampleBufferError_Invalidated,
            "kCMSampleBufferError_DataFailed": kCMSampleBufferError_DataFailed,
            "kCMSampleBufferError_DataCanceled": kCMSampleBufferError_DataCanceled,
        ]
        for (name, value) in CompatibilityAPITests.referenceRows {
            #expect(constants[name] == value, "\(name)")
        }
        #expect(constants.count == CompatibilityAPITests.referenceRows.count)
    }

    /// `VTIsHardwareDecodeSupported` says what a session that requires the GPU gets.
    @Test func hardwareDecodeSupportIsWhatARequiringSessionGets() throws {
        let samples = try CompatibilityAPITests.samples("h264-baseline-cavlc.264", codec: .h264)
        let format = try CompatibilityAPITests.formatDescription(samples[0].formatDescription)
        let specification =
            [kVTVideoDecoderSpecification_RequireHardwareAcceleratedVideoDecoder as String: true] as CFDictionary
        var created: VTDecompressionSession?
        let status = VTDecompressionSessionCreate(
            allocator: nil, formatDescription: format, decoderSpecification: specification, imageBufferAttributes: nil,
            outputCallback: nil, decompressionSessionOut: &created)
        if VTIsHardwareDecodeSupported(kCMVideoCodecType_H264) {
            #expect(status == noErr)
            var value: CFTypeRef?
            let session = try #require(created)
            // Through a typed pointer: Apple's `&value` idiom on an optional object draws Swift's warning.
            let copied = withUnsafeMutablePointer(to: &value) {
                VTSessionCopyProperty(
                    session, key: kVTDecompressionPropertyKey_UsingHardwareAcceleratedVideoDecoder, allocator: nil,
                    valueOut: $0)
            }
            #expect(copied == noErr)
            #expect((value as? NSNumber)?.boolValue == true)
            VTDecompressionSessionInvalidate(session)
        } else {
            #expect(status == kVTCouldNotFindVideoDecoderErr && created == nil)
        }
    }

    /// `._DoNotOutputFrame`: the frame is decoded, and its callback says it was dropped.
    @Test func doNotOutputFrameComesBackDropped() throws {
        let samples = try CompatibilityAPITests.samples("h264-baseline-cavlc.264", codec: .h264)
        let format = try CompatibilityAPITests.formatDescription(samples[0].formatDescription)
        let session = try Self.session()
        final class Outputs: @unchecked Sendable {
            // Unchecked: written by the session's queue, read after the finish.
            var flags: [VTDecodeInfoFlags] = []
            var hadImage: [Bool] = []
        }
        let outputs = Outputs()
        for (index, sample) in samples.prefix(2).enumerated() {
            let buffer = try CompatibilityAPITests.sampleBuffer(sample.data, format: format)
            #expect(
                VTDecompressionSessionDecodeFrame(
                    session, sampleBuffer: buffer, flags: index == 0 ? [._DoNotOutputFrame] : [], infoFlagsOut: nil
                ) { _, flags, image, _, _ in
                    outputs.flags.append(flags)
                    outputs.hadImage.append(image != nil)
                } == noErr)
        }
        #expect(VTDecompressionSessionFinishDelayedFrames(session) == noErr)
        VTDecompressionSessionInvalidate(session)
        #expect(outputs.flags.count == 2)
        #expect(outputs.flags.first?.contains(.frameDropped) == true && outputs.hadImage.first == false)
        #expect(outputs.flags.last?.contains(.frameDropped) == false && outputs.hadImage.last == true)
    }

    /// What a session with `DeinterlaceFields` (and the temporal mode) gave: its outputs' statuses,
    /// whether each picture is progressive, each refcon, and how many outputs had come after each
    /// frame's decode call.
    final class DeinterlacedOutputs: @unchecked Sendable {
        // Unchecked: written by the session's queue, read after the finish.
        var statuses: [OSStatus] = []
        var progressive: [Bool] = []
        var indices: [Int] = []
        var afterEach: [Int] = []
    }

    static func deinterlaced(
        _ samples: [VAToolbox.SampleBuffer], temporal: Bool, flags: VTDecodeFrameFlags
    ) throws -> DeinterlacedOutputs {
        let format = try CompatibilityAPITests.formatDescription(samples[0].formatDescription)
        let session = try Self.session(format)
        #expect(
            VTSessionSetProperty(
                session, key: kVTDecompressionPropertyKey_FieldMode,
                value: kVTDecompressionProperty_FieldMode_DeinterlaceFields) == noErr)
        if temporal {
            #expect(
                VTSessionSetProperty(
                    session, key: kVTDecompressionPropertyKey_DeinterlaceMode,
                    value: kVTDecompressionProperty_DeinterlaceMode_Temporal) == noErr)
        }
        let outputs = DeinterlacedOutputs()
        for (index, sample) in samples.enumerated() {
            let buffer = try CompatibilityAPITests.sampleBuffer(sample.data, format: format)
            #expect(
                VTDecompressionSessionDecodeFrame(
                    session, sampleBuffer: buffer, flags: flags, infoFlagsOut: nil
                ) { status, _, image, _, _ in
                    outputs.statuses.append(status)
                    outputs.progressive.append(
                        image.map {
                            CVBufferCopyAttachment($0, kCVImageBufferFieldCountKey, nil) as? NSNumber == 1
                        } ?? false)
                    outputs.indices.append(index)
                } == noErr)
            outputs.afterEach.append(outputs.statuses.count)
        }
        #expect(VTDecompressionSessionWaitForAsynchronousFrames(session) == noErr)
        VTDecompressionSessionInvalidate(session)
        return outputs
    }

    /// `kVTDecompressionProperty_DeinterlaceMode_Temporal` with `._EnableTemporalProcessing`, as
    /// Apple documents it: every frame of an interlaced stream comes back progressive, each a
    /// frame later than without the mode (`VTDecompressionSessionWaitForAsynchronousFrames` gives
    /// the last), with its own refcon.
    @Test func temporalDeinterlacingDelaysEachFrameByOne() throws {
        let samples = try CompatibilityAPITests.samples("h264-mbaff.264", codec: .h264)
        let vertical = try Self.deinterlaced(samples, temporal: false, flags: [._EnableTemporalProcessing])
        let temporal = try Self.deinterlaced(samples, temporal: true, flags: [._EnableTemporalProcessing])
        #expect(temporal.statuses.count == samples.count && temporal.statuses.allSatisfy { $0 == noErr })
        #expect(temporal.progressive.allSatisfy { $0 })
        #expect(Set(temporal.indices).count == samples.count, "one output per frame")
        // A frame later: one output fewer after each call, once the first came.
        #expect(zip(vertical.afterEach, temporal.afterEach).allSatisfy { $1 == max(0, $0 - 1) })
        #expect(vertical.afterEach.last ?? 0 > 0)
    }
}
