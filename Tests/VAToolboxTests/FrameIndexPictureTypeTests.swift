import Foundation
import Testing

@testable import VAToolbox

/// The frame index's picture types (issue 25, item 1: "picture types where known"), read from the
/// headers without decoding, against ffprobe's `pict_type` of each decoded frame in the committed
/// oracle — libavcodec's own typing of the pictures — on every fixture of `manifest.tsv`.
@Suite struct FrameIndexPictureTypeTests {
    static let fixtures: [String] = TestData.tsv(TestData.fixtures.appendingPathComponent("manifest.tsv")).compactMap {
        $0["file"]
    }

    @Test(arguments: fixtures)
    func pictureTypesAreFFprobes(_ name: String) throws {
        let url = TestData.fixtures.appendingPathComponent(name)
        let oracle = try ProbeOracle.load(url)
        let index: FrameIndex
        do {
            index = try FrameIndex(path: url.path)
        } catch {
            // Streams the index refuses are the reader's business (their own tests).
            return
        }
        guard index.frameCount == oracle.frames.count else { return }
        let timeBase = (oracle.stream["time_base"] ?? "").split(separator: "/").compactMap { Double($0) }
        try #require(timeBase.count == 2 && timeBase[1] > 0, "\(name): \(oracle.stream)")
        var compared = 0
        var typed = 0
        for (frame, probed) in zip(index.frames, oracle.frames) {
            // Where ffprobe gives a time, only where both name the same picture by it: files whose
            // container times are not the decoder's output order (MP4s remuxed without
            // composition offsets) number their pictures differently from ffprobe's output
            // order. Raw streams have no times: their pictures are in output order on both sides.
            if let pts = probed["pts"].flatMap(Double.init) {
                guard frame.presentationTimeStamp.isNumeric,
                    abs(pts * timeBase[0] / timeBase[1] - frame.presentationTimeStamp.seconds) < 0.0005
                else { continue }
            }
            compared += 1
            guard let type = frame.pictureType else { continue }
            typed += 1
            #expect(type.description == probed["pict_type"], "\(name): picture \(frame.number)")
        }
        #expect(compared > 0, "\(name): no picture of the index is at one of ffprobe's times")
        #expect(typed * 10 >= compared * 9, "\(name): \(typed) of \(compared) pictures typed")
    }
}
