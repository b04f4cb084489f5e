import Foundation
import Testing
import VAToolbox
import VideoToolbox

/// The compatibility modules' C-style API against Apple's documented behaviour and values
/// (../shared/apple-status-codes.md, the headers' FourCCs) and the fixtures' ffprobe oracles.
@Suite struct CompatibilityAPITests {
    static let fixtures = SeedDecoderTests.fixtures

    /// A fixture's parameter sets and AVCC samples.
    static func samples(_ name: String, codec: VideoCodecType) throws -> [SampleBuffer] {
        let samples = ElementaryStreamParser.samples(
            in: [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name))), codec: codec)
        try #require(!samples.isEmpty)
        return samples
    }

    /// ffprobe's first stream of a fixture.
    static func probe(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: fixtures.appendingPathComponent(name + ".ffprobe.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require((root["streams"] as? [[String: Any]])?.first)
    }

    /// A format description made the C way from a VAToolbox description's parameter sets (an
    /// HEVC one with `extensions`).
    static func formatDescription(_ format: VideoFormatDescription, extensions: CFDictionary? = nil) throws
        -> CMVideoFormatDescription
    {
        let pointers = format.parameterSets.map { set -> UnsafePointer<UInt8> in
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: set.count)
            copy.initialize(from: set, count: set.count)
            return UnsafePointer(copy)
        }
        defer { pointers.forEach { $0.deallocate() } }
        var description: CMFormatDescription?
        let status =
            format.codecType == .hevc
            ? CMVideoFormatDescriptionCreateFromHEVCParameterSets(
                allocator: kCFAllocatorDefault, parameterSetCount: pointers.count, parameterSetPointers: pointers,
                parameterSetSizes: format.parameterSets.map(\.count), nalUnitHeaderLength: 4, extensions: extensions,
                formatDescriptionOut: &description)
            : CMVideoFormatDescriptionCreateFromH264ParameterSets(
                allocator: kCFAllocatorDefault, parameterSetCount: pointers.count, parameterSetPointers: pointers,
                parameterSetSizes: format.parameterSets.map(\.count), nalUnitHeaderLength: 4,
                formatDescriptionOut: &description)
        #expect(status == noErr)
        return try #require(description)
    }

    /// A ready sample buffer over a copy of `bytes`.
    static func sampleBuffer(_ bytes: [UInt8], format: CMFormatDescription) throws -> CMSampleBuffer {
        var blockBuffer: CMBlockBuffer?
        #expect(
            CMBlockBufferCreateWithMemoryBlock(
                allocator: nil, memoryBlock: nil, blockLength: bytes.count, blockAllocator: nil, customBlockSource: nil,
                offsetToData: 0, dataLength: bytes.count, flags: kCMBlockBufferAssureMemoryNowFlag,
                blockBufferOut: &blockBuffer) == kCMBlockBufferNoErr)
        let block = try #require(blockBuffer)
        #expect(
            CMBlockBufferReplaceDataBytes(
                with: bytes, blockBuffer: block, offsetIntoDestination: 0, dataLength: bytes.count)
                == kCMBlockBufferNoErr)
        var sampleBuffer: CMSampleBuffer?
        let sizes = [bytes.count]
        #expect(
            CMSampleBufferCreateReady(
                allocator: nil, dataBuffer: block, formatDescription: format, sampleCount: 1, sampleTimingEntryCount: 0,
                sampleTimingArray: nil, sampleSizeEntryCount: 1, sampleSizeArray: sizes, sampleBufferOut: &sampleBuffer)
                == noErr)
        return try #require(sampleBuffer)
    }

    // MARK: - Constants

    /// The `| name | value |` rows of ../shared/apple-status-codes.md.
    static let referenceRows: [String: Int32] = {
        let url = SeedDecoderTests.conformance.deletingLastPathComponent().appendingPathComponent(
            "apple-status-codes.md")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [:] }
        var rows: [String: Int32] = [:]
        for line in text.split(separator: "\n") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.count == 2, cells[0].hasPrefix("k"), let value = Int32(cells[1]) { rows[cells[0]] = value }
        }
        return rows
    }()

    @Test(.enabled(if: !referenceRows.isEmpty)) func statusConstantsHaveApplesValues() {
        let constants: [String: OSStatus] = [
            "kVTPropertyNotSupportedErr": kVTPropertyNotSupportedErr, "kVTPropertyReadOnlyErr": kVTPropertyReadOnlyErr,
            "kVTParameterErr": kVTParameterErr, "kVTInvalidSessionErr": kVTInvalidSessionErr,
            "kVTAllocationFailedErr": kVTAllocationFailedErr,
            "kVTPixelTransferNotSupportedErr": kVTPixelTransferNotSupportedErr,
            "kVTCouldNotFindVideoDecoderErr": kVTCouldNotFindVideoDecoderErr,
            "kVTCouldNotCreateInstanceErr": kVTCouldNotCreateInstanceErr,
            "kVTVideoDecoderBadDataErr": kVTVideoDecoderBadDataErr,
            "kVTVideoDecoderUnsupportedDataFormatErr": kVTVideoDecoderUnsupportedDataFormatErr,
            "kVTVideoDecoderMalfunctionErr": kVTVideoDecoderMalfunctionErr,
            "kVTVideoDecoderNotAvailableNowErr": kVTVideoDecoderNotAvailableNowErr,
            "kVTFormatDescriptionChangeNotSupportedErr": kVTFormatDescriptionChangeNotSupportedErr,
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
            "kCMSampleBufferError_BufferNotReady": kCMSampleBufferError_BufferNotReady,
            "kCMSampleBufferError_SampleIndexOutOfRange": kCMSampleBufferError_SampleIndexOutOfRange,
            "kCMSampleBufferError_ArrayTooSmall": kCMSampleBufferError_ArrayTooSmall,
            "kCMSampleBufferError_InvalidEntryCount": kCMSampleBufferError_InvalidEntryCount,
            "kCMSampleBufferError_InvalidSampleData": kCMSampleBufferError_InvalidSampleData,
            "kCMSampleBufferError_InvalidMediaFormat": kCMSampleBufferError_InvalidMediaFormat,
        ]
        for (name, value) in constants {
            #expect(Self.referenceRows[name] == value, "\(name)")
        }
        #expect(noErr == 0)
        #expect(kCVReturnSuccess == 0)
        #expect(kCVReturnError == -6660)
        #expect(kCVReturnInvalidArgument == -6661)
    }

    @Test func fourCharacterCodesHaveApplesValues() {
        func fourCC(_ text: String) -> UInt32 { text.utf8.reduce(0) { $0 << 8 | UInt32($1) } }
        #expect(kCMVideoCodecType_H264 == fourCC("avc1"))
        #expect(kCMVideoCodecType_HEVC == fourCC("hvc1"))
        #expect(kCMMediaType_Video == fourCC("vide"))
        #expect(kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange == fourCC("420v"))
        #expect(kCVPixelFormatType_420YpCbCr8BiPlanarFullRange == fourCC("420f"))
        #expect(kCVPixelFormatType_420YpCbCr8Planar == fourCC("y420"))
        #expect(kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange == fourCC("x420"))
        #expect(kCVPixelFormatType_32BGRA == fourCC("BGRA"))
        #expect(CFSwapInt32HostToBig(0x0102_0304) == UInt32(0x0102_0304).bigEndian)
        #expect(CFSwapInt32BigToHost(CFSwapInt32HostToBig(0xDEAD_BEEF)) == 0xDEAD_BEEF)
        #expect(CFSwapInt16(0x0102) == 0x0201)
    }

    // MARK: - Format descriptions

    @Test(arguments: ["h264-main-cabac.264", "h264-cropped-642x362.264", "hevc-main.265"])
    func formatDescriptionFromParameterSetsMatchesFFprobe(name: String) throws {
        let codec: VideoCodecType = name.hasSuffix(".265") ? .hevc : .h264
        let native = try #require(try Self.samples(name, codec: codec).first).formatDescription
        let description = try Self.formatDescription(native)
        let probe = try Self.probe(name)
        let dimensions = CMVideoFormatDescriptionGetDimensions(description)
        #expect(Int(dimensions.width) == probe["width"] as? Int)
        #expect(Int(dimensions.height) == probe["height"] as? Int)
        #expect(CMFormatDescriptionGetMediaType(description) == kCMMediaType_Video)
        #expect(
            CMFormatDescriptionGetMediaSubType(description)
                == (codec == .hevc ? kCMVideoCodecType_HEVC : kCMVideoCodecType_H264))
        let fullRange =
            CMFormatDescriptionGetExtension(
                description, extensionKey: kCMFormatDescriptionExtension_FullRangeVideo) as? NSNumber
        #expect(fullRange?.boolValue == ((probe["color_range"] as? String) == "pc"))

        var count = 0
        var headerLength: Int32 = 0
        for index in native.parameterSets.indices {
            var pointer: UnsafePointer<UInt8>?
            var size = 0
            let status =
                codec == .hevc
                ? CMVideoFormatDescriptionGetHEVCParameterSetAtIndex(
                    description, parameterSetIndex: index, parameterSetPointerOut: &pointer, parameterSetSizeOut: &size,
                    parameterSetCountOut: &count, nalUnitHeaderLengthOut: &headerLength)
                : CMVideoFormatDescriptionGetH264ParameterSetAtIndex(
                    description, parameterSetIndex: index, parameterSetPointerOut: &pointer, parameterSetSizeOut: &size,
                    parameterSetCountOut: &count, nalUnitHeaderLengthOut: &headerLength)
            #expect(status == noErr)
            let bytes = try #require(pointer)
            #expect(Array(UnsafeBufferPointer(start: bytes, count: size)) == native.parameterSets[index])
        }
        #expect(count == native.parameterSets.count)
        #expect(headerLength == 4)
    }

    @Test func unparsableParameterSetsAreAnInvalidParameter() {
        let garbage: [UInt8] = [0x67, 0xFF, 0xFF]
        let pps: [UInt8] = [0x68, 0xCE, 0x38, 0x80]
        var description: CMFormatDescription?
        let status = garbage.withUnsafeBufferPointer { sps in
            pps.withUnsafeBufferPointer { pps -> OSStatus in
                guard let spsBase = sps.baseAddress, let ppsBase = pps.baseAddress else { return -1 }
                return CMVideoFormatDescriptionCreateFromH264ParameterSets(
                    allocator: nil, parameterSetCount: 2, parameterSetPointers: [spsBase, ppsBase],
                    parameterSetSizes: [3, 4], nalUnitHeaderLength: 4, formatDescriptionOut: &description)
            }
        }
        #expect(status == kCMFormatDescriptionError_InvalidParameter)
        #expect(description == nil)
    }

    // MARK: - Block buffers and sample buffers

    /// `kCFAllocatorNull` lends the memory: the buffer reads and writes it in place.
    @Test func blockBuffersLendOrOwnTheirMemory() throws {
        var bytes: [UInt8] = Array(0..<16)
        try bytes.withUnsafeMutableBytes { memory in
            var lent: CMBlockBuffer?
            #expect(
                CMBlockBufferCreateWithMemoryBlock(
                    allocator: nil, memoryBlock: memory.baseAddress, blockLength: 16, blockAllocator: kCFAllocatorNull,
                    customBlockSource: nil, offsetToData: 4, dataLength: 8, flags: 0, blockBufferOut: &lent)
                    == kCMBlockBufferNoErr)
            let buffer = try #require(lent)
            #expect(CMBlockBufferGetDataLength(buffer) == 8)
            var copied = [UInt8](repeating: 0, count: 8)
            #expect(CMBlockBufferCopyDataBytes(buffer, atOffset: 0, dataLength: 8, destination: &copied) == 0)
            #expect(copied == Array(4..<12))
            let patch: [UInt8] = [0xAA, 0xBB]
            #expect(
                CMBlockBufferReplaceDataBytes(with: patch, blockBuffer: buffer, offsetIntoDestination: 1, dataLength: 2)
                    == 0)
            #expect(memory[5] == 0xAA && memory[6] == 0xBB, "the lent memory was written in place")

            var tail: [UInt8] = [1, 2, 3]
            let owned = UnsafeMutableRawPointer.allocate(byteCount: 3, alignment: 1)
            owned.copyMemory(from: &tail, byteCount: 3)
            #expect(
                CMBlockBufferAppendMemoryBlock(
                    buffer, memoryBlock: owned, length: 3, blockAllocator: nil, customBlockSource: nil, offsetToData: 0,
                    dataLength: 3, flags: 0) == kCMBlockBufferNoErr)
            #expect(CMBlockBufferGetDataLength(buffer) == 11)
            #expect(!CMBlockBufferIsRangeContiguous(buffer, atOffset: 6, length: 4))
            var all = [UInt8](repeating: 0, count: 11)
            #expect(CMBlockBufferCopyDataBytes(buffer, atOffset: 0, dataLength: 11, destination: &all) == 0)
            #expect(all == [4, 0xAA, 0xBB, 7, 8, 9, 10, 11, 1, 2, 3])
            #expect(
                CMBlockBufferCopyDataBytes(buffer, atOffset: 8, dataLength: 4, destination: &all)
                    == kCMBlockBufferBadOffsetParameterErr)
        }
        var refused: CMBlockBuffer?
        #expect(
            CMBlockBufferCreateWithMemoryBlock(
                allocator: nil, memoryBlock: nil, blockLength: 8, blockAllocator: kCFAllocatorNull,
                customBlockSource: nil, offsetToData: 0, dataLength: 8, flags: 0, blockBufferOut: &refused)
                == kCMBlockBufferBadPointerParameterErr)
        #expect(
            CMBlockBufferCreateWithMemoryBlock(
                allocator: nil, memoryBlock: nil, blockLength: 8, blockAllocator: nil, customBlockSource: nil,
                offsetToData: 4, dataLength: 8, flags: 0, blockBufferOut: &refused)
                == kCMBlockBufferBadOffsetParameterErr)
        #expect(refused == nil)
    }

    /// The attachment idiom: the array's dictionaries are the sample's own, changed in place.
    @Test func sampleAttachmentsAreChangedInPlace() throws {
        let samples = try Self.samples("h264-baseline-cavlc.264", codec: .h264)
        let format = try Self.formatDescription(samples[1].formatDescription)
        let sampleBuffer = try Self.sampleBuffer(samples[1].data, format: format)
        #expect(CMSampleBufferGetSampleAttachmentsArray(sampleBuffer, createIfNecessary: false) == nil)
        let attachments = CMSampleBufferGetSampleAttachmentsArray(sampleBuffer, createIfNecessary: true)
        #expect(CFArrayGetCount(attachments) == 1)
        let dict = unsafeBitCast(CFArrayGetValueAtIndex(attachments, 0), to: CFMutableDictionary.self)
        CFDictionarySetValue(
            dict, Unmanaged.passUnretained(kCMSampleAttachmentKey_NotSync).toOpaque(),
            Unmanaged.passUnretained(kCFBooleanTrue).toOpaque())
        CFDictionarySetValue(
            dict, Unmanaged.passUnretained(kCMSampleAttachmentKey_DisplayImmediately).toOpaque(),
            Unmanaged.passUnretained(kCFBooleanTrue).toOpaque())
        let again = CMSampleBufferGetSampleAttachmentsArray(sampleBuffer, createIfNecessary: false)
        let same = unsafeBitCast(CFArrayGetValueAtIndex(again, 0), to: CFDictionary.self)
        #expect(same[kCMSampleAttachmentKey_NotSync] as? NSNumber == kCFBooleanTrue)
        // DisplayImmediately is a display pipeline's: kept in the dictionary, not a decoding flag.
        #expect(same[kCMSampleAttachmentKey_DisplayImmediately] as? NSNumber == kCFBooleanTrue)
        let native = try #require(try sampleBuffer.sampleBuffers().first)
        #expect(native.attachments == [.notSync])
        #expect(native.data == samples[1].data)
    }

    @Test func sampleBufferEntryCountsFollowCoreMedia() throws {
        let samples = try Self.samples("h264-baseline-cavlc.264", codec: .h264)
        let format = try Self.formatDescription(samples[0].formatDescription)
        var sampleBuffer: CMSampleBuffer?
        let sizes = [1, 2]
        #expect(
            CMSampleBufferCreate(
                allocator: nil, dataBuffer: nil, dataReady: true, makeDataReadyCallback: nil, refcon: nil,
                formatDescription: format, sampleCount: 3, sampleTimingEntryCount: 0, sampleTimingArray: nil,
                sampleSizeEntryCount: 2, sampleSizeArray: sizes, sampleBufferOut: &sampleBuffer)
                == kCMSampleBufferError_InvalidEntryCount)
        #expect(
            CMSampleBufferCreate(
                allocator: nil, dataBuffer: nil, dataReady: true, makeDataReadyCallback: nil, refcon: nil,
                formatDescription: format, sampleCount: 1, sampleTimingEntryCount: 1, sampleTimingArray: nil,
                sampleSizeEntryCount: 0, sampleSizeArray: nil, sampleBufferOut: &sampleBuffer)
                == kCMSampleBufferError_RequiredParameterMissing)
        #expect(sampleBuffer == nil)
    }

    // MARK: - The session

    /// Decodes the baseline fixture through the handler form; returns the pictures' MD5s.
    @Test func outputHandlerFormDecodesEveryPictureAndMisuseIsAParameterError() throws {
        let samples = try Self.samples("h264-baseline-cavlc.264", codec: .h264)
        let format = try Self.formatDescription(samples[0].formatDescription)
        let specification = [kVTVideoDecoderSpecification_EnableHardwareAcceleratedVideoDecoder: false] as CFDictionary
        var created: VTDecompressionSession?
        #expect(
            VTDecompressionSessionCreate(
                allocator: nil, formatDescription: format, decoderSpecification: specification,
                imageBufferAttributes: nil, outputCallback: nil, decompressionSessionOut: &created) == noErr)
        let session = try #require(created)
        final class Hashes: @unchecked Sendable {
            // Unchecked: written by the session's queue, read after the wait.
            var list: [String] = []
            var statuses: [OSStatus] = []
        }
        let hashes = Hashes()
        for sample in samples {
            let buffer = try Self.sampleBuffer(sample.data, format: format)
            let status = VTDecompressionSessionDecodeFrame(
                session, sampleBuffer: buffer, flags: ._EnableAsynchronousDecompression, infoFlagsOut: nil
            ) { status, _, image, _, _ in
                hashes.statuses.append(status)
                if let image { hashes.list.append(image.pixelBuffer.md5) }
            }
            #expect(status == noErr)
            #expect(
                VTDecompressionSessionDecodeFrame(
                    session, sampleBuffer: buffer, flags: [], frameRefcon: nil, infoFlagsOut: nil) == kVTParameterErr,
                "the callback form needs a callback record")
        }
        #expect(VTDecompressionSessionWaitForAsynchronousFrames(session) == noErr)
        var value: CFTypeRef?
        // Through a typed pointer: Apple's `&value` idiom on an optional object draws Swift's warning.
        let copied = withUnsafeMutablePointer(to: &value) {
            VTSessionCopyProperty(
                session, key: kVTDecompressionPropertyKey_UsingHardwareAcceleratedVideoDecoder, allocator: nil,
                valueOut: $0)
        }
        #expect(copied == noErr)
        #expect((value as? NSNumber)?.boolValue == false)
        VTDecompressionSessionInvalidate(session)
        #expect(hashes.statuses.allSatisfy { $0 == noErr })
        #expect(hashes.list == (try SeedDecoderTests.fixtureNV12MD5s("h264-baseline-cavlc.264")))
        let late = try Self.sampleBuffer(samples[0].data, format: format)
        #expect(
            VTDecompressionSessionDecodeFrame(session, sampleBuffer: late, flags: [], infoFlagsOut: nil) {
                _, _, _, _, _ in
            } == kVTInvalidSessionErr)
        #expect(VTDecompressionSessionWaitForAsynchronousFrames(session) == kVTInvalidSessionErr)
    }

    /// Annex B data where lengths belong: the sample is refused with Core Media's status and no
    /// output comes for it.
    @Test func annexBDataIsInvalidSampleData() throws {
        let samples = try Self.samples("h264-baseline-cavlc.264", codec: .h264)
        let format = try Self.formatDescription(samples[0].formatDescription)
        var created: VTDecompressionSession?
        #expect(
            VTDecompressionSessionCreate(
                allocator: nil, formatDescription: format, decoderSpecification: nil, imageBufferAttributes: nil,
                outputCallback: nil, decompressionSessionOut: &created) == noErr)
        let session = try #require(created)
        let annexB = AnnexB.join(samples[0].nalUnits.map(\.bytes))
        let buffer = try Self.sampleBuffer(annexB, format: format)
        final class Count: @unchecked Sendable {
            // Unchecked: written by the session's queue, read after the wait.
            var outputs = 0
        }
        let count = Count()
        #expect(
            VTDecompressionSessionDecodeFrame(session, sampleBuffer: buffer, flags: [], infoFlagsOut: nil) {
                _, _, _, _, _ in
                count.outputs += 1
            } == kCMSampleBufferError_InvalidSampleData)
        VTDecompressionSessionInvalidate(session)
        #expect(count.outputs == 0)
    }

    @Test func propertiesFollowVideoToolboxsRules() throws {
        let samples = try Self.samples("h264-baseline-cavlc.264", codec: .h264)
        let format = try Self.formatDescription(samples[0].formatDescription)
        var created: VTDecompressionSession?
        #expect(
            VTDecompressionSessionCreate(
                allocator: nil, formatDescription: format, decoderSpecification: nil, imageBufferAttributes: nil,
                outputCallback: nil, decompressionSessionOut: &created) == noErr)
        let session = try #require(created)
        #expect(
            VTSessionSetProperty(session, key: kVTDecompressionPropertyKey_RealTime, value: kCFBooleanTrue) == noErr)
        #expect(
            VTSessionSetProperty(session, key: kVTDecompressionPropertyKey_ThreadCount, value: NSNumber(value: 2))
                == noErr)
        var value: CFTypeRef?
        // Through a typed pointer: Apple's `&value` idiom on an optional object draws Swift's warning.
        let copied = withUnsafeMutablePointer(to: &value) {
            VTSessionCopyProperty(session, key: kVTDecompressionPropertyKey_RealTime, allocator: nil, valueOut: $0)
        }
        #expect(copied == noErr)
        #expect((value as? NSNumber)?.boolValue == true)
        #expect(
            VTSessionSetProperty(
                session, key: kVTDecompressionPropertyKey_UsingHardwareAcceleratedVideoDecoder, value: kCFBooleanTrue)
                == kVTPropertyReadOnlyErr)
        #expect(
            VTSessionSetProperty(session, key: "NoSuchProperty" as CFString, value: kCFBooleanTrue)
                == kVTPropertyNotSupportedErr)
        #expect(
            VTSessionSetProperty(session, key: kVTDecompressionPropertyKey_RealTime, value: "yes" as NSString)
                == kVTParameterErr)
        VTDecompressionSessionInvalidate(session)
        #expect(
            VTSessionSetProperty(session, key: kVTDecompressionPropertyKey_RealTime, value: kCFBooleanFalse)
                == kVTInvalidSessionErr)
    }

    // MARK: - Pixel buffers

    @Test func pixelBuffersAndPoolsFollowCoreVideo() throws {
        var created: CVPixelBuffer?
        #expect(
            CVPixelBufferCreate(nil, 64, 48, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, nil, &created)
                == kCVReturnSuccess)
        let buffer = try #require(created)
        #expect(CVPixelBufferGetPlaneCount(buffer) == 2)
        #expect(CVPixelBufferIsPlanar(buffer))
        #expect(CVPixelBufferGetWidthOfPlane(buffer, 1) == 32)
        #expect(CVPixelBufferGetHeightOfPlane(buffer, 1) == 24)
        #expect(CVPixelBufferGetBaseAddressOfPlane(buffer, 0) == nil, "no address before the lock")
        #expect(CVPixelBufferUnlockBaseAddress(buffer, .readOnly) == kCVReturnError)
        #expect(CVPixelBufferLockBaseAddress(buffer, []) == kCVReturnSuccess)
        let luma = try #require(CVPixelBufferGetBaseAddressOfPlane(buffer, 0))
        #expect(CVPixelBufferGetBytesPerRowOfPlane(buffer, 0) >= 64)
        luma.storeBytes(of: 0x7F, as: UInt8.self)
        #expect(CVPixelBufferUnlockBaseAddress(buffer, .readOnly) == kCVReturnInvalidArgument)
        #expect(CVPixelBufferUnlockBaseAddress(buffer, []) == kCVReturnSuccess)
        #expect(CVPixelBufferCreate(nil, 64, 48, 0x3F3F_3F3F, nil, &created) == kCVReturnInvalidPixelFormat)
        #expect(CVPixelBufferCreate(nil, 0, 48, kCVPixelFormatType_32BGRA, nil, &created) == kCVReturnInvalidSize)

        let attributes: [String: Any] = [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
            kCVPixelBufferWidthKey as String: 16, kCVPixelBufferHeightKey as String: 8,
        ]
        var pool: CVPixelBufferPool?
        #expect(CVPixelBufferPoolCreate(nil, nil, attributes as CFDictionary, &pool) == kCVReturnSuccess)
        let madePool = try #require(pool)
        var pooled: CVPixelBuffer?
        #expect(CVPixelBufferPoolCreatePixelBuffer(nil, madePool, &pooled) == kCVReturnSuccess)
        let pooledBuffer = try #require(pooled)
        #expect(CVPixelBufferGetPixelFormatType(pooledBuffer) == kCVPixelFormatType_32BGRA)
        #expect(CVPixelBufferGetWidth(pooledBuffer) == 16 && CVPixelBufferGetHeight(pooledBuffer) == 8)
        #expect(CVPixelBufferGetPlaneCount(pooledBuffer) == 0, "packed formats have no planes")
        let noSize = [kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA] as CFDictionary
        #expect(CVPixelBufferPoolCreate(nil, nil, noSize, &pool) == kCVReturnInvalidPixelBufferAttributes)
    }

    /// A decoded picture's attachments say what ffprobe says of the stream.
    @Test func decodedPicturesCarryTheirColourAttachments() throws {
        final class Images: @unchecked Sendable {
            // Unchecked: written by the session's queue, read after the wait.
            var list: [CVImageBuffer] = []
        }
        let images = Images()
        let samples = try Self.samples("h264-main-cabac.264", codec: .h264)
        let format = try Self.formatDescription(samples[0].formatDescription)
        var created: VTDecompressionSession?
        #expect(
            VTDecompressionSessionCreate(
                allocator: nil, formatDescription: format, decoderSpecification: nil, imageBufferAttributes: nil,
                outputCallback: nil, decompressionSessionOut: &created) == noErr)
        let session = try #require(created)
        let buffer = try Self.sampleBuffer(samples[0].data, format: format)
        #expect(
            VTDecompressionSessionDecodeFrame(session, sampleBuffer: buffer, flags: [], infoFlagsOut: nil) {
                _, _, image, _, _ in
                if let image { images.list.append(image) }
            } == noErr)
        #expect(VTDecompressionSessionFinishDelayedFrames(session) == noErr)
        VTDecompressionSessionInvalidate(session)
        let image = try #require(images.list.first)
        let probe = try Self.probe("h264-main-cabac.264")
        #expect(probe["color_primaries"] as? String == "bt709")
        let primaries = CVBufferCopyAttachment(image, kCVImageBufferColorPrimariesKey, nil) as? NSString
        #expect(primaries == kCVImageBufferColorPrimaries_ITU_R_709_2)
        var mode = CVAttachmentMode.shouldNotPropagate
        let fields = CVBufferCopyAttachment(image, kCVImageBufferFieldCountKey, &mode) as? NSNumber
        #expect(fields?.intValue == 1)
        #expect(mode == .shouldPropagate)
        CVBufferSetAttachment(image, "Note" as CFString, "mine" as NSString, .shouldNotPropagate)
        #expect(CVBufferCopyAttachments(image, .shouldNotPropagate)?["Note"] as? NSString == "mine")
    }

    /// Every picture of `samples` decoded through a `VTDecompressionSession` with a per-frame
    /// output handler, after `configure` had the session.
    static func decodedImages(
        _ samples: [SampleBuffer], format: CMFormatDescription, configure: (VTDecompressionSession) -> Void = { _ in },
        prepare: (SampleBuffer, CMSampleBuffer) -> Void = { _, _ in }
    ) throws -> [CVImageBuffer] {
        final class Images: @unchecked Sendable {
            // Unchecked: written by the session's queue, read after the wait.
            var list: [CVImageBuffer] = []
        }
        var created: VTDecompressionSession?
        #expect(
            VTDecompressionSessionCreate(
                allocator: nil, formatDescription: format, decoderSpecification: nil, imageBufferAttributes: nil,
                outputCallback: nil, decompressionSessionOut: &created) == noErr)
        let session = try #require(created)
        configure(session)
        let images = Images()
        for sample in samples {
            let buffer = try sampleBuffer(sample.data, format: format)
            prepare(sample, buffer)
            #expect(
                VTDecompressionSessionDecodeFrame(session, sampleBuffer: buffer, flags: [], infoFlagsOut: nil) {
                    _, _, image, _, _ in
                    if let image { images.list.append(image) }
                } == noErr)
        }
        #expect(VTDecompressionSessionFinishDelayedFrames(session) == noErr)
        VTDecompressionSessionInvalidate(session)
        return images.list
    }

    /// The static HDR metadata as Apple's keys carry it: 24 and 4 bytes of `CFData`, the HEVC
    /// SEI payloads big-endian, on every picture (in-band SEI) and in the extensions a caller
    /// gives a description (its container's), which then reach the pictures of a stream that
    /// carries none.
    @Test func staticHDRMetadataTravelsUnderApplesKeys() throws {
        let mastering: [UInt8] = [
            0x33, 0xC2, 0x86, 0xC4, 0x1D, 0x4C, 0x0B, 0xB8, 0x84, 0xD0, 0x3E, 0x80, 0x3D, 0x13, 0x40, 0x42,
            0x00, 0x98, 0x96, 0x80, 0x00, 0x00, 0x00, 0x01,
        ]
        let light: [UInt8] = [0x03, 0xE8, 0x01, 0x90]
        func bytes(_ value: Any?) -> [UInt8]? { (value as? NSData).map { [UInt8](Data(referencing: $0)) } }
        func decodedImages(_ name: String, codec: VideoCodecType, extensions: CFDictionary?) throws -> [CVImageBuffer] {
            let samples = try Self.samples(name, codec: codec)
            let parameterSets = samples[0].formatDescription.parameterSets
            let pointers = parameterSets.map { set -> UnsafePointer<UInt8> in
                let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: set.count)
                copy.initialize(from: set, count: set.count)
                return UnsafePointer(copy)
            }
            defer { pointers.forEach { $0.deallocate() } }
            var description: CMFormatDescription?
            #expect(
                CMVideoFormatDescriptionCreateFromHEVCParameterSets(
                    allocator: nil, parameterSetCount: pointers.count, parameterSetPointers: pointers,
                    parameterSetSizes: parameterSets.map(\.count), nalUnitHeaderLength: 4, extensions: extensions,
                    formatDescriptionOut: &description) == noErr)
            let format = try #require(description)
            if extensions != nil {
                #expect(
                    bytes(
                        CMFormatDescriptionGetExtension(
                            format, extensionKey: kCMFormatDescriptionExtension_MasteringDisplayColorVolume))
                        == mastering)
                #expect(
                    bytes(
                        CMFormatDescriptionGetExtension(
                            format, extensionKey: kCMFormatDescriptionExtension_ContentLightLevelInfo))
                        == light)
            }
            return try Self.decodedImages(samples, format: format)
        }

        // In band: x265's SEI messages.
        let inBand = try decodedImages("hevc-hdr10.265", codec: .hevc, extensions: nil)
        #expect(inBand.count == 10)
        for image in inBand {
            #expect(
                bytes(CVBufferCopyAttachment(image, kCVImageBufferMasteringDisplayColorVolumeKey, nil)) == mastering)
            #expect(bytes(CVBufferCopyAttachment(image, kCVImageBufferContentLightLevelInfoKey, nil)) == light)
        }
        // From the caller's extensions, for a stream that carries none.
        let extensions = NSMutableDictionary()
        extensions[kCMFormatDescriptionExtension_MasteringDisplayColorVolume] = NSData(
            bytes: mastering, length: mastering.count)
        extensions[kCMFormatDescriptionExtension_ContentLightLevelInfo] = NSData(bytes: light, length: light.count)
        let fromContainer = try decodedImages("hevc-main.265", codec: .hevc, extensions: extensions)
        #expect(!fromContainer.isEmpty)
        for image in fromContainer {
            #expect(
                bytes(CVBufferCopyAttachment(image, kCVImageBufferMasteringDisplayColorVolumeKey, nil)) == mastering)
            #expect(bytes(CVBufferCopyAttachment(image, kCVImageBufferContentLightLevelInfoKey, nil)) == light)
        }
        let plain = try decodedImages("hevc-main.265", codec: .hevc, extensions: nil)
        #expect(
            plain.allSatisfy { CVBufferCopyAttachment($0, kCVImageBufferMasteringDisplayColorVolumeKey, nil) == nil })
    }

    /// With `kVTDecompressionPropertyKey_PropagatePerFrameHDRDisplayMetadata` on, each image
    /// buffer carries its sample's HDR10+ message under `kCMSampleAttachmentKey_HDR10PlusPerFrameData`
    /// (from the country code 0xB5 on); off, none.
    @Test func hdr10PlusTravelsUnderApplesKey() throws {
        func images(propagating: Bool) throws -> [CVImageBuffer] {
            let samples = try Self.samples("hevc-hdr10plus.265", codec: .hevc)
            return try Self.decodedImages(samples, format: try Self.formatDescription(samples[0].formatDescription)) {
                session in
                guard propagating else { return }
                #expect(
                    VTSessionSetProperty(
                        session, key: kVTDecompressionPropertyKey_PropagatePerFrameHDRDisplayMetadata,
                        value: kCFBooleanTrue) == noErr)
            }
        }
        let propagated = try images(propagating: true)
        #expect(propagated.count == 10)
        for image in propagated {
            let data = CVBufferCopyAttachment(image, kCMSampleAttachmentKey_HDR10PlusPerFrameData, nil) as? NSData
            let bytes = data.map { [UInt8](Data(referencing: $0)) } ?? []
            #expect(bytes.prefix(6) == [0xB5, 0x00, 0x3C, 0x00, 0x01, 0x04][...], "\(bytes.prefix(8))")
        }
        let plain = try images(propagating: false)
        #expect(
            plain.allSatisfy { CVBufferCopyAttachment($0, kCMSampleAttachmentKey_HDR10PlusPerFrameData, nil) == nil })
    }

    /// A session with `kVTDecompressionPropertyKey_PropagatePerFrameHDRDisplayMetadata` on, for
    /// decoding with an output handler per frame.
    static func propagatingSession(_ format: CMFormatDescription) throws -> VTDecompressionSession {
        var created: VTDecompressionSession?
        #expect(
            VTDecompressionSessionCreate(
                allocator: nil, formatDescription: format, decoderSpecification: nil, imageBufferAttributes: nil,
                outputCallback: nil, decompressionSessionOut: &created) == noErr)
        let session = try #require(created)
        #expect(
            VTSessionSetProperty(
                session, key: kVTDecompressionPropertyKey_PropagatePerFrameHDRDisplayMetadata, value: kCFBooleanTrue)
                == noErr)
        return session
    }

    /// Attaches an HDR10+ message to the first sample of a buffer, with Core Media's attachment
    /// idiom.
    static func attachHDR10Plus(_ message: [UInt8], to buffer: CMSampleBuffer) {
        let attachments = CMSampleBufferGetSampleAttachmentsArray(buffer, createIfNecessary: true)
        let dict = unsafeBitCast(CFArrayGetValueAtIndex(attachments, 0), to: CFMutableDictionary.self)
        let data = NSData(bytes: message, length: message.count)
        CFDictionarySetValue(
            dict, Unmanaged.passUnretained(kCMSampleAttachmentKey_HDR10PlusPerFrameData).toOpaque(),
            Unmanaged.passUnretained(data).toOpaque())
    }

    /// Every HDR fixture through the compatibility modules, as a file reader's samples: each
    /// image buffer carries under Apple's keys (and VAToolbox's Dolby Vision one) the bytes the
    /// native API hands out for the same frame — which `HDRMetadataTests`, `HDR10PlusTests` and
    /// `DolbyVisionTests` compare with ffprobe's side data.
    @Test(arguments: [
        "hevc-hdr10.265", "hevc-hdr10plus.265", "av1-hdr10.ivf", "h264-container-hdr.mp4", "h264-container-hdr.mkv",
        "hevc-dolby-vision.265", "hevc-dolby-vision.mkv", "h264-sei-hdr.264", "vp9-hdr10plus.webm",
    ])
    func hdrFixturesCarryTheNativeAPIsBytesUnderApplesKeys(_ fixture: String) throws {
        let reader = try MediaFileReader(path: Self.fixtures.appendingPathComponent(fixture).path)
        let samples = try reader.readAllSamples()
        // The native API's frames, in the order they come out.
        final class Native: @unchecked Sendable {
            // Unchecked: written by the session's queue, read after the finish.
            var outputs: [DecompressionOutput] = []
        }
        let native = Native()
        let nativeSession = try DecompressionSession(formatDescription: reader.formatDescription) { output in
            if output.imageBuffer != nil { native.outputs.append(output) }
        }
        nativeSession.propagatesPerFrameHDRDisplayMetadata = true
        for sample in samples { try nativeSession.decodeFrame(sample) }
        try nativeSession.finishDelayedFrames()
        nativeSession.invalidate()

        let format = CMFormatDescription(reader.formatDescription)
        let list = try Self.decodedImages(samples, format: format) { session in
            #expect(
                VTSessionSetProperty(
                    session, key: kVTDecompressionPropertyKey_PropagatePerFrameHDRDisplayMetadata,
                    value: kCFBooleanTrue) == noErr)
        } prepare: { sample, buffer in
            // As a WebM reader attaches a block's HDR10+ message.
            if let message = sample.hdr10PlusPerFrameData { Self.attachHDR10Plus(message, to: buffer) }
        }

        func bytes(_ image: CVImageBuffer, _ key: CFString) -> [UInt8]? {
            (CVBufferCopyAttachment(image, key, nil) as? NSData).map { [UInt8](Data(referencing: $0)) }
        }
        try #require(list.count == native.outputs.count && !native.outputs.isEmpty, "\(fixture)")
        var carried = 0
        for (index, (image, output)) in zip(list, native.outputs).enumerated() {
            let attachments = try #require(output.imageBuffer?.attachments)
            let frame = "\(fixture) frame \(index)"
            #expect(
                bytes(image, kCVImageBufferMasteringDisplayColorVolumeKey)
                    == attachments.masteringDisplayColorVolume?.appleBytes, "\(frame)")
            #expect(bytes(image, kCVImageBufferContentLightLevelInfoKey) == attachments.contentLightLevel?.appleBytes)
            #expect(
                bytes(image, kCVImageBufferAmbientViewingEnvironmentKey)
                    == attachments.ambientViewingEnvironment?.appleBytes, "\(frame)")
            #expect(bytes(image, kCMSampleAttachmentKey_HDR10PlusPerFrameData) == output.hdr10PlusPerFrameData)
            #expect(bytes(image, kVAToolboxSampleAttachmentKey_DolbyVisionRPU) == output.dolbyVisionRPU, "\(frame)")
            if attachments.masteringDisplayColorVolume != nil || output.hdr10PlusPerFrameData != nil { carried += 1 }
        }
        #expect(carried == native.outputs.count, "\(fixture): every frame carries HDR metadata")
    }

    /// An app's own `kCMSampleAttachmentKey_HDR10PlusPerFrameData` on a sample (as a WebM
    /// reader attaches VP9's) reaches the image buffer when per-frame metadata is propagated.
    @Test func aSamplesHDR10PlusAttachmentReachesItsImage() throws {
        let samples = try Self.samples("h264-baseline-cavlc.264", codec: .h264)
        let format = try Self.formatDescription(samples[0].formatDescription)
        let message: [UInt8] = [0xB5, 0x00, 0x3C, 0x00, 0x01, 0x04, 0x01, 0x40, 0x00, 0x0C, 0x80]
        let sampleBuffer = try Self.sampleBuffer(samples[0].data, format: format)
        Self.attachHDR10Plus(message, to: sampleBuffer)
        #expect(try sampleBuffer.sampleBuffers().first?.hdr10PlusPerFrameData == message)
        let session = try Self.propagatingSession(format)
        final class Attached: @unchecked Sendable {
            // Unchecked: written by the session's queue, read after the finish.
            var bytes: [UInt8]?
        }
        let attached = Attached()
        #expect(
            VTDecompressionSessionDecodeFrame(session, sampleBuffer: sampleBuffer, flags: [], infoFlagsOut: nil) {
                _, _, image, _, _ in
                let value = image.flatMap {
                    CVBufferCopyAttachment($0, kCMSampleAttachmentKey_HDR10PlusPerFrameData, nil)
                }
                attached.bytes = (value as? NSData).map { [UInt8](Data(referencing: $0)) }
            } == noErr)
        #expect(VTDecompressionSessionFinishDelayedFrames(session) == noErr)
        VTDecompressionSessionInvalidate(session)
        #expect(attached.bytes == message)
    }

    /// The keys a description shares with its pictures: every one the description states, a
    /// decoded picture carries with the same value (Apple code copies them this way).
    @Test func theKeysCommonWithImageBuffersHaveTheSameValuesOnThePictures() throws {
        let keys = CMVideoFormatDescriptionGetExtensionKeysCommonWithImageBuffers()
        let names = (0..<CFArrayGetCount(keys)).map {
            unsafeBitCast(CFArrayGetValueAtIndex(keys, $0), to: CFString.self) as String
        }
        for key in [
            kCMFormatDescriptionExtension_MasteringDisplayColorVolume,
            kCMFormatDescriptionExtension_ContentLightLevelInfo,
            kCMFormatDescriptionExtension_AmbientViewingEnvironment, kCMFormatDescriptionExtension_ColorPrimaries,
            kCMFormatDescriptionExtension_FieldCount,
        ] {
            #expect(names.contains(key as String), "\(key)")
        }
        let samples = try Self.samples("hevc-dolby-vision.265", codec: .hevc)
        let format = try Self.formatDescription(samples[0].formatDescription)
        let ambient: [UInt8] = [0x00, 0x00, 0x0C, 0x44, 0x3D, 0x13, 0x40, 0x42]
        let images = try Self.decodedImages(samples, format: format)
        #expect(images.count == 10)
        var compared = 0
        for key in names {
            guard let value = CMFormatDescriptionGetExtension(format, extensionKey: key as CFString) else { continue }
            compared += 1
            for image in images {
                let attached = CVBufferCopyAttachment(image, key as CFString, nil)
                #expect((attached as? NSObject)?.isEqual(value) == true, "\(key): \(String(describing: attached))")
            }
        }
        #expect(compared >= 4, "field count and the three colour code points of the HDR10 stream")
        for image in images {
            let bytes = (CVBufferCopyAttachment(image, kCVImageBufferAmbientViewingEnvironmentKey, nil) as? NSData)
                .map { [UInt8](Data(referencing: $0)) }
            #expect(bytes == ambient, "the stream's own, which the description does not state")
        }
    }

    /// A Dolby Vision stream's RPU goes out under VAToolbox's own key (Apple names none) when per
    /// frame metadata is propagated, and its ambient viewing environment under Apple's key on
    /// every picture; a `dvvC` atom given with the `hvcC` is in the description's extensions.
    @Test func dolbyVisionAndTheAmbientViewingEnvironmentTravelUnderTheirKeys() throws {
        func bytes(_ value: Any?) -> [UInt8]? { (value as? NSData).map { [UInt8](Data(referencing: $0)) } }
        let samples = try Self.samples("hevc-dolby-vision.265", codec: .hevc)
        let hvcC = samples[0].formatDescription.extensions.decoderConfigurationRecord
        let dvvC: [UInt8] = [1, 0, 0x10, 0x25, 0x10] + [UInt8](repeating: 0, count: 19)
        let atoms = NSMutableDictionary()
        atoms["hvcC"] = NSData(bytes: hvcC, length: hvcC.count)
        atoms["dvvC"] = NSData(bytes: dvvC, length: dvvC.count)
        let extensions = NSMutableDictionary()
        extensions[kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms] = atoms
        var description: CMFormatDescription?
        #expect(
            CMVideoFormatDescriptionCreate(
                allocator: nil, codecType: kCMVideoCodecType_HEVC, width: 320, height: 240, extensions: extensions,
                formatDescriptionOut: &description) == noErr)
        let format = try #require(description)
        let stated =
            CMFormatDescriptionGetExtension(
                format, extensionKey: kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms) as? NSDictionary
        #expect(bytes(stated?.object(forKey: "dvvC")) == dvvC)
        #expect(bytes(stated?.object(forKey: "hvcC")) == hvcC)

        let ambient: [UInt8] = [0x00, 0x00, 0x0C, 0x44, 0x3D, 0x13, 0x40, 0x42]
        for propagating in [true, false] {
            let images = try Self.decodedImages(samples, format: format) { session in
                #expect(
                    VTSessionSetProperty(
                        session, key: kVTDecompressionPropertyKey_PropagatePerFrameHDRDisplayMetadata,
                        value: propagating ? kCFBooleanTrue : kCFBooleanFalse) == noErr)
            }
            #expect(images.count == 10)
            for image in images {
                let rpu = bytes(CVBufferCopyAttachment(image, kVAToolboxSampleAttachmentKey_DolbyVisionRPU, nil))
                #expect(propagating ? rpu?.prefix(3) == [0x7C, 0x01, 0x19] : rpu == nil)
                #expect(
                    bytes(CVBufferCopyAttachment(image, kCVImageBufferAmbientViewingEnvironmentKey, nil)) == ambient)
            }
        }
    }

    /// The alternative transfer characteristics and an ICC profile under Apple's keys: a stream's
    /// `alternative_transfer_characteristics` SEI message on every picture beside the stated
    /// transfer (`kCVImageBufferTransferFunctionKey` stays BT.2020), and the ones a caller gives
    /// a description in its extensions, which reach the pictures of a stream that states none.
    @Test func alternativeTransferAndICCProfileTravelUnderApplesKeys() throws {
        func string(_ value: Any?) -> String? { (value as? NSString).map { $0 as String } }
        let samples = try Self.samples("hevc-alternative-transfer.265", codec: .hevc)
        let inBand = try Self.decodedImages(samples, format: try Self.formatDescription(samples[0].formatDescription))
        #expect(inBand.count == 10)
        for image in inBand {
            #expect(
                string(CVBufferCopyAttachment(image, kCVImageBufferTransferFunctionKey, nil))
                    == kCVImageBufferTransferFunction_ITU_R_2020 as String)
            #expect(
                string(
                    CVBufferCopyAttachment(
                        image, kCMFormatDescriptionExtension_AlternativeTransferCharacteristics, nil))
                    == kCMFormatDescriptionTransferFunction_ITU_R_2100_HLG as String)
        }

        let profile: [UInt8] = Array("ICC profile bytes, as they are".utf8)
        let plain = try Self.samples("hevc-main.265", codec: .hevc)
        let extensions = NSMutableDictionary()
        extensions[kCMFormatDescriptionExtension_AlternativeTransferCharacteristics] =
            kCMFormatDescriptionTransferFunction_ITU_R_2100_HLG
        extensions[kCMFormatDescriptionExtension_ICCProfile] = NSData(bytes: profile, length: profile.count)
        let format = try Self.formatDescription(plain[0].formatDescription, extensions: extensions)
        #expect(
            string(
                CMFormatDescriptionGetExtension(
                    format, extensionKey: kCMFormatDescriptionExtension_AlternativeTransferCharacteristics))
                == kCMFormatDescriptionTransferFunction_ITU_R_2100_HLG as String)
        let stated = CMFormatDescriptionGetExtension(format, extensionKey: kCMFormatDescriptionExtension_ICCProfile)
        #expect((stated as? NSData).map { [UInt8](Data(referencing: $0)) } == profile)
        let keys = CMVideoFormatDescriptionGetExtensionKeysCommonWithImageBuffers()
        let names = (0..<CFArrayGetCount(keys)).map {
            unsafeBitCast(CFArrayGetValueAtIndex(keys, $0), to: CFString.self) as String
        }
        #expect(names.contains(kCMFormatDescriptionExtension_ICCProfile as String))
        let images = try Self.decodedImages(plain, format: format)
        #expect(!images.isEmpty)
        for image in images {
            let attached = CVBufferCopyAttachment(image, kCVImageBufferICCProfileKey, nil) as? NSData
            #expect(attached.map { [UInt8](Data(referencing: $0)) } == profile)
            #expect(
                string(
                    CVBufferCopyAttachment(
                        image, kCMFormatDescriptionExtension_AlternativeTransferCharacteristics, nil))
                    == kCMFormatDescriptionTransferFunction_ITU_R_2100_HLG as String)
        }
    }

    // MARK: - Time

    @Test func timeFunctionsComputeAsCoreMedia() {
        let third = CMTimeMake(value: 1, timescale: 3)
        let sixth = CMTimeMake(value: 1, timescale: 6)
        #expect(CMTimeGetSeconds(CMTimeAdd(third, sixth)) == 0.5)
        #expect(CMTimeCompare(third, sixth) == 1)
        #expect(CMTimeCompare(sixth, third) == -1)
        #expect(CMTimeCompare(CMTimeMake(value: 2, timescale: 6), third) == 0)
        #expect(CMTimeConvertScale(third, timescale: 90000, method: .default).value == 30000)
        #expect(CMTimeMultiply(sixth, multiplier: 3) == CMTimeMake(value: 1, timescale: 2))
        #expect(!kCMTimeInvalid.isValid)
        #expect(CMTimeMakeFromDictionary(CMTimeCopyAsDictionary(third, allocator: nil)) == third)
        #expect(CMTimeMakeWithSeconds(1.5, preferredTimescale: 1000).value == 1500)
    }

    // MARK: - More of the C API

    /// Several samples in one sample buffer (sizes per sample) each come out as a frame, and the
    /// block buffer can be built by appending references to other block buffers.
    @Test func aSampleBufferOfSeveralSamplesDecodesEachSample() throws {
        let samples = try Self.samples("h264-baseline-cavlc.264", codec: .h264)
        let format = try Self.formatDescription(samples[0].formatDescription)
        var empty: CMBlockBuffer?
        #expect(CMBlockBufferCreateEmpty(allocator: nil, capacity: 4, flags: 0, blockBufferOut: &empty) == 0)
        let joined = try #require(empty)
        let parts = try samples.prefix(4).map { try Self.sampleBuffer($0.data, format: format) }
        for part in parts {
            let block = try #require(CMSampleBufferGetDataBuffer(part))
            #expect(
                CMBlockBufferAppendBufferReference(
                    joined, targetBBuf: block, offsetToData: 0, dataLength: CMBlockBufferGetDataLength(block), flags: 0)
                    == kCMBlockBufferNoErr)
        }
        let sizes = samples.prefix(4).map(\.data.count)
        var timing = (0..<4).map {
            CMSampleTimingInfo(
                duration: CMTimeMake(value: 1, timescale: 25),
                presentationTimeStamp: CMTimeMake(value: Int64($0), timescale: 25),
                decodeTimeStamp: .invalid)
        }
        var sampleBuffer: CMSampleBuffer?
        #expect(
            CMSampleBufferCreateReady(
                allocator: nil, dataBuffer: joined, formatDescription: format, sampleCount: 4,
                sampleTimingEntryCount: 4,
                sampleTimingArray: &timing, sampleSizeEntryCount: 4, sampleSizeArray: sizes,
                sampleBufferOut: &sampleBuffer)
                == noErr)
        let buffer = try #require(sampleBuffer)
        #expect(CMSampleBufferGetNumSamples(buffer) == 4)
        #expect(CMSampleBufferGetSampleSize(buffer, at: 2) == sizes[2])
        #expect(CMSampleBufferGetDuration(buffer) == CMTimeMake(value: 4, timescale: 25))
        var created: VTDecompressionSession?
        #expect(
            VTDecompressionSessionCreate(
                allocator: nil, formatDescription: format, decoderSpecification: nil, imageBufferAttributes: nil,
                outputCallback: nil, decompressionSessionOut: &created) == noErr)
        let session = try #require(created)
        final class Frames: @unchecked Sendable {
            // Unchecked: written by the session's queue, read after the finish.
            var times: [CMTime] = []
            var hashes: [String] = []
        }
        let frames = Frames()
        #expect(
            VTDecompressionSessionDecodeFrame(session, sampleBuffer: buffer, flags: [], infoFlagsOut: nil) {
                _, _, image, time, _ in
                frames.times.append(time)
                if let image { frames.hashes.append(image.pixelBuffer.md5) }
            } == noErr)
        #expect(VTDecompressionSessionFinishDelayedFrames(session) == noErr)
        VTDecompressionSessionInvalidate(session)
        #expect(frames.times == timing.map(\.presentationTimeStamp))
        #expect(frames.hashes == Array(try SeedDecoderTests.fixtureNV12MD5s("h264-baseline-cavlc.264").prefix(4)))
    }

    /// A format description from an MP4's `avcC` (what a file reader hands over) equals the one
    /// from the same stream's parameter sets.
    @Test func formatDescriptionFromAnAvcCAtomEqualsTheParameterSetOne() throws {
        let reader = try MediaFileReader(path: Self.fixtures.appendingPathComponent("h264-high-bpyramid.mp4").path)
        let avcC = reader.formatDescription.extensions.decoderConfigurationRecord
        try #require(!avcC.isEmpty)
        let atoms = NSMutableDictionary()
        atoms["avcC"] = NSData(bytes: avcC, length: avcC.count)
        let extensions = NSMutableDictionary()
        extensions[kCMFormatDescriptionExtension_SampleDescriptionExtensionAtoms] = atoms
        var fromAtom: CMFormatDescription?
        let dimensions = reader.formatDescription.dimensions
        #expect(
            CMVideoFormatDescriptionCreate(
                allocator: nil, codecType: kCMVideoCodecType_H264, width: dimensions.width, height: dimensions.height,
                extensions: extensions, formatDescriptionOut: &fromAtom) == noErr)
        let described = try #require(fromAtom)
        let fromSets = try Self.formatDescription(reader.formatDescription)
        #expect(CMVideoFormatDescriptionGetDimensions(described) == CMVideoFormatDescriptionGetDimensions(fromSets))
        #expect(
            described.videoFormatDescription?.parameterSets == fromSets.videoFormatDescription?.parameterSets)
        var missing: CMFormatDescription?
        #expect(
            CMVideoFormatDescriptionCreate(
                allocator: nil, codecType: kCMVideoCodecType_H264, width: 16, height: 16, extensions: nil,
                formatDescriptionOut: &missing) == kCMFormatDescriptionError_InvalidParameter)
    }

    /// An output pixel format VAToolbox cannot produce is refused at creation.
    @Test func anUnproducibleOutputFormatIsRefusedAtCreation() throws {
        let samples = try Self.samples("h264-baseline-cavlc.264", codec: .h264)
        let format = try Self.formatDescription(samples[0].formatDescription)
        let attributes = [kCVPixelBufferPixelFormatTypeKey as String: 0x3F3F_3F3F] as CFDictionary
        var created: VTDecompressionSession?
        #expect(
            VTDecompressionSessionCreate(
                allocator: nil, formatDescription: format, decoderSpecification: nil, imageBufferAttributes: attributes,
                outputCallback: nil, decompressionSessionOut: &created) == kCVReturnInvalidPixelFormat)
        #expect(created == nil)
    }
}
