// The decoder of ../shared/seeds/002 (an iOS H.264/H.265 hardware decoder, "VideoDecoder"):
// parsed packets from FFmpeg (AVCC data, Annex B extradata), a session re-created whenever the
// extradata changes, output pixel buffers wrapped in sample buffers, B-frame reordering done by
// the app, and wait-then-invalidate teardown. Written in Swift as a macOS developer writes it
// against Apple's VideoToolbox; it compiles unchanged against VAToolbox's compatibility modules.

import Foundation
import VideoToolbox

enum XDXVideoEncodeFormat {
    case h264
    case h265
}

/// One parsed packet, as the parse module hands it over.
struct XDXParseVideoDataInfo {
    var data: UnsafeMutablePointer<UInt8>
    var dataSize: Int
    var extraData: UnsafeMutablePointer<UInt8>
    var extraDataSize: Int
    var pts: Float64
    var timebase: Float64
    var videoRotate: Int
    var fps: Int
    var timingInfo: CMSampleTimingInfo
    var videoFormat: XDXVideoEncodeFormat
}

/// What travels with a frame through the decoder (`sourceFrameRefCon`).
struct XDXDecodeVideoInfo {
    var outputPixelbuffer: CVPixelBuffer?
    var rotate: Int
    var pts: Float64
    var fps: Int
    var sourceIndex: Int
}

/// The parameter sets split out of the extradata.
struct XDXDecoderInfo {
    var vps: [UInt8] = []
    var sps: [UInt8] = []
    var fpps: [UInt8] = []
    var rpps: [UInt8] = []
}

protocol XDXVideoDecoderDelegate: AnyObject {
    func getVideoDecodeDataCallback(_ sampleBuffer: CMSampleBuffer)
}

final class XDXVideoDecoder {
    weak var delegate: XDXVideoDecoderDelegate?
    private var decoderSession: VTDecompressionSession?
    private var decoderFormatDescription: CMVideoFormatDescription?
    private var decoderInfo = XDXDecoderInfo()
    private var lastExtraData: [UInt8] = []
    private let lock = NSLock()
    /// How many times a session was created (the extradata changed).
    private(set) var sessionCount = 0
    /// The output format: yuv420sp, full range by default ("change it if you need another").
    let pixelFormat: OSType

    init(pixelFormat: OSType = kCVPixelFormatType_420YpCbCr8BiPlanarFullRange) {
        self.pixelFormat = pixelFormat
    }

    func startDecodeVideoData(_ videoInfo: XDXParseVideoDataInfo) {
        // Compare with the last extradata: a change needs a new decoder.
        let extraData = Array(UnsafeBufferPointer(start: videoInfo.extraData, count: videoInfo.extraDataSize))
        if isNeedUpdateExtraData(extraData) {
            getNALUInfo(videoFormat: videoInfo.videoFormat, extraData: extraData)
        }
        // create decoder
        if decoderSession == nil {
            decoderSession = createDecoder(
                videoInfo: videoInfo, videoFormat: pixelFormat,
                callback: videoDecoderCallback)
        }
        guard let decoderSession else { return }
        startDecode(videoInfo, session: decoderSession)
    }

    func stopDecoder() {
        destroyDecoder()
    }

    private func isNeedUpdateExtraData(_ newData: [UInt8]) -> Bool {
        var isNeedUpdate = false
        if lastExtraData.isEmpty || lastExtraData.count != newData.count
            || memcmp(newData, lastExtraData, newData.count) != 0
        {
            isNeedUpdate = true
        }
        if isNeedUpdate {
            destroyDecoder()
            lastExtraData = newData
        }
        return isNeedUpdate
    }

    /// Splits the Annex B extradata at its 4-byte start codes into VPS, SPS and PPS.
    private func getNALUInfo(videoFormat: XDXVideoEncodeFormat, extraData data: [UInt8]) {
        let size = data.count
        var startCodeVPSIndex = 0
        var startCodeSPSIndex = 0
        var startCodeFPPSIndex = 0
        var startCodeRPPSIndex = 0
        var i = 0
        while i < size {
            if i >= 3 && data[i] == 0x01 && data[i - 1] == 0x00 && data[i - 2] == 0x00 && data[i - 3] == 0x00 {
                if videoFormat == .h264 {
                    if startCodeSPSIndex == 0 {
                        startCodeSPSIndex = i
                    }
                    if i > startCodeSPSIndex {
                        startCodeFPPSIndex = i
                    }
                } else {
                    if startCodeVPSIndex == 0 {
                        startCodeVPSIndex = i
                        i += 1
                        continue
                    }
                    if i > startCodeVPSIndex && startCodeSPSIndex == 0 {
                        startCodeSPSIndex = i
                        i += 1
                        continue
                    }
                    if i > startCodeSPSIndex && startCodeFPPSIndex == 0 {
                        startCodeFPPSIndex = i
                        i += 1
                        continue
                    }
                    if i > startCodeFPPSIndex && startCodeRPPSIndex == 0 {
                        startCodeRPPSIndex = i
                    }
                }
            }
            i += 1
        }

        decoderInfo = XDXDecoderInfo()
        let spsSize = startCodeFPPSIndex - startCodeSPSIndex - 4
        if videoFormat == .h264 {
            let fppsSize = size - (startCodeFPPSIndex + 1)
            if data[startCodeSPSIndex + 1] & 0x1F == 0x07 {
                decoderInfo.sps = Array(data[(startCodeSPSIndex + 1)..<(startCodeSPSIndex + 1 + spsSize)])
            }
            if data[startCodeFPPSIndex + 1] & 0x1F == 0x08 {
                decoderInfo.fpps = Array(data[(startCodeFPPSIndex + 1)..<(startCodeFPPSIndex + 1 + fppsSize)])
            }
        } else {
            let vpsSize = startCodeSPSIndex - startCodeVPSIndex - 4
            if data[startCodeVPSIndex + 1] & 0x7E == 0x40 {
                decoderInfo.vps = Array(data[(startCodeVPSIndex + 1)..<(startCodeVPSIndex + 1 + vpsSize)])
            }
            if data[startCodeSPSIndex + 1] & 0x7E == 0x42 {
                decoderInfo.sps = Array(data[(startCodeSPSIndex + 1)..<(startCodeSPSIndex + 1 + spsSize)])
            }
            let fppsEnd = startCodeRPPSIndex == 0 ? size : startCodeRPPSIndex - 3
            if data[startCodeFPPSIndex + 1] & 0x7E == 0x44 {
                decoderInfo.fpps = Array(data[(startCodeFPPSIndex + 1)..<fppsEnd])
            }
            if startCodeRPPSIndex == 0 {
                return
            }
            if data[startCodeRPPSIndex + 1] & 0x7E == 0x44 {
                decoderInfo.rpps = Array(data[(startCodeRPPSIndex + 1)..<size])
            }
        }
    }

    private func createDecoder(
        videoInfo: XDXParseVideoDataInfo, videoFormat: OSType, callback: @escaping VTDecompressionOutputCallback
    ) -> VTDecompressionSession? {
        lock.lock()
        defer { lock.unlock() }
        var status: OSStatus
        var sets: [[UInt8]]
        switch videoInfo.videoFormat {
        case .h264:
            sets = [decoderInfo.sps, decoderInfo.fpps]
        case .h265:
            sets = [decoderInfo.vps, decoderInfo.sps, decoderInfo.fpps]
            if !decoderInfo.rpps.isEmpty { sets.append(decoderInfo.rpps) }
        }
        let pointers = sets.map { set -> UnsafePointer<UInt8> in
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: set.count)
            copy.initialize(from: set, count: set.count)
            return UnsafePointer(copy)
        }
        defer { pointers.forEach { $0.deallocate() } }
        let sizes = sets.map(\.count)
        switch videoInfo.videoFormat {
        case .h264:
            status = CMVideoFormatDescriptionCreateFromH264ParameterSets(
                allocator: kCFAllocatorDefault, parameterSetCount: 2, parameterSetPointers: pointers,
                parameterSetSizes: sizes, nalUnitHeaderLength: 4, formatDescriptionOut: &decoderFormatDescription)
        case .h265:
            status = CMVideoFormatDescriptionCreateFromHEVCParameterSets(
                allocator: kCFAllocatorDefault, parameterSetCount: sets.count, parameterSetPointers: pointers,
                parameterSetSizes: sizes, nalUnitHeaderLength: 4, extensions: nil,
                formatDescriptionOut: &decoderFormatDescription)
        }
        guard status == noErr, let decoderFormatDescription else {
            print("NALU header error! \(status)")
            return nil
        }

        let attrs: [NSString: Any] = [kCVPixelBufferPixelFormatTypeKey: NSNumber(value: videoFormat)]

        var callBackRecord = VTDecompressionOutputCallbackRecord()
        callBackRecord.decompressionOutputCallback = callback
        callBackRecord.decompressionOutputRefCon = Unmanaged.passUnretained(self).toOpaque()

        var session: VTDecompressionSession?
        status = VTDecompressionSessionCreate(
            allocator: kCFAllocatorDefault, formatDescription: decoderFormatDescription, decoderSpecification: nil,
            imageBufferAttributes: attrs as CFDictionary, outputCallback: &callBackRecord,
            decompressionSessionOut: &session)
        if status != noErr {
            print("Create decoder failed \(status)")
            return nil
        }
        sessionCount += 1
        return session
    }

    private func startDecode(_ videoInfo: XDXParseVideoDataInfo, session: VTDecompressionSession) {
        lock.lock()
        defer { lock.unlock() }
        let size = videoInfo.dataSize
        var timingInfo = videoInfo.timingInfo

        let tempData = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        tempData.update(from: videoInfo.data, count: size)
        defer { tempData.deallocate() }

        let sourceRef = UnsafeMutablePointer<XDXDecodeVideoInfo>.allocate(capacity: 1)
        sourceRef.initialize(
            to: XDXDecodeVideoInfo(
                outputPixelbuffer: nil, rotate: videoInfo.videoRotate, pts: videoInfo.pts, fps: videoInfo.fps,
                sourceIndex: 0))

        var blockBuffer: CMBlockBuffer?
        var status = CMBlockBufferCreateWithMemoryBlock(
            allocator: kCFAllocatorDefault, memoryBlock: tempData, blockLength: size, blockAllocator: kCFAllocatorNull,
            customBlockSource: nil, offsetToData: 0, dataLength: size, flags: 0, blockBufferOut: &blockBuffer)
        guard status == kCMBlockBufferNoErr else {
            sourceRef.deinitialize(count: 1)
            sourceRef.deallocate()
            return
        }
        var sampleBuffer: CMSampleBuffer?
        let sampleSizeArray = [size]
        status = CMSampleBufferCreateReady(
            allocator: kCFAllocatorDefault, dataBuffer: blockBuffer, formatDescription: decoderFormatDescription,
            sampleCount: 1, sampleTimingEntryCount: 1, sampleTimingArray: &timingInfo, sampleSizeEntryCount: 1,
            sampleSizeArray: sampleSizeArray, sampleBufferOut: &sampleBuffer)
        guard status == kCMBlockBufferNoErr, let sampleBuffer else {
            sourceRef.deinitialize(count: 1)
            sourceRef.deallocate()
            return
        }
        let flags: VTDecodeFrameFlags = ._EnableAsynchronousDecompression
        var flagOut = VTDecodeInfoFlags()
        let decodeStatus = VTDecompressionSessionDecodeFrame(
            session, sampleBuffer: sampleBuffer, flags: flags, frameRefcon: sourceRef, infoFlagsOut: &flagOut)
        if decodeStatus != noErr {
            // No output comes for a frame the session did not accept.
            sourceRef.deinitialize(count: 1)
            sourceRef.deallocate()
        }
        if decodeStatus == kVTInvalidSessionErr {
            lock.unlock()
            destroyDecoder()
            lock.lock()
        }
    }

    fileprivate func createSampleBufferFromPixelbuffer(
        _ pixelBuffer: CVImageBuffer, videoRotate: Int, timingInfo: CMSampleTimingInfo
    ) -> CMSampleBuffer? {
        var timingInfo = timingInfo
        var sampleBuffer: CMSampleBuffer?
        var videoInfo: CMVideoFormatDescription?
        var status = CMVideoFormatDescriptionCreateForImageBuffer(
            allocator: kCFAllocatorDefault, imageBuffer: pixelBuffer, formatDescriptionOut: &videoInfo)
        guard status == noErr, let videoInfo else { return nil }
        status = CMSampleBufferCreateForImageBuffer(
            allocator: kCFAllocatorDefault, imageBuffer: pixelBuffer, dataReady: true, makeDataReadyCallback: nil,
            refcon: nil, formatDescription: videoInfo, sampleTiming: &timingInfo, sampleBufferOut: &sampleBuffer)
        guard status == noErr else { return nil }
        return sampleBuffer
    }

    private func destroyDecoder() {
        if let decoderSession {
            VTDecompressionSessionWaitForAsynchronousFrames(decoderSession)
            VTDecompressionSessionInvalidate(decoderSession)
        }
        decoderSession = nil
        decoderFormatDescription = nil
    }
}

/// The output callback: wraps each picture in a sample buffer for the delegate.
private func videoDecoderCallback(
    _ decompressionOutputRefCon: UnsafeMutableRawPointer?, _ sourceFrameRefCon: UnsafeMutableRawPointer?,
    _ status: OSStatus, _ infoFlags: VTDecodeInfoFlags, _ pixelBuffer: CVImageBuffer?,
    _ presentationTimeStamp: CMTime, _ presentationDuration: CMTime
) {
    let sourceRef = sourceFrameRefCon?.assumingMemoryBound(to: XDXDecodeVideoInfo.self)
    defer {
        sourceRef?.deinitialize(count: 1)
        sourceRef?.deallocate()
    }
    guard let pixelBuffer else {
        print("pixelbuffer is NULL status = \(status)")
        return
    }
    guard let decompressionOutputRefCon else { return }
    let decoder = Unmanaged<XDXVideoDecoder>.fromOpaque(decompressionOutputRefCon).takeUnretainedValue()
    let sampleTime = CMSampleTimingInfo(
        duration: presentationDuration, presentationTimeStamp: presentationTimeStamp,
        decodeTimeStamp: presentationTimeStamp)
    if let sampleBuffer = decoder.createSampleBufferFromPixelbuffer(
        pixelBuffer, videoRotate: sourceRef?.pointee.rotate ?? 0, timingInfo: sampleTime)
    {
        decoder.delegate?.getVideoDecodeDataCallback(sampleBuffer)
    }
}

/// The app's B-frame reordering (XDXSortFrameHandler): holds decoded frames in a list sorted by
/// presentation time and hands out the earliest once more than `maxCount` are held.
protocol XDXSortFrameHandlerDelegate: AnyObject {
    func getSortedVideoNode(_ sampleBuffer: CMSampleBuffer)
}

final class XDXSortFrameHandler {
    weak var delegate: XDXSortFrameHandlerDelegate?
    private var list: [CMSampleBuffer] = []
    private let maxCount = 5

    func addDataToLinkList(_ sampleBuffer: CMSampleBuffer) {
        let pts = CMSampleBufferGetPresentationTimeStamp(sampleBuffer)
        let index = list.firstIndex { CMTimeCompare(CMSampleBufferGetPresentationTimeStamp($0), pts) > 0 } ?? list.count
        list.insert(sampleBuffer, at: index)
        if list.count > maxCount {
            delegate?.getSortedVideoNode(list.removeFirst())
        }
    }

    /// Hands out what is left, at the end of the stream.
    func flush() {
        while !list.isEmpty { delegate?.getSortedVideoNode(list.removeFirst()) }
    }
}
