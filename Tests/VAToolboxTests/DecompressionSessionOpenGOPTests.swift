import Foundation
import Testing

@testable import VAToolbox

/// `finishDelayedFrames()` in the middle of streams with open GOPs: random access points whose
/// leading pictures (HEVC RASL pictures after a CRA, the B-frames after an H.264 recovery-point I
/// picture or an MPEG-2 I picture of an open GOP) refer to pictures before them.
///
/// `VTDecompressionSessionFinishDelayedFrames`: "Directs the decompression session to emit all
/// delayed frames." Nothing in Apple's documentation lets it cost the decoder its references, so
/// every frame decoded after a finish must be the one ffmpeg decodes without it (the fixtures'
/// `ffmpeg -f framemd5` oracles), wherever the finish falls: before a random access point, right
/// after it, among its leading pictures, or in the middle of its GOP.
@Suite struct DecompressionSessionOpenGOPTests {
    typealias Lifecycle = DecompressionSessionLifecycleTests

    /// The open-GOP fixtures: H.264 recovery points in Annex B (`partialSync`) and in MP4 (sync
    /// samples, as the MP4's sync sample table lists them), HEVC CRA pictures with RASL pictures,
    /// MPEG-2 GOPs with `closed_gop` 0.
    static let streams = ["h264-open-gop.264", "h264-open-gop.mp4", "hevc-open-gop.265", "mpeg2-progressive.m2v"]

    /// A fixture's samples and its `ffmpeg -f framemd5` oracle.
    static func samplesAndOracle(_ name: String) throws -> ([SampleBuffer], [String]) {
        let oracle = try Lifecycle.oracle(name).map(\.md5)
        let samples: [SampleBuffer]
        if name.hasSuffix(".264") || name.hasSuffix(".265") {
            samples = try TestData.samples(name)
        } else {
            samples = try MediaFileReader(path: Lifecycle.url(name).path).readAllSamples()
        }
        try #require(samples.count == oracle.count, "\(name): one picture per sample")
        return (samples, oracle)
    }

    /// The random access points after the first sample: sync samples, and recovery points.
    static func laterRandomAccessPoints(_ samples: [SampleBuffer]) -> [Int] {
        samples.indices.dropFirst().filter { samples[$0].isSync || samples[$0].attachments.contains(.partialSync) }
    }

    /// Where a finish falls: after sample `after` (decode order), and what that is.
    struct FinishPoint: CustomStringConvertible {
        let after: Int
        let what: String
        var description: String { "finish after sample \(after) (\(what))" }
    }

    /// Around each later random access point: just before it, right after it, after its first
    /// leading picture, and in the middle of its GOP.
    static func finishPoints(_ samples: [SampleBuffer]) -> [FinishPoint] {
        let points = laterRandomAccessPoints(samples)
        var finishes: [FinishPoint] = []
        for (number, point) in points.enumerated() {
            let next = number + 1 < points.count ? points[number + 1] : samples.count
            finishes += [
                FinishPoint(after: point - 1, what: "before the random access point at \(point)"),
                FinishPoint(after: point, what: "right after the random access point at \(point)"),
                FinishPoint(after: point + 1, what: "among the leading pictures of \(point)"),
                FinishPoint(after: (point + next) / 2, what: "in the middle of the GOP of \(point)"),
            ]
        }
        return finishes.filter { $0.after < samples.count - 1 }
    }

    /// Decodes `samples` (refcon = index) with a `finishDelayedFrames()` after each sample in
    /// `finishes`, then waits and invalidates; returns the outputs in the order they came.
    static func outputs(
        _ samples: [SampleBuffer], finishingAfter finishes: (Int) -> Bool, asynchronous: Bool,
        session make: (Outputs) throws -> DecompressionSession
    ) throws -> [DecompressionOutput] {
        let collector = Outputs()
        let session = try make(collector)
        let flags: DecodeFrameFlags = asynchronous ? [.enableAsynchronousDecompression] : []
        try decode(samples, with: session, flags: flags, finishingAfter: finishes, then: [.wait, .invalidate])
        return collector.all
    }

    /// Checks that every frame came out once, clean, with the oracle's picture at its
    /// presentation position (`md5` reads a picture as the oracle hashed it).
    static func expectEveryPicture(
        _ outputs: [DecompressionOutput], samples: [SampleBuffer], oracle: [String], positions: [Int: Int],
        md5: (PixelBuffer) throws -> String, _ context: String
    ) throws {
        #expect(outputs.count == samples.count, "\(context)")
        #expect(Set(outputs.compactMap { $0.frameRefcon as? Int }) == Set(samples.indices), "\(context)")
        for output in outputs {
            let refcon = try #require(output.frameRefcon as? Int)
            let position = try #require(positions[refcon])
            #expect(output.status == nil, "\(context): refcon \(refcon): \(String(describing: output.status))")
            guard let image = output.imageBuffer else {
                Issue.record("\(context): refcon \(refcon) came without a picture")
                continue
            }
            #expect(try md5(image) == oracle[position], "\(context): refcon \(refcon)")
        }
    }

    /// Each refcon's position in presentation order, from a decode without a finish whose pictures
    /// must equal the oracle.
    static func presentationPositions(
        _ samples: [SampleBuffer], oracle: [String], md5: (PixelBuffer) throws -> String,
        session make: (Outputs) throws -> DecompressionSession
    ) throws -> [Int: Int] {
        let outputs = try Self.outputs(samples, finishingAfter: { _ in false }, asynchronous: false, session: make)
        #expect(try outputs.map { try $0.imageBuffer.map(md5) } == oracle, "the uninterrupted decode is ffmpeg's")
        var positions: [Int: Int] = [:]
        for (position, output) in outputs.enumerated() {
            if let refcon = output.frameRefcon as? Int { positions[refcon] = position }
        }
        return positions
    }

    static func cpuSession(_ format: VideoFormatDescription) -> (Outputs) throws -> DecompressionSession {
        { collector in
            try DecompressionSession(
                formatDescription: format, decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled),
                outputHandler: collector.handler)
        }
    }

    /// The fixtures are what the tests need: two open random access points each, whose leading
    /// pictures come after them in decode order and before them in presentation order.
    @Test(arguments: streams)
    func theFixturesHaveOpenGOPs(stream: String) throws {
        let (samples, oracle) = try Self.samplesAndOracle(stream)
        let points = Self.laterRandomAccessPoints(samples)
        #expect(points.count == 2, "\(stream): \(points)")
        let positions = try Self.presentationPositions(
            samples, oracle: oracle, md5: planarMD5, session: Self.cpuSession(samples[0].formatDescription))
        for point in points {
            let leading = try #require(positions[point + 1])
            #expect(leading < (try #require(positions[point])), "\(stream): sample \(point + 1) leads \(point)")
        }
    }

    /// `kCMSampleAttachmentKey_ResetDecoderBeforeDecoding` on an open random access point of a
    /// stream whose later points are all open (Annex B H.264 with recovery points after a single
    /// IDR, which carries no sync sample after the first): decoding restarts at that point, as
    /// ffmpeg's does when it starts there, instead of waiting for an IDR that never comes. Every
    /// frame before the point keeps ffmpeg's picture; after it, every frame but the point's
    /// leading pictures (whose references the reset dropped) has ffmpeg's picture again, and no
    /// frame is silently wrong: a leading picture comes flagged, without an image, or right.
    @Test(arguments: ["h264-open-gop.264", "hevc-open-gop.265", "mpeg2-progressive.m2v"])
    func aResetAtAnOpenRandomAccessPointRestartsDecodingThere(stream: String) throws {
        let (samples, oracle) = try Self.samplesAndOracle(stream)
        let make = Self.cpuSession(samples[0].formatDescription)
        let positions = try Self.presentationPositions(samples, oracle: oracle, md5: planarMD5, session: make)
        let point = try #require(Self.laterRandomAccessPoints(samples).last)
        let pointPosition = try #require(positions[point])
        var flagged = samples
        flagged[point].attachments.insert(.resetDecoderBeforeDecoding)
        let outputs = try Self.outputs(flagged, finishingAfter: { _ in false }, asynchronous: false, session: make)
        #expect(outputs.count == samples.count)
        for output in outputs {
            let refcon = try #require(output.frameRefcon as? Int)
            let position = try #require(positions[refcon])
            let md5 = output.imageBuffer.map(planarMD5)
            if refcon >= point && position < pointPosition {
                #expect(md5 == nil || output.status != nil || md5 == oracle[position], "\(stream) leading \(refcon)")
            } else {
                #expect(output.status == nil, "\(stream) refcon \(refcon): \(String(describing: output.status))")
                #expect(md5 == oracle[position], "\(stream) refcon \(refcon)")
            }
        }
    }

    /// An end of sequence before a CRA picture (`hevc-end-of-sequence.265`): the CRA picture
    /// starts decoding afresh (H.265 8.1.3, `NoRaslOutputFlag` 1), so its RASL pictures are not
    /// output, and the pictures still waiting for output before it are discarded (C.5.2.2,
    /// `NoOutputOfPriorPicsFlag` 1 for a CRA picture), as ffmpeg decodes it. The stream asks for
    /// both, so no frame is an error: those frames come back without a picture, every other one
    /// with ffmpeg's picture, in ffmpeg's order.
    @Test func aCRAPictureAfterAnEndOfSequenceStartsDecodingAfresh() throws {
        let name = "hevc-end-of-sequence.265"
        let samples = try TestData.samples(name)
        let oracle = try Lifecycle.oracle(name).map(\.md5)
        let outputs = try Self.outputs(
            samples, finishingAfter: { _ in false }, asynchronous: false,
            session: Self.cpuSession(samples[0].formatDescription))
        #expect(outputs.count == samples.count)
        for output in outputs {
            #expect(
                output.status == nil,
                "refcon \(String(describing: output.frameRefcon)): \(String(describing: output.status))")
        }
        #expect(outputs.compactMap { $0.imageBuffer.map(planarMD5) } == oracle)
        // The 3 RASL pictures of the CRA picture and the 2 pictures it discards.
        #expect(outputs.count { $0.imageBuffer == nil } == 5)
    }

    /// Each codec tells open random access points from closed ones: the points are the packets
    /// ffprobe flags as key frames (`K`, decode order), the first one closed (an IDR picture, an I
    /// picture of a closed GOP), the later ones open; HEVC trailing pictures and MPEG-2 P pictures
    /// end the leading pictures.
    @Test(arguments: streams)
    func theCodecsTellOpenFromClosedRandomAccessPoints(stream: String) throws {
        let (samples, _) = try Self.samplesAndOracle(stream)
        let probe = try JSONSerialization.jsonObject(
            with: try Data(contentsOf: Lifecycle.url(stream + ".ffprobe.json")))
        let packets = try #require((probe as? [String: Any])?["packets"] as? [[String: Any]])
        try #require(packets.count == samples.count)
        let keyFrames = packets.map { ($0["flags"] as? String)?.hasPrefix("K") == true }
        let access = samples.map { $0.formatDescription.codecSupport.randomAccess(of: $0) }
        #expect(access.map { $0 == .open || $0 == .closed } == keyFrames, "\(stream)")
        #expect(access.first == .closed)
        #expect(access.dropFirst().filter { $0 == .closed }.isEmpty && access.count { $0 == .open } == 2)
        for point in Self.laterRandomAccessPoints(samples) {
            #expect(access[point] == .open, "\(stream) sample \(point)")
            #expect(access[point + 1] == .none, "\(stream) sample \(point + 1) is a leading picture")
        }
        if stream.hasSuffix(".265") {
            // NAL types in decode order: CRA, RASL_R, RASL_N ×3, TRAIL_R.
            for point in Self.laterRandomAccessPoints(samples) {
                #expect(access[(point + 1)...(point + 5)] == [.none, .none, .none, .none, .endsLeadingPictures])
            }
        }
        if stream.hasSuffix(".264") || stream.hasSuffix(".mp4") {
            #expect(!access.contains(.endsLeadingPictures), "H.264 does not order leading pictures first")
        }
    }

    /// The replay keeps the GOP before an open point while its leading pictures may come, and
    /// lets it go once a picture ends them, or at the next point.
    @Test func theReplayKeepsThePreviousGOPWhileLeadingPicturesMayCome() {
        var buffer = ReplayBuffer()
        buffer.record([0], token: 0, access: .closed)
        buffer.record([1], token: 1, access: .endsLeadingPictures)
        buffer.record([2], token: 2, access: .none)
        #expect(buffer.isComplete && buffer.samples == [[0], [1], [2]] && buffer.previousGOPCount == 0)
        buffer.record([3], token: 3, access: .open)
        buffer.record([4], token: 4, access: .none)
        #expect(buffer.samples == [[0], [1], [2], [3], [4]] && buffer.previousGOPCount == 3, "the GOP before stays")
        buffer.record([5], token: 5, access: .endsLeadingPictures)
        #expect(buffer.samples == [[3], [4], [5]] && buffer.previousGOPCount == 0, "the leading pictures are over")
        #expect(buffer.tokens == [3, 4, 5], "each sample keeps its frame's token")
        #expect(buffer.byteCount == 3)
        buffer.record([6], token: 6, access: .open)
        buffer.record([7], token: 7, access: .none)
        buffer.record([8], token: 8, access: .open)
        #expect(buffer.samples == [[6], [7], [8]] && buffer.previousGOPCount == 2, "only the GOP just before")
        #expect(buffer.isComplete && buffer.byteCount == 3)
        buffer.record([9], token: 9, access: .closed)
        #expect(buffer.samples == [[9]] && buffer.tokens == [9] && buffer.previousGOPCount == 0)
    }

    /// Decoding that starts at an open point replays from it (its leading pictures were skipped
    /// in the first pass too); one that reaches an open point after the samples outgrew the limit
    /// can replay from it once its leading pictures are over.
    @Test func anOpenPointWithoutTheGOPBeforeItCompletesTheReplayWhenItShould() {
        var fresh = ReplayBuffer()
        fresh.record([0], token: 0, access: .open)
        #expect(fresh.isComplete && fresh.samples == [[0]])
        fresh.reset()
        fresh.record([1], token: 1, access: .open)
        #expect(fresh.isComplete && fresh.samples == [[1]])

        var bounded = ReplayBuffer(limit: 3)
        bounded.record([0], token: 0, access: .closed)
        bounded.record([1, 1, 1], token: 1, access: .none)
        #expect(!bounded.isComplete && bounded.samples.isEmpty, "over the limit")
        bounded.record([2], token: 2, access: .open)
        bounded.record([3], token: 3, access: .none)
        #expect(!bounded.isComplete, "its leading pictures need the GOP that was let go")
        bounded.record([4], token: 4, access: .endsLeadingPictures)
        #expect(bounded.isComplete && bounded.samples == [[2], [3], [4]])
        bounded.record([5], token: 5, access: .none)
        #expect(!bounded.isComplete && bounded.samples.isEmpty, "over the limit again")
        bounded.record([6], token: 6, access: .open)
        bounded.record([7], token: 7, access: .open)
        #expect(bounded.isComplete && bounded.samples == [[6], [7]], "the next point completes it too")
    }

    /// One finish at a time, at each of the points around each open random access point: every
    /// frame comes out with ffmpeg's picture.
    @Test(arguments: streams)
    func finishAroundAnOpenRandomAccessPointKeepsEveryReference(stream: String) throws {
        let (samples, oracle) = try Self.samplesAndOracle(stream)
        let make = Self.cpuSession(samples[0].formatDescription)
        let positions = try Self.presentationPositions(samples, oracle: oracle, md5: planarMD5, session: make)
        let finishes = Self.finishPoints(samples)
        #expect(finishes.count == 8)
        for finish in finishes {
            let outputs = try Self.outputs(
                samples, finishingAfter: { $0 == finish.after }, asynchronous: false, session: make)
            try Self.expectEveryPicture(
                outputs, samples: samples, oracle: oracle, positions: positions, md5: planarMD5, "\(stream): \(finish)")
        }
    }

    /// A finish after every sample, synchronous and asynchronous: still ffmpeg's pictures.
    @Test(arguments: streams, [false, true])
    func finishAfterEverySampleKeepsEveryReference(stream: String, asynchronous: Bool) throws {
        let (samples, oracle) = try Self.samplesAndOracle(stream)
        let make = Self.cpuSession(samples[0].formatDescription)
        let positions = try Self.presentationPositions(samples, oracle: oracle, md5: planarMD5, session: make)
        let outputs = try Self.outputs(
            samples, finishingAfter: { _ in true }, asynchronous: asynchronous, session: make)
        try Self.expectEveryPicture(
            outputs, samples: samples, oracle: oracle, positions: positions, md5: planarMD5,
            "\(stream), finish after every sample")
    }
}

// MARK: - On the GPU (the test VA driver, real pixels)

extension VATestDriverTests {
    /// The same on the GPU path: libavcodec's VA-API hwaccel on the test driver in its reference
    /// mode (`VATB_REFERENCE_STREAM`, Docs/TestVADriver.md), whose surfaces hold the pictures a GPU
    /// decodes, so that each picture is checked against ffmpeg's `-f framemd5`.
    ///
    /// What this can and cannot see: the driver writes each picture from its own slice data, not
    /// from the reference surfaces it is given, so a reference the replay failed to rebuild shows
    /// only where libavcodec itself notices it: an HEVC RASL picture it skips (no picture), or a
    /// frame it flags as damaged (a status). The CPU tests above see the pixels themselves.
    @Suite struct OpenGOPFinish {
        typealias OpenGOP = DecompressionSessionOpenGOPTests

        /// A GPU session on the driver, in reference mode for `reference`.
        static func session(
            _ format: VideoFormatDescription, reference: URL, realTime: Bool = false
        ) -> (Outputs) throws -> DecompressionSession {
            { collector in
                var variables: [String: String?] = [
                    "LIBVA_DRIVERS_PATH": TestVADriver.buildDirectory.path,
                    "LIBVA_DRIVER_NAME": TestVADriver.driverName, "VATB_REFERENCE_STREAM": reference.path,
                ]
                for name in TestVADriver.faultVariables { variables[name] = nil }
                return try TestVADriver.withEnvironment(variables) {
                    try DecompressionSession(
                        formatDescription: format,
                        decoderSpecification: DecoderSpecification(
                            hardwareAcceleration: .required, renderNodePath: HardwareSessions.node, threadCount: 1,
                            realTime: realTime),
                        outputHandler: collector.handler)
                }
            }
        }

        /// A finish at each point around each open random access point, on the GPU: every frame
        /// comes out, clean, with ffmpeg's picture.
        @Test(.enabled(if: TestVADriver.isBuilt), arguments: OpenGOP.streams)
        func finishAroundAnOpenRandomAccessPointOnTheGPUKeepsEveryPicture(stream: String) throws {
            let (samples, oracle) = try OpenGOP.samplesAndOracle(stream)
            let make = Self.session(samples[0].formatDescription, reference: Lifecycle.url(stream))
            let positions = try OpenGOP.presentationPositions(samples, oracle: oracle, md5: i420MD5, session: make)
            let finishes = OpenGOP.finishPoints(samples)
            #expect(finishes.count == 8)
            for finish in finishes {
                let outputs = try OpenGOP.outputs(
                    samples, finishingAfter: { $0 == finish.after }, asynchronous: true, session: make)
                try OpenGOP.expectEveryPicture(
                    outputs, samples: samples, oracle: oracle, positions: positions, md5: i420MD5,
                    "GPU \(stream): \(finish)")
            }
        }

        typealias Lifecycle = DecompressionSessionLifecycleTests
    }
}
