import Testing

@testable import VAToolbox

/// ``HDR10PlusDynamicMetadata``: every syntax element of an HDR10+ T.35 message (CTA-861-H
/// Annex S), written bit by bit here and read back; and the messages it refuses.
@Suite struct HDR10PlusDynamicMetadataTests {
    /// Writes fields most significant bit first.
    struct BitWriter {
        var bytes: [UInt8] = []
        var bitCount = 0

        mutating func put(_ value: Int, _ bits: Int) {
            for shift in stride(from: bits - 1, through: 0, by: -1) {
                if bitCount % 8 == 0 { bytes.append(0) }
                if (value >> shift) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(0x80 >> (bitCount % 8)) }
                bitCount += 1
            }
        }
    }

    /// A message with two windows, both luminance grids, a tone-mapping curve and a saturation
    /// weight on the second window.
    static func message(numWindows: Int = 2, truncatedBy: Int = 0) -> [UInt8] {
        var writer = BitWriter()
        writer.put(1, 8)  // application_version
        writer.put(numWindows, 2)
        for _ in 1..<max(numWindows, 1) {
            for value in [10, 20, 300, 200, 155, 110] { writer.put(value, 16) }
            writer.put(45, 8)  // rotation_angle
            for value in [30, 60, 40] { writer.put(value, 16) }
            writer.put(1, 1)  // overlap_process_option
        }
        writer.put(1000, 27)  // targeted_system_display_maximum_luminance
        writer.put(1, 1)
        writer.put(2, 5)
        writer.put(3, 5)
        for cell in 0..<6 { writer.put(cell, 4) }
        for window in 0..<max(numWindows, 1) {
            for value in [50000, 40000, 30000 + window] { writer.put(value, 17) }
            writer.put(1000, 17)  // average_maxrgb
            writer.put(2, 4)
            writer.put(50, 7)
            writer.put(5000, 17)
            writer.put(99, 7)
            writer.put(9900, 17)
            writer.put(10, 10)  // fraction_bright_pixels
        }
        writer.put(0, 1)  // mastering_display_actual_peak_luminance_flag
        for window in 0..<max(numWindows, 1) {
            writer.put(window, 1)  // tone_mapping_flag
            if window == 1 {
                writer.put(2048, 12)
                writer.put(1024, 12)
                writer.put(3, 4)
                for anchor in [100, 500, 900] { writer.put(anchor, 10) }
            }
            writer.put(window, 1)  // color_saturation_mapping_flag
            if window == 1 { writer.put(12, 6) }
        }
        let bytes = HDR10Plus.header + writer.bytes
        return Array(bytes.dropLast(truncatedBy))
    }

    @Test func readsEverySyntaxElement() throws {
        let metadata = try HDR10PlusDynamicMetadata(t35Message: Self.message())
        #expect(metadata.applicationVersion == 1)
        #expect(metadata.windows.count == 2)
        #expect(metadata.windows[0].geometry == nil)
        let geometry = try #require(metadata.windows[1].geometry)
        #expect(geometry.windowUpperLeftCornerX == 10 && geometry.windowLowerRightCornerY == 200)
        #expect(geometry.centerOfEllipseX == 155 && geometry.rotationAngle == 45)
        #expect(geometry.semiminorAxisExternalEllipse == 40 && geometry.overlapProcessOption)
        #expect(metadata.targetedSystemDisplayMaximumLuminance == 1000)
        #expect(metadata.targetedSystemDisplayActualPeakLuminance == [[0, 1, 2], [3, 4, 5]])
        #expect(metadata.masteringDisplayActualPeakLuminance == nil)
        #expect(metadata.windows.map(\.maxscl) == [[50000, 40000, 30000], [50000, 40000, 30001]])
        #expect(metadata.windows[1].averageMaxrgb == 1000)
        #expect(metadata.windows[1].distributionMaxrgb.map(\.percentage) == [50, 99])
        #expect(metadata.windows[1].distributionMaxrgb.map(\.percentile) == [5000, 9900])
        #expect(metadata.windows[1].fractionBrightPixels == 10)
        #expect(metadata.windows[0].toneMapping == nil && metadata.windows[0].colorSaturationWeight == nil)
        let curve = try #require(metadata.windows[1].toneMapping)
        #expect(curve.kneePointX == 2048 && curve.kneePointY == 1024 && curve.bezierCurveAnchors == [100, 500, 900])
        #expect(metadata.windows[1].colorSaturationWeight == 12)
    }

    @Test func refusesWhatIsNotAWholeHDR10PlusMessage() {
        #expect(throws: VTError.videoDecoderBadData) {
            try HDR10PlusDynamicMetadata(t35Message: Self.message(truncatedBy: 3))
        }
        #expect(throws: VTError.videoDecoderBadData) {
            try HDR10PlusDynamicMetadata(t35Message: Self.message(numWindows: 0))
        }
        var otherProvider = Self.message()
        otherProvider[2] = 0x3B
        #expect(throws: VTError.videoDecoderBadData) { try HDR10PlusDynamicMetadata(t35Message: otherProvider) }
        #expect(throws: VTError.videoDecoderBadData) { try HDR10PlusDynamicMetadata(t35Message: HDR10Plus.header) }
    }
}
