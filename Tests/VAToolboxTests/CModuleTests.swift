import CDRM
import CFFmpeg
import CVAAPI
import Foundation
import Testing

@testable import VAToolbox

/// The shim headers' stand-ins for C macros, checked against values computed independently.
@Suite struct CModuleTests {
    /// A FourCC as libdrm and FFmpeg build it: first character in the low byte.
    static func littleEndianFourCC(_ text: String) -> UInt32 {
        text.utf8.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    @Test func ffmpegErrorCodes() {
        #expect(CFFmpeg_AVERROR_EAGAIN() == -EAGAIN)
        #expect(CFFmpeg_AVERROR(Int32(ENOMEM)) == -ENOMEM)
        // AVERROR_EOF is FFERRTAG('E','O','F',' '): the negated little-endian tag.
        #expect(CFFmpeg_AVERROR_EOF() == -Int32(bitPattern: Self.littleEndianFourCC("EOF ")))
        #expect(CFFmpeg_AVERROR_INVALIDDATA() == -Int32(bitPattern: Self.littleEndianFourCC("INDA")))
        #expect(CFFmpeg_AV_NOPTS_VALUE() == Int64.min)
        var buffer = [CChar](repeating: 0, count: 128)
        let message = buffer.withUnsafeMutableBufferPointer {
            String(cString: CFFmpeg_av_err2str(CFFmpeg_AVERROR_EOF(), $0.baseAddress, 128))
        }
        #expect(message == "End of file")
    }

    @Test func drmFormats() {
        #expect(CDRM_FORMAT_NV12 == Self.littleEndianFourCC("NV12"))
        #expect(CDRM_FORMAT_P010 == Self.littleEndianFourCC("P010"))
        #expect(CDRM_FORMAT_R8 == Self.littleEndianFourCC("R8  "))
        #expect(CDRM_FORMAT_GR88 == Self.littleEndianFourCC("GR88"))
        #expect(CDRM_FORMAT_MOD_LINEAR == 0)
        #expect(CDRM_FORMAT_MOD_INVALID == 0x00FF_FFFF_FFFF_FFFF)
    }

    @Test func vaConstants() {
        #expect(CVAAPI_STATUS_SUCCESS == 0)
        #expect(CVAAPI_INVALID_ID == 0xFFFF_FFFF)
    }

    /// The versions reported are those pkg-config gives for the installed packages.
    @Test func linkedLibraryVersionsMatchPkgConfig() throws {
        for library in LinkedLibraries.all {
            let output = try CommandRunner.run(
                URL(fileURLWithPath: "/usr/bin/pkg-config"), ["--modversion", library.name]
            ).text
            #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == library.version, "\(library.name)")
        }
    }
}
