import VAToolbox

/// `probe --frames`: each decoded picture as ffprobe's `-show_frames` shows it, with ffprobe's
/// field names, values and order (FFmpeg 5.1's `show_frame`), for the fields the library knows.
///
/// As ffprobe's JSON does, a field ffprobe would print as "N/A" or "unknown" is left out (a raw
/// stream's `pts`, an unstated colour field), and so is an empty `side_data_list`. Side data is
/// listed for the types VAToolbox hands out; static HDR metadata the library attached from the
/// container (``ImageBufferAttachments/masteringDisplayIsFromContainer``) is not frame side data
/// to ffprobe, which shows it with the stream, and is left out here too.
struct FrameListing {
    /// ffprobe's `side_data_type` names (libavutil's `av_frame_side_data_name`).
    enum SideDataType {
        static let masteringDisplay = "Mastering display metadata"
        static let contentLightLevel = "Content light level metadata"
        static let hdr10Plus = "HDR Dynamic Metadata SMPTE2094-40 (HDR10+)"
        static let dolbyVisionRPU = "Dolby Vision RPU Data"
        static let iccProfile = "ICC profile"
    }

    /// The units the stream's bitstream states a mastering display in.
    let masteringUnits: MasteringDisplaySyntaxUnits
    /// The stream's time base, for `pts`; nil for a raw Annex B stream, which ffprobe shows
    /// without time stamps.
    let timeBase: MediaTime?
    /// The stream's index in its file (ffprobe's `stream_index`); 0 for a raw stream.
    let streamIndex: Int
    /// The timing the ffmpeg CLI sees, for the sample aspect ratio.
    let timing: StreamTiming

    /// The listing of a source's pictures.
    init(source: SampleSource) {
        masteringUnits = source.codecType.masteringDisplaySyntaxUnits
        timeBase = source.isAnnexBStream ? nil : source.reader?.track.timeBase
        streamIndex = source.trackIndex ?? 0
        timing = source.streamTiming
    }

    /// A picture's fields, in ffprobe's order.
    ///
    /// - Parameter placeholders: Whether a field ffprobe's default writer prints as `N/A`,
    ///   `unknown` or `unspecified` is there with that text (the text form), rather than left out
    ///   as its JSON writer leaves it (the JSON form).
    func fields(of frame: DecodedFrame, placeholders: Bool = false) -> [(String, JSON)] {
        let image = frame.image
        let attachments = image.attachments
        var fields: [(String, JSON)] = [
            ("media_type", .string("video")), ("stream_index", .int(streamIndex)),
            ("key_frame", .int(attachments.isKeyFrame ? 1 : 0)),
        ]
        func optional(_ key: String, _ value: JSON?, _ placeholder: String) {
            if let value {
                fields.append((key, value))
            } else if placeholders {
                fields.append((key, .string(placeholder)))
            }
        }
        let pts = pts(of: frame.presentationTimeStamp)
        optional("pts", pts.map { .int(Int($0)) }, "N/A")
        var seconds: Double?
        if let pts, let timeBase { seconds = Double(pts) * Double(timeBase.value) / Double(timeBase.timescale) }
        optional("pts_time", seconds.map { .string(fixed($0, 6)) }, "N/A")
        fields += [("width", .int(image.width)), ("height", .int(image.height))]
        // av_guess_sample_aspect_ratio: the container's, else the picture's.
        let aspect = timing.aspectRatio(of: image).map { JSON.string("\($0.horizontalSpacing):\($0.verticalSpacing)") }
        optional("sample_aspect_ratio", aspect, "N/A")
        fields += [
            ("pict_type", .string(attachments.pictureType.map { String($0.ffmpegLetter) } ?? "?")),
            ("interlaced_frame", .int(attachments.fieldCount == 2 ? 1 : 0)),
            ("top_field_first", .int(attachments.topFieldFirst ? 1 : 0)),
        ]
        let range = attachments.fullRange ? "pc" : "tv"
        optional("color_range", attachments.statesColorRange ? .string(range) : nil, "unknown")
        optional("color_space", attachments.yCbCrMatrix.map { .string($0.name) }, "unknown")
        optional("color_primaries", attachments.colorPrimaries.map { .string($0.name) }, "unknown")
        // libavcodec puts the transfer an alternative_transfer_characteristics SEI message
        // prefers in the picture's; VAToolbox, as Apple, keeps the two apart.
        let transfer = attachments.alternativeTransferCharacteristics ?? attachments.transferFunction
        optional("color_transfer", transfer.map { .string($0.name) }, "unknown")
        let location = attachments.chromaLocation.flatMap { Self.chromaLocationNames[$0] }
        optional("chroma_location", location.map { .string($0) }, "unspecified")
        let sideData = sideData(of: frame)
        if !sideData.isEmpty { fields.append(("side_data_list", .array(sideData.map { .object($0) }))) }
        return fields
    }

    /// The picture's side data, in the order libavcodec's decoders attach it.
    func sideData(of frame: DecodedFrame) -> [[(String, JSON)]] {
        let attachments = frame.image.attachments
        var list: [[(String, JSON)]] = []
        if let display = attachments.masteringDisplayColorVolume, !attachments.masteringDisplayIsFromContainer {
            list.append(masteringDisplay(display))
        }
        if let light = attachments.contentLightLevel, !attachments.contentLightLevelIsFromContainer {
            list.append([
                ("side_data_type", .string(SideDataType.contentLightLevel)),
                ("max_content", .int(Int(light.maximumContentLightLevel))),
                ("max_average", .int(Int(light.maximumFrameAverageLightLevel))),
            ])
        }
        if let message = frame.hdr10Plus, let metadata = try? HDR10PlusDynamicMetadata(t35Message: message) {
            list.append(Self.hdr10Plus(metadata))
        }
        // Dolby Vision after HDR10+, in the order libavcodec 5.1's HEVC decoder attaches it:
        // "Dolby Vision RPU Data" (AV_FRAME_DATA_DOVI_RPU_BUFFER), whose type is all ffprobe 5.1
        // prints. Its "Dolby Vision Metadata" (AV_FRAME_DATA_DOVI_METADATA, libavcodec's parse of
        // the RPU) is not listed: VAToolbox passes the RPU through and parses none of it.
        if frame.dolbyVisionRPU != nil {
            list.append([("side_data_type", .string(SideDataType.dolbyVisionRPU))])
        }
        // ffprobe 5.1 prints a decoder's ICC profile with its size; the container's is stream
        // side data, which libavcodec 5.1 does not put on the pictures.
        if let profile = attachments.iccProfile, !attachments.iccProfileIsFromContainer {
            list.append([("side_data_type", .string(SideDataType.iccProfile)), ("size", .int(profile.count))])
        }
        return list
    }

    /// The presentation time stamp in the stream's time base, as ffprobe's `pts`; nil when the
    /// picture has none or the stream has no time base.
    func pts(of time: MediaTime) -> Int64? {
        guard let timeBase, time.isNumeric, timeBase.value > 0, time.timescale > 0 else { return nil }
        if Int64(timeBase.timescale) == Int64(time.timescale) * timeBase.value { return time.value }
        return Int64((time.seconds * Double(timeBase.timescale) / Double(timeBase.value)).rounded())
    }

    private func masteringDisplay(_ display: MasteringDisplayColorVolume) -> [(String, JSON)] {
        let numerators = display.numerators(in: masteringUnits)
        let chromaticity = masteringUnits.chromaticityDenominator
        let names = ["red_x", "red_y", "green_x", "green_y", "blue_x", "blue_y", "white_point_x", "white_point_y"]
        return [("side_data_type", .string(SideDataType.masteringDisplay))]
            + zip(names, numerators).map { ($0.0, Self.fraction($0.1, chromaticity)) } + [
                ("min_luminance", Self.fraction(numerators[8], masteringUnits.minimumLuminanceDenominator)),
                ("max_luminance", Self.fraction(numerators[9], masteringUnits.maximumLuminanceDenominator)),
            ]
    }

    /// FFmpeg 5.1 ffprobe's `print_dynamic_hdr10_plus`: its names (`"application version"` with
    /// a space), its order (the second and third windows' geometry first, with the upper-left
    /// corner twice) and libavcodec's rationals (`dynamic_hdr10_plus.c`'s denominators).
    static func hdr10Plus(_ metadata: HDR10PlusDynamicMetadata) -> [(String, JSON)] {
        var fields: [(String, JSON)] = [
            ("side_data_type", .string(SideDataType.hdr10Plus)),
            ("application version", .int(Int(metadata.applicationVersion))),
            ("num_windows", .int(metadata.windows.count)),
        ]
        for geometry in metadata.windows.compactMap(\.geometry) {
            let upperLeft: [(String, JSON)] = [
                ("window_upper_left_corner_x", fraction(Int(geometry.windowUpperLeftCornerX), 1)),
                ("window_upper_left_corner_y", fraction(Int(geometry.windowUpperLeftCornerY), 1)),
            ]
            fields +=
                upperLeft + [
                    ("window_lower_right_corner_x", fraction(Int(geometry.windowLowerRightCornerX), 1)),
                    ("window_lower_right_corner_y", fraction(Int(geometry.windowLowerRightCornerY), 1)),
                ] + upperLeft + [
                    ("center_of_ellipse_x", .int(Int(geometry.centerOfEllipseX))),
                    ("center_of_ellipse_y", .int(Int(geometry.centerOfEllipseY))),
                    ("rotation_angle", .int(Int(geometry.rotationAngle))),
                    ("semimajor_axis_internal_ellipse", .int(Int(geometry.semimajorAxisInternalEllipse))),
                    ("semimajor_axis_external_ellipse", .int(Int(geometry.semimajorAxisExternalEllipse))),
                    ("semiminor_axis_external_ellipse", .int(Int(geometry.semiminorAxisExternalEllipse))),
                    ("overlap_process_option", .int(geometry.overlapProcessOption ? 1 : 0)),
                ]
        }
        fields.append(
            (
                "targeted_system_display_maximum_luminance",
                fraction(Int(metadata.targetedSystemDisplayMaximumLuminance), 1)
            ))
        if let grid = metadata.targetedSystemDisplayActualPeakLuminance {
            fields += peakLuminance(grid, "targeted_system_display_actual_peak_luminance")
        }
        for window in metadata.windows {
            fields += window.maxscl.map { ("maxscl", fraction(Int($0), 100000)) }
            fields.append(("average_maxrgb", fraction(Int(window.averageMaxrgb), 100000)))
            fields.append(("num_distribution_maxrgb_percentiles", .int(window.distributionMaxrgb.count)))
            for entry in window.distributionMaxrgb {
                fields.append(("distribution_maxrgb_percentage", .int(Int(entry.percentage))))
                fields.append(("distribution_maxrgb_percentile", fraction(Int(entry.percentile), 100000)))
            }
            fields.append(("fraction_bright_pixels", fraction(Int(window.fractionBrightPixels), 1000)))
        }
        if let grid = metadata.masteringDisplayActualPeakLuminance {
            fields += peakLuminance(grid, "mastering_display_actual_peak_luminance")
        }
        for window in metadata.windows {
            if let curve = window.toneMapping {
                fields += [
                    ("knee_point_x", fraction(Int(curve.kneePointX), 4095)),
                    ("knee_point_y", fraction(Int(curve.kneePointY), 4095)),
                    ("num_bezier_curve_anchors", .int(curve.bezierCurveAnchors.count)),
                ]
                fields += curve.bezierCurveAnchors.map { ("bezier_curve_anchors", fraction(Int($0), 1023)) }
            }
            if let weight = window.colorSaturationWeight {
                fields.append(("color_saturation_weight", fraction(Int(weight), 8)))
            }
        }
        return fields
    }

    /// `num_rows_NAME`, `num_cols_NAME`, then each cell as `NAME`, in steps of 1/15.
    private static func peakLuminance(_ grid: [[UInt8]], _ name: String) -> [(String, JSON)] {
        [("num_rows_" + name, .int(grid.count)), ("num_cols_" + name, .int(grid.first?.count ?? 0))]
            + grid.joined().map { (name, fraction(Int($0), 15)) }
    }

    /// A rational as ffprobe prints one, unreduced: `"34000/50000"`.
    static func fraction(_ numerator: Int, _ denominator: Int) -> JSON { .string("\(numerator)/\(denominator)") }

    /// libavutil's names of the chroma locations (`av_chroma_location_name`), by H.273's
    /// `chroma_sample_loc_type`.
    static let chromaLocationNames = [
        0: "left", 1: "center", 2: "topleft", 3: "top", 4: "bottomleft", 5: "bottom",
    ]

    /// ffprobe's default output of a frame: `[FRAME]`, `key=value` lines, each side data entry
    /// between `[SIDE_DATA]` and `[/SIDE_DATA]`, `[/FRAME]`.
    static func text(_ fields: [(String, JSON)]) -> [String] {
        var lines = ["[FRAME]"]
        for (key, value) in fields {
            if case .array(let entries) = value {
                for entry in entries {
                    guard case .object(let members) = entry else { continue }
                    lines.append("[SIDE_DATA]")
                    lines += members.map { "\($0.0)=\(plain($0.1))" }
                    lines.append("[/SIDE_DATA]")
                }
            } else {
                lines.append("\(key)=\(plain(value))")
            }
        }
        lines.append("[/FRAME]")
        return lines
    }

    private static func plain(_ value: JSON) -> String {
        if case .string(let text) = value { return text }
        return value.rendered()
    }
}
