import Foundation
import Testing

@testable import VAToolbox

/// `MediaFileReader.samples` reads from where the reader stands, from a task: after
/// `seek(to:)` its first sample is the sync sample at or before the time, and the samples after
/// it are the file's. Oracle: the packets ffprobe lists (`FILE.ffprobe.json`, decode order, with
/// their presentation times and key flags).
@Suite struct MediaSampleSequenceTests {
    /// Container fixtures with more than one sync sample, so that a seek lands inside the file.
    static let files = [
        "h264-high-bpyramid.mp4", "h264-open-gop.mp4", "hevc-main.mkv", "vp8.webm", "mpeg2-interlaced.ts",
    ]

    /// ffprobe's packets of a fixture: presentation times (as times) and key flags, decode order.
    static func packets(_ name: String) throws -> [(time: MediaTime, isKey: Bool)] {
        let url = TestData.fixtures.appendingPathComponent(name)
        let probe = try FFprobeOracle.load(for: StreamFile(name: name, url: url, codec: .h264, isFixture: true))
        let unit = try #require(probe.timeBase, "\(name): ffprobe gives a time base")
        return try probe.packetPresentationTimes.indices.map { index in
            let pts = try #require(probe.packetPresentationTimes[index], "\(name): packet \(index) has a pts")
            return (
                MediaTime(value: pts * unit.value, timescale: unit.timescale), probe.packetFlags[index].contains("K")
            )
        }
    }

    /// A time inside the last group of pictures: the median presentation time of the packets
    /// after the last key packet, so that samples before it must be skipped to reach it.
    static func target(in packets: [(time: MediaTime, isKey: Bool)]) throws -> MediaTime {
        let lastKey = try #require(packets.indices.last { packets[$0].isKey && $0 > 0 })
        let after = packets[(lastKey + 1)...].map(\.time).sorted()
        return try #require(after.isEmpty ? nil : after[after.count / 2])
    }

    @Test(arguments: files)
    func samplesAfterASeekStartAtTheSyncSampleAtOrBeforeTheTimeFromATask(_ name: String) async throws {
        let packets = try Self.packets(name)
        let target = try Self.target(in: packets)
        // The oracle's answer: the last key packet presented at or before the time, and every
        // packet from it on, in decode order.
        let start = try #require(packets.indices.last { packets[$0].isKey && packets[$0].time <= target })
        let expected = packets[start...].map(\.time)

        let reader = try MediaFileReader(path: TestData.fixtures.appendingPathComponent(name).path)
        #expect(try reader.nextSample() != nil, "the reader has read a sample before the seek")
        try reader.seek(to: target, exactly: false)
        // The reader crosses into the task as it is: no box, no @unchecked Sendable.
        let task = Task { () async throws -> [SampleBuffer] in
            var samples: [SampleBuffer] = []
            for try await sample in reader.samples { samples.append(sample) }
            return samples
        }
        let samples = try await task.value
        #expect(samples.map(\.presentationTimeStamp) == expected, "\(name): from packet \(start) to the end")
        #expect(samples.first?.isSync == true)
        #expect(samples.first?.attachments.contains(.resetDecoderBeforeDecoding) == true)
        // The task read the reader's own samples: it stands at the end.
        #expect(try reader.nextSample() == nil)
    }

    /// The sequence reads on from the reader's position: after samples read one by one, the next
    /// one; a second iteration goes on where the first stopped; a seek back starts again.
    @Test func theSequenceReadsOnFromTheReadersPosition() async throws {
        let name = "h264-high-bpyramid.mp4"
        let expected = try Self.packets(name).map(\.time)
        let reader = try MediaFileReader(path: TestData.fixtures.appendingPathComponent(name).path)
        let first = [try reader.nextSample(), try reader.nextSample()].compactMap { $0?.presentationTimeStamp }
        var rest: [MediaTime] = []
        for try await sample in reader.samples {
            rest.append(sample.presentationTimeStamp)
            if rest.count == 10 { break }
        }
        for try await sample in reader.samples { rest.append(sample.presentationTimeStamp) }
        #expect(first + rest == expected)
        var again = 0
        for try await _ in reader.samples { again += 1 }
        #expect(again == 0, "the reader is at the end")
        try reader.seek(to: .zero, exactly: false)
        for try await _ in reader.samples { again += 1 }
        #expect(again == expected.count, "a seek to the start reads them all again")
    }

    /// Two tasks read one reader at once: each sample goes to one of them, none twice, none lost.
    @Test func twoTasksShareOneReadersSamples() async throws {
        let name = "hevc-main.mkv"
        let expected = try Self.packets(name).map(\.time)
        let reader = try MediaFileReader(path: TestData.fixtures.appendingPathComponent(name).path)
        let read = { @Sendable () async throws -> [MediaTime] in
            var times: [MediaTime] = []
            for try await sample in reader.samples { times.append(sample.presentationTimeStamp) }
            return times
        }
        async let one = read()
        async let two = read()
        let all = try await one + two
        #expect(all.count == expected.count)
        #expect(Set(all) == Set(expected))
    }
}
