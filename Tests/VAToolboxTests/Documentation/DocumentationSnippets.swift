// swift-format-ignore-file
// Every ```swift block of README.md, Docs/*.md and the DocC catalog, compiled with the tests.
// Each function holds one block verbatim between its "// snippet: FILE N" and "// end snippet"
// lines (N counts the file's Swift blocks from 1; the block's own import lines are this file's);
// its parameters stand for what the block's prose assumes. DocumentationTests fails when a block
// and its snippet differ, so a doc edit that breaks the code breaks the build. Not formatted by
// swift format, so that the text stays the docs' text. Never called.

import Dispatch
import Synchronization
import VAToolbox

private func architectureMutex() {
    // snippet: Docs/Architecture.md 1
    let state = Mutex<[Int: Int]>([:])   // in a Sendable class
    DispatchQueue.concurrentPerform(iterations: 2) { t in
        for i in 0..<20_000 { state.withLock { $0[i % 64 + t * 64] = i } }
    }
    // end snippet
}

private func sessionProcedure(sps: [UInt8], pps: [UInt8], samples: [SampleBuffer]) throws {
    // snippet: Docs/DecompressionSession.md 1
    // 1. A format description from parameter sets (or avcC/hvcC, or let ElementaryStreamParser find them).
    let format = try VideoFormatDescription(h264ParameterSets: [sps, pps], nalUnitHeaderLength: 4)

    // 2. A session with an output handler.
    let session = try DecompressionSession(formatDescription: format) { output in
        guard output.status == nil, let image = output.imageBuffer else {
            print("frame \(String(describing: output.frameRefcon)): \(String(describing: output.status)) \(output.infoFlags)")
            return
        }
        image.withLockedPlanes { planes in
            // planes[0].baseAddress, planes[0].bytesPerRow, planes[0].width, planes[0].height …
        }
    }

    // 3. Samples: AVCC data (length-prefixed NAL units).
    for (index, sample) in samples.enumerated() {
        try session.decodeFrame(sample, flags: [.enableAsynchronousDecompression], frameRefcon: index)
    }

    // 4. End of stream: the wait hands out the frames held for reordering too, as Apple's does.
    try session.waitForAsynchronousFrames()
    session.invalidate()
    // end snippet
}

private func sessionWithConcurrency<Samples: AsyncSequence & Sendable>(
    samples: Samples, format: VideoFormatDescription
) async throws where Samples.Element == SampleBuffer {
    func show(_ image: PixelBuffer, at time: MediaTime) {}
    // snippet: Docs/DecompressionSession.md 2
    for try await frame in DecompressionSession.frames(decoding: samples, formatDescription: format) {
        guard frame.status == nil, let image = frame.imageBuffer else { continue }
        show(image, at: frame.presentationTimeStamp)
    }
    // end snippet
}

private func gettingStartedParser(chunksFromSocket: [[UInt8]], handle: (SampleBuffer) -> Void) {
    // snippet: Docs/GettingStarted.md 1
    var parser = ElementaryStreamParser(codec: .h264)
    for chunk in chunksFromSocket {              // any chunk size; start codes may straddle chunks
        for sample in parser.parse(chunk) {
            handle(sample)                          // sample.formatDescription, sample.isSync, sample.nalUnits
        }
    }
    for sample in parser.finish() { handle(sample) }   // the last access unit
    print(parser.diagnostics)                           // what it had to skip, if anything
    // end snippet
}

private func gettingStartedReader(handle: (SampleBuffer) -> Void) throws {
    // snippet: Docs/GettingStarted.md 2
    let reader = try MediaFileReader(path: "movie.mp4")      // MP4/MOV, MKV, MPEG-TS, raw .h264/.265
    let format = reader.formatDescription                      // from the avcC/hvcC, or the in-band sets
    while let sample = try reader.nextSample() {               // decode order, container time stamps
        handle(sample)
    }
    // end snippet
}

private func gettingStartedFrames() async throws {
    func show(_ image: PixelBuffer, at time: MediaTime) {}
    // snippet: Docs/GettingStarted.md 3
    let reader = try MediaFileReader(path: "movie.mp4", track: 1)
    try reader.seek(to: MediaTime(seconds: 10, preferredTimescale: 1000))
    for try await frame in DecompressionSession.frames(
        decoding: reader.samples, formatDescription: reader.formatDescription)
    {
        guard let image = frame.imageBuffer else { continue }   // dropped, hidden or damaged
        show(image, at: frame.presentationTimeStamp)
    }
    // end snippet
}

private func gettingStartedFormats(sps: [UInt8], pps: [UInt8], vps: [UInt8], avcCBoxPayload: [UInt8]) throws {
    // snippet: Docs/GettingStarted.md 4
    let format = try VideoFormatDescription(h264ParameterSets: [sps, pps], nalUnitHeaderLength: 4)
    let hevc = try VideoFormatDescription(hevcParameterSets: [vps, sps, pps])
    let fromMP4 = try VideoFormatDescription(avcC: avcCBoxPayload)      // or hvcC:
    let size = format.dimensions           // 1920x1080 — after cropping, like CMVideoFormatDescriptionGetDimensions
    let coded = format.codedDimensions     // 1920x1088
    let profile = format.stream.profileName   // "High"
    let colour = format.extensions   // .colorPrimaries, .transferFunction, .yCbCrMatrix, .fullRangeVideo, .pixelAspectRatio
    // end snippet
    _ = (size, coded, profile, colour, hevc, fromMP4)
}

private func gettingStartedSample(avccBytes: [UInt8], format: VideoFormatDescription, pts: MediaTime) throws {
    // snippet: Docs/GettingStarted.md 5
    let sample = try SampleBuffer(data: avccBytes, formatDescription: format,
                                  timing: SampleTimingInfo(duration: .init(value: 1, timescale: 30),
                                                           presentationTimeStamp: pts))
    // end snippet
    _ = sample
}

private func hardwareWhichDecoder(format: VideoFormatDescription, handle: @escaping DecompressionSession.OutputHandler) throws {
    // snippet: Docs/Hardware.md 1
    let session = try DecompressionSession(formatDescription: format) { output in handle(output) }
    if let node = session.renderNode {
        print("decoding on", node)            // /dev/dri/renderD128 (i915, PCI 8086:46a6)
    } else {
        print("on the CPU:", session.hardwareUnavailableReason ?? "")
    }
    // end snippet
    session.invalidate()
}

private func hardwareExport(pixelBuffer: PixelBuffer) throws {
    // snippet: Docs/Hardware.md 2
    let buffer = try pixelBuffer.exportDMABuf()          // vaExportSurfaceHandle, DRM PRIME 2, separate layers
    for layer in buffer.layers {                          // R8 + GR88 for NV12 (R16 + GR1616 for P010);
        let plane = layer.planes[0]                       // RG88/RG1616 on nvidia
        let fd = buffer.objects[plane.objectIndex].fd
        print(DMABufDescriptor.name(ofFourCC: layer.drmFormat), "fd", fd, "offset", plane.offset, "pitch", plane.pitch)
        // EGL: EGL_LINUX_DMA_BUF_EXT with EGL_DMA_BUF_PLANE0_FD_EXT = fd, _OFFSET_EXT = plane.offset,
        // _PITCH_EXT = plane.pitch, _MODIFIER_LO/HI_EXT = buffer.modifier(of: layer); a second plane
        // of the layer (iHD with compression) is the CCS plane: pass it as PLANE1 with the same modifier
    }
    let crop = buffer.visibleRectangle                    // the picture inside the (larger) surface
    // end snippet
}

private func loggingHandler(path: String, handle: @escaping @Sendable (DecompressionOutput) -> Void) throws {
    struct Logger: Sendable { func log(_ text: String) {} }
    let logger = Logger()
    // snippet: Docs/Logging.md 1
    LibavLog.setHandler(upTo: .warning) { message in
        // message.level, message.component ("h264", "mov,mp4,m4a,3gp,3g2,mj2"), message.text,
        // message.origin (the reader or decoder, nil for the application's own messages)
        logger.log("\(message)")   // "[h264 @ decoder 4 (camera 2)] error while decoding MB 15 13, bytestream 547"
    }

    let reader = try LibavLog.withLabel("camera 2") { () throws(VTError) in try MediaFileReader(path: path) }
    let session = try LibavLog.withLabel("camera 2") { () throws(VTError) in
        try DecompressionSession(formatDescription: reader.formatDescription) { output in handle(output) }
    }
    // end snippet
    session.invalidate()
}

private func portingImports() {
    // snippet: Docs/PortingFromVideoToolbox.md 1
    // end snippet
}
