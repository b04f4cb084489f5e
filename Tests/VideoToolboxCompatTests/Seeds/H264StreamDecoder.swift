// The decoder of ../shared/seeds/000 (the StackOverflow answer "How to use VideoToolbox to
// decompress H.264 video stream"), written in Swift as a macOS developer writes it against
// Apple's VideoToolbox. It compiles unchanged against VAToolbox's compatibility modules: nothing
// in this file knows it runs on Linux.

import Foundation
import VideoToolbox

/// Receives decoded frames, as the answer's `displayDecodedFrame:`.
protocol H264StreamDecoderDelegate: AnyObject {
    func displayDecodedFrame(_ imageBuffer: CVImageBuffer, presentationTimeStamp: CMTime)
    func decoderReported(error status: OSStatus)
}

let naluTypesStrings = [
    "0: Unspecified (non-VCL)",
    "1: Coded slice of a non-IDR picture (VCL)",
    "2: Coded slice data partition A (VCL)",
    "3: Coded slice data partition B (VCL)",
    "4: Coded slice data partition C (VCL)",
    "5: Coded slice of an IDR picture (VCL)",
    "6: Supplemental enhancement information (SEI) (non-VCL)",
    "7: Sequence parameter set (non-VCL)",
    "8: Picture parameter set (non-VCL)",
    "9: Access unit delimiter (non-VCL)",
    "10: End of sequence (non-VCL)",
    "11: End of stream (non-VCL)",
    "12: Filler data (non-VCL)",
]

final class H264StreamDecoder {
    var formatDesc: CMVideoFormatDescription?
    var decompressionSession: VTDecompressionSession?
    var spsSize: Int = 0
    var ppsSize: Int = 0
    weak var delegate: H264StreamDecoderDelegate?
    var verbose = false

    private func log(_ message: String) {
        if verbose { print(message) }
    }

    /// Called with either [SPS][PPS][IDR] or one non-IDR NAL unit, each behind a 4-byte start code.
    func receivedRawVideoFrame(_ frame: UnsafeMutablePointer<UInt8>, withSize frameSize: UInt32, isIFrame: Int) {
        var status: OSStatus = noErr

        var data: UnsafeMutablePointer<UInt8>? = nil
        var pps: UnsafeMutablePointer<UInt8>? = nil
        var sps: UnsafeMutablePointer<UInt8>? = nil

        // I know what my H.264 data source's NALUs look like so I know start code index is always 0.
        let startCodeIndex = 0
        var secondStartCodeIndex = 0
        var thirdStartCodeIndex = 0

        var blockLength = 0

        var sampleBuffer: CMSampleBuffer? = nil
        var blockBuffer: CMBlockBuffer? = nil

        var naluType = Int(frame[startCodeIndex + 4] & 0x1F)
        if naluType < naluTypesStrings.count {
            log("~~~~~~~ Received NALU Type \"\(naluTypesStrings[naluType])\" ~~~~~~~~")
        }

        // if we havent already set up our format description with our SPS PPS parameters, we
        // can't process any frames except type 7 that has our parameters
        if naluType != 7 && formatDesc == nil {
            log("Video error: Frame is not an I Frame and format description is null")
            return
        }

        // NALU type 7 is the SPS parameter NALU
        if naluType == 7 {
            // find where the second PPS start code begins, (the 0x00 00 00 01 code)
            // from which we also get the length of the first SPS code
            for i in (startCodeIndex + 4)..<(startCodeIndex + 40) {
                if frame[i] == 0x00 && frame[i + 1] == 0x00 && frame[i + 2] == 0x00 && frame[i + 3] == 0x01 {
                    secondStartCodeIndex = i
                    spsSize = secondStartCodeIndex  // includes the header in the size
                    break
                }
            }

            // find what the second NALU type is
            naluType = Int(frame[secondStartCodeIndex + 4] & 0x1F)
        }

        // type 8 is the PPS parameter NALU
        if naluType == 8 {
            // find where the NALU after this one starts so we know how long the PPS parameter is
            for i in (spsSize + 4)..<(spsSize + 30) {
                if frame[i] == 0x00 && frame[i + 1] == 0x00 && frame[i + 2] == 0x00 && frame[i + 3] == 0x01 {
                    thirdStartCodeIndex = i
                    ppsSize = thirdStartCodeIndex - spsSize
                    break
                }
            }

            // allocate enough data to fit the SPS and PPS parameters into our data objects.
            // VTD doesn't want you to include the start code header (4 bytes long) so we subtract 4 here
            sps = UnsafeMutablePointer<UInt8>.allocate(capacity: spsSize - 4)
            pps = UnsafeMutablePointer<UInt8>.allocate(capacity: ppsSize - 4)

            // copy in the actual sps and pps values, again ignoring the 4 byte header
            memcpy(sps!, &frame[4], spsSize - 4)
            memcpy(pps!, &frame[spsSize + 4], ppsSize - 4)

            // now we set our H264 parameters
            let parameterSetPointers: [UnsafePointer<UInt8>] = [UnsafePointer(sps!), UnsafePointer(pps!)]
            let parameterSetSizes: [Int] = [spsSize - 4, ppsSize - 4]

            // remove the old format description before making the new one
            formatDesc = nil

            status = CMVideoFormatDescriptionCreateFromH264ParameterSets(
                allocator: kCFAllocatorDefault, parameterSetCount: 2, parameterSetPointers: parameterSetPointers,
                parameterSetSizes: parameterSetSizes, nalUnitHeaderLength: 4, formatDescriptionOut: &formatDesc)
            sps?.deallocate()
            pps?.deallocate()

            log("\t\t Creation of CMVideoFormatDescription: \(status == noErr ? "successful!" : "failed...")")
            if status != noErr { log("\t\t Format Description ERROR type: \(status)") }

            // See if decomp session can convert from previous format description
            // to the new one, if not we need to remake the decomp session.
            if let session = decompressionSession, let formatDesc,
                !VTDecompressionSessionCanAcceptFormatDescription(session, formatDescription: formatDesc)
            {
                createDecompSession()
            }

            // now lets handle the IDR frame that (should) come after the parameter sets
            naluType = Int(frame[thirdStartCodeIndex + 4] & 0x1F)
        }

        // create our VTDecompressionSession.
        if status == noErr && decompressionSession == nil {
            createDecompSession()
        }

        // type 5 is an IDR frame NALU. The SPS and PPS NALUs should always be followed by an IDR (or IFrame) NALU
        if naluType == 5 {
            // find the offset, or where the SPS and PPS NALUs end and the IDR frame NALU begins
            let offset = spsSize + ppsSize
            blockLength = Int(frameSize) - offset
            data = UnsafeMutablePointer<UInt8>.allocate(capacity: blockLength)
            memcpy(data!, &frame[offset], blockLength)

            // replace the start code header on this NALU with its size.
            // AVCC format requires that you do this.
            var dataLength32 = CFSwapInt32HostToBig(UInt32(blockLength - 4))
            memcpy(data!, &dataLength32, MemoryLayout<UInt32>.size)

            // create a block buffer from the IDR NALU
            status = CMBlockBufferCreateWithMemoryBlock(
                allocator: nil, memoryBlock: data, blockLength: blockLength, blockAllocator: kCFAllocatorNull,
                customBlockSource: nil, offsetToData: 0, dataLength: blockLength, flags: 0,
                blockBufferOut: &blockBuffer)

            log("\t\t BlockBufferCreation: \t \(status == kCMBlockBufferNoErr ? "successful!" : "failed...")")
        }

        // NALU type 1 is non-IDR (or PFrame) picture
        if naluType == 1 {
            // non-IDR frames do not have an offset due to SPS and PSS, so the approach
            // is similar to the IDR frames just without the offset
            blockLength = Int(frameSize)
            data = UnsafeMutablePointer<UInt8>.allocate(capacity: blockLength)
            memcpy(data!, &frame[0], blockLength)

            // again, replace the start header with the size of the NALU
            var dataLength32 = CFSwapInt32HostToBig(UInt32(blockLength - 4))
            memcpy(data!, &dataLength32, MemoryLayout<UInt32>.size)

            status = CMBlockBufferCreateWithMemoryBlock(
                allocator: nil, memoryBlock: data, blockLength: blockLength, blockAllocator: kCFAllocatorNull,
                customBlockSource: nil, offsetToData: 0, dataLength: blockLength, flags: 0,
                blockBufferOut: &blockBuffer)

            log("\t\t BlockBufferCreation: \t \(status == kCMBlockBufferNoErr ? "successful!" : "failed...")")
        }

        // now create our sample buffer from the block buffer,
        if status == noErr {
            // here I'm not bothering with any timing specifics since in my case we displayed all frames immediately
            var sampleSize = blockLength
            status = CMSampleBufferCreate(
                allocator: kCFAllocatorDefault, dataBuffer: blockBuffer, dataReady: true, makeDataReadyCallback: nil,
                refcon: nil, formatDescription: formatDesc, sampleCount: 1, sampleTimingEntryCount: 0,
                sampleTimingArray: nil, sampleSizeEntryCount: 1, sampleSizeArray: &sampleSize,
                sampleBufferOut: &sampleBuffer)

            log("\t\t SampleBufferCreate: \t \(status == noErr ? "successful!" : "failed...")")
        }

        if status == noErr, let sampleBuffer {
            // set some values of the sample buffer's attachments
            let attachments = CMSampleBufferGetSampleAttachmentsArray(sampleBuffer, createIfNecessary: true)
            let dict = unsafeBitCast(CFArrayGetValueAtIndex(attachments, 0), to: CFMutableDictionary.self)
            CFDictionarySetValue(
                dict, Unmanaged.passUnretained(kCMSampleAttachmentKey_DisplayImmediately).toOpaque(),
                Unmanaged.passUnretained(kCFBooleanTrue).toOpaque())

            // either send the samplebuffer to a VTDecompressionSession or to an AVSampleBufferDisplayLayer
            render(sampleBuffer)
        }

        // free memory to avoid a memory leak
        data?.deallocate()
        data = nil
    }

    func createDecompSession() {
        // make sure to destroy the old VTD session
        if let decompressionSession {
            VTDecompressionSessionWaitForAsynchronousFrames(decompressionSession)
            VTDecompressionSessionInvalidate(decompressionSession)
        }
        decompressionSession = nil
        guard let formatDesc else { return }

        var callBackRecord = VTDecompressionOutputCallbackRecord()
        callBackRecord.decompressionOutputCallback = decompressionSessionDecodeFrameCallback

        // this is necessary if you need to make calls to "self" from within in the callback method.
        callBackRecord.decompressionOutputRefCon = Unmanaged.passUnretained(self).toOpaque()

        let status = VTDecompressionSessionCreate(
            allocator: nil, formatDescription: formatDesc, decoderSpecification: nil, imageBufferAttributes: nil,
            outputCallback: &callBackRecord, decompressionSessionOut: &decompressionSession)
        log("Video Decompression Session Create: \t \(status == noErr ? "successful!" : "failed...")")
        if status != noErr {
            log("\t\t VTD ERROR type: \(status)")
            delegate?.decoderReported(error: status)
        }
    }

    func render(_ sampleBuffer: CMSampleBuffer) {
        guard let decompressionSession else { return }
        let flags: VTDecodeFrameFlags = [._EnableAsynchronousDecompression]
        var flagOut = VTDecodeInfoFlags()
        let currentTime = Date()
        let status = VTDecompressionSessionDecodeFrame(
            decompressionSession, sampleBuffer: sampleBuffer, flags: flags,
            frameRefcon: Unmanaged.passRetained(currentTime as NSDate).toOpaque(), infoFlagsOut: &flagOut)
        if status != noErr { delegate?.decoderReported(error: status) }
    }

    /// The end of the stream: wait for the frames in flight, then end the session.
    func stop() {
        if let decompressionSession {
            VTDecompressionSessionWaitForAsynchronousFrames(decompressionSession)
            VTDecompressionSessionInvalidate(decompressionSession)
        }
        decompressionSession = nil
    }
}

/// Gets called every time VTD is done decompressing any frame you sent to it, also when there's
/// an error or the frame is dropped.
func decompressionSessionDecodeFrameCallback(
    _ decompressionOutputRefCon: UnsafeMutableRawPointer?, _ sourceFrameRefCon: UnsafeMutableRawPointer?,
    _ status: OSStatus, _ infoFlags: VTDecodeInfoFlags, _ imageBuffer: CVImageBuffer?,
    _ presentationTimeStamp: CMTime, _ presentationDuration: CMTime
) {
    let streamManager = Unmanaged<H264StreamDecoder>.fromOpaque(decompressionOutputRefCon!).takeUnretainedValue()
    // the refcon is the NSDate retained by render(_:)
    if let sourceFrameRefCon { Unmanaged<NSDate>.fromOpaque(sourceFrameRefCon).release() }

    if status != noErr {
        let error = NSError(domain: NSOSStatusErrorDomain, code: Int(status), userInfo: nil)
        if streamManager.verbose { print("Decompressed error: \(error)") }
        streamManager.delegate?.decoderReported(error: status)
    } else if let imageBuffer {
        // do something with your resulting CVImageBufferRef that is your decompressed frame
        streamManager.delegate?.displayDecodedFrame(imageBuffer, presentationTimeStamp: presentationTimeStamp)
    }
}
