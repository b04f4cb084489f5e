import CoreVideo
import Foundation
import Testing

@testable import VAToolbox

extension VATestDriverTests {
    /// Apple's keys on the GPU path (issue 22): the `kCVImageBuffer…` attachments the
    /// compatibility module gives each picture of a GPU session (the test driver, every
    /// personality) are the CPU session's, key for key and byte for byte, for every fixture with
    /// HDR or colour metadata on its pictures (`vp9-hdr10plus.webm` has only HDR10+, which goes
    /// out with the output, not the picture: HDR10PlusTests compares it).
    @Suite struct CompatibilityKeysOnTheGPU {
        static let fixtures = [
            "hevc-hdr10.265", "hevc-hdr10plus.265", "av1-hdr10.ivf", "h264-container-hdr.mp4", "h264-container-hdr.mkv",
            "hevc-dolby-vision.265", "h264-sei-hdr.264", ColourSignallingTests.alternativeStream,
            ColourSignallingTests.iccFile,
        ]

        /// The keys of which each fixture's pictures carry at least one, so that the comparison
        /// compares something.
        static let metadataKeys = [
            kCVImageBufferMasteringDisplayColorVolumeKey, kCVImageBufferContentLightLevelInfoKey,
            kCVImageBufferAmbientViewingEnvironmentKey, kCVImageBufferICCProfileKey,
            "AlternativeTransferCharacteristics",
        ].map { $0 as String }

        static func attachments(_ pictures: [PixelBuffer]) -> [NSDictionary] {
            pictures.map { CVBufferCopyAttachments(CVBuffer(pixelBuffer: $0), .shouldPropagate) ?? NSDictionary() }
        }

        @Test(arguments: fixtures, TestVADriver.personalities)
        func theGPUsAttachmentsAreTheCPUs(_ fixture: String, _ personality: String?) throws {
            let (all, onTheGPU) = try HardwareSessions.decodedOnTheDriver(fixture, personality: personality)
            let gpu = Self.attachments(all.compactMap(\.imageBuffer))
            let cpu = Self.attachments(try ColourSignallingTests.pictures(fixture))
            #expect(gpu.count == cpu.count && gpu.count == 10, "\(fixture)")
            for (index, (onGPU, onCPU)) in zip(gpu, cpu).enumerated() {
                #expect(onGPU.isEqual(onCPU), "\(fixture) picture \(index): \(onGPU) against \(onCPU)")
            }
            #expect(
                cpu.allSatisfy { dictionary in Self.metadataKeys.contains { dictionary[$0] != nil } },
                "\(fixture): the CPU's carry metadata to compare")
            if personality == nil { #expect(onTheGPU, "the test driver's own profiles cover \(fixture)") }
        }
    }
}
