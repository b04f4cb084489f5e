import Foundation
import Testing

@testable import VAToolbox

/// HDR → SDR tone mapping (issue 23, item 4): on the CPU, the pictures of the ffmpeg CLI's
/// `zscale`+`tonemap` chain, byte for byte, for PQ (HDR10, with its content light level setting
/// the peak) and HLG streams; off by default; SDR pictures untouched; the result tagged SDR
/// BT.709 without HDR metadata.
@Suite(.enabled(if: CommandRunner.hasFFmpeg)) struct ToneMappingTests {
    static let hdrFixtures = ["hevc-hdr10.265", "av1-hdr10.ivf", "hevc-hlg.265"]

    /// The ffmpeg CLI's `-f framemd5` of `fixture` through the chain, then `extra` (a format, a size).
    static func ffmpegFrameMD5(_ fixture: String, _ extra: [String] = []) throws -> String {
        let run = try CommandRunner.ffmpeg(
            ["-threads", "1", "-i", TestData.fixtures.appendingPathComponent(fixture).path, "-vf", ToneMapping.filters]
                + extra + ["-f", "framemd5", "-"])
        try #require(run.status == 0, "\(run.standardError)")
        return run.text
    }

    static func hashes(_ frameMD5: String) -> [String] {
        frameMD5.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
            $0.split(separator: ",").last?.trimmingCharacters(in: .whitespaces)
        }
    }

    @Test(
        .enabled(if: CommandRunner.hasTool), arguments: hdrFixtures,
        [[], ["--pixel-format", "BGRA", "--scale", "160x120"]])
    func theToolsPicturesAreTheFFmpegChains(_ fixture: String, _ options: [String]) throws {
        let run = try CommandRunner.vatoolbox(
            ["framemd5", TestData.fixtures.appendingPathComponent(fixture).path, "--hwaccel", "none", "--tonemap"]
                + options)
        #expect(run.status == 0, "\(run.standardError)")
        let ffmpegOptions = options.isEmpty ? [] : ["-pix_fmt", "bgra", "-s", "160x120"]
        let expected = try Self.ffmpegFrameMD5(fixture, ffmpegOptions)
        #expect(Self.hashes(expected).count == 10)
        #expect(run.text == expected, "\(fixture) \(options)")
    }

    /// Without `--tonemap` the same conversion keeps the HDR code values (ffmpeg's
    /// `-pix_fmt bgra`), which the tone-mapped pictures differ from on every picture; an SDR
    /// stream is the same with and without it.
    @Test(.enabled(if: CommandRunner.hasTool)) func toneMappingIsOffByDefaultAndLeavesSDRAlone() throws {
        let hdr = TestData.fixtures.appendingPathComponent("hevc-hdr10.265").path
        let plain = try CommandRunner.vatoolbox(["framemd5", hdr, "--hwaccel", "none", "--pixel-format", "BGRA"])
        let oracle = try CommandRunner.ffmpeg(["-threads", "1", "-i", hdr, "-pix_fmt", "bgra", "-f", "framemd5", "-"])
        #expect(plain.status == 0 && plain.text == oracle.text)
        let mapped = try CommandRunner.vatoolbox(
            ["framemd5", hdr, "--hwaccel", "none", "--pixel-format", "BGRA", "--tonemap"])
        let pairs = zip(Self.hashes(plain.text), Self.hashes(mapped.text))
        #expect(pairs.underestimatedCount == 10 && pairs.allSatisfy { $0 != $1 })

        let sdr = TestData.fixtures.appendingPathComponent("h264-main-cabac.264").path
        let sdrPlain = try CommandRunner.vatoolbox(["framemd5", sdr, "--hwaccel", "none", "--pixel-format", "BGRA"])
        let sdrMapped = try CommandRunner.vatoolbox(
            ["framemd5", sdr, "--hwaccel", "none", "--pixel-format", "BGRA", "--tonemap"])
        #expect(sdrPlain.status == 0 && sdrMapped.text == sdrPlain.text)
    }

    /// In a session: with only tone mapping asked for, a PQ picture goes out in the 8-bit
    /// counterpart of its native layout (NV12 for P010), SDR BT.709 without its mastering display
    /// or light level, the bytes of the chain's pictures packed; `PixelTransferSession` maps when
    /// told to and only then.
    @Test func theSessionAndPixelTransferSessionMapWhenAsked() throws {
        let samples = try TestData.samples("hevc-hdr10.265")
        let decode = VATestDriverTests.HardwareSessions.softwareOutputs
        let pictures = try decode(samples, ImageBufferAttributes(toneMapsHDRToSDR: true)).compactMap(\.imageBuffer)
        #expect(pictures.count == 10)
        let expected = Self.hashes(try Self.ffmpegFrameMD5("hevc-hdr10.265", ["-pix_fmt", "nv12"]))
        #expect(pictures.map(\.md5) == expected)
        for picture in pictures {
            let attachments = picture.attachments
            #expect(picture.pixelFormat == .nv12VideoRange)
            #expect(attachments.transferFunction == .itu709 && attachments.yCbCrMatrix == .itu709)
            #expect(attachments.colorPrimaries == .itu709 && !attachments.fullRange)
            #expect(attachments.masteringDisplayColorVolume == nil && attachments.contentLightLevel == nil)
        }

        let decoded = try #require(try decode(samples, nil).compactMap(\.imageBuffer).first)
        #expect(decoded.attachments.contentLightLevel != nil, "the HDR picture carries its light level")
        let transfer = PixelTransferSession()
        let unmapped = try transfer.transferImage(decoded, pixelFormat: .bgra)
        transfer.toneMapsHDRToSDR = true
        let mapped = try transfer.transferImage(decoded, pixelFormat: .bgra)
        let bgra = Self.hashes(try Self.ffmpegFrameMD5("hevc-hdr10.265", ["-pix_fmt", "bgra"]))
        #expect(mapped.md5 == bgra.first && unmapped.md5 != mapped.md5)
        #expect(mapped.attachments.transferFunction == .itu709)
        // Asked for a 10-bit format, the picture keeps its HDR samples.
        let tenBit = try transfer.transferImage(decoded, pixelFormat: .p010VideoRange)
        #expect(tenBit.attachments.transferFunction == .pq)
    }
}
