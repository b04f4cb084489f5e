import Foundation
import Testing

@testable import VAToolbox

// MARK: - Oracles: the spec's syntax element names, as libavcodec's trace_headers prints them.

private func bit(_ flag: Bool) -> Int { flag ? 1 : 0 }

/// The sequence header's syntax elements under their spec names (inferred values included; the
/// comparison only looks at the names the trace prints, i.e. the coded ones).
private func traceElements(_ header: AV1SequenceHeader) -> [String: Int] {
    let color = header.colorConfig
    let point = header.operatingPoints[0]
    var elements: [String: Int] = [
        "seq_profile": header.seqProfile, "still_picture": bit(header.stillPicture),
        "reduced_still_picture_header": bit(header.reducedStillPictureHeader),
        "timing_info_present_flag": bit(header.timingInfoPresentFlag),
        "decoder_model_info_present_flag": bit(header.decoderModelInfoPresentFlag),
        "initial_display_delay_present_flag": bit(header.initialDisplayDelayPresentFlag),
        "operating_points_cnt_minus_1": header.operatingPointsCntMinus1,
        "operating_point_idc[0]": point.operatingPointIdc, "seq_level_idx[0]": point.seqLevelIdx,
        "seq_tier[0]": point.seqTier,
        "frame_width_bits_minus_1": header.frameWidthBitsMinus1,
        "frame_height_bits_minus_1": header.frameHeightBitsMinus1,
        "max_frame_width_minus_1": header.maxFrameWidthMinus1,
        "max_frame_height_minus_1": header.maxFrameHeightMinus1,
        "frame_id_numbers_present_flag": bit(header.frameIdNumbersPresentFlag),
        "delta_frame_id_length_minus_2": header.deltaFrameIdLengthMinus2,
        "additional_frame_id_length_minus_1": header.additionalFrameIdLengthMinus1,
        "use_128x128_superblock": bit(header.use128x128Superblock),
        "enable_filter_intra": bit(header.enableFilterIntra),
        "enable_intra_edge_filter": bit(header.enableIntraEdgeFilter),
        "enable_interintra_compound": bit(header.enableInterintraCompound),
        "enable_masked_compound": bit(header.enableMaskedCompound),
        "enable_warped_motion": bit(header.enableWarpedMotion), "enable_dual_filter": bit(header.enableDualFilter),
        "enable_order_hint": bit(header.enableOrderHint), "enable_jnt_comp": bit(header.enableJntComp),
        "enable_ref_frame_mvs": bit(header.enableRefFrameMvs),
        "seq_choose_screen_content_tools": bit(header.seqChooseScreenContentTools),
        "seq_force_screen_content_tools": header.seqForceScreenContentTools,
        "seq_choose_integer_mv": bit(header.seqChooseIntegerMv), "seq_force_integer_mv": header.seqForceIntegerMv,
        "order_hint_bits_minus_1": header.orderHintBits - 1, "enable_superres": bit(header.enableSuperres),
        "enable_cdef": bit(header.enableCdef), "enable_restoration": bit(header.enableRestoration),
        "high_bitdepth": bit(color.highBitdepth), "twelve_bit": bit(color.twelveBit),
        "mono_chrome": bit(color.monoChrome), "color_description_present_flag": bit(color.colorDescriptionPresentFlag),
        "color_primaries": Int(color.colorPrimaries), "transfer_characteristics": Int(color.transferCharacteristics),
        "matrix_coefficients": Int(color.matrixCoefficients), "color_range": bit(color.colorRange),
        "subsampling_x": color.subsamplingX, "subsampling_y": color.subsamplingY,
        "chroma_sample_position": color.chromaSamplePosition, "separate_uv_delta_q": bit(color.separateUvDeltaQ),
        "film_grain_params_present": bit(header.filmGrainParamsPresent),
    ]
    if let timing = header.timingInfo {
        elements["num_units_in_display_tick"] = Int(timing.numUnitsInDisplayTick)
        elements["time_scale"] = Int(timing.timeScale)
        elements["equal_picture_interval"] = bit(timing.equalPictureInterval)
        elements["num_ticks_per_picture_minus_1"] = Int(timing.numTicksPerPictureMinus1)
    }
    return elements
}

/// The frame header's coded syntax elements under their spec names.
private func traceElements(_ header: AV1FrameHeaderSummary) -> [String: Int] {
    var elements = ["show_existing_frame": bit(header.showExistingFrame)]
    if header.showExistingFrame {
        elements["frame_to_show_map_idx"] = header.frameToShowMapIdx
        return elements
    }
    elements.merge(
        [
            "frame_type": header.frameType?.rawValue ?? -1, "show_frame": bit(header.showFrame),
            "showable_frame": bit(header.showableFrame), "error_resilient_mode": bit(header.errorResilientMode),
            "disable_cdf_update": bit(header.disableCdfUpdate),
            "allow_screen_content_tools": bit(header.allowScreenContentTools),
            "frame_size_override_flag": bit(header.frameSizeOverrideFlag), "order_hint": header.orderHint,
            "primary_ref_frame": header.primaryRefFrame, "refresh_frame_flags": header.refreshFrameFlags,
        ], uniquingKeysWith: { $1 })
    // force_integer_mv is coded, then set to 1 for intra frames (§5.9.2): the trace shows the coded bit.
    if !header.frameIsIntra { elements["force_integer_mv"] = bit(header.forceIntegerMv) }
    for (index, slot) in header.refFrameIdx.enumerated() { elements["ref_frame_idx[\(index)]"] = slot }
    if let size = header.frameSize {
        elements["render_and_frame_size_different"] = bit(size.renderAndFrameSizeDifferent)
        elements["use_superres"] = bit(size.superresDenom != 8)
        if size.superresDenom != 8 { elements["coded_denom"] = size.superresDenom - 9 }
        if header.frameSizeOverrideFlag {
            elements["frame_width_minus_1"] = size.upscaledWidth - 1
            elements["frame_height_minus_1"] = size.frameHeight - 1
        }
        if size.renderAndFrameSizeDifferent {
            elements["render_width_minus_1"] = size.renderWidth - 1
            elements["render_height_minus_1"] = size.renderHeight - 1
        }
    }
    return elements
}

/// Compares a parsed value set with the traced one on the names the trace printed; returns how
/// many were compared.
@discardableResult
private func expectMatches(
    _ ours: [String: Int], _ traced: [String: Int], _ context: String, sourceLocation: SourceLocation = #_sourceLocation
) -> Int {
    var compared = 0
    for (name, value) in ours {
        guard let expected = traced[name] else { continue }
        compared += 1
        #expect(value == expected, "\(context): \(name)", sourceLocation: sourceLocation)
    }
    return compared
}

/// Checks temporal units against the trace of the same packets: OBU types, every sequence header
/// and frame header element, the key flag against ``AV1TemporalUnit/isSyncSample``, one shown frame
/// per unit. Returns the number of shown frames.
@discardableResult
private func expectMatchesTrace(_ units: [AV1TemporalUnit], _ trace: AV1Trace, _ name: String) throws -> Int {
    try #require(units.count == trace.packets.count, "\(name): temporal units vs packets")
    var shown = 0
    var comparedSequenceHeaders = 0
    for (number, (unit, packet)) in zip(units, trace.packets).enumerated() {
        let context = "\(name) unit \(number)"
        #expect(unit.obus.map { Int($0.obuType.rawValue) } == packet.obus.map(\.type), "\(context): OBU types")
        #expect(unit.isSyncSample == packet.key, "\(context): sync sample vs packet key flag")
        #expect(unit.shownFrameCount == 1, "\(context): one shown frame per temporal unit (§7.5)")
        #expect(!unit.lacksSequenceHeader)
        shown += unit.shownFrameCount
        var frames = unit.frameHeaders.makeIterator()
        for (obu, traced) in zip(unit.obus, packet.obus) {
            if obu.obuType == .sequenceHeader {
                let header = try AV1SequenceHeader(obu.payload)
                let compared = expectMatches(traceElements(header), traced.elements, "\(context) sequence header")
                #expect(compared >= (header.reducedStillPictureHeader ? 20 : 30), "\(context): too few compared")
                comparedSequenceHeaders += 1
            } else if obu.obuType.startsFrame {
                let next = frames.next()
                let frame = try #require(next, "\(context): a frame header per frame OBU")
                let compared = expectMatches(traceElements(frame), traced.elements, "\(context) frame header")
                let minimum =
                    frame.showExistingFrame ? 2 : unit.activeSequenceHeader?.reducedStillPictureHeader == true ? 2 : 6
                #expect(compared >= minimum, "\(context): frame header elements compared")
            }
        }
    }
    #expect(comparedSequenceHeaders > 0, "\(name): no sequence header compared")
    return shown
}

/// Parses the temporal units of IVF frames, carrying the sequence header from one to the next.
private func temporalUnits(_ samples: [ArraySlice<UInt8>]) throws(VTError) -> [AV1TemporalUnit] {
    var units: [AV1TemporalUnit] = []
    var active: AV1SequenceHeader?
    for sample in samples {
        let unit = try AV1TemporalUnit(sample, sequenceHeader: active)
        active = unit.activeSequenceHeader
        units.append(unit)
    }
    return units
}

/// The pix_fmt libavcodec reports for a colour config.
private func pixelFormat(_ color: AV1ColorConfig) -> String {
    let depth = color.bitDepth == 8 ? "" : "\(color.bitDepth)le"
    if color.monoChrome { return color.bitDepth == 8 ? "gray" : "gray\(depth)" }
    let layout = ["4:2:0": "yuv420p", "4:2:2": "yuv422p", "4:4:4": "yuv444p"][color.chromaFormatName] ?? "?"
    return layout + depth
}

// MARK: - leb128 and OBU framing

@Suite struct AV1LEB128Tests {
    @Test(arguments: [0, 1, 127, 128, 2204, 16383, 16384, 1 << 21, 1 << 28, Int(UInt32.max)])
    func roundTrip(_ value: Int) throws {
        let encoded = AV1LEB128.encode(UInt32(value))
        #expect(encoded.count == max(1, (value.bitWidth - value.leadingZeroBitCount + 6) / 7))
        var index = 0
        #expect(try AV1LEB128.read(encoded[...], at: &index) == UInt32(value))
        #expect(index == encoded.count)
    }

    @Test func readsSpecExamplesAndPaddedForms() throws {
        var index = 0
        // 0x9c 0x11: 0x1c + 0x11 << 7 = 2204, as trace_headers prints for a frame OBU size.
        #expect(try AV1LEB128.read([0x9c, 0x11][...], at: &index) == 2204)
        index = 0
        // A padded (non-minimal) encoding is allowed: 8 bytes, the last without continuation.
        #expect(try AV1LEB128.read([0x85, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00][...], at: &index) == 5)
        #expect(index == 8)
    }

    @Test(
        arguments: [
            [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],  // continuation on the 8th byte
            [0x80, 0x80, 0x80, 0x80, 0x10],  // 2^32
            [0xff, 0xff, 0xff, 0xff, 0x7f],  // 2^35 - 1
            [0x80],  // truncated
            [],
        ] as [[UInt8]])
    func rejectsOutOfLimits(_ bytes: [UInt8]) {
        var index = 0
        #expect(throws: VTError.sampleBufferInvalidSampleData) { try AV1LEB128.read(bytes[...], at: &index) }
    }
}

@Suite struct AV1OBUTests {
    @Test func splitsSizedUnitsAndAnUnsizedLastOne() throws {
        // TD (size 0), padding with an extension header (T3 S2) and 2 bytes, a metadata OBU
        // without a size field that runs to the end.
        // Two bytes before, so that the slice does not start at index 0.
        let bytes: [UInt8] = [0xff, 0xff, 0x12, 0x00, 0x7e, 0x70, 0x02, 0xaa, 0xbb, 0x28, 0x01, 0x02, 0x03]
        let obus = try AV1OBU.split(bytes[2...])
        try #require(obus.count == 3)
        #expect(obus.map(\.obuType) == [.temporalDelimiter, .padding, .metadata])
        #expect(obus[0].payload.isEmpty && obus[0].hasSizeField)
        #expect(obus[1].hasExtension && obus[1].temporalId == 3 && obus[1].spatialId == 2)
        #expect(Array(obus[1].payload) == [0xaa, 0xbb])
        #expect(!obus[2].hasSizeField && Array(obus[2].payload) == [0x01, 0x02, 0x03])
        #expect(obus[2].lowOverheadBytes == [0x2a, 0x03, 0x01, 0x02, 0x03])
        #expect(obus[1].lowOverheadBytes == Array(obus[1].bytes))
        #expect(obus.map(\.description) == ["TD 0 bytes", "PADDING 2 bytes T3S2", "METADATA 3 bytes"])
        #expect(try AV1OBU.split([][...]).isEmpty)
    }

    @Test(
        arguments: [
            [0x12, 0x05, 0x00],  // obu_size past the end
            [0x92, 0x00],  // obu_forbidden_bit
            [0x16],  // extension header missing
            [0x12],  // size field missing
            [0x12, 0x80, 0x80],  // truncated leb128
        ] as [[UInt8]])
    func rejectsMalformedFraming(_ bytes: [UInt8]) {
        #expect(throws: VTError.sampleBufferInvalidSampleData) { try AV1OBU.split(bytes[...]) }
    }

    @Test func reservedTypesAreKept() throws {
        let obu = try AV1OBU([0x4a, 0x00][...])
        #expect(obu.obuType.rawValue == 9 && obu.obuType.isReserved && obu.obuType.description == "RESERVED(9)")
    }
}

// MARK: - Streams against libavcodec's trace and ffprobe

@Suite(.enabled(if: CommandRunner.hasFFmpeg && TestData.hasFFprobe))
struct AV1StreamOracleTests {
    /// Every temporal unit of every IVF stream against trace_headers, and the stream against ffprobe.
    @Test(arguments: AV1TestStream.ivf)
    func madeStreamMatchesTraceAndProbe(_ stream: AV1TestStream) throws {
        let url = try #require(stream.url, "ffmpeg could not make \(stream.name)")
        let samples = try #require(IVFFile.frames(try TestData.bytes(url)))
        let units = try temporalUnits(samples)
        let shown = try expectMatchesTrace(units, try AV1Trace(url), stream.name)
        let probe = try AV1Probe(url, countFrames: true)
        #expect(shown == probe.frameCount, "shown frames vs frames decoded by ffprobe")
        #expect(units.map(\.isSyncSample) == probe.packetKeys)
        let header = try #require(units.first?.sequenceHeader)
        #expect(header.profileName == probe.stream["profile"])
        // libdav1d 1.0 (whose level ffprobe reports) gives a reduced still picture header level
        // -8 (major level 0); the trace (libavcodec's CBS) reads seq_level_idx[0] = 0 like us.
        if !header.reducedStillPictureHeader {
            #expect(String(header.seqLevelIdx) == probe.stream["level"])
        }
        #expect(String(header.maxFrameWidth) == probe.stream["width"])
        #expect(String(header.maxFrameHeight) == probe.stream["height"])
        #expect(pixelFormat(header.colorConfig) == probe.stream["pix_fmt"])
        #expect((header.colorConfig.colorRange ? "pc" : "tv") == probe.stream["color_range"])
    }

    /// What each made stream exercises, so that a change of encoder defaults cannot hollow the
    /// oracle tests out silently.
    @Test func madeStreamsCoverTheSyntax() throws {
        func units(_ stream: AV1TestStream) throws -> [AV1TemporalUnit] {
            let url = try #require(stream.url)
            return try temporalUnits(try #require(IVFFile.frames(try TestData.bytes(url))))
        }
        let aom8 = try units(.aom8)
        #expect(aom8.filter(\.isSyncSample).count == 2, "a key frame every 5 frames")
        #expect(aom8.contains { $0.frameHeaders.contains(where: \.showExistingFrame) }, "show_existing_frame")
        #expect(aom8.contains { $0.frameHeaders.contains { !$0.showFrame && $0.showableFrame } }, "hidden alt-ref")
        #expect(aom8.contains { $0.frameHeaders.count > 1 }, "a unit with a hidden and a shown frame")
        #expect(aom8.contains { $0.description.contains("FRAME_HDR show-existing") })
        #expect(aom8.contains { $0.description.contains("FRAME inter hidden showable") })
        #expect(
            try units(.aom12).first?.sequenceHeader?.description == "Professional@2.0 176x144 12-bit 4:2:2")
        let ten = try #require(try units(.aom10).first?.sequenceHeader?.colorConfig)
        #expect(ten.bitDepth == 10 && ten.colorRange && ten.colorPrimaries == 1 && ten.matrixCoefficients == 1)
        #expect(try units(.aom444).first?.sequenceHeader?.description == "High@2.0 176x144 8-bit 4:4:4")
        #expect(try units(.aomGray).first?.sequenceHeader?.colorConfig.chromaFormatName == "4:0:0")
        #expect(try units(.aomGrain).first?.sequenceHeader?.filmGrainParamsPresent == true)
        // Inferred, so not in the trace: showable_frame = frame_type != KEY_FRAME for a shown frame.
        for frame in aom8.flatMap(\.frameHeaders) where frame.showFrame {
            #expect(frame.showableFrame == (frame.frameType != .key))
        }
        // The sync sample rule needs the sequence header in the sample: the first unit without it
        // (the header passed in instead, as from an av1C) still decodes, but is not a sync sample.
        let first = try #require(aom8.first)
        let withoutHeader = try AV1TemporalUnit(
            obus: first.obus.filter { $0.obuType != .sequenceHeader }, sequenceHeader: first.sequenceHeader)
        #expect(withoutHeader.frameHeaders == first.frameHeaders)
        #expect(first.isSyncSample && !withoutHeader.isSyncSample)
        // Without any sequence header the frame headers cannot be read.
        let blind = try AV1TemporalUnit(obus: first.obus.filter { $0.obuType != .sequenceHeader })
        #expect(blind.lacksSequenceHeader && blind.frameHeaders.isEmpty && !blind.isSyncSample)
        #expect(blind.description == "TD, FRAME (no sequence header)")
        let superres = try units(.svtSuperres).flatMap(\.frameHeaders).compactMap(\.frameSize)
        #expect(superres.contains { $0.superresDenom == 16 && $0.frameWidth == 88 && $0.upscaledWidth == 176 })
        let resized = try units(.svtResize).flatMap(\.frameHeaders)
        #expect(resized.contains { $0.frameSizeOverrideFlag && $0.frameSize?.upscaledWidth == 117 })
        let model = try units(.aomDecoderModel)
        #expect(model.first?.sequenceHeader?.decoderModelInfoPresentFlag == true)
        #expect(model.first?.sequenceHeader?.timingInfo?.timeScale ?? 0 > 0)
        let resilient = try units(.aomErrorResilient)
        #expect(resilient.first?.sequenceHeader?.frameIdNumbersPresentFlag == true)
        #expect(resilient.contains { $0.frameHeaders.contains { $0.errorResilientMode && $0.frameType == .inter } })
        #expect(try units(.aomNoOrderHint).first?.sequenceHeader?.enableOrderHint == false)
        let still = try units(.aomStill)
        #expect(still.allSatisfy { $0.sequenceHeader?.reducedStillPictureHeader == true && $0.isSyncSample })
    }

    /// The cros-codecs IVF stream (both names hold the same bytes): 250 frames of 320×240.
    @Test(.needsConformance, arguments: ["test-25fps.ivf.av1", "test-25fps.av1.ivf"])
    func crosCodecsIVF(_ name: String) throws {
        let url = try #require(AV1Conformance.url(name), "conformance folder missing")
        let samples = try #require(IVFFile.frames(try TestData.bytes(url)), "\(name) is IVF")
        let units = try temporalUnits(samples)
        let shown = try expectMatchesTrace(units, try AV1Trace(url), name)
        #expect(shown == 250)
        let probe = try AV1Probe(url)
        #expect(units.map(\.isSyncSample) == probe.packetKeys)
        let header = try #require(units.first?.sequenceHeader)
        #expect(header.description == "Main@2.0 320x240 8-bit 4:2:0")
        #expect(units.first?.description.hasPrefix("TD, SEQ (Main@2.0 320x240 8-bit 4:2:0), FRAME key shown") == true)
        #expect(!AV1AnnexB.looksLikeAnnexB(samples[0]) && AV1LowOverhead.looksLikeLowOverhead(samples[0]))
    }

    /// A low-overhead `.obu` stream: split at temporal delimiters, against libavformat's `obu`
    /// demuxer (which merges OBUs into temporal units the same way) and the trace.
    @Test func lowOverheadStream() throws {
        let url = try #require(AV1TestStream.aomOBU.url)
        let bytes = try TestData.bytes(url)
        #expect(AV1LowOverhead.looksLikeLowOverhead(bytes[...]))
        #expect(!AV1AnnexB.looksLikeAnnexB(bytes[...]))
        let units = try AV1LowOverhead.temporalUnits(in: bytes[...])
        #expect(units.allSatisfy { $0.first?.obuType == .temporalDelimiter })
        let parsed = try units.reduce(into: [AV1TemporalUnit]()) { result, obus in
            result.append(try AV1TemporalUnit(obus: obus, sequenceHeader: result.last?.activeSequenceHeader))
        }
        let shown = try expectMatchesTrace(parsed, try AV1Trace(url, format: "obu"), "aom-obu")
        let probe = try AV1Probe(url, format: "obu", countFrames: true)
        #expect(shown == probe.frameCount)
        #expect(parsed.map(\.isSyncSample) == probe.packetKeys)
    }
}

// MARK: - Annex B

@Suite struct AV1AnnexBTests {
    /// Writes temporal units in Annex B: one frame unit per frame header, the OBUs before the first
    /// frame in the first (§B.2).
    private func annexB(_ units: [[AV1OBU]]) -> [UInt8] {
        var stream: [UInt8] = []
        for unit in units {
            var frameUnits: [[UInt8]] = [[]]
            var sawFrame = false
            for obu in unit {
                if obu.obuType.startsFrame {
                    if sawFrame { frameUnits.append([]) }
                    sawFrame = true
                }
                // Strip the size field, as Annex B streams usually do.
                var bare = [obu.bytes.first.map { $0 & ~0x02 } ?? 0]
                if obu.hasExtension { bare.append(obu.bytes[obu.bytes.startIndex + 1]) }
                bare += obu.payload
                frameUnits[frameUnits.count - 1] += AV1LEB128.encode(UInt32(bare.count)) + bare
            }
            let contents = frameUnits.flatMap { AV1LEB128.encode(UInt32($0.count)) + $0 }
            stream += AV1LEB128.encode(UInt32(contents.count)) + contents
        }
        return stream
    }

    /// The cros-codecs Annex B stream (IVF frames holding Annex B temporal units): parsed, detected,
    /// and converted to low-overhead form, which libavcodec's parser then reads (trace) and libdav1d
    /// decodes (ffprobe). ffmpeg 5.1's own `av1` (Annex B) demuxer fails on this file.
    @Test(.needsConformance, .enabled(if: CommandRunner.hasFFmpeg && TestData.hasFFprobe))
    func crosCodecsAnnexB() throws {
        let url = try #require(AV1Conformance.url("av1-annexb.ivf.av1"), "conformance folder missing")
        let frames = try #require(IVFFile.frames(try TestData.bytes(url)))
        try #require(frames.count == 1)
        #expect(AV1AnnexB.looksLikeAnnexB(frames[0]))
        #expect(!AV1LowOverhead.looksLikeLowOverhead(frames[0]))
        #expect(throws: VTError.sampleBufferInvalidSampleData) { try AV1OBU.split(frames[0]) }
        let units = try AV1AnnexB.temporalUnits(in: frames[0])
        try #require(units.count == 1)
        #expect(units[0].allSatisfy { !$0.hasSizeField })
        let unit = try AV1TemporalUnit(obus: units[0])
        #expect(unit.isSyncSample && unit.shownFrameCount == 1)
        #expect(unit.description.hasPrefix("TD, SEQ (Main@"))

        let directory = try CommandRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let converted = directory.appendingPathComponent("converted.obu")
        try Data(AV1AnnexB.lowOverhead(units[0])).write(to: converted)
        let reparsed = try AV1TemporalUnit(try TestData.bytes(converted)[...])
        #expect(reparsed.obus.map(\.payload) == unit.obus.map(\.payload))
        try expectMatchesTrace([reparsed], try AV1Trace(converted, format: "obu"), "annexb converted")
        let probe = try AV1Probe(converted, format: "obu", countFrames: true)
        #expect(probe.frameCount == 1)
    }

    /// Low-overhead temporal units written in Annex B and read back: the same OBUs, and each format
    /// detected as itself.
    @Test(.enabled(if: CommandRunner.hasFFmpeg))
    func roundTripsMadeStream() throws {
        let url = try #require(AV1TestStream.aom8.url)
        let samples = try #require(IVFFile.frames(try TestData.bytes(url)))
        let units = try samples.map { sample throws(VTError) in try AV1OBU.split(sample) }
        let stream = annexB(units)
        #expect(AV1AnnexB.looksLikeAnnexB(stream[...]))
        #expect(!AV1LowOverhead.looksLikeLowOverhead(stream[...]))
        #expect(!AV1AnnexB.looksLikeAnnexB(samples[0]))
        let read = try AV1AnnexB.temporalUnits(in: stream[...])
        #expect(read.map { $0.map(\.payload) } == units.map { $0.map(\.payload) })
        #expect(read.map { $0.map(\.obuType) } == units.map { $0.map(\.obuType) })
        #expect(read.map(AV1AnnexB.lowOverhead) == samples.map(Array.init))
        // A probe buffer may end inside the first frame.
        #expect(AV1AnnexB.looksLikeAnnexB(stream.prefix(40)))
    }

    @Test(
        arguments: [
            [0x05, 0x09, 0x01, 0x10, 0x00, 0x00],  // frame_unit_size 9 in a 5-byte temporal unit
            [0x04, 0x03, 0x05, 0x10, 0x00],  // obu_length 5 in a 3-byte frame unit
            [0x09, 0x01],  // temporal_unit_size past the data
            [0x02, 0x01, 0x00],  // an empty OBU
            [0x03, 0x02, 0x01, 0x90],  // obu_forbidden_bit
        ] as [[UInt8]])
    func rejectsSizesThatDoNotAddUp(_ bytes: [UInt8]) {
        #expect(throws: VTError.sampleBufferInvalidSampleData) { try AV1AnnexB.temporalUnits(in: bytes[...]) }
        #expect(!AV1AnnexB.looksLikeAnnexB(bytes[...]))
    }
}

// MARK: - av1C

@Suite struct AV1CodecConfigurationRecordTests {
    /// The av1C ffmpeg's MP4 muxer wrote: parsed, equal to the record built from its sequence
    /// header OBU byte for byte, consistent with ffprobe's stream fields, and equal to ffprobe's
    /// extradata size.
    @Test(.enabled(if: CommandRunner.hasFFmpeg && TestData.hasFFprobe), arguments: AV1TestStream.mp4)
    func mp4AV1C(_ stream: AV1TestStream) throws {
        let url = try #require(stream.url)
        let payload = try #require(av1CPayload(in: try TestData.bytes(url)), "no av1C box")
        let record = try AV1CodecConfigurationRecord(payload)
        let obus = try AV1OBU.split(record.configOBUs[...])
        let sequenceHeaderOBU = try #require(obus.first { $0.obuType == .sequenceHeader })
        let built = try AV1CodecConfigurationRecord(sequenceHeaderOBU: sequenceHeaderOBU)
        #expect(built == record)
        #expect(built.bytes == Array(payload))
        #expect(try AV1CodecConfigurationRecord(built.bytes[...]) == built)
        let header = try #require(record.sequenceHeader)
        let probe = try AV1Probe(url)
        #expect(String(payload.count) == probe.stream["extradata_size"])
        #expect(header.profileName == probe.stream["profile"])
        #expect(pixelFormat(header.colorConfig) == probe.stream["pix_fmt"])
        #expect(record.seqProfile == header.seqProfile && record.seqLevelIdx0 == header.seqLevelIdx)
        #expect(record.highBitdepth == header.colorConfig.highBitdepth)
        #expect(record.chromaSubsamplingX == header.colorConfig.subsamplingX)

        // The samples as the MP4 demuxer hands them out: no temporal delimiter (AV1-ISOBMFF §2.4),
        // key flags from the sync sample table, which ffmpeg's muxer filled from the encoder's flags.
        let packets = try demuxedPackets(url)
        try #require(packets.count == 10)
        var active = record.sequenceHeader
        for (number, packet) in packets.enumerated() {
            let unit = try AV1TemporalUnit(packet.data[...], sequenceHeader: active)
            active = unit.activeSequenceHeader
            #expect(unit.obus.first?.obuType != .temporalDelimiter, "sample \(number)")
            #expect(unit.isSyncSample == packet.key, "sample \(number): sync sample vs stss")
            #expect(unit.shownFrameCount == 1, "sample \(number)")
        }
    }

    @Test(.needsConformance) func buildsFromAnUnsizedOBUWithASizeField() throws {
        // The sequence header of the cros-codecs Annex B stream, without obu_has_size_field.
        let url = try #require(AV1Conformance.url("av1-annexb.ivf.av1"), "conformance folder missing")
        let frame = try #require(IVFFile.frames(try TestData.bytes(url))?.first)
        let obu = try #require(try AV1AnnexB.temporalUnits(in: frame).first?.first { $0.obuType == .sequenceHeader })
        let record = try AV1CodecConfigurationRecord(sequenceHeaderOBU: obu)
        let configOBU = try #require(try AV1OBU.split(record.configOBUs[...]).first)
        #expect(configOBU.hasSizeField && configOBU.payload == obu.payload)
        #expect(record.bytes[0] == 0x81)
        #expect(try AV1CodecConfigurationRecord(record.bytes[...]) == record)
    }

    @Test func delayRoundTrips() throws {
        let bytes: [UInt8] = [0x81, 0x4d, 0x4c, 0x13]  // Professional (2), level 13, 12-bit-less 10-bit 4:2:2, delay 4
        let record = try AV1CodecConfigurationRecord(bytes[...])
        #expect(record.seqProfile == 2 && record.seqLevelIdx0 == 13 && record.seqTier0 == 0)
        #expect(record.highBitdepth && !record.twelveBit && record.chromaSubsamplingX == 1)
        #expect(record.chromaSubsamplingY == 1 && record.initialPresentationDelayMinus1 == 3)
        #expect(record.sequenceHeader == nil && record.bytes == bytes)
    }

    @Test(
        arguments: [
            [0x01, 0x00, 0x0c, 0x00],  // marker 0
            [0x82, 0x00, 0x0c, 0x00],  // version 2
            [0x81, 0x00, 0x0c],  // too short
            [0x81, 0x00, 0x0c, 0x00, 0x0a, 0x0b, 0x00],  // configOBUs: obu_size past the end
            [0x81, 0x00, 0x0c, 0x00, 0x0a, 0x01, 0xe0],  // configOBUs: reserved seq_profile 7
        ] as [[UInt8]])
    func rejectsMalformedRecords(_ bytes: [UInt8]) {
        #expect(throws: VTError.formatDescriptionInvalidParameter) { try AV1CodecConfigurationRecord(bytes[...]) }
    }

    @Test func rejectsOtherOBUTypes() throws {
        let obu = try AV1OBU([0x12, 0x00][...])
        #expect(throws: VTError.parameter) { try AV1CodecConfigurationRecord(sequenceHeaderOBU: obu) }
    }
}

// MARK: - Hostile input

@Suite struct AV1HostileInputTests {
    /// A small deterministic generator (xorshift64*), so a failure can be replayed.
    private struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return Int((state &* 2_685_821_657_736_338_717) >> 33) % max(bound, 1)
        }
    }

    /// Every parser on a mutated or truncated copy of real data: each returns or throws a VTError;
    /// nothing traps. Some mutations must be rejected, and the unmutated data must parse.
    @Test(.enabled(if: CommandRunner.hasFFmpeg), arguments: [1, 2, 3])
    func mutatedTemporalUnitsNeverTrap(_ seed: Int) throws {
        let url = try #require(AV1TestStream.aom8.url)
        let samples = try #require(IVFFile.frames(try TestData.bytes(url)))
        let sequenceHeader = try #require(try AV1TemporalUnit(samples[0]).sequenceHeader)
        var generator = Generator(state: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15)
        var rejected = 0
        var accepted = 0
        for round in 0..<400 {
            var bytes = Array(samples[round % samples.count])
            if round % 3 == 0 {
                bytes = Array(bytes.prefix(generator.next(bytes.count)))
            } else {
                for _ in 0...generator.next(4) where !bytes.isEmpty {
                    // Mostly in the headers, where the parsers look.
                    let position = generator.next(min(bytes.count, 48))
                    bytes[position] ^= UInt8(1 << generator.next(8))
                }
            }
            do throws(VTError) {
                _ = try AV1TemporalUnit(bytes[...], sequenceHeader: sequenceHeader).description
                _ = try AV1LowOverhead.temporalUnits(in: bytes[...])
                accepted += 1
            } catch {
                rejected += 1
            }
            _ = AV1AnnexB.looksLikeAnnexB(bytes[...])
            _ = AV1LowOverhead.looksLikeLowOverhead(bytes[...])
            _ = try? AV1AnnexB.temporalUnits(in: bytes[...])
            _ = try? AV1CodecConfigurationRecord(bytes[...])
            if let obu = try? AV1OBU.split(bytes[...]).first(where: { $0.obuType == .sequenceHeader }) {
                _ = try? AV1SequenceHeader(obu.payload)
                _ = try? AV1CodecConfigurationRecord(sequenceHeaderOBU: obu)
            }
        }
        #expect(rejected > 0 && accepted > 0, "rejected \(rejected), accepted \(accepted)")
        #expect(throws: Never.self) { _ = try temporalUnits(samples) }
    }

    /// Every truncation of a sequence header throws the format error, never traps.
    @Test(.enabled(if: CommandRunner.hasFFmpeg))
    func truncatedSequenceHeaders() throws {
        let url = try #require(AV1TestStream.aom10.url)
        let sample = try #require(IVFFile.frames(try TestData.bytes(url))?.first)
        let obu = try #require(try AV1OBU.split(sample).first { $0.obuType == .sequenceHeader })
        for length in 0..<(obu.payload.count - 1) {
            #expect(throws: VTError.formatDescriptionInvalidParameter) {
                try AV1SequenceHeader(obu.payload.prefix(length))
            }
        }
    }

    /// Random bytes through every entry point.
    @Test func randomBytes() {
        var generator = Generator(state: 0xDEAD_BEEF)
        for _ in 0..<2000 {
            let bytes = (0..<generator.next(40)).map { _ in UInt8(generator.next(256)) }
            _ = try? AV1TemporalUnit(bytes[...]).description
            _ = try? AV1AnnexB.temporalUnits(in: bytes[...])
            _ = try? AV1LowOverhead.temporalUnits(in: bytes[...])
            _ = try? AV1CodecConfigurationRecord(bytes[...])
            _ = try? AV1SequenceHeader(bytes[...])
            _ = AV1AnnexB.looksLikeAnnexB(bytes[...])
            _ = AV1LowOverhead.looksLikeLowOverhead(bytes[...])
        }
    }
}
