//
//  VideoDecoder.swift
//  LiveViewer
//
//  Hardware H.264 decoding for the live view. The camera sends an Annex B elementary stream,
//  one access unit per packet; we hand VideoToolbox AVCC samples and show what comes back.
//

import CoreMedia
import CoreVideo
import Foundation
import VideoToolbox

/// A decoded picture ready for the screen.
struct DecodedFrame {
    let pixelBuffer: CVPixelBuffer
    let presentationTime: CMTime
    /// The part of the buffer to show, in buffer pixels (origin at the lower left).
    let cleanRect: CGRect
    /// The size to show it at, in square pixels.
    let displaySize: CGSize
}

protocol VideoDecoderDelegate: AnyObject {
    func videoDecoder(_ decoder: VideoDecoder, didDecode frame: DecodedFrame)
    func videoDecoder(_ decoder: VideoDecoder, didFailWithError error: NSError)
}

final class VideoDecoder {
    weak var delegate: VideoDecoderDelegate?

    /// Frames per second of the stream, from the sample durations.
    private(set) var frameRate: Double = 0

    private var session: VTDecompressionSession?
    private var formatDescription: CMVideoFormatDescription?
    private var sps: Data?
    private var pps: Data?
    private var lastPresentationTime = CMTime.invalid
    private var lastDisplaySize = CGSize.zero

    deinit {
        invalidate()
    }

    // MARK: - Decoding

    /// Decodes one access unit: Annex B NAL units, each after a start code.
    func decode(accessUnit: Data, presentationTime: CMTime, duration: CMTime) {
        var slices: [Data] = []
        var parameterSetsChanged = false
        for nalUnit in VideoDecoder.nalUnits(in: accessUnit) {
            switch nalUnit[nalUnit.startIndex] & 0x1F {
            case 7:
                if nalUnit != sps { parameterSetsChanged = true }
                sps = nalUnit
            case 8:
                if nalUnit != pps { parameterSetsChanged = true }
                pps = nalUnit
            case 1, 5:
                slices.append(nalUnit)
            default:
                break  // SEI, access unit delimiters: the decoder does not need them
            }
        }
        if parameterSetsChanged || session == nil {
            guard setUpSession() else { return }
        }
        guard !slices.isEmpty, let session = session, let formatDescription = formatDescription else { return }

        if CMTIME_IS_NUMERIC(duration) && CMTimeGetSeconds(duration) > 0 {
            frameRate = 1 / CMTimeGetSeconds(duration)
        }
        guard let sampleBuffer = makeSampleBuffer(slices, formatDescription, presentationTime, duration) else { return }

        let flags: VTDecodeFrameFlags = [._EnableAsynchronousDecompression, ._EnableTemporalProcessing]
        var infoFlags = VTDecodeInfoFlags()
        let status = VTDecompressionSessionDecodeFrame(
            session, sampleBuffer: sampleBuffer, flags: flags, frameRefcon: nil, infoFlagsOut: &infoFlags)
        if status != noErr {
            let error = NSError(domain: NSOSStatusErrorDomain, code: Int(status), userInfo: nil)
            NSLog("VideoDecoder: VTDecompressionSessionDecodeFrame failed: %@", error)
            delegate?.videoDecoder(self, didFailWithError: error)
        }
    }

    /// Emits the frames the decoder still holds (end of stream, or before seeking).
    func flush() {
        guard let session = session else { return }
        VTDecompressionSessionFinishDelayedFrames(session)
        VTDecompressionSessionWaitForAsynchronousFrames(session)
    }

    func invalidate() {
        guard let session = session else { return }
        VTDecompressionSessionWaitForAsynchronousFrames(session)
        VTDecompressionSessionInvalidate(session)
        self.session = nil
    }

    // MARK: - Session

    private func setUpSession() -> Bool {
        guard let sps = sps, let pps = pps else { return false }
        var newFormat: CMVideoFormatDescription?
        let status = sps.withUnsafeBytes { (spsBytes: UnsafeRawBufferPointer) -> OSStatus in
            pps.withUnsafeBytes { (ppsBytes: UnsafeRawBufferPointer) -> OSStatus in
                let pointers = [
                    spsBytes.bindMemory(to: UInt8.self).baseAddress!, ppsBytes.bindMemory(to: UInt8.self).baseAddress!,
                ]
                let sizes = [sps.count, pps.count]
                return CMVideoFormatDescriptionCreateFromH264ParameterSets(
                    allocator: kCFAllocatorDefault, parameterSetCount: 2, parameterSetPointers: pointers,
                    parameterSetSizes: sizes, nalUnitHeaderLength: 4, formatDescriptionOut: &newFormat)
            }
        }
        guard status == noErr, let format = newFormat else {
            let error = NSError(domain: NSOSStatusErrorDomain, code: Int(status), userInfo: nil)
            NSLog("VideoDecoder: bad parameter sets: %@", error)
            delegate?.videoDecoder(self, didFailWithError: error)
            return false
        }

        if let session = session, VTDecompressionSessionCanAcceptFormatDescription(session, formatDescription: format) {
            formatDescription = format
            return true
        }
        invalidate()

        let dimensions = CMVideoFormatDescriptionGetDimensions(format)
        NSLog("VideoDecoder: new stream %dx%d", dimensions.width, dimensions.height)

        // Three planes, uploaded as three textures by the renderer.
        let attributes: [String: Any] = [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8Planar,
            kCVPixelBufferOpenGLESCompatibilityKey as String: true,
        ]
        var callback = VTDecompressionOutputCallbackRecord(
            decompressionOutputCallback: decompressionOutputCallback,
            decompressionOutputRefCon: Unmanaged.passUnretained(self).toOpaque())
        var newSession: VTDecompressionSession?
        let createStatus = VTDecompressionSessionCreate(
            allocator: kCFAllocatorDefault, formatDescription: format, decoderSpecification: nil,
            imageBufferAttributes: attributes as CFDictionary, outputCallback: &callback,
            decompressionSessionOut: &newSession)
        guard createStatus == noErr, let createdSession = newSession else {
            let error = NSError(domain: NSOSStatusErrorDomain, code: Int(createStatus), userInfo: nil)
            NSLog("VideoDecoder: VTDecompressionSessionCreate failed: %@", error)
            delegate?.videoDecoder(self, didFailWithError: error)
            return false
        }
        VTSessionSetProperty(createdSession, key: kVTDecompressionPropertyKey_RealTime, value: kCFBooleanTrue)
        session = createdSession
        formatDescription = format
        lastPresentationTime = .invalid
        return true
    }

    private func makeSampleBuffer(
        _ slices: [Data], _ formatDescription: CMVideoFormatDescription, _ presentationTime: CMTime, _ duration: CMTime
    ) -> CMSampleBuffer? {
        // AVCC: each NAL unit after its length, 4 bytes big-endian.
        var sampleData = Data()
        for slice in slices {
            var length = CFSwapInt32HostToBig(UInt32(slice.count))
            withUnsafeBytes(of: &length) { sampleData.append(contentsOf: $0) }
            sampleData.append(slice)
        }

        var blockBuffer: CMBlockBuffer?
        var status = CMBlockBufferCreateWithMemoryBlock(
            allocator: kCFAllocatorDefault, memoryBlock: nil, blockLength: sampleData.count,
            blockAllocator: kCFAllocatorDefault, customBlockSource: nil, offsetToData: 0, dataLength: sampleData.count,
            flags: 0, blockBufferOut: &blockBuffer)
        guard status == kCMBlockBufferNoErr, let block = blockBuffer else { return nil }
        status = sampleData.withUnsafeBytes {
            CMBlockBufferReplaceDataBytes(
                with: $0.baseAddress!, blockBuffer: block, offsetIntoDestination: 0, dataLength: sampleData.count)
        }
        guard status == kCMBlockBufferNoErr else { return nil }

        var timing = CMSampleTimingInfo(
            duration: duration, presentationTimeStamp: presentationTime, decodeTimeStamp: CMTime.invalid)
        var sampleSize = sampleData.count
        var sampleBuffer: CMSampleBuffer?
        status = CMSampleBufferCreateReady(
            allocator: kCFAllocatorDefault, dataBuffer: block, formatDescription: formatDescription, sampleCount: 1,
            sampleTimingEntryCount: 1, sampleTimingArray: &timing, sampleSizeEntryCount: 1,
            sampleSizeArray: &sampleSize, sampleBufferOut: &sampleBuffer)
        guard status == noErr else {
            NSLog("VideoDecoder: CMSampleBufferCreateReady failed: %d", status)
            return nil
        }
        return sampleBuffer
    }

    // MARK: - Output

    fileprivate func didDecompress(
        status: OSStatus, infoFlags: VTDecodeInfoFlags, imageBuffer: CVImageBuffer?, presentationTimeStamp: CMTime
    ) {
        guard status == noErr, let imageBuffer = imageBuffer else {
            let error = NSError(domain: NSOSStatusErrorDomain, code: Int(status), userInfo: nil)
            NSLog("VideoDecoder: decompression failed: %@", error)
            delegate?.videoDecoder(self, didFailWithError: error)
            return
        }
        guard CMTIME_IS_VALID(presentationTimeStamp) else {
            NSLog("VideoDecoder: dropping a frame without a time stamp")
            return
        }
        if CMTIME_IS_VALID(lastPresentationTime) && CMTimeCompare(presentationTimeStamp, lastPresentationTime) <= 0 {
            NSLog(
                "VideoDecoder: frame at %@ after %@",
                CMTimeCopyDescription(allocator: kCFAllocatorDefault, time: presentationTimeStamp) ?? "?" as CFString,
                CMTimeCopyDescription(allocator: kCFAllocatorDefault, time: lastPresentationTime) ?? "?" as CFString)
        }
        lastPresentationTime = presentationTimeStamp

        let cleanRect = CVImageBufferGetCleanRect(imageBuffer)
        let displaySize = CVImageBufferGetDisplaySize(imageBuffer)
        if displaySize != lastDisplaySize {
            NSLog(
                "VideoDecoder: showing %.0fx%.0f of %ldx%ld at %.2fx%.2f", cleanRect.width, cleanRect.height,
                CVPixelBufferGetWidth(imageBuffer), CVPixelBufferGetHeight(imageBuffer), displaySize.width,
                displaySize.height)
            lastDisplaySize = displaySize
        }
        delegate?.videoDecoder(
            self,
            didDecode: DecodedFrame(
                pixelBuffer: imageBuffer, presentationTime: presentationTimeStamp, cleanRect: cleanRect,
                displaySize: displaySize))
    }

    /// The NAL units of an Annex B buffer, without their start codes.
    static func nalUnits(in data: Data) -> [Data] {
        let bytes = [UInt8](data)
        var starts: [Int] = []
        var index = 0
        while index + 3 <= bytes.count {
            if bytes[index] == 0 && bytes[index + 1] == 0 && bytes[index + 2] == 1 {
                starts.append(index + 3)
                index += 3
            } else {
                index += 1
            }
        }
        return starts.enumerated().compactMap { position, start in
            var end = position + 1 < starts.count ? starts[position + 1] - 3 : bytes.count
            while end > start && bytes[end - 1] == 0 { end -= 1 }  // the next start code's leading zero
            return end > start ? Data(bytes[start..<end]) : nil
        }
    }
}

private func decompressionOutputCallback(
    decompressionOutputRefCon: UnsafeMutableRawPointer?, sourceFrameRefCon: UnsafeMutableRawPointer?,
    status: OSStatus, infoFlags: VTDecodeInfoFlags, imageBuffer: CVImageBuffer?, presentationTimeStamp: CMTime,
    presentationDuration: CMTime
) {
    guard let refCon = decompressionOutputRefCon else { return }
    let decoder = Unmanaged<VideoDecoder>.fromOpaque(refCon).takeUnretainedValue()
    decoder.didDecompress(
        status: status, infoFlags: infoFlags, imageBuffer: imageBuffer, presentationTimeStamp: presentationTimeStamp)
}
