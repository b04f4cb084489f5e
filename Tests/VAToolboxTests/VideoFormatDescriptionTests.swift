import Testing

@testable import VAToolbox

@Suite struct VideoFormatDescriptionTests {
    /// The SPS and PPS of a fixture, as a VideoToolbox user would pull them out by hand.
    static func parameterSets(_ name: String, hevc: Bool = false) throws -> [[UInt8]] {
        let stream = try #require(StreamFile.validFixtures.first { $0.name == name })
        var seen: [[UInt8]] = []
        let isParameterSet: (ArraySlice<UInt8>) -> Bool =
            hevc
            ? { $0.first.map { (32...34).contains(($0 >> 1) & 0x3F) } ?? false }
            : { $0.first.map { [7, 8].contains($0 & 0x1F) } ?? false }
        for unit in AnnexB.split(try stream.bytes()) where isParameterSet(unit) {
            if !seen.contains(Array(unit)) { seen.append(Array(unit)) }
        }
        return seen
    }

    @Test func createdFromH264ParameterSets() throws {
        let sets = try Self.parameterSets("h264-cropped-642x362.264")
        let format = try VideoFormatDescription(h264ParameterSets: sets, nalUnitHeaderLength: 4)
        #expect(format.codecType == .h264 && format.codecType.fourCC == "avc1")
        #expect(format.dimensions == VideoDimensions(width: 642, height: 362))
        #expect(format.codedDimensions == VideoDimensions(width: 656, height: 368))
        #expect(format.cleanAperture == CleanAperture(left: 0, top: 0, width: 642, height: 362))
        #expect(format.parameterSetCount == 2)
        #expect(try format.parameterSet(at: 0) == sets[0])
        #expect(throws: VTError.formatDescriptionInvalidParameter) { try format.parameterSet(at: 2) }
        #expect(format.extensions.pixelAspectRatio == PixelAspectRatio(horizontalSpacing: 16, verticalSpacing: 11))
        let presentation = format.presentationDimensions()
        #expect(abs(presentation.width - 642.0 * 16 / 11) < 1e-9 && presentation.height == 362)
        #expect(format.presentationDimensions(usePixelAspectRatio: false).width == 642)
    }

    @Test func avcCRoundTripsAndDescribesTheSameStream() throws {
        let sets = try Self.parameterSets("h264-high10.264")
        let format = try VideoFormatDescription(h264ParameterSets: sets, nalUnitHeaderLength: 2)
        let avcC = format.extensions.decoderConfigurationRecord
        let record = try AVCDecoderConfigurationRecord(bytes: avcC)
        #expect(record.bytes == avcC)
        #expect(record.nalUnitLengthSize == 2)
        #expect(record.avcProfileIndication == 110)
        #expect(record.highProfileTail?.bitDepthLumaMinus8 == 2)
        let fromRecord = try VideoFormatDescription(avcC: avcC)
        #expect(fromRecord.isEqualIgnoringExtensions(format))
        #expect(fromRecord == format)
        #expect(fromRecord.stream.bitDepthLuma == 10)
    }

    @Test func avcCWithoutTheHighProfileTailIsAccepted() throws {
        let sets = try Self.parameterSets("h264-main-cabac.264")
        let record = try AVCDecoderConfigurationRecord(
            sequenceParameterSets: [sets[0]], pictureParameterSets: [sets[1]])
        #expect(record.highProfileTail == nil)
        let parsed = try AVCDecoderConfigurationRecord(bytes: record.bytes)
        #expect(parsed == record)
    }

    @Test func malformedAvcCIsRejectedWithTheField() throws {
        let sets = try Self.parameterSets("h264-main-cabac.264")
        let good = try AVCDecoderConfigurationRecord(sequenceParameterSets: [sets[0]], pictureParameterSets: [sets[1]])
            .bytes
        for length in 0..<good.count {
            #expect(throws: VTError.formatDescriptionInvalidParameter) {
                try VideoFormatDescription(avcC: Array(good.prefix(length)))
            }
        }
        var badVersion = good
        badVersion[0] = 2
        #expect(throws: VTError.formatDescriptionInvalidParameter) {
            try AVCDecoderConfigurationRecord(bytes: badVersion)
        }
        var reservedLength = good
        reservedLength[4] = 0xFE
        #expect(throws: VTError.formatDescriptionInvalidParameter) {
            try AVCDecoderConfigurationRecord(bytes: reservedLength)
        }
    }

    @Test func badParameterSetsFailWithAReason() throws {
        let sets = try Self.parameterSets("h264-main-cabac.264")
        func reason(_ body: () throws -> Void) -> String {
            do {
                try body()
                return "no error"
            } catch let error as VTError {
                #expect(error == .formatDescriptionInvalidParameter)
                return error.reason
            } catch {
                return "not a VTError: \(error)"
            }
        }
        #expect(reason { _ = try VideoFormatDescription(h264ParameterSets: [sets[0]]) }.contains("PPS"))
        #expect(reason { _ = try VideoFormatDescription(h264ParameterSets: [sets[1]]) }.contains("SPS"))
        #expect(
            reason { _ = try VideoFormatDescription(h264ParameterSets: sets, nalUnitHeaderLength: 3) }.contains(
                "nalUnitHeaderLength"))
        #expect(
            reason { _ = try VideoFormatDescription(h264ParameterSets: [sets[0], [0x65, 0x88]]) }.contains("type 5"))
        #expect(
            reason { _ = try VideoFormatDescription(h264ParameterSets: [Array(sets[0].prefix(4)), sets[1]]) }.contains(
                "truncated"))
        #expect(
            reason { _ = try VideoFormatDescription(h264ParameterSets: [sets[0], []]) }.contains("parameter set 1"))
    }

    @Test func hevcFromParameterSetsAndFromHvcC() throws {
        let sets = try Self.parameterSets("hevc-main10.265", hevc: true)
        #expect(sets.count == 3)
        let format = try VideoFormatDescription(hevcParameterSets: sets)
        #expect(format.codecType.fourCC == "hvc1")
        #expect(format.stream.profileName == "Main 10" && format.stream.bitDepthLuma == 10)
        #expect(format.dimensions == VideoDimensions(width: 320, height: 240))
        let fromRecord = try VideoFormatDescription(hvcC: format.extensions.decoderConfigurationRecord)
        #expect(fromRecord.isEqualIgnoringExtensions(format))
        #expect(fromRecord.hevcSequenceParameterSet == format.hevcSequenceParameterSet)
        #expect(throws: VTError.formatDescriptionInvalidParameter) {
            try VideoFormatDescription(hevcParameterSets: Array(sets.dropFirst()))
        }
        #expect(throws: VTError.formatDescriptionInvalidParameter) {
            try VideoFormatDescription(hevcParameterSets: Array(sets.dropLast()))
        }
        #expect(throws: VTError.formatDescriptionInvalidParameter) {
            try VideoFormatDescription(h264ParameterSets: sets)
        }
    }

    @Test func equalityIgnoringExtensions() throws {
        let sets = try Self.parameterSets("h264-main-cabac.264")
        let a = try VideoFormatDescription(h264ParameterSets: sets)
        var b = a
        b.extensions.fieldCount = 2
        #expect(a != b)
        #expect(a.isEqualIgnoringExtensions(b))
        let otherLength = try VideoFormatDescription(h264ParameterSets: sets, nalUnitHeaderLength: 1)
        #expect(!a.isEqualIgnoringExtensions(otherLength))
    }

    @Test func colourExtensionsComeFromTheVUI() throws {
        let format = try VideoFormatDescription(h264ParameterSets: Self.parameterSets("h264-main-cabac.264"))
        #expect(format.extensions.fullRangeVideo)
        #expect(format.extensions.colorPrimaries == .itu709)
        #expect(format.extensions.transferFunction == .itu709)
        #expect(format.extensions.yCbCrMatrix == .itu709)
        #expect(format.extensions.colorPrimaries?.coreVideoName == "ITU_R_709_2")
    }
}

@Suite struct SampleBufferTests {
    @Test func lengthPrefixesMustTileTheData() throws {
        let format = try VideoFormatDescription(
            h264ParameterSets: VideoFormatDescriptionTests.parameterSets("h264-main-cabac.264"))
        let sample = try SampleBuffer(data: [0, 0, 0, 2, 0x65, 0x88, 0, 0, 0, 1, 0x0A], formatDescription: format)
        #expect(sample.nalUnits.map(\.typeCode) == [5, 10])
        #expect(sample.isSync)
        #expect(throws: VTError.sampleBufferInvalidSampleData) { try SampleBuffer(data: [], formatDescription: format) }
        #expect(throws: VTError.sampleBufferInvalidSampleData) {
            try SampleBuffer(data: [0, 0, 0, 9, 0x65], formatDescription: format)
        }
        #expect(throws: VTError.sampleBufferInvalidSampleData) {
            try SampleBuffer(data: [0, 0, 0, 1, 0xE5], formatDescription: format)
        }
        do {
            _ = try SampleBuffer(data: [0, 0, 0, 1, 0x65, 0x88, 0x80, 0x40], formatDescription: format)
            Issue.record("Annex B data accepted")
        } catch {
            #expect(error == .sampleBufferInvalidSampleData)
            #expect(error.hint?.contains("ElementaryStreamParser") == true)
        }
        let fromUnits = try SampleBuffer(nalUnits: [[0x65, 0x88]], formatDescription: format, attachments: [.notSync])
        #expect(fromUnits.data == [0, 0, 0, 2, 0x65, 0x88])
        #expect(!fromUnits.isSync)
    }
}

/// `print(format.extensions)` reads as CoreMedia's keys with short values, the configuration
/// record by its name and size, rather than Swift's dump of every byte.
@Suite struct FormatDescriptionExtensionsTests {
    @Test func emptyExtensionsPrintTheKeysThatAlwaysHaveAValue() {
        #expect("\(FormatDescriptionExtensions())" == "[FullRangeVideo: false, FieldCount: 1]")
    }

    @Test func everyExtensionPrintsByItsKey() {
        var extensions = FormatDescriptionExtensions()
        extensions.fullRangeVideo = true
        extensions.fieldCount = 2
        extensions.colorPrimaries = .itu2020
        extensions.transferFunction = .itu709
        extensions.yCbCrMatrix = YCbCrMatrix(rawValue: 9)
        extensions.pixelAspectRatio = PixelAspectRatio(horizontalSpacing: 16, verticalSpacing: 11)
        extensions.chromaLocation = 2
        extensions.decoderConfigurationRecord = [1, 2, 3]
        #expect(
            extensions.description
                == "[FullRangeVideo: true, FieldCount: 2, ColorPrimaries: bt2020, TransferFunction: bt709, "
                + "YCbCrMatrix: bt2020nc, PixelAspectRatio: 16:11, ChromaLocationTopField: TopLeft, "
                + "SampleDescriptionExtensionAtoms: 3 bytes]")
        extensions.chromaLocation = 9
        #expect(extensions.description.contains("ChromaLocationTopField: 9,"))
    }

    @Test func aDescriptionsRecordIsNamedAfterItsCodec() throws {
        let sets = try VideoFormatDescriptionTests.parameterSets("h264-cropped-642x362.264")
        let format = try VideoFormatDescription(h264ParameterSets: sets, nalUnitHeaderLength: 4)
        let size = format.extensions.decoderConfigurationRecord.count
        #expect(size > 0)
        #expect(
            "\(format.extensions)"
                == "[FullRangeVideo: false, FieldCount: 1, PixelAspectRatio: 16:11, "
                + "SampleDescriptionExtensionAtoms: avcC (\(size) bytes)]")
    }

    /// A file of each codec: the record the reader's description keeps is named, and the text
    /// stays short whatever the record's size (an hvcC's parameter sets printed as numbers ran
    /// to kilobytes).
    @Test(arguments: [
        ("h264-high-bpyramid.mp4", "avcC"), ("hevc-main.mkv", "hvcC"), ("av1.mp4", "av1C"),
        ("vp9-profile2-10bit.webm", "vpcC"), ("mpeg2-progressive.m2v", "sequence header"),
    ])
    func filesDescribeTheirRecordByName(file: String, record: String) throws {
        let reader = try MediaFileReader(path: TestData.fixtures.appendingPathComponent(file).path)
        let extensions = reader.formatDescription.extensions
        let size = extensions.decoderConfigurationRecord.count
        #expect(size > 0)
        let text = "\(extensions)"
        #expect(text.hasPrefix("[FullRangeVideo: "))
        #expect(text.hasSuffix(", SampleDescriptionExtensionAtoms: \(record) (\(size) bytes)]"))
        #expect(text.count < 300, "\(text)")
    }

    @Test func aStreamWithoutARecordPrintsNone() throws {
        let reader = try MediaFileReader(path: TestData.fixtures.appendingPathComponent("vp8.webm").path)
        let extensions = reader.formatDescription.extensions
        #expect(extensions.decoderConfigurationRecord.isEmpty)
        #expect(!"\(extensions)".contains("SampleDescriptionExtensionAtoms"))
    }
}
