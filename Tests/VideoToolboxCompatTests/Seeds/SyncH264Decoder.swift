// The decoder of ../shared/seeds/004 (a VideoToolbox decode-flow article): NAL units in with
// 4-byte start codes, each start code rewritten as a big-endian length, the session created with
// output attributes and the RealTime property, and a synchronous decode that gets its pixel
// buffer back through the frame refcon. Written in Swift as a macOS developer writes it against
// Apple's VideoToolbox; it compiles unchanged against VAToolbox's compatibility modules.

import Foundation
import VideoToolbox

final class SyncH264Decoder {
    private var sps: [UInt8] = []
    private var pps: [UInt8] = []
    private var decodeDesc: CMVideoFormatDescription?
    private var decodeSession: VTDecompressionSession?
    let width: Int
    let height: Int
    /// The status of the last session property change.
    private(set) var realTimeStatus: OSStatus = noErr

    /// The output format; the article tested 420v, 420f (its choice) and BGRA.
    let pixelFormat: OSType

    init(width: Int, height: Int, pixelFormat: OSType = kCVPixelFormatType_420YpCbCr8BiPlanarFullRange) {
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
    }

    /// Creates the session on the first picture.
    private func initDecoder() -> Bool {
        if decodeSession != nil { return true }
        let status0 = sps.withUnsafeBufferPointer { spsPointer in
            pps.withUnsafeBufferPointer { ppsPointer in
                let parameterSetPointers = [spsPointer.baseAddress!, ppsPointer.baseAddress!]
                let parameterSetSizes = [sps.count, pps.count]
                let naluHeaderLen: Int32 = 4
                return CMVideoFormatDescriptionCreateFromH264ParameterSets(
                    allocator: kCFAllocatorDefault, parameterSetCount: 2, parameterSetPointers: parameterSetPointers,
                    parameterSetSizes: parameterSetSizes, nalUnitHeaderLength: naluHeaderLen,
                    formatDescriptionOut: &decodeDesc)
            }
        }
        guard status0 == noErr, let decodeDesc else {
            print("Video hard DecodeSession create H264ParameterSets(sps, pps) failed status= \(status0)")
            return false
        }

        // iOS outputs nv12 (uvuv), not nv21
        let destinationPixBufferAttrs: [String: Any] = [
            kCVPixelBufferPixelFormatTypeKey as String: NSNumber(value: pixelFormat),
            kCVPixelBufferWidthKey as String: NSNumber(value: width),
            kCVPixelBufferHeightKey as String: NSNumber(value: height),
            kCVPixelBufferOpenGLCompatibilityKey as String: NSNumber(value: true),
        ]

        var callbackRecord = VTDecompressionOutputCallbackRecord()
        callbackRecord.decompressionOutputCallback = videoDecompressionOutputCallback
        callbackRecord.decompressionOutputRefCon = Unmanaged.passUnretained(self).toOpaque()

        var status = VTDecompressionSessionCreate(
            allocator: kCFAllocatorDefault, formatDescription: decodeDesc, decoderSpecification: nil,
            imageBufferAttributes: destinationPixBufferAttrs as CFDictionary, outputCallback: &callbackRecord,
            decompressionSessionOut: &decodeSession)
        guard status == noErr, let decodeSession else {
            print("Video hard DecodeSession create failed status= \(status)")
            return false
        }

        // real-time decoding
        status = VTSessionSetProperty(decodeSession, key: kVTDecompressionPropertyKey_RealTime, value: kCFBooleanTrue)
        realTimeStatus = status
        return true
    }

    /// One NAL unit behind a 4-byte start code; returns the picture it decoded to, if any.
    func decodeNaluData(_ frame: UnsafeMutablePointer<UInt8>, size: UInt32) -> CVPixelBuffer? {
        let type = frame[4] & 0x1F

        // rewrite the NALU's start code as its 4-byte big-endian length
        var naluSize = size - 4
        let pNaluSize = withUnsafeBytes(of: &naluSize) { Array($0) }
        var pixelBuffer: CVPixelBuffer? = nil
        frame[0] = pNaluSize[3]
        frame[1] = pNaluSize[2]
        frame[2] = pNaluSize[1]
        frame[3] = pNaluSize[0]

        switch type {
        case 0x05:  // key frame
            if initDecoder() {
                pixelBuffer = decode(frame, withSize: size)
            }
        case 0x06:  // SEI
            break
        case 0x07:  // sps
            sps = Array(UnsafeBufferPointer(start: frame + 4, count: Int(naluSize)))
        case 0x08:  // pps
            pps = Array(UnsafeBufferPointer(start: frame + 4, count: Int(naluSize)))
        default:  // other frames (1-5)
            if initDecoder() {
                pixelBuffer = decode(frame, withSize: size)
            }
        }
        return pixelBuffer
    }

    private func decode(_ frame: UnsafeMutablePointer<UInt8>, withSize frameSize: UInt32) -> CVPixelBuffer? {
        var outputPixelBuffer: CVPixelBuffer? = nil
        var blockBuffer: CMBlockBuffer? = nil
        let flag0: CMBlockBufferFlags = 0

        var status = CMBlockBufferCreateWithMemoryBlock(
            allocator: kCFAllocatorDefault, memoryBlock: frame, blockLength: Int(frameSize),
            blockAllocator: kCFAllocatorNull, customBlockSource: nil, offsetToData: 0, dataLength: Int(frameSize),
            flags: flag0, blockBufferOut: &blockBuffer)
        guard status == kCMBlockBufferNoErr else {
            print("Video hard decode create blockBuffer error code=\(status)")
            return outputPixelBuffer
        }

        var sampleBuffer: CMSampleBuffer? = nil
        let sampleSizeArray = [Int(frameSize)]
        status = CMSampleBufferCreateReady(
            allocator: kCFAllocatorDefault, dataBuffer: blockBuffer, formatDescription: decodeDesc, sampleCount: 1,
            sampleTimingEntryCount: 0, sampleTimingArray: nil, sampleSizeEntryCount: 1,
            sampleSizeArray: sampleSizeArray, sampleBufferOut: &sampleBuffer)
        guard status == noErr, let sampleBuffer, let decodeSession else {
            print("Video hard decode create sampleBuffer failed status=\(status)")
            return outputPixelBuffer
        }

        // a hint that low-power decoding is fine
        let flag1: VTDecodeFrameFlags = ._1xRealTimePlayback
        var infoFlag: VTDecodeInfoFlags = .asynchronous
        status = VTDecompressionSessionDecodeFrame(
            decodeSession, sampleBuffer: sampleBuffer, flags: flag1, frameRefcon: &outputPixelBuffer,
            infoFlagsOut: &infoFlag)

        if status == kVTInvalidSessionErr {
            print("Video hard decode InvalidSessionErr status =\(status)")
        } else if status == kVTVideoDecoderBadDataErr {
            print("Video hard decode BadData status =\(status)")
        } else if status != noErr {
            print("Video hard decode failed status =\(status)")
        }
        return outputPixelBuffer
    }

    func stop() {
        if let decodeSession {
            VTDecompressionSessionInvalidate(decodeSession)
        }
        decodeSession = nil
    }
}

/// Hands the picture back through the frame's refcon, which points at the caller's variable.
private func videoDecompressionOutputCallback(
    _ decompressionOutputRefCon: UnsafeMutableRawPointer?, _ sourceFrameRefCon: UnsafeMutableRawPointer?,
    _ status: OSStatus, _ infoFlags: VTDecodeInfoFlags, _ pixelBuffer: CVImageBuffer?,
    _ presentationTimeStamp: CMTime, _ presentationDuration: CMTime
) {
    guard status == noErr, let sourceFrameRefCon else { return }
    let outputPixelBuffer = sourceFrameRefCon.assumingMemoryBound(to: Optional<CVPixelBuffer>.self)
    outputPixelBuffer.pointee = pixelBuffer
}
