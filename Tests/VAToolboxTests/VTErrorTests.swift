import Foundation
import Testing

@testable import VAToolbox

@Suite struct VTErrorTests {
    /// Every named constant and the Apple name it must carry.
    static let namedConstants: [(VTError, String)] = [
        (.propertyNotSupported, "kVTPropertyNotSupportedErr"), (.propertyReadOnly, "kVTPropertyReadOnlyErr"),
        (.parameter, "kVTParameterErr"), (.invalidSession, "kVTInvalidSessionErr"),
        (.allocationFailed, "kVTAllocationFailedErr"), (.pixelTransferNotSupported, "kVTPixelTransferNotSupportedErr"),
        (.couldNotFindVideoDecoder, "kVTCouldNotFindVideoDecoderErr"),
        (.couldNotCreateInstance, "kVTCouldNotCreateInstanceErr"),
        (.couldNotFindVideoEncoder, "kVTCouldNotFindVideoEncoderErr"),
        (.videoDecoderBadData, "kVTVideoDecoderBadDataErr"),
        (.videoDecoderUnsupportedDataFormat, "kVTVideoDecoderUnsupportedDataFormatErr"),
        (.videoDecoderMalfunction, "kVTVideoDecoderMalfunctionErr"),
        (.videoEncoderMalfunction, "kVTVideoEncoderMalfunctionErr"),
        (.videoDecoderNotAvailableNow, "kVTVideoDecoderNotAvailableNowErr"),
        (.imageRotationNotSupported, "kVTImageRotationNotSupportedErr"),
        (.videoEncoderNotAvailableNow, "kVTVideoEncoderNotAvailableNowErr"),
        (.formatDescriptionChangeNotSupported, "kVTFormatDescriptionChangeNotSupportedErr"),
        (.insufficientSourceColorData, "kVTInsufficientSourceColorDataErr"),
        (.couldNotCreateColorCorrectionData, "kVTCouldNotCreateColorCorrectionDataErr"),
        (.colorSyncTransformConvertFailed, "kVTColorSyncTransformConvertFailedErr"),
        (.videoDecoderAuthorization, "kVTVideoDecoderAuthorizationErr"),
        (.videoEncoderAuthorization, "kVTVideoEncoderAuthorizationErr"),
        (.colorCorrectionPixelTransferFailed, "kVTColorCorrectionPixelTransferFailedErr"),
        (.multiPassStorageIdentifierMismatch, "kVTMultiPassStorageIdentifierMismatchErr"),
        (.multiPassStorageInvalid, "kVTMultiPassStorageInvalidErr"),
        (.frameSiloInvalidTimeStamp, "kVTFrameSiloInvalidTimeStampErr"),
        (.frameSiloInvalidTimeRange, "kVTFrameSiloInvalidTimeRangeErr"),
        (.couldNotFindTemporalFilter, "kVTCouldNotFindTemporalFilterErr"),
        (.pixelTransferNotPermitted, "kVTPixelTransferNotPermittedErr"),
        (.videoDecoderReferenceMissing, "kVTVideoDecoderReferenceMissingErr"),
        (.formatDescriptionInvalidParameter, "kCMFormatDescriptionError_InvalidParameter"),
        (.formatDescriptionAllocationFailed, "kCMFormatDescriptionError_AllocationFailed"),
        (.formatDescriptionValueNotAvailable, "kCMFormatDescriptionError_ValueNotAvailable"),
        (.blockBufferStructureAllocationFailed, "kCMBlockBufferStructureAllocationFailedErr"),
        (.blockBufferBlockAllocationFailed, "kCMBlockBufferBlockAllocationFailedErr"),
        (.blockBufferBadCustomBlockSource, "kCMBlockBufferBadCustomBlockSourceErr"),
        (.blockBufferBadOffsetParameter, "kCMBlockBufferBadOffsetParameterErr"),
        (.blockBufferBadLengthParameter, "kCMBlockBufferBadLengthParameterErr"),
        (.blockBufferBadPointerParameter, "kCMBlockBufferBadPointerParameterErr"),
        (.blockBufferEmpty, "kCMBlockBufferEmptyBBufErr"),
        (.blockBufferUnallocatedBlock, "kCMBlockBufferUnallocatedBlockErr"),
        (.blockBufferInsufficientSpace, "kCMBlockBufferInsufficientSpaceErr"),
        (.sampleBufferAllocationFailed, "kCMSampleBufferError_AllocationFailed"),
        (.sampleBufferRequiredParameterMissing, "kCMSampleBufferError_RequiredParameterMissing"),
        (.sampleBufferAlreadyHasDataBuffer, "kCMSampleBufferError_AlreadyHasDataBuffer"),
        (.sampleBufferBufferNotReady, "kCMSampleBufferError_BufferNotReady"),
        (.sampleBufferSampleIndexOutOfRange, "kCMSampleBufferError_SampleIndexOutOfRange"),
        (.sampleBufferBufferHasNoSampleSizes, "kCMSampleBufferError_BufferHasNoSampleSizes"),
        (.sampleBufferBufferHasNoSampleTimingInfo, "kCMSampleBufferError_BufferHasNoSampleTimingInfo"),
        (.sampleBufferArrayTooSmall, "kCMSampleBufferError_ArrayTooSmall"),
        (.sampleBufferInvalidEntryCount, "kCMSampleBufferError_InvalidEntryCount"),
        (.sampleBufferCannotSubdivide, "kCMSampleBufferError_CannotSubdivide"),
        (.sampleBufferSampleTimingInfoInvalid, "kCMSampleBufferError_SampleTimingInfoInvalid"),
        (.sampleBufferInvalidMediaTypeForOperation, "kCMSampleBufferError_InvalidMediaTypeForOperation"),
        (.sampleBufferInvalidSampleData, "kCMSampleBufferError_InvalidSampleData"),
        (.sampleBufferInvalidMediaFormat, "kCMSampleBufferError_InvalidMediaFormat"),
        (.sampleBufferInvalidated, "kCMSampleBufferError_Invalidated"),
        (.sampleBufferDataFailed, "kCMSampleBufferError_DataFailed"),
        (.sampleBufferDataCanceled, "kCMSampleBufferError_DataCanceled"),
        (.pixelBufferError, "kCVReturnError"),
        (.pixelBufferInvalidArgument, "kCVReturnInvalidArgument"),
        (.pixelBufferAllocationFailed, "kCVReturnAllocationFailed"),
        (.pixelBufferUnsupported, "kCVReturnUnsupported"),
        (.invalidPixelFormat, "kCVReturnInvalidPixelFormat"),
        (.invalidSize, "kCVReturnInvalidSize"),
        (.invalidPixelBufferAttributes, "kCVReturnInvalidPixelBufferAttributes"),
        (.poolAllocationFailed, "kCVReturnPoolAllocationFailed"),
        (.invalidPoolAttributes, "kCVReturnInvalidPoolAttributes"),
    ]

    /// The `| name | value |` rows of ../shared/apple-status-codes.md, the team's reference.
    static let referenceRows: [(name: String, value: Int32)] = {
        guard let root = TestData.conformance?.deletingLastPathComponent(),
            let text = try? String(contentsOf: root.appendingPathComponent("apple-status-codes.md"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 2, cells[0].hasPrefix("k"), let value = Int32(cells[1]) else { return nil }
            return (cells[0], value)
        }
    }()

    @Test(.enabled(if: !referenceRows.isEmpty, "needs ../shared/apple-status-codes.md"))
    func everyReferenceCodeIsInTheCatalogueUnderItsName() throws {
        try #require(Self.referenceRows.count >= 59, "apple-status-codes.md not found or changed shape")
        for row in Self.referenceRows {
            #expect(VTError.catalogue[row.value]?.name == row.name, "\(row.name) = \(row.value)")
            #expect(VTError(status: row.value).name == row.name)
        }
    }

    @Test func everyNamedConstantCarriesItsAppleName() {
        for (error, name) in Self.namedConstants {
            #expect(error.name == name)
            if let reference = Self.referenceRows.first(where: { $0.name == name }) {
                #expect(error.status == reference.value, "\(name)")
            }
        }
        #expect(
            Set(Self.namedConstants.map(\.0.status)).count == Self.namedConstants.count, "two constants share a value")
        // Every catalogue row but kCMBlockBufferNoErr (0, success) has a named constant.
        #expect(Self.namedConstants.count == VTError.catalogueRows.count - 1)
    }

    @Test func exactValuesOfTheCodesUsersLookUp() {
        #expect(VTError.parameter.status == -12902)
        #expect(VTError.invalidSession.status == -12903)
        #expect(VTError.couldNotFindVideoDecoder.status == -12906)
        #expect(VTError.videoDecoderBadData.status == -12909)
        #expect(VTError.videoDecoderMalfunction.status == -12911)
        #expect(VTError.formatDescriptionChangeNotSupported.status == -12916)
        #expect(VTError.videoDecoderReferenceMissing.status == -17694)
        #expect(VTError.formatDescriptionInvalidParameter.status == -12710)
        #expect(VTError.sampleBufferInvalidSampleData.status == -12742)
    }

    @Test func equalityAndPatternMatchingUseTheStatusOnly() {
        let detailed = VTError.videoDecoderBadData.with("slice 3 is truncated", hint: "check the file")
        #expect(detailed == .videoDecoderBadData)
        #expect(detailed != .parameter)
        let thrown: any Error = detailed
        var matched = false
        do { throw thrown } catch VTError.videoDecoderBadData { matched = true } catch {}
        #expect(matched)
    }

    @Test func descriptionCarriesNameReasonCauseAndHint() {
        let cause = UnderlyingCause(library: "libva", function: "vaInitialize", code: 1, message: "operation failed")
        let error = VTError.couldNotFindVideoDecoder.with(
            "no VA driver", cause: cause, hint: "install intel-media-va-driver")
        #expect(error.description.contains("kVTCouldNotFindVideoDecoderErr (-12906)"))
        #expect(error.description.contains("no VA driver"))
        #expect(error.description.contains("vaInitialize"))
        #expect(error.description.contains("Hint: install intel-media-va-driver"))
        #expect(VTError(status: 42).name == "OSStatus 42")
        #expect(VTError.parameter.description.contains("a parameter is invalid"))
    }
}
