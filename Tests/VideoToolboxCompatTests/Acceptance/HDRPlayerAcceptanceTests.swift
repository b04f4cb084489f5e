import Foundation
import Testing
import VAToolbox
import VideoToolbox

/// The app's `HDRPlayer` (HDRPlayer.swift, written as an iOS developer writes it and compiled
/// unchanged in Swift 5 language mode) playing `hevc-hdr10plus.265`: every picture, in 10-bit
/// biplanar buffers, equals ffmpeg's decode (`.framemd5`, after the lossless P010 → yuv420p10le
/// repacking libswscale does), and the renderer gets the PQ flag, the mastering display's
/// luminance range, MaxCLL/MaxFALL and each frame's own HDR10+ payload, as ffprobe reads them
/// (`.hdr.json`).
///
/// This file is the harness: the server (the stream's parameter sets, then its AVCC access units
/// with the container-less stream's time stamps) and the oracle.
@Suite(.serialized) struct HDRPlayerAcceptanceTests {
    static let name = "hevc-hdr10plus.265"

    final class Renderer: HDRPlayerRenderer {
        // The player calls from its session's queue; the test reads after `flush()` returns.
        let lock = NSLock()
        var frames: [HDRFrame] = []

        func player(_ player: HDRPlayer, render frame: HDRFrame) {
            lock.lock()
            frames.append(frame)
            lock.unlock()
        }
    }

    /// ffprobe's side data of each frame, in output order.
    static func oracle() throws -> [[[String: Any]]] {
        let url = VideoDecoderAcceptanceTests.fixtures.appendingPathComponent(name + ".hdr.json")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let frames = try #require(root["frames"] as? [[String: Any]])
        return try frames.map { try #require($0["side_data_list"] as? [[String: Any]]) }
    }

    @Test func playsHDR10PlusWithItsMetadataBitExact() throws {
        let bytes = [UInt8](
            try Data(contentsOf: VideoDecoderAcceptanceTests.fixtures.appendingPathComponent(Self.name)))
        var stamper = AnnexBTimeStamper(codec: .hevc)
        let samples =
            ElementaryStreamParser.samples(in: bytes, codec: .hevc).flatMap { stamper.stamp($0) }
            + stamper.finish()
        try #require(samples.count == 10)
        let renderer = Renderer()
        let player = HDRPlayer()
        player.renderer = renderer
        #expect(player.open(parameterSets: samples[0].formatDescription.parameterSets.map { Data($0) }))
        for sample in samples {
            player.decode(accessUnit: Data(sample.data), presentationTime: sample.presentationTimeStamp)
        }
        player.flush()
        player.close()

        let oracle = try Self.oracle()
        let expectedMD5s = try VideoDecoderAcceptanceTests.frameMD5s(Self.name)
        #expect(renderer.frames.count == expectedMD5s.count && oracle.count == expectedMD5s.count)
        let repack = PixelTransferSession()
        for (index, (frame, sideData)) in zip(renderer.frames, oracle).enumerated() {
            let buffer = frame.pixelBuffer.pixelBuffer
            #expect(buffer.pixelFormat == .p010VideoRange, "the 10-bit biplanar buffers the app asked for")
            let planar = try repack.transferImage(buffer, pixelFormat: .yuv420Planar10)
            #expect(planar.md5 == expectedMD5s[index], "frame \(index)")
            #expect(frame.isPQ)
            let mastering = try #require(
                sideData.first { $0["side_data_type"] as? String == "Mastering display metadata" })
            let light = try #require(
                sideData.first { $0["side_data_type"] as? String == "Content light level metadata" })
            #expect(frame.masteringMaxNits == Self.ratio(mastering["max_luminance"]))
            #expect(frame.masteringMinNits == Self.ratio(mastering["min_luminance"]))
            #expect(frame.maxCLL == light["max_content"] as? Int && frame.maxFALL == light["max_average"] as? Int)
            let hdr10Plus = try #require(
                sideData.first { ($0["side_data_type"] as? String)?.contains("2094-40") == true })
            let payload = [UInt8](try #require(frame.hdr10PlusPayload))
            #expect(payload.prefix(6) == [0xB5, 0x00, 0x3C, 0x00, 0x01, 0x04])
            // average_maxrgb: 17 bits after the T.35 header (56 bits), num_windows (2), the
            // targeted display's peak (27) and its flag (1), and maxscl[3] (51).
            let offset = 56 + 2 + 27 + 1 + 51
            let average = (offset..<(offset + 17)).reduce(0) {
                $0 << 1 | Int((payload[$1 / 8] >> (7 - UInt8($1 % 8))) & 1)
            }
            #expect("\(average)/100000" == hdr10Plus["average_maxrgb"] as? String, "frame \(index): its own payload")
        }
        #expect(renderer.frames.map(\.presentationTime) == samples.map(\.presentationTimeStamp).sorted())
    }

    /// `"10000000/10000"` → 1000.
    static func ratio(_ value: Any?) -> Double? {
        guard let text = value as? String else { return nil }
        let parts = text.split(separator: "/").compactMap { Double($0) }
        return parts.count == 2 && parts[1] != 0 ? parts[0] / parts[1] : nil
    }
}
