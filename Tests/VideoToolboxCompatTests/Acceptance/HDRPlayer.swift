//
//  HDRPlayer.swift
//  HDRPlayback
//
//  Decodes an HEVC HDR10/HDR10+ stream for an EDR-capable layer. The server sends length-prefixed
//  (AVCC) access units and the stream's VPS/SPS/PPS up front. We ask VideoToolbox for 10-bit
//  biplanar buffers, read the static HDR metadata from the buffers' attachments and the HDR10+
//  payload from the per-frame attachment, and hand the renderer what it needs to tone-map.
//

import CoreMedia
import CoreVideo
import Foundation
import VideoToolbox

/// What the renderer needs to tone-map one frame.
struct HDRFrame {
    let pixelBuffer: CVPixelBuffer
    let presentationTime: CMTime
    /// True for PQ (SMPTE ST 2084) content.
    let isPQ: Bool
    /// Mastering display peak and black level, in nits.
    let masteringMaxNits: Double?
    let masteringMinNits: Double?
    /// MaxCLL / MaxFALL, in nits.
    let maxCLL: Int?
    let maxFALL: Int?
    /// The raw HDR10+ (ST 2094-40) payload, for the renderer's dynamic tone mapper.
    let hdr10PlusPayload: Data?
}

protocol HDRPlayerRenderer: AnyObject {
    func player(_ player: HDRPlayer, render frame: HDRFrame)
}

final class HDRPlayer {
    weak var renderer: HDRPlayerRenderer?
    private var session: VTDecompressionSession?
    private var formatDescription: CMVideoFormatDescription?

    /// Opens the stream from its parameter sets (VPS, SPS, PPS in that order).
    func open(parameterSets: [Data]) -> Bool {
        guard parameterSets.count == 3, !parameterSets.contains(where: { $0.isEmpty }) else {
            NSLog("HDRPlayer: need VPS, SPS and PPS")
            return false
        }
        var description: CMFormatDescription?
        let count = parameterSets.count
        let status: OSStatus = parameterSets[0].withUnsafeBytes { vps in
            parameterSets[1].withUnsafeBytes { sps in
                parameterSets[2].withUnsafeBytes { pps in
                    let pointers: [UnsafePointer<UInt8>] = [
                        vps.bindMemory(to: UInt8.self).baseAddress!,
                        sps.bindMemory(to: UInt8.self).baseAddress!,
                        pps.bindMemory(to: UInt8.self).baseAddress!,
                    ]
                    let sizes = parameterSets.map { $0.count }
                    return CMVideoFormatDescriptionCreateFromHEVCParameterSets(
                        allocator: kCFAllocatorDefault, parameterSetCount: count, parameterSetPointers: pointers,
                        parameterSetSizes: sizes, nalUnitHeaderLength: 4, extensions: nil,
                        formatDescriptionOut: &description)
                }
            }
        }
        guard status == noErr, let description = description else {
            NSLog("HDRPlayer: bad parameter sets: %d", status)
            return false
        }
        formatDescription = description

        let attributes: [String: Any] = [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange
        ]
        var callback = VTDecompressionOutputCallbackRecord(
            decompressionOutputCallback: hdrPlayerOutputCallback,
            decompressionOutputRefCon: Unmanaged.passUnretained(self).toOpaque())
        var newSession: VTDecompressionSession?
        let createStatus = VTDecompressionSessionCreate(
            allocator: kCFAllocatorDefault, formatDescription: description, decoderSpecification: nil,
            imageBufferAttributes: attributes as CFDictionary, outputCallback: &callback,
            decompressionSessionOut: &newSession)
        guard createStatus == noErr, let newSession = newSession else {
            NSLog("HDRPlayer: VTDecompressionSessionCreate failed: %d", createStatus)
            return false
        }
        // We want the HDR10+ payload of every frame.
        VTSessionSetProperty(
            newSession, key: kVTDecompressionPropertyKey_PropagatePerFrameHDRDisplayMetadata,
            value: kCFBooleanTrue)
        session = newSession
        return true
    }

    /// Decodes one AVCC access unit.
    func decode(accessUnit: Data, presentationTime: CMTime) {
        guard let session = session, let formatDescription = formatDescription, !accessUnit.isEmpty else { return }
        var blockBuffer: CMBlockBuffer?
        var status = CMBlockBufferCreateWithMemoryBlock(
            allocator: kCFAllocatorDefault, memoryBlock: nil, blockLength: accessUnit.count,
            blockAllocator: kCFAllocatorDefault, customBlockSource: nil, offsetToData: 0,
            dataLength: accessUnit.count, flags: 0, blockBufferOut: &blockBuffer)
        guard status == kCMBlockBufferNoErr, let block = blockBuffer else { return }
        status = accessUnit.withUnsafeBytes { bytes in
            CMBlockBufferReplaceDataBytes(
                with: bytes.baseAddress!, blockBuffer: block, offsetIntoDestination: 0, dataLength: accessUnit.count)
        }
        guard status == kCMBlockBufferNoErr else { return }
        var timing = CMSampleTimingInfo(
            duration: CMTime.invalid, presentationTimeStamp: presentationTime, decodeTimeStamp: CMTime.invalid)
        var sampleSize = accessUnit.count
        var sampleBuffer: CMSampleBuffer?
        status = CMSampleBufferCreateReady(
            allocator: kCFAllocatorDefault, dataBuffer: block, formatDescription: formatDescription, sampleCount: 1,
            sampleTimingEntryCount: 1, sampleTimingArray: &timing, sampleSizeEntryCount: 1,
            sampleSizeArray: &sampleSize, sampleBufferOut: &sampleBuffer)
        guard status == noErr, let sample = sampleBuffer else { return }
        var flags = VTDecodeInfoFlags()
        let decodeStatus = VTDecompressionSessionDecodeFrame(
            session, sampleBuffer: sample, flags: [._EnableAsynchronousDecompression], frameRefcon: nil,
            infoFlagsOut: &flags)
        if decodeStatus != noErr {
            NSLog("HDRPlayer: decode failed: %d", decodeStatus)
        }
    }

    func flush() {
        guard let session = session else { return }
        VTDecompressionSessionFinishDelayedFrames(session)
        VTDecompressionSessionWaitForAsynchronousFrames(session)
    }

    func close() {
        if let session = session {
            VTDecompressionSessionInvalidate(session)
        }
        session = nil
    }

    fileprivate func didDecode(_ imageBuffer: CVImageBuffer, at time: CMTime) {
        let transfer = CVBufferCopyAttachment(imageBuffer, kCVImageBufferTransferFunctionKey, nil) as? String
        let isPQ = transfer == (kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ as String)

        var masteringMax: Double?
        var masteringMin: Double?
        if let mdcv = CVBufferCopyAttachment(imageBuffer, kCVImageBufferMasteringDisplayColorVolumeKey, nil) as? Data,
            mdcv.count == 24
        {
            // Big-endian: 6 x UInt16 primaries, 2 x UInt16 white point, UInt32 max, UInt32 min (0.0001 nits).
            let maxLuminance = mdcv.subdata(in: 16..<20).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let minLuminance = mdcv.subdata(in: 20..<24).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            masteringMax = Double(maxLuminance) / 10000
            masteringMin = Double(minLuminance) / 10000
        }
        var maxCLL: Int?
        var maxFALL: Int?
        if let clli = CVBufferCopyAttachment(imageBuffer, kCVImageBufferContentLightLevelInfoKey, nil) as? Data,
            clli.count == 4
        {
            maxCLL = Int(clli[clli.startIndex]) << 8 | Int(clli[clli.startIndex + 1])
            maxFALL = Int(clli[clli.startIndex + 2]) << 8 | Int(clli[clli.startIndex + 3])
        }
        let hdr10Plus = CVBufferCopyAttachment(imageBuffer, kCMSampleAttachmentKey_HDR10PlusPerFrameData, nil) as? Data

        let frame = HDRFrame(
            pixelBuffer: imageBuffer, presentationTime: time, isPQ: isPQ, masteringMaxNits: masteringMax,
            masteringMinNits: masteringMin, maxCLL: maxCLL, maxFALL: maxFALL, hdr10PlusPayload: hdr10Plus)
        renderer?.player(self, render: frame)
    }
}

private func hdrPlayerOutputCallback(
    decompressionOutputRefCon: UnsafeMutableRawPointer?, sourceFrameRefCon: UnsafeMutableRawPointer?,
    status: OSStatus, infoFlags: VTDecodeInfoFlags, imageBuffer: CVImageBuffer?, presentationTimeStamp: CMTime,
    presentationDuration: CMTime
) {
    guard let refCon = decompressionOutputRefCon else { return }
    let player = Unmanaged<HDRPlayer>.fromOpaque(refCon).takeUnretainedValue()
    guard status == noErr, let imageBuffer = imageBuffer else {
        NSLog("HDRPlayer: frame dropped, status %d", status)
        return
    }
    player.didDecode(imageBuffer, at: presentationTimeStamp)
}
