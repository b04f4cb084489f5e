import Foundation
import Synchronization
import Testing
import VAToolbox
import VideoToolbox

/// The seeds' decoders (Seeds/, compiled unchanged against the compatibility modules) decoding
/// the fixtures and the conformance streams: every picture's MD5 equals `ffmpeg -f framemd5`.
///
/// This file is the harness — the stream source the seeds leave to the app ("it depends a lot on
/// what video source you're using") and the oracle. It splits streams with VAToolbox's parser;
/// the seeds see only the bytes their documents describe.
@Suite struct SeedDecoderTests {
    // MARK: - Streams and oracles

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")
    static let conformance = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/conformance")
    static let hasFFmpeg = FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")

    /// The MD5 column of `ffmpeg … -f framemd5 -`, run now with `arguments` before the output;
    /// every picture at its own size (`-autoscale 0`), as a decoder outputs it.
    static func ffmpegMD5s(_ url: URL, _ arguments: [String] = []) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments =
            ["-v", "error", "-i", url.path, "-fps_mode", "passthrough", "-autoscale", "0"] + arguments + [
                "-f", "framemd5", "-",
            ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "ffmpeg failed on \(url.lastPathComponent)")
        return String(decoding: data, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The NV12 format in the stream's own range (`'420f'` for a full-range stream, `'420v'`
    /// otherwise), and `ffmpeg`'s pictures in NV12 in that range: the same samples, no range
    /// conversion (ffmpeg's decoder says `yuvj420p` for full range, whose NV12 it would squeeze to
    /// video range unless told `out_range=full`).
    static func nv12(_ url: URL, fullRange: Bool) throws -> (format: OSType, md5s: [String]) {
        (
            fullRange
                ? kCVPixelFormatType_420YpCbCr8BiPlanarFullRange : kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
            try ffmpegMD5s(url, (fullRange ? ["-vf", "scale=out_range=full"] : []) + ["-pix_fmt", "nv12"])
        )
    }

    /// A fixture's pictures as NV12, the native format of a session asked for none: the MD5
    /// column of `ffmpeg -i FIXTURE -pix_fmt nv12 -f framemd5 -`.
    static func fixtureNV12MD5s(_ name: String) throws -> [String] {
        try ffmpegMD5s(fixtures.appendingPathComponent(name), ["-pix_fmt", "nv12"])
    }

    /// A conformance stream's path, when the conformance streams are present.
    static func conformanceFiles(_ folder: String, suffix: String) -> [URL] {
        let directory = conformance.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(suffix) }.sorted().map { directory.appendingPathComponent($0) }
    }

    /// The H.264 streams whose pictures are one IDR or non-IDR slice each with no reordering, the
    /// shape seed 000's and seed 004's sources deliver: the fixtures and the JVT conformance
    /// vectors that have it.
    static let singleSliceStreams: [URL] = {
        var candidates = [fixtures.appendingPathComponent("h264-baseline-cavlc.264")]
        let vectors = conformance.appendingPathComponent("vectors.tsv")
        if let text = try? String(contentsOf: vectors, encoding: .utf8) {
            let lines = text.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            if let header = lines.first, let file = header.firstIndex(of: "file"),
                let matches = header.firstIndex(of: "ffmpeg_cli_matches")
            {
                candidates += lines.dropFirst().filter { $0.count > max(file, matches) && $0[matches] == "yes" }.map {
                    conformance.appendingPathComponent($0[file])
                }
            }
        }
        return candidates.filter { url in
            guard let bytes = try? [UInt8](Data(contentsOf: url)) else { return false }
            return singleSliceAccessUnits(bytes) != nil
        }
    }()

    /// The stream as seed 000's frames ([SPS][PPS][IDR] or one slice, 4-byte start codes), or nil
    /// when it has another shape (several slices, several parameter sets, reordering, other NAL
    /// units the seed does not take).
    static func singleSliceAccessUnits(_ bytes: [UInt8]) -> [[UInt8]]? {
        let samples = ElementaryStreamParser.samples(in: bytes, codec: .h264)
        guard let format = samples.first?.formatDescription, format.stream.maxNumReorderFrames == 0,
            format.stream.profileIdc == 66, format.parameterSets.count == 2,
            samples.allSatisfy({ $0.formatDescription == format })
        else { return nil }
        let sps = format.parameterSets[0]
        let pps = format.parameterSets[1]
        guard sps.count < 32, pps.count < 22 else { return nil }
        var frames: [[UInt8]] = []
        for sample in samples {
            let slices = sample.nalUnits.filter { $0.typeCode == 1 || $0.typeCode == 5 }
            guard slices.count == 1, sample.nalUnits.allSatisfy({ [1, 5, 6, 7, 8, 9].contains($0.typeCode) }) else {
                return nil
            }
            let slice = slices[0]
            frames.append(AnnexB.join(slice.typeCode == 5 ? [sps[...], pps[...], slice.bytes] : [slice.bytes]))
        }
        return frames
    }

    // MARK: - Seed 000: the StackOverflow decoder

    final class Collector: H264StreamDecoderDelegate, @unchecked Sendable {
        // Unchecked: the lock guards both lists; the session calls from its own queue.
        private let lock = NSLock()
        private var hashes: [String] = []
        private var errors: [OSStatus] = []
        func displayDecodedFrame(_ imageBuffer: CVImageBuffer, presentationTimeStamp: CMTime) {
            let md5 = imageBuffer.pixelBuffer.md5
            lock.lock()
            hashes.append(md5)
            lock.unlock()
        }
        func decoderReported(error status: OSStatus) {
            lock.lock()
            errors.append(status)
            lock.unlock()
        }
        var result: (hashes: [String], errors: [OSStatus]) {
            lock.lock()
            defer { lock.unlock() }
            return (hashes, errors)
        }
    }

    @Test(.enabled(if: hasFFmpeg), arguments: singleSliceStreams.map(\.lastPathComponent))
    func stackOverflowDecoderMatchesFFmpeg(name: String) throws {
        let url = try #require(Self.singleSliceStreams.first { $0.lastPathComponent == name })
        let frames = try #require(Self.singleSliceAccessUnits([UInt8](Data(contentsOf: url))))
        let collector = Collector()
        let decoder = H264StreamDecoder()
        decoder.delegate = collector
        for frame in frames {
            var copy = frame
            copy.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else {
                    Issue.record("an empty frame")
                    return
                }
                decoder.receivedRawVideoFrame(
                    base, withSize: UInt32(buffer.count), isIFrame: buffer[4] & 0x1F == 7 ? 1 : 0)
            }
        }
        decoder.stop()
        let (hashes, errors) = collector.result
        #expect(errors.isEmpty, "\(name): statuses \(errors)")
        // The seed asks for no pixel format: the native NV12, VideoToolbox's default for H.264.
        #expect(hashes == (try Self.ffmpegMD5s(url, ["-pix_fmt", "nv12"])), "\(name): \(hashes.count) pictures")
    }

    // MARK: - Seed 002: the FFmpeg-fed decoder with session re-creation and app-side reordering

    final class SortedOutput: XDXVideoDecoderDelegate, XDXSortFrameHandlerDelegate, @unchecked Sendable {
        // Unchecked: the lock guards the sorter and the list; the session calls from its queue.
        private let lock = NSLock()
        let sorter = XDXSortFrameHandler()
        private var hashes: [String] = []
        private var times: [CMTime] = []

        init() { sorter.delegate = self }

        func getVideoDecodeDataCallback(_ sampleBuffer: CMSampleBuffer) {
            lock.lock()
            sorter.addDataToLinkList(sampleBuffer)
            lock.unlock()
        }

        func getSortedVideoNode(_ sampleBuffer: CMSampleBuffer) {
            guard let image = CMSampleBufferGetImageBuffer(sampleBuffer) else { return }
            hashes.append(image.pixelBuffer.md5)
            times.append(CMSampleBufferGetPresentationTimeStamp(sampleBuffer))
        }

        func finish() -> (hashes: [String], times: [CMTime]) {
            lock.lock()
            defer { lock.unlock() }
            sorter.flush()
            return (hashes, times)
        }
    }

    /// Feeds samples to seed 002's decoder as its FFmpeg parse module would: AVCC packet data,
    /// the parameter sets as Annex B extradata, the container's timing.
    static func runVideoDecoder(_ samples: [SampleBuffer], pixelFormat: OSType) -> (
        hashes: [String], times: [CMTime], sessions: Int
    ) {
        let output = SortedOutput()
        let decoder = XDXVideoDecoder(pixelFormat: pixelFormat)
        decoder.delegate = output
        for sample in samples {
            var data = sample.data
            var extraData = AnnexB.join(sample.formatDescription.parameterSets)
            data.withUnsafeMutableBufferPointer { packet in
                extraData.withUnsafeMutableBufferPointer { extra in
                    guard let packetBase = packet.baseAddress, let extraBase = extra.baseAddress else {
                        Issue.record("an empty packet or configuration record")
                        return
                    }
                    decoder.startDecodeVideoData(
                        XDXParseVideoDataInfo(
                            data: packetBase, dataSize: packet.count, extraData: extraBase,
                            extraDataSize: extra.count, pts: sample.presentationTimeStamp.seconds,
                            timebase: 1.0 / 90000,
                            videoRotate: 0, fps: 25, timingInfo: sample.timing,
                            videoFormat: sample.formatDescription.codecType == .hevc ? .h265 : .h264))
                }
            }
        }
        decoder.stopDecoder()
        let (hashes, times) = output.finish()
        return (hashes, times, decoder.sessionCount)
    }

    /// Raw streams for seed 002: the HEVC fixtures and cros-codecs HEVC streams (the HEVC path),
    /// B-frame H.264 fixtures (reordering by the app).
    static let videoDecoderStreams: [URL] =
        ["hevc-main.265", "hevc-slices.265", "h264-main-cabac.264", "h264-high-bpyramid.264"].map {
            fixtures.appendingPathComponent($0)
        }
        + conformanceFiles("cros-codecs-h265", suffix: ".h265").filter {
            // 8-bit 4:2:0 streams: what a '420f' request converts without loss of meaning
            (try? ElementaryStreamParser.samples(in: [UInt8](Data(contentsOf: $0)), codec: .hevc).first.map {
                $0.formatDescription.stream.bitDepthLuma == 8 && $0.formatDescription.stream.chromaFormatIdc == 1
            }) == true
        }

    static func timedSamples(_ url: URL) throws -> [SampleBuffer] {
        var options = ElementaryStreamParser.Options()
        options.frameDuration = CMTime(value: 1, timescale: 25)
        let codec: VideoCodecType = url.pathExtension.hasPrefix("26") || url.pathExtension == "h264" ? .h264 : .hevc
        return ElementaryStreamParser.samples(
            in: [UInt8](try Data(contentsOf: url)),
            codec: url.pathExtension == "265" || url.pathExtension == "h265" ? .hevc : codec,
            options: options)
    }

    @Test(.enabled(if: hasFFmpeg), arguments: videoDecoderStreams.map(\.lastPathComponent))
    func ffmpegFedDecoderWithAppReorderingMatchesFFmpeg(name: String) throws {
        let url = try #require(Self.videoDecoderStreams.first { $0.lastPathComponent == name })
        let samples = try Self.timedSamples(url)
        let oracle = try Self.nv12(url, fullRange: samples[0].formatDescription.extensions.fullRangeVideo)
        let result = Self.runVideoDecoder(samples, pixelFormat: oracle.format)
        #expect(result.sessions == 1)
        #expect(result.times == result.times.sorted(), "the app's sorter hands out presentation order")
        #expect(result.hashes == oracle.md5s, "\(name): \(result.hashes.count) pictures")
    }

    /// The extradata changes mid-stream (a new SPS/PPS at 176x144): the decoder waits for its
    /// frames, invalidates the session and makes a new one; no picture is lost.
    @Test(.enabled(if: hasFFmpeg)) func ffmpegFedDecoderRecreatesTheSessionOnAnExtradataChange() throws {
        let url = Self.fixtures.appendingPathComponent("h264-resolution-change.264")
        let samples = try Self.timedSamples(url)
        let oracle = try Self.nv12(url, fullRange: samples[0].formatDescription.extensions.fullRangeVideo)
        let result = Self.runVideoDecoder(samples, pixelFormat: oracle.format)
        #expect(result.sessions == 2)
        #expect(result.hashes == oracle.md5s, "\(result.hashes.count) pictures")
    }

    /// The MKV fixture through MediaFileReader, the closest thing here to the seed's FFmpeg
    /// demuxer: hvcC extradata, length-prefixed packets, container time stamps.
    @Test(.enabled(if: hasFFmpeg)) func ffmpegFedDecoderDecodesTheMatroskaFixture() throws {
        let url = Self.fixtures.appendingPathComponent("hevc-main.mkv")
        let reader = try MediaFileReader(path: url.path)
        let samples = try reader.readAllSamples()
        let oracle = try Self.nv12(url, fullRange: reader.formatDescription.extensions.fullRangeVideo)
        let result = Self.runVideoDecoder(samples, pixelFormat: oracle.format)
        #expect(result.sessions == 1)
        #expect(result.hashes == oracle.md5s)
    }

    // MARK: - Seed 004: synchronous decoding, the picture back through the refcon

    @Test(.enabled(if: hasFFmpeg), arguments: singleSliceStreams.map(\.lastPathComponent))
    func synchronousDecoderGetsEveryPictureBackThroughTheRefcon(name: String) throws {
        let url = try #require(Self.singleSliceStreams.first { $0.lastPathComponent == name })
        let samples = ElementaryStreamParser.samples(in: [UInt8](try Data(contentsOf: url)), codec: .h264)
        let dimensions = try #require(samples.first?.formatDescription.dimensions)
        let oracle = try Self.nv12(
            url, fullRange: try #require(samples.first).formatDescription.extensions.fullRangeVideo)
        let decoder = SyncH264Decoder(
            width: Int(dimensions.width), height: Int(dimensions.height), pixelFormat: oracle.format)
        var hashes: [String] = []
        var decodedSlices = 0
        for sample in samples {
            let units = sample.formatDescription.parameterSets.map { $0[...] } + sample.nalUnits.map(\.bytes)
            for unit in units {
                var bytes = AnnexB.join([unit])
                let isSlice = bytes[4] & 0x1F == 1 || bytes[4] & 0x1F == 5
                guard isSlice || bytes[4] & 0x1F == 7 || bytes[4] & 0x1F == 8 else { continue }
                let picture = bytes.withUnsafeMutableBufferPointer { buffer in
                    buffer.baseAddress.flatMap { decoder.decodeNaluData($0, size: UInt32(buffer.count)) }
                }
                if isSlice {
                    decodedSlices += 1
                    #expect(picture != nil, "\(name): slice \(decodedSlices) returned no picture")
                }
                if let picture { hashes.append(picture.pixelBuffer.md5) }
            }
        }
        decoder.stop()
        #expect(decoder.realTimeStatus == noErr)
        #expect(hashes == oracle.md5s, "\(name): \(hashes.count) pictures")
    }

    /// The seeds' own choice, `'420f'`, on a video-range stream: full-range NV12 as ffmpeg's scale
    /// filter makes it (`out_range=full`). The session's pixel transfer (PixelTransfer.swift) used
    /// to take libswscale's unscaled yuv420p → NV12 copy, which ignores the range: the samples
    /// stayed video range while the buffer said full range.
    @Test(.enabled(if: hasFFmpeg)) func fullRangeOutputOfAVideoRangeStreamExpandsTheRange() throws {
        let url = Self.fixtures.appendingPathComponent("h264-baseline-cavlc.264")
        let samples = ElementaryStreamParser.samples(in: [UInt8](try Data(contentsOf: url)), codec: .h264)
        let dimensions = try #require(samples.first?.formatDescription.dimensions)
        let decoder = SyncH264Decoder(width: Int(dimensions.width), height: Int(dimensions.height))
        var hashes: [String] = []
        for sample in samples {
            for unit in sample.formatDescription.parameterSets.map({ $0[...] }) + sample.nalUnits.map(\.bytes) {
                var bytes = AnnexB.join([unit])
                let picture = bytes.withUnsafeMutableBufferPointer { buffer in
                    buffer.baseAddress.flatMap { decoder.decodeNaluData($0, size: UInt32(buffer.count)) }
                }
                if let picture { hashes.append(picture.pixelBuffer.md5) }
            }
        }
        decoder.stop()
        let expected = try Self.ffmpegMD5s(url, ["-vf", "scale=out_range=full", "-pix_fmt", "nv12"])
        #expect(hashes.count == expected.count)
        #expect(hashes == expected)
    }
}
