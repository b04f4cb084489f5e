import Foundation
import Testing

@testable import VAToolbox

/// A file ``MediaFileReader`` fails to open must leave nothing open behind it: an application
/// that tries thousands of damaged files must not run out of descriptors.
@Suite struct MediaFileReaderLeakTests {
    /// The descriptors of this process that point at `path` (`/proc/self/fd`): exact even while
    /// other suites open and close files in parallel.
    static func descriptors(onto path: String) -> Int {
        let folder = "/proc/self/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return entries.filter { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(entry)")) == path
        }.count
    }

    /// The `hvcC` record inside a Matroska file: the payload of its CodecPrivate element
    /// (ID `63 A2`, a one-byte size in the fixture).
    static func codecPrivateRange(in bytes: [UInt8]) throws -> Range<Int> {
        let start = try #require((0..<bytes.count - 3).first { bytes[$0] == 0x63 && bytes[$0 + 1] == 0xA2 })
        let sizeByte = bytes[start + 2]
        try #require(sizeByte & 0x80 != 0, "the fixture's CodecPrivate size is not one byte long")
        let payload = start + 3
        let range = payload..<payload + Int(sizeByte & 0x7F)
        try #require(range.upperBound <= bytes.count && bytes[payload] == 1, "no hvcC at \(payload)")
        return range
    }

    /// About 1,000 copies of an HEVC Matroska file with 8 bits of its `hvcC` flipped (the first
    /// byte, the record's version, kept so that the record is read): each either opens or
    /// throws, and none leaves a descriptor on the file (before the fix, every rejected record
    /// leaked the opened input).
    @Test func damagedConfigurationRecordsLeaveNoDescriptorOpen() throws {
        let original = try TestData.bytes(TestData.fixtures.appendingPathComponent("hevc-main.mkv"))
        let record = try Self.codecPrivateRange(in: original)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vatb-leak-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("damaged-hvcC.mkv").path

        var generator = SeededGenerator(seed: 0x0FD5)
        var rejectedRecords = 0
        var otherErrors = 0
        for _ in 0..<1000 {
            var bytes = original
            for _ in 0..<8 {
                let index = Int.random(in: record.lowerBound + 1..<record.upperBound, using: &generator)
                bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &generator)
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do {
                _ = try MediaFileReader(path: path)
            } catch VTError.formatDescriptionInvalidParameter {
                rejectedRecords += 1
            } catch {
                otherErrors += 1
            }
        }
        #expect(Self.descriptors(onto: path) == 0)
        // The damaged record must be what most copies fail on, or the test tests nothing.
        #expect(rejectedRecords >= 500, "\(rejectedRecords) records rejected, \(otherErrors) other errors")
    }
}
