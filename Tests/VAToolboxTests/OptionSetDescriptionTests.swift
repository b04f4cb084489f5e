import Testing
import VAToolbox

/// The option sets print their members by name, as Swift writes them (`[.asynchronous,
/// .frameDropped]`), where Swift's default gives `DecodeInfoFlags(rawValue: 3)`; bits without a
/// name print in hexadecimal, so nothing set is hidden.
@Suite("Option set descriptions")
struct OptionSetDescriptionTests {
    /// A value and the text it must print as.
    struct Case: Sendable, CustomStringConvertible {
        let value: any CustomStringConvertible & Sendable
        let expected: String
        var description: String { expected }
    }

    static let cases: [Case] = [
        Case(value: DecodeInfoFlags(), expected: "[]"),
        Case(value: DecodeInfoFlags(rawValue: 3), expected: "[.asynchronous, .frameDropped]"),
        Case(value: DecodeInfoFlags.imageBufferModifiable, expected: "[.imageBufferModifiable]"),
        Case(value: DecodeInfoFlags(rawValue: 0x81), expected: "[.asynchronous, 0x80]"),
        Case(value: DecodeFrameFlags(), expected: "[]"),
        Case(
            value: DecodeFrameFlags([.enableAsynchronousDecompression, .enableTemporalProcessing]),
            expected: "[.enableAsynchronousDecompression, .enableTemporalProcessing]"),
        Case(
            value: DecodeFrameFlags([.doNotOutputFrame, .oneTimesRealTimePlayback]),
            expected: "[.doNotOutputFrame, .oneTimesRealTimePlayback]"),
        Case(value: SampleAttachments([.notSync, .dependsOnOthers]), expected: "[.notSync, .dependsOnOthers]"),
        Case(
            value: SampleAttachments([.damaged, .doNotDisplay, .resetDecoderBeforeDecoding]),
            expected: "[.doNotDisplay, .resetDecoderBeforeDecoding, .damaged]"),
        Case(
            value: SampleAttachments([.partialSync, .notDependedOnByOthers, .drainAfterDecoding]),
            expected: "[.partialSync, .notDependedOnByOthers, .drainAfterDecoding]"),
        Case(value: PixelBuffer.LockFlags.readOnly, expected: "[.readOnly]"),
        Case(value: PixelBuffer.LockFlags(), expected: "[]"),
        Case(value: MediaTime.Flags([.valid, .hasBeenRounded]), expected: "[.valid, .hasBeenRounded]"),
        Case(
            value: MediaTime.Flags.impliedValueFlagsMask,
            expected: "[.positiveInfinity, .negativeInfinity, .indefinite]"),
    ]

    @Test("prints the members by name", arguments: cases)
    func printsMembers(_ test: Case) {
        #expect(String(describing: test.value) == test.expected)
        #expect("\(test.value)" == test.expected)
    }

    /// What an output handler sees: the flags of a frame decoded asynchronously and dropped on
    /// request print as their names.
    @Test func decodedFramesPrintTheirInfoFlags() throws {
        let reader = try MediaFileReader(path: TestData.fixtures.appendingPathComponent("h264-main-cabac.264").path)
        let outputs = Outputs()
        let session = try DecompressionSession(
            formatDescription: reader.formatDescription,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 1),
            outputHandler: outputs.handler)
        let sample = try #require(try reader.nextSample())
        try session.decodeFrame(sample, flags: [.enableAsynchronousDecompression, .doNotOutputFrame])
        try session.waitForAsynchronousFrames()
        session.invalidate()
        let output = try #require(outputs.all.first)
        #expect("\(output.infoFlags)" == "[.asynchronous, .frameDropped]")
    }
}
