import Foundation
import Testing
import VAToolbox

/// `MediaFileReader.seek(to:exactly:)` outside the track: a negative time throws
/// `VTError.parameter` and leaves the reader where it was; a time past the end throws
/// `VTError.sampleBufferSampleIndexOutOfRange` and leaves the reader at the end; the last
/// picture's time is still in range. Containers (MP4, Matroska, MPEG-TS, IVF) and a raw stream.
@Suite struct MediaFileReaderSeekRangeTests {
    static let files = [
        "h264-high-bpyramid.mp4", "two-video-tracks.mkv", "h264-main-cabac.ts", "vp9-profile0.ivf",
        "h264-vui-timing-30000-1001.264",
    ]

    static func path(_ name: String) -> String { TestData.fixtures.appendingPathComponent(name).path }

    /// The presentation time of the last picture and the end of the last sample (read in full).
    static func lastPicture(_ name: String) throws -> (start: MediaTime, end: MediaTime) {
        let samples = try MediaFileReader(path: path(name)).readAllSamples()
        let last = try #require(samples.max { $0.presentationTimeStamp < $1.presentationTimeStamp })
        return (last.presentationTimeStamp, last.presentationTimeStamp + last.duration)
    }

    @Test(arguments: files)
    func aTimePastTheEndThrowsAndLeavesTheReaderAtTheEnd(_ name: String) throws {
        let (_, end) = try Self.lastPicture(name)
        for exactly in [true, false] {
            let reader = try MediaFileReader(path: Self.path(name))
            _ = try reader.nextSample()
            let past = end + MediaTime(seconds: 1, preferredTimescale: 1000)
            let error = #expect(throws: VTError.sampleBufferSampleIndexOutOfRange) {
                try reader.seek(to: past, exactly: exactly)
            }
            #expect(error?.reason.contains("past the end") == true, "\(error?.reason ?? "")")
            #expect(error?.hint != nil)
            #expect(try reader.nextSample() == nil, "\(name): the reader stands at the end")
            // A seek back in range reads again.
            try reader.seek(to: reader.startTime, exactly: exactly)
            #expect(try reader.nextSample() != nil, "\(name): readable after seeking back")
        }
    }

    @Test(arguments: files)
    func theLastPicturesTimeIsInRangeAndShowsOnePicture(_ name: String) throws {
        let (start, _) = try Self.lastPicture(name)
        let reader = try MediaFileReader(path: Self.path(name))
        try reader.seek(to: start)
        let samples = try reader.readAllSamples()
        #expect(samples.first?.isSync == true)
        let shown = samples.filter { !$0.attachments.contains(.doNotDisplay) }
        #expect(shown.map(\.presentationTimeStamp) == [start], "\(name): only the last picture is shown")
    }

    @Test(arguments: files)
    func aNegativeTimeThrowsAndLeavesTheReaderWhereItWas(_ name: String) throws {
        let expected = try MediaFileReader(path: Self.path(name)).readAllSamples().map(\.decodeTimeStamp)
        let reader = try MediaFileReader(path: Self.path(name))
        let first = try #require(try reader.nextSample())
        for seconds in [-1.0, -0.001] {
            let error = #expect(throws: VTError.parameter) {
                try reader.seek(to: MediaTime(seconds: seconds, preferredTimescale: 1000))
            }
            #expect(error?.reason.contains("before the start") == true, "\(error?.reason ?? "")")
        }
        let rest = try reader.readAllSamples()
        #expect([first.decodeTimeStamp] + rest.map(\.decodeTimeStamp) == expected, "\(name): reading goes on")
    }

    @Test func zeroIsInRangeWhenTheFileStartsLater() throws {
        // MPEG-TS time stamps start at 1.4 s: a seek to 0 starts at the first sync sample.
        let name = "h264-main-cabac.ts"
        let reader = try MediaFileReader(path: Self.path(name))
        #expect(reader.startTime > .zero)
        try reader.seek(to: .zero)
        let samples = try reader.readAllSamples()
        #expect(samples.count == (try MediaFileReader(path: Self.path(name)).readAllSamples().count))
        #expect(samples.allSatisfy { !$0.attachments.contains(.doNotDisplay) })
    }

    @Test(.enabled(if: CommandRunner.hasTool))
    func snapshotPastTheEndIsAnErrorLine() throws {
        let folder = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("past.png").path
        let result = try CommandRunner.vatoolbox([
            "snapshot", Self.path("h264-high-bpyramid.mp4"), "--time", "60", "-o", output,
        ])
        #expect(result.status == 1)
        #expect(result.errorLines.count == 1, "\(result.standardError)")
        #expect(result.errorLines.first?.contains("kCMSampleBufferError_SampleIndexOutOfRange (-12734)") == true)
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
