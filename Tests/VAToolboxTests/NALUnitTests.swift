import Testing

@testable import VAToolbox

@Suite struct NALUnitTests {
    @Test func h264TypesHaveTheNamesVideoToolboxExamplesPrint() {
        #expect(H264NALUnitType.sequenceParameterSet.description == "7: Sequence parameter set (non-VCL)")
        #expect(H264NALUnitType.idrSlice.description == "5: Coded slice of an IDR picture (VCL)")
        #expect(H264NALUnitType(rawValue: 1).description == "1: Coded slice of a non-IDR picture (VCL)")
        #expect(H264NALUnitType(rawValue: 0).name == "Unspecified")
        for value in UInt8(0)...31 {
            let type = H264NALUnitType(rawValue: value)
            #expect(type.isVCL == (1...5).contains(value))
            #expect(type.isIDR == (value == 5))
            #expect(!type.name.isEmpty)
        }
    }

    @Test func hevcTypesCoverAllSixtyFourValues() {
        #expect(HEVCNALUnitType(rawValue: 19).description == "19: IDR_W_RADL (VCL)")
        #expect(HEVCNALUnitType(rawValue: 33).description == "33: SPS_NUT (non-VCL)")
        #expect(HEVCNALUnitType(rawValue: 63).name == "UNSPEC63")
        for value in UInt8(0)...63 {
            let type = HEVCNALUnitType(rawValue: value)
            #expect(type.isVCL == (value < 32))
            #expect(type.isIRAP == (16...23).contains(value))
            #expect(type.isIDR == (value == 19 || value == 20))
            #expect(type.isReference == (value < 32 && !(value <= 14 && value % 2 == 0)))
        }
    }

    @Test func headerFieldsAreReadFromTheRightBits() throws {
        let idr = try NALUnit([0x65, 0x88][...], codec: .h264)
        #expect(idr.h264Type == .idrSlice && idr.nalRefIdc == 3 && idr.isSync && idr.isVCL && idr.isReference)
        let nonReference = try NALUnit([0x01, 0x9A][...], codec: .h264)
        #expect(!nonReference.isReference && !nonReference.isSync)
        // HEVC CRA, layer 0, temporal id 0: (21 << 1) = 0x2A, then nuh_temporal_id_plus1 = 1.
        let cra = try NALUnit([0x2A, 0x01, 0xAF][...], codec: .hevc)
        #expect(cra.hevcType == .cra && cra.isSync && cra.nuhLayerId == 0 && cra.temporalId == 0)
        let sps = try NALUnit([0x42, 0x01, 0x01][...], codec: .hevc)
        #expect(sps.hevcType == .sequenceParameterSet && sps.isParameterSet && !sps.isVCL)
        #expect(sps.payload.elementsEqual([0x01]))
    }

    @Test func malformedUnitsAreRejected() {
        #expect(throws: VTError.videoDecoderBadData) { try NALUnit([][...], codec: .h264) }
        #expect(throws: VTError.videoDecoderBadData) { try NALUnit([0x40][...], codec: .hevc) }
        #expect(throws: VTError.videoDecoderBadData) { try NALUnit([0xE5, 0][...], codec: .h264) }
        #expect(throws: VTError.parameter) { try NALUnit([0x65][...], codec: VideoCodecType(fourCC: "mp4v")) }
    }
}

@Suite struct AnnexBTests {
    @Test func splitsThreeAndFourByteStartCodesWithZeroPadding() {
        let stream: [UInt8] = [0, 0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 0, 0, 1, 0x65, 4, 5, 0, 0]
        let units = AnnexB.split(stream)
        #expect(units.map(Array.init) == [[0x67, 1, 2], [0x68, 3], [0x65, 4, 5]])
        // Views, not copies: the slices index into the original array.
        #expect(units[1].startIndex == 11)
    }

    @Test func emptyUnitsAndMissingStartCodesAreHandled() {
        #expect(AnnexB.split([0, 0, 1, 0, 0, 1, 0x09, 0xF0]).map(Array.init) == [[0x09, 0xF0]])
        #expect(AnnexB.split([0x67, 0x42]).isEmpty)
        #expect(AnnexB.split([]).isEmpty)
        #expect(AnnexB.split([0, 0, 1]).isEmpty)
    }

    @Test func joinWritesStartCodes() {
        #expect(AnnexB.join([[0x67, 1], [0x68]]) == [0, 0, 0, 1, 0x67, 1, 0, 0, 0, 1, 0x68])
        #expect(AnnexB.join([[0x65]], startCodeSize: 3) == [0, 0, 1, 0x65])
        #expect(AnnexB.startsWithStartCode([0, 0, 0, 1, 0x67]))
        #expect(!AnnexB.startsWithStartCode([0, 0, 0, 9, 0x67]))
    }

    @Test func scannerFindsStartCodesSplitAcrossChunks() {
        let stream: [UInt8] = [0, 0, 0, 1, 0x67, 0xAA, 0, 0, 1, 0x68, 0xBB, 0, 0, 0, 1, 0x65, 0xCC, 0xDD]
        let expected = AnnexB.split(stream).map(Array.init)
        for chunkSize in 1...stream.count {
            var scanner = AnnexBScanner(maximumNALUnitSize: 1000)
            var units: [[UInt8]] = []
            var index = 0
            while index < stream.count {
                units += scanner.append(stream[index..<min(index + chunkSize, stream.count)])
                index += chunkSize
            }
            if let last = scanner.finish() { units.append(last) }
            #expect(units == expected, "chunk size \(chunkSize)")
        }
    }

    @Test func scannerDiscardsOversizedUnits() {
        var scanner = AnnexBScanner(maximumNALUnitSize: 16)
        var units = scanner.append([0, 0, 1] + [UInt8](repeating: 0x55, count: 40))
        units += scanner.append([0, 0, 1, 0x68, 0x01])
        if let last = scanner.finish() { units.append(last) }
        #expect(units == [[0x68, 0x01]])
        #expect(scanner.oversizedUnits == 1)
    }
}

@Suite struct AVCCTests {
    @Test(arguments: [1, 2, 4])
    func joinAndSplitRoundTrip(lengthSize: Int) throws {
        let units: [[UInt8]] = [[0x67, 1, 2, 3], [0x68, 9], [0x65] + [UInt8](repeating: 7, count: 200)]
        let data = try AVCC.join(units, lengthSize: lengthSize)
        #expect(data.count == units.reduce(0) { $0 + $1.count + lengthSize })
        #expect(try AVCC.split(data[...], lengthSize: lengthSize).map(Array.init) == units)
        #expect(try AVCC.toAnnexB(data[...], lengthSize: lengthSize) == AnnexB.join(units))
        #expect(try AVCC.fromAnnexB(AnnexB.join(units), lengthSize: lengthSize) == data)
    }

    @Test func lengthsThatDoNotTileTheDataAreRejected() {
        #expect(throws: VTError.sampleBufferInvalidSampleData) {
            try AVCC.split([0, 0, 0, 5, 0x65, 1][...], lengthSize: 4)
        }
        #expect(throws: VTError.sampleBufferInvalidSampleData) {
            try AVCC.split([0, 0, 0, 1, 0x65, 0, 0][...], lengthSize: 4)
        }
        #expect(throws: VTError.sampleBufferInvalidSampleData) { try AVCC.split([0, 0, 0, 0][...], lengthSize: 4) }
        #expect(throws: VTError.parameter) { try AVCC.split([1, 0x65][...], lengthSize: 3) }
        #expect(throws: VTError.parameter) { try AVCC.join([[UInt8](repeating: 1, count: 256)], lengthSize: 1) }
    }

    @Test func annexBDataGetsAHint() {
        do {
            _ = try AVCC.split([0, 0, 1, 0x65, 0x88, 0x84, 0x21][...], lengthSize: 4)
            Issue.record("no error")
        } catch {
            #expect(error == .sampleBufferInvalidSampleData)
            #expect(error.hint?.contains("Annex B") == true)
        }
    }
}
