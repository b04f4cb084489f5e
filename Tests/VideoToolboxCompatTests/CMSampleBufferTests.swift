import Foundation
import Testing
import VideoToolbox

/// CMSampleBuffer.h and CMAttachment.h as Core Media code calls them: the getters of a buffer of
/// several samples out of presentation order, the per-sample arrays, readiness, invalidation and
/// attachments.
@Suite struct CMSampleBufferTests {
    /// Three samples of the baseline fixture in one buffer, timed as an I P B group would be:
    /// presentation times 0, 2 and 1 (in 1/25 s), decode times 0, 1, 2.
    static func threeSamples() throws -> (buffer: CMSampleBuffer, timing: [CMSampleTimingInfo], sizes: [Int]) {
        let samples = try CompatibilityAPITests.samples("h264-baseline-cavlc.264", codec: .h264)
        let format = try CompatibilityAPITests.formatDescription(samples[0].formatDescription)
        let bytes = samples.prefix(3).flatMap(\.data)
        var blockBuffer: CMBlockBuffer?
        #expect(
            CMBlockBufferCreateWithMemoryBlock(
                allocator: nil, memoryBlock: nil, blockLength: bytes.count, blockAllocator: nil, customBlockSource: nil,
                offsetToData: 0, dataLength: bytes.count, flags: 0, blockBufferOut: &blockBuffer) == kCMBlockBufferNoErr
        )
        let block = try #require(blockBuffer)
        #expect(
            CMBlockBufferReplaceDataBytes(
                with: bytes, blockBuffer: block, offsetIntoDestination: 0, dataLength: bytes.count)
                == kCMBlockBufferNoErr)
        let timing = [0, 2, 1].enumerated().map { decode, presentation in
            CMSampleTimingInfo(
                duration: CMTimeMake(value: 1, timescale: 25),
                presentationTimeStamp: CMTimeMake(value: Int64(presentation), timescale: 25),
                decodeTimeStamp: CMTimeMake(value: Int64(decode), timescale: 25))
        }
        let sizes = samples.prefix(3).map(\.data.count)
        var sampleBuffer: CMSampleBuffer?
        #expect(
            CMSampleBufferCreateReady(
                allocator: nil, dataBuffer: block, formatDescription: format, sampleCount: 3, sampleTimingEntryCount: 3,
                sampleTimingArray: timing, sampleSizeEntryCount: 3, sampleSizeArray: sizes,
                sampleBufferOut: &sampleBuffer) == noErr)
        return (try #require(sampleBuffer), timing, sizes)
    }

    /// "Returns the numerically earliest presentation timestamp of all the samples"; the decode
    /// time stamp is the first sample's.
    @Test func gettersOfABufferOfSamplesOutOfPresentationOrder() throws {
        let (buffer, timing, sizes) = try Self.threeSamples()
        #expect(CMSampleBufferGetPresentationTimeStamp(buffer) == CMTimeMake(value: 0, timescale: 25))
        #expect(CMSampleBufferGetDecodeTimeStamp(buffer) == CMTimeMake(value: 0, timescale: 25))
        #expect(CMSampleBufferGetDuration(buffer) == CMTimeMake(value: 3, timescale: 25))
        #expect(CMSampleBufferGetOutputPresentationTimeStamp(buffer) == CMSampleBufferGetPresentationTimeStamp(buffer))
        #expect(CMSampleBufferGetOutputDecodeTimeStamp(buffer) == CMSampleBufferGetDecodeTimeStamp(buffer))
        #expect(CMSampleBufferGetOutputDuration(buffer) == CMTimeMake(value: 3, timescale: 25))
        #expect(CMSampleBufferGetNumSamples(buffer) == 3)
        #expect(CMSampleBufferGetTotalSampleSize(buffer) == sizes.reduce(0, +))
        #expect(CMSampleBufferGetSampleSize(buffer, at: 1) == sizes[1])
        #expect(CMSampleBufferIsValid(buffer) && CMSampleBufferDataIsReady(buffer))
        #expect(CMSampleBufferGetImageBuffer(buffer) == nil)
        #expect(CMSampleBufferGetDataBuffer(buffer).map(CMBlockBufferGetDataLength) == sizes.reduce(0, +))
        #expect(
            CMSampleBufferGetFormatDescription(buffer).map(CMFormatDescriptionGetMediaSubType) == kCMVideoCodecType_H264
        )
        // The properties of Apple's Swift overlay.
        #expect(buffer.presentationTimeStamp == CMTimeMake(value: 0, timescale: 25))
        #expect(buffer.decodeTimeStamp == CMTimeMake(value: 0, timescale: 25))
        #expect(buffer.duration == CMTimeMake(value: 3, timescale: 25))
        #expect(buffer.outputPresentationTimeStamp == buffer.presentationTimeStamp)
        #expect(buffer.outputDecodeTimeStamp == buffer.decodeTimeStamp && buffer.outputDuration == buffer.duration)
        #expect(buffer.numSamples == 3 && buffer.totalSampleSize == sizes.reduce(0, +) && buffer.isValid)

        var one = kCMTimingInfoInvalid
        #expect(CMSampleBufferGetSampleTimingInfo(buffer, at: 1, timingInfoOut: &one) == noErr)
        #expect(one.presentationTimeStamp == timing[1].presentationTimeStamp)
        #expect(one.decodeTimeStamp == timing[1].decodeTimeStamp)
        #expect(
            CMSampleBufferGetSampleTimingInfo(buffer, at: 3, timingInfoOut: &one)
                == kCMSampleBufferError_SampleIndexOutOfRange)
    }

    /// The two-call idiom: ask for the count with a nil array, then fill one that big.
    @Test func timingAndSizeArraysAreCopiedOutAsCoreMediaDoes() throws {
        let (buffer, timing, sizes) = try Self.threeSamples()
        var needed = 0
        #expect(
            CMSampleBufferGetSampleTimingInfoArray(buffer, entryCount: 0, arrayToFill: nil, entriesNeededOut: &needed)
                == noErr)
        #expect(needed == 3)
        var timingOut = [CMSampleTimingInfo](repeating: kCMTimingInfoInvalid, count: 2)
        #expect(
            CMSampleBufferGetSampleTimingInfoArray(
                buffer, entryCount: 2, arrayToFill: &timingOut, entriesNeededOut: nil)
                == kCMSampleBufferError_ArrayTooSmall)
        timingOut = [CMSampleTimingInfo](repeating: kCMTimingInfoInvalid, count: needed)
        #expect(
            CMSampleBufferGetSampleTimingInfoArray(
                buffer, entryCount: needed, arrayToFill: &timingOut, entriesNeededOut: &needed) == noErr)
        #expect(timingOut.map(\.presentationTimeStamp) == timing.map(\.presentationTimeStamp))

        var sizesOut = [Int](repeating: 0, count: 3)
        #expect(
            CMSampleBufferGetSampleSizeArray(buffer, entryCount: 3, arrayToFill: &sizesOut, entriesNeededOut: &needed)
                == noErr)
        #expect(sizesOut == sizes && needed == 3)

        var untimed: CMSampleBuffer?
        #expect(
            CMSampleBufferCreate(
                allocator: nil, dataBuffer: nil, dataReady: true, makeDataReadyCallback: nil, refcon: nil,
                formatDescription: CMSampleBufferGetFormatDescription(buffer), sampleCount: 1,
                sampleTimingEntryCount: 0,
                sampleTimingArray: nil, sampleSizeEntryCount: 0, sampleSizeArray: nil, sampleBufferOut: &untimed)
                == noErr)
        let bare = try #require(untimed)
        #expect(
            CMSampleBufferGetSampleTimingInfoArray(bare, entryCount: 0, arrayToFill: nil, entriesNeededOut: &needed)
                == kCMSampleBufferError_BufferHasNoSampleTimingInfo)
        #expect(
            CMSampleBufferGetSampleSizeArray(bare, entryCount: 0, arrayToFill: nil, entriesNeededOut: &needed)
                == kCMSampleBufferError_BufferHasNoSampleSizes)
        #expect(CMTIME_IS_INVALID(CMSampleBufferGetPresentationTimeStamp(bare)))
    }

    /// A buffer made not ready becomes ready through its callback; an invalidated one is refused
    /// by the decoder.
    @Test func readinessAndInvalidation() throws {
        let samples = try CompatibilityAPITests.samples("h264-baseline-cavlc.264", codec: .h264)
        let format = try CompatibilityAPITests.formatDescription(samples[0].formatDescription)
        let ready = try CompatibilityAPITests.sampleBuffer(samples[0].data, format: format)
        final class Counter {
            var calls = 0
        }
        let counter = Counter()
        var notReady: CMSampleBuffer?
        #expect(
            CMSampleBufferCreate(
                allocator: nil, dataBuffer: CMSampleBufferGetDataBuffer(ready), dataReady: false,
                makeDataReadyCallback: { _, refcon in
                    refcon.map { Unmanaged<Counter>.fromOpaque($0).takeUnretainedValue().calls += 1 }
                    return noErr
                }, refcon: Unmanaged.passUnretained(counter).toOpaque(), formatDescription: format, sampleCount: 1,
                sampleTimingEntryCount: 0,
                sampleTimingArray: nil, sampleSizeEntryCount: 0, sampleSizeArray: nil, sampleBufferOut: &notReady)
                == noErr)
        let buffer = try #require(notReady)
        #expect(!CMSampleBufferDataIsReady(buffer))
        #expect(CMSampleBufferMakeDataReady(buffer) == noErr)
        #expect(counter.calls == 1 && CMSampleBufferDataIsReady(buffer))
        #expect(CMSampleBufferMakeDataReady(buffer) == noErr && counter.calls == 1, "a ready buffer calls nothing")

        var other: CMSampleBuffer?
        #expect(
            CMSampleBufferCreate(
                allocator: nil, dataBuffer: CMSampleBufferGetDataBuffer(ready), dataReady: false,
                makeDataReadyCallback: nil, refcon: nil, formatDescription: format, sampleCount: 1,
                sampleTimingEntryCount: 0, sampleTimingArray: nil, sampleSizeEntryCount: 0, sampleSizeArray: nil,
                sampleBufferOut: &other) == noErr)
        let manual = try #require(other)
        #expect(CMSampleBufferMakeDataReady(manual) == kCMSampleBufferError_BufferNotReady)
        #expect(CMSampleBufferSetDataReady(manual) == noErr && CMSampleBufferDataIsReady(manual))

        #expect(CMSampleBufferInvalidate(ready) == noErr)
        #expect(!CMSampleBufferIsValid(ready))
        var created: VTDecompressionSession?
        #expect(
            VTDecompressionSessionCreate(
                allocator: nil, formatDescription: format, decoderSpecification: nil, imageBufferAttributes: nil,
                outputCallback: nil, decompressionSessionOut: &created) == noErr)
        let session = try #require(created)
        #expect(
            VTDecompressionSessionDecodeFrame(session, sampleBuffer: ready, flags: [], infoFlagsOut: nil) {
                _, _, _, _, _ in
            } == kCMSampleBufferError_Invalidated)
        VTDecompressionSessionInvalidate(session)
    }

    @Test func attachmentsOfSampleAndImageBuffers() throws {
        let (buffer, _, _) = try Self.threeSamples()
        let note: CFString = "com.example.segment"
        CMSetAttachment(
            buffer, key: kCMSampleBufferAttachmentKey_DrainAfterDecoding, value: kCFBooleanTrue,
            attachmentMode: kCMAttachmentMode_ShouldPropagate)
        CMSetAttachments(
            buffer, attachments: [note: 7] as CFDictionary, attachmentMode: kCMAttachmentMode_ShouldPropagate)
        var mode: CMAttachmentMode = kCMAttachmentMode_ShouldNotPropagate
        #expect((CMGetAttachment(buffer, key: note, attachmentModeOut: &mode) as? NSNumber)?.intValue == 7)
        #expect(mode == kCMAttachmentMode_ShouldPropagate)
        let all = CMCopyDictionaryOfAttachments(
            allocator: nil, target: buffer, attachmentMode: kCMAttachmentMode_ShouldPropagate)
        #expect(all?.count == 2)

        let image = try CVImageBufferTests.buffer(16, 16)
        CMPropagateAttachments(buffer, destination: image)
        #expect((CVBufferCopyAttachment(image, note, nil) as? NSNumber)?.intValue == 7)
        CMSetAttachment(
            image, key: "com.example.private" as CFString, value: "x" as NSString,
            attachmentMode: kCMAttachmentMode_ShouldNotPropagate)
        #expect(
            CMCopyDictionaryOfAttachments(
                allocator: nil, target: image, attachmentMode: kCMAttachmentMode_ShouldNotPropagate)?
                .count == 1)

        CMRemoveAttachment(buffer, key: note)
        #expect(CMGetAttachment(buffer, key: note, attachmentModeOut: nil) == nil)
        CMRemoveAllAttachments(buffer)
        #expect(
            CMCopyDictionaryOfAttachments(
                allocator: nil, target: buffer, attachmentMode: kCMAttachmentMode_ShouldPropagate) == nil)
        CMRemoveAllAttachments(image)
        #expect(CMGetAttachment(image, key: note, attachmentModeOut: nil) == nil)
    }

    /// A buffer of one decoded picture, as a decoder's output callback makes it for a display layer.
    @Test func sampleBuffersOfADecodedImage() throws {
        let image = try CVImageBufferTests.buffer(64, 48)
        var made: CMFormatDescription?
        #expect(
            CMVideoFormatDescriptionCreateForImageBuffer(
                allocator: nil, imageBuffer: image, formatDescriptionOut: &made)
                == noErr)
        let format = try #require(made)
        var timing = CMSampleTimingInfo(
            duration: CMTimeMake(value: 1, timescale: 30), presentationTimeStamp: CMTimeMake(value: 7, timescale: 30),
            decodeTimeStamp: .invalid)
        var sampleBuffer: CMSampleBuffer?
        #expect(
            CMSampleBufferCreateReadyWithImageBuffer(
                allocator: nil, imageBuffer: image, formatDescription: format, sampleTiming: &timing,
                sampleBufferOut: &sampleBuffer) == noErr)
        let buffer = try #require(sampleBuffer)
        #expect(CMSampleBufferGetImageBuffer(buffer) === image)
        #expect(CMSampleBufferGetPresentationTimeStamp(buffer) == CMTimeMake(value: 7, timescale: 30))
        #expect(CMSampleBufferDataIsReady(buffer) && CMSampleBufferGetNumSamples(buffer) == 1)
        #expect(
            CMSampleBufferCreateForImageBuffer(
                allocator: nil, imageBuffer: try CVImageBufferTests.buffer(32, 32), dataReady: true,
                makeDataReadyCallback: nil, refcon: nil, formatDescription: format, sampleTiming: &timing,
                sampleBufferOut: &sampleBuffer) == kCMSampleBufferError_InvalidMediaFormat, "another size")
    }
}
