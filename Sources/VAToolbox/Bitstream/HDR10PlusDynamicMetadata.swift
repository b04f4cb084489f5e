/// HDR10+ dynamic metadata read from its ITU-T T.35 message: the SMPTE ST 2094-40 values of one
/// frame, with the syntax elements of ANSI/CTA-861-H Annex S (`user_data_registered_itu_t_t35`
/// with `application_identifier` 4) in lowerCamelCase, each in the integer units of its syntax
/// element.
///
/// A VAToolbox type: VideoToolbox hands the message only as bytes
/// (`kCMSampleAttachmentKey_HDR10PlusPerFrameData`, ``DecompressionOutput/hdr10PlusPerFrameData``);
/// this is a reading of those bytes for code that wants the values, such as
/// `vatoolbox probe --frames`, which prints them as ffprobe does.
public struct HDR10PlusDynamicMetadata: Sendable, Hashable {
    /// One processing window's placement (ST 2094-40 §5.3.3–5.3.6), present for the second and
    /// third windows; the first window is the whole picture.
    public struct WindowGeometry: Sendable, Hashable {
        /// `window_upper_left_corner_x`, in pixels.
        public var windowUpperLeftCornerX: UInt16
        /// `window_upper_left_corner_y`, in pixels.
        public var windowUpperLeftCornerY: UInt16
        /// `window_lower_right_corner_x`, in pixels.
        public var windowLowerRightCornerX: UInt16
        /// `window_lower_right_corner_y`, in pixels.
        public var windowLowerRightCornerY: UInt16
        /// `center_of_ellipse_x`, in pixels.
        public var centerOfEllipseX: UInt16
        /// `center_of_ellipse_y`, in pixels.
        public var centerOfEllipseY: UInt16
        /// `rotation_angle`, in degrees (0…180).
        public var rotationAngle: UInt8
        /// `semimajor_axis_internal_ellipse`, in pixels.
        public var semimajorAxisInternalEllipse: UInt16
        /// `semimajor_axis_external_ellipse`, in pixels.
        public var semimajorAxisExternalEllipse: UInt16
        /// `semiminor_axis_external_ellipse`, in pixels.
        public var semiminorAxisExternalEllipse: UInt16
        /// `overlap_process_option`: false for weighted averaging, true for layering.
        public var overlapProcessOption: Bool
    }

    /// One entry of a window's maxRGB distribution.
    public struct DistributionMaxrgb: Sendable, Hashable {
        /// `distribution_maxrgb_percentages[i]`, a percentage (0…100).
        public var percentage: UInt8
        /// `distribution_maxrgb_percentiles[i]`, linear light in steps of 0.00001 (of 10,000 cd/m²).
        public var percentile: UInt32
    }

    /// The tone mapping curve of a window (`tone_mapping_flag` set): a knee point and Bézier
    /// anchors.
    public struct ToneMapping: Sendable, Hashable {
        /// `knee_point_x`, in steps of 1/4095.
        public var kneePointX: UInt16
        /// `knee_point_y`, in steps of 1/4095.
        public var kneePointY: UInt16
        /// `bezier_curve_anchors[i]`, each in steps of 1/1023 (up to 15).
        public var bezierCurveAnchors: [UInt16]
    }

    /// The values of one processing window.
    public struct Window: Sendable, Hashable {
        /// The window's placement; nil for the first window (the whole picture).
        public var geometry: WindowGeometry?
        /// `maxscl[i]` for red, green and blue: linear light in steps of 0.00001.
        public var maxscl: [UInt32]
        /// `average_maxrgb`: linear light in steps of 0.00001.
        public var averageMaxrgb: UInt32
        /// The maxRGB distribution (`num_distribution_maxrgb_percentiles` entries, up to 15).
        public var distributionMaxrgb: [DistributionMaxrgb]
        /// `fraction_bright_pixels`, in steps of 0.001.
        public var fractionBrightPixels: UInt16
        /// The tone mapping curve; nil when `tone_mapping_flag` is 0.
        public var toneMapping: ToneMapping?
        /// `color_saturation_weight`, in steps of 1/8; nil when `color_saturation_mapping_flag` is 0.
        public var colorSaturationWeight: UInt8?
    }

    /// `application_version`.
    public var applicationVersion: UInt8
    /// The processing windows (`num_windows`, 1…3).
    public var windows: [Window]
    /// `targeted_system_display_maximum_luminance`, in cd/m².
    public var targetedSystemDisplayMaximumLuminance: UInt32
    /// `targeted_system_display_actual_peak_luminance[i][j]`, rows of columns, each in steps of
    /// 1/15; nil when `targeted_system_display_actual_peak_luminance_flag` is 0.
    public var targetedSystemDisplayActualPeakLuminance: [[UInt8]]?
    /// `mastering_display_actual_peak_luminance[i][j]`, rows of columns, each in steps of 1/15;
    /// nil when `mastering_display_actual_peak_luminance_flag` is 0.
    public var masteringDisplayActualPeakLuminance: [[UInt8]]?

    /// Reads the values of an HDR10+ T.35 message, from `itu_t_t35_country_code` on (the bytes
    /// of ``DecompressionOutput/hdr10PlusPerFrameData``).
    ///
    /// Bytes after the last syntax element (an AV1 OBU's trailing bits) are ignored.
    ///
    /// - Parameter message: The T.35 message.
    /// - Throws: ``VTError/videoDecoderBadData`` when the message is not HDR10+
    ///   (``HDR10Plus/isHDR10Plus(_:)``), ends early, or states a value out of its range
    ///   (`num_windows` 0, a luminance grid of fewer than 2 or more than 25 rows or columns).
    public init(t35Message message: [UInt8]) throws(VTError) {
        guard HDR10Plus.isHDR10Plus(message[...]) else {
            throw VTError.videoDecoderBadData.with("the T.35 message is not HDR10+ (ST 2094-40)")
        }
        var reader = BitReader(
            message[HDR10Plus.header.count...], context: "HDR10+ dynamic metadata", error: .videoDecoderBadData)
        applicationVersion = UInt8(try reader.bits(8, "application_version"))
        let numWindows = Int(try reader.bits(2, "num_windows"))
        guard numWindows >= 1 else { throw reader.invalid("num_windows is 0") }
        var geometries: [WindowGeometry?] = [nil]
        for _ in 1..<numWindows { geometries.append(try Self.geometry(&reader)) }
        targetedSystemDisplayMaximumLuminance = try reader.bits(27, "targeted_system_display_maximum_luminance")
        targetedSystemDisplayActualPeakLuminance =
            try reader.flag("targeted_system_display_actual_peak_luminance_flag")
            ? try Self.luminanceGrid(&reader, "targeted_system_display_actual_peak_luminance") : nil
        windows = []
        for geometry in geometries { windows.append(try Self.window(&reader, geometry: geometry)) }
        masteringDisplayActualPeakLuminance =
            try reader.flag("mastering_display_actual_peak_luminance_flag")
            ? try Self.luminanceGrid(&reader, "mastering_display_actual_peak_luminance") : nil
        for index in windows.indices {
            if try reader.flag("tone_mapping_flag") {
                let kneePointX = UInt16(try reader.bits(12, "knee_point_x"))
                let kneePointY = UInt16(try reader.bits(12, "knee_point_y"))
                var anchors: [UInt16] = []
                for _ in 0..<(try reader.bits(4, "num_bezier_curve_anchors")) {
                    anchors.append(UInt16(try reader.bits(10, "bezier_curve_anchors")))
                }
                windows[index].toneMapping = ToneMapping(
                    kneePointX: kneePointX, kneePointY: kneePointY, bezierCurveAnchors: anchors)
            }
            if try reader.flag("color_saturation_mapping_flag") {
                windows[index].colorSaturationWeight = UInt8(try reader.bits(6, "color_saturation_weight"))
            }
        }
    }

    /// A second or third window's placement.
    private static func geometry(_ reader: inout BitReader) throws(VTError) -> WindowGeometry {
        WindowGeometry(
            windowUpperLeftCornerX: UInt16(try reader.bits(16, "window_upper_left_corner_x")),
            windowUpperLeftCornerY: UInt16(try reader.bits(16, "window_upper_left_corner_y")),
            windowLowerRightCornerX: UInt16(try reader.bits(16, "window_lower_right_corner_x")),
            windowLowerRightCornerY: UInt16(try reader.bits(16, "window_lower_right_corner_y")),
            centerOfEllipseX: UInt16(try reader.bits(16, "center_of_ellipse_x")),
            centerOfEllipseY: UInt16(try reader.bits(16, "center_of_ellipse_y")),
            rotationAngle: UInt8(try reader.bits(8, "rotation_angle")),
            semimajorAxisInternalEllipse: UInt16(try reader.bits(16, "semimajor_axis_internal_ellipse")),
            semimajorAxisExternalEllipse: UInt16(try reader.bits(16, "semimajor_axis_external_ellipse")),
            semiminorAxisExternalEllipse: UInt16(try reader.bits(16, "semiminor_axis_external_ellipse")),
            overlapProcessOption: try reader.flag("overlap_process_option"))
    }

    /// A window's maxRGB statistics; its tone mapping comes later in the message.
    private static func window(_ reader: inout BitReader, geometry: WindowGeometry?) throws(VTError) -> Window {
        var maxscl: [UInt32] = []
        for _ in 0..<3 { maxscl.append(try reader.bits(17, "maxscl")) }
        let averageMaxrgb = try reader.bits(17, "average_maxrgb")
        var distribution: [DistributionMaxrgb] = []
        for _ in 0..<(try reader.bits(4, "num_distribution_maxrgb_percentiles")) {
            let percentage = UInt8(try reader.bits(7, "distribution_maxrgb_percentages"))
            distribution.append(
                DistributionMaxrgb(
                    percentage: percentage, percentile: try reader.bits(17, "distribution_maxrgb_percentiles"))
            )
        }
        return Window(
            geometry: geometry, maxscl: maxscl, averageMaxrgb: averageMaxrgb, distributionMaxrgb: distribution,
            fractionBrightPixels: UInt16(try reader.bits(10, "fraction_bright_pixels")), toneMapping: nil,
            colorSaturationWeight: nil)
    }

    /// `num_rows_…` and `num_cols_…` (5 bits each, 2…25), then a 4-bit value per cell.
    private static func luminanceGrid(_ reader: inout BitReader, _ name: String) throws(VTError) -> [[UInt8]] {
        let rows = Int(try reader.bits(5, "num_rows_actual_peak_luminance"))
        let columns = Int(try reader.bits(5, "num_cols_actual_peak_luminance"))
        guard (2...25).contains(rows), (2...25).contains(columns) else {
            throw reader.invalid("\(name) has \(rows) rows and \(columns) columns, outside 2…25")
        }
        var grid: [[UInt8]] = []
        for _ in 0..<rows {
            var row: [UInt8] = []
            for _ in 0..<columns { row.append(UInt8(try reader.bits(4, "actual_peak_luminance"))) }
            grid.append(row)
        }
        return grid
    }
}
