internal import CVAAPI

/// The libva calls of video processing (VPP: `VAProfileNone`, `VAEntrypointVideoProc`): what a
/// driver processes, a processing configuration and context, and one picture through it.
///
/// The drivers answer differently (Docs/Hardware.md, "Video processing"): iHD and Mesa list
/// `VAProfileNone` with `VAEntrypointVideoProc`; nvidia-vaapi-driver has no VPP at all, and libva
/// then answers the VPP queries with `VA_STATUS_ERROR_UNIMPLEMENTED` (va/va.c `VA_VPP_INVOKE`).
extension Display {
    /// What a driver's video processing takes and makes (``Display/processingCapabilities()``).
    struct ProcessingQuery: Sendable {
        /// The surface FourCCs a processing context writes (`vaQuerySurfaceAttributes` on its
        /// configuration), in the driver's order.
        var outputFourCCs: [UInt32] = []
        /// The filters it lists (`vaQueryVideoProcFilters`), as `VAProcFilterType` values.
        var filters: [UInt32] = []
        /// The colour standards it takes in and gives out (`vaQueryVideoProcPipelineCaps`), as
        /// `VAProcColorStandardType` values.
        var inputStandards: [UInt32] = []
        var outputStandards: [UInt32] = []
        /// The largest and smallest pictures in and out; nil where the driver leaves them unset
        /// (i965 writes none of them).
        var maximumSize: Int?
        var minimumSize: Int?
        /// Whether its HDR tone mapping filter maps HDR10 to SDR (`vaQueryVideoProcFilterCaps`
        /// of `VAProcFilterHighDynamicRangeToneMapping`: an HDR10 cap with
        /// `VA_TONE_MAPPING_HDR_TO_SDR`, as FFmpeg's `tonemap_vaapi` asks).
        var toneMapsHDR10ToSDR = false
        /// The deinterlacing algorithms it lists (`vaQueryVideoProcFilterCaps` of
        /// `VAProcFilterDeinterlacing`), as `VAProcDeinterlacingType` values.
        var deinterlacingAlgorithms: [UInt32] = []
        /// The reference pictures its motion-adaptive deinterlacing takes; nil where it is not
        /// listed or the question fails.
        var motionAdaptiveReferences: DeinterlacingReferences?
    }

    /// How many pictures before and after the one deinterlaced a deinterlacer takes
    /// (`vaQueryVideoProcPipelineCaps` with its filter: `num_forward_references`,
    /// `num_backward_references`). Mesa's motion-adaptive deinterlacer takes 2 and 1
    /// (src/gallium/frontends/va/postproc.c `vlVaQueryVideoProcPipelineCaps`); iHD's takes none,
    /// its video engine keeps the previous field itself (media-driver media_libva.cpp
    /// `DdiMedia_QueryVideoProcPipelineCaps`: `DDI_CODEC_NUM_FWD_REF`, `DDI_CODEC_NUM_BK_REF` 0).
    struct DeinterlacingReferences: Sendable, Equatable {
        var past: Int
        var future: Int
    }

    /// Whether the driver lists `VAEntrypointVideoProc` for `VAProfileNone`.
    func listsVideoProcessing() -> Bool {
        var entrypoints = [VAEntrypoint](repeating: VAEntrypoint(0), count: Int(max(1, vaMaxNumEntrypoints(handle))))
        var count: Int32 = 0
        guard VAStatusCheck.succeeded(vaQueryConfigEntrypoints(handle, VAProfileNone, &entrypoints, &count)) else {
            return false
        }
        return entrypoints.prefix(Int(count)).contains(VAEntrypointVideoProc)
    }

    /// A video-processing configuration (`vaCreateConfig` on `VAProfileNone`,
    /// `VAEntrypointVideoProc`, no attributes: Mesa takes only the render-target format).
    func createProcessingConfig() -> Result<ConfigID, VAFailure> {
        var config = ConfigID(CVAAPI_INVALID_ID)
        let status = vaCreateConfig(handle, VAProfileNone, VAEntrypointVideoProc, nil, 0, &config)
        return VAStatusCheck.result(status, "vaCreateConfig") { config }
    }

    /// A video-processing context on `config` (`vaCreateContext` with no render targets, as
    /// FFmpeg's `vaapi_vpp.c` makes it).
    func createProcessingContext(_ config: ConfigID, width: Int, height: Int) -> Result<ContextID, VAFailure> {
        var context = ContextID(CVAAPI_INVALID_ID)
        let status = vaCreateContext(handle, config, Int32(width), Int32(height), 0, nil, 0, &context)
        return VAStatusCheck.result(status, "vaCreateContext") { context }
    }

    /// What the driver processes on `config` and `context` (Mesa answers the filter query only
    /// for a valid processing context).
    func processingCapabilities(config: ConfigID, context: ContextID) -> Result<ProcessingQuery, VAFailure> {
        var query = ProcessingQuery()
        query.outputFourCCs = surfacePixelFormats(config)
        var filters = [VAProcFilterType](repeating: VAProcFilterNone, count: Int(VAProcFilterCount.rawValue))
        var filterCount = UInt32(filters.count)
        let filterStatus = vaQueryVideoProcFilters(handle, context, &filters, &filterCount)
        guard VAStatusCheck.succeeded(filterStatus) else {
            return .failure(VAFailure(function: "vaQueryVideoProcFilters", status: filterStatus))
        }
        query.filters = filters.prefix(Int(filterCount)).map(\.rawValue)
        // The drivers point the colour-standard lists at their own arrays; i965 leaves the
        // rotation, mirroring and size fields as they were, so they start at zero.
        var caps = VAProcPipelineCaps()
        let status = vaQueryVideoProcPipelineCaps(handle, context, nil, 0, &caps)
        guard VAStatusCheck.succeeded(status) else {
            return .failure(VAFailure(function: "vaQueryVideoProcPipelineCaps", status: status))
        }
        let standards = { (list: UnsafeMutablePointer<VAProcColorStandardType>?, count: UInt32) -> [UInt32] in
            guard let list else { return [] }
            return UnsafeBufferPointer(start: list, count: Int(min(count, 64))).map(\.rawValue)
        }
        query.inputStandards = standards(caps.input_color_standards, caps.num_input_color_standards)
        query.outputStandards = standards(caps.output_color_standards, caps.num_output_color_standards)
        let maximum = min(caps.max_input_width, caps.max_input_height, caps.max_output_width, caps.max_output_height)
        let minimum = max(caps.min_input_width, caps.min_input_height, caps.min_output_width, caps.min_output_height)
        query.maximumSize = maximum > 0 ? Int(maximum) : nil
        query.minimumSize = minimum > 0 ? Int(minimum) : nil
        if query.filters.contains(VAProcFilterHighDynamicRangeToneMapping.rawValue) {
            query.toneMapsHDR10ToSDR = mapsHDR10ToSDR(context)
        }
        if query.filters.contains(VAProcFilterDeinterlacing.rawValue) {
            query.deinterlacingAlgorithms = deinterlacingAlgorithms(context)
            if query.deinterlacingAlgorithms.contains(VAProcDeinterlacingMotionAdaptive.rawValue) {
                query.motionAdaptiveReferences = deinterlacingReferences(context, VAProcDeinterlacingMotionAdaptive)
            }
        }
        return .success(query)
    }

    /// The references `algorithm` takes on `context`; nil when the question fails.
    private func deinterlacingReferences(
        _ context: ContextID, _ algorithm: VAProcDeinterlacingType
    ) -> DeinterlacingReferences? {
        var past: UInt32 = 0
        var future: UInt32 = 0
        let status = CVAAPI_query_deinterlacing_references(handle, context, algorithm, &past, &future)
        guard VAStatusCheck.succeeded(status) else { return nil }
        return DeinterlacingReferences(past: Int(min(past, 16)), future: Int(min(future, 16)))
    }

    /// The deinterlacing algorithms listed on `context`; none when the query fails.
    private func deinterlacingAlgorithms(_ context: ContextID) -> [UInt32] {
        var caps = [VAProcFilterCapDeinterlacing](
            repeating: VAProcFilterCapDeinterlacing(), count: Int(VAProcDeinterlacingCount.rawValue))
        var count = UInt32(caps.count)
        let status = vaQueryVideoProcFilterCaps(handle, context, VAProcFilterDeinterlacing, &caps, &count)
        guard VAStatusCheck.succeeded(status) else { return [] }
        return caps.prefix(Int(min(count, UInt32(caps.count)))).map(\.type.rawValue)
    }

    /// Whether the HDR tone mapping filter's caps on `context` include HDR10 → SDR; false when
    /// the query fails.
    private func mapsHDR10ToSDR(_ context: ContextID) -> Bool {
        var caps = [VAProcFilterCapHighDynamicRange](
            repeating: VAProcFilterCapHighDynamicRange(),
            count: Int(VAProcHighDynamicRangeMetadataTypeCount.rawValue))
        var count = UInt32(caps.count)
        let status = vaQueryVideoProcFilterCaps(
            handle, context, VAProcFilterHighDynamicRangeToneMapping, &caps, &count)
        guard VAStatusCheck.succeeded(status) else { return false }
        return caps.prefix(Int(min(count, UInt32(caps.count)))).contains {
            $0.metadata_type == VAProcHighDynamicRangeMetadataHDR10
                && Int32($0.caps_flag) & VA_TONE_MAPPING_HDR_TO_SDR != 0
        }
    }

    /// The pixel formats a configuration's surfaces may have (`vaQuerySurfaceAttributes`).
    private func surfacePixelFormats(_ config: ConfigID) -> [UInt32] {
        var count: UInt32 = 0
        guard VAStatusCheck.succeeded(vaQuerySurfaceAttributes(handle, config, nil, &count)), count > 0 else {
            return []
        }
        var attributes = [VASurfaceAttrib](repeating: VASurfaceAttrib(), count: Int(count))
        guard VAStatusCheck.succeeded(vaQuerySurfaceAttributes(handle, config, &attributes, &count)) else { return [] }
        return attributes.prefix(Int(count)).compactMap { attribute in
            guard Int32(attribute.type.rawValue) == CVAAPI_SURFACE_ATTRIB_PIXEL_FORMAT,
                attribute.value.type.rawValue == CVAAPI_GENERIC_VALUE_INTEGER
            else { return nil }
            return UInt32(bitPattern: attribute.value.value.i)
        }
    }

    /// One picture processed into `target` (``ProcessingRequest``): `vaBeginPicture`, a pipeline
    /// buffer, `vaRenderPicture`, `vaEndPicture`. The GPU works on; a read-back or export of
    /// `target` waits for it (`vaSyncSurface`).
    func process(_ request: ProcessingRequest, into target: SurfaceID, on context: ContextID) -> Result<
        Void, VAFailure
    > {
        var call: UnsafePointer<CChar>?
        var past = request.deinterlacing?.past ?? []
        var future = request.deinterlacing?.future ?? []
        let status = past.withUnsafeMutableBufferPointer { past in
            future.withUnsafeMutableBufferPointer { future in
                var parameters = CVAAPI_ProcessingRequest(
                    source: request.source, x: Int16(request.x), y: Int16(request.y), width: UInt16(request.width),
                    height: UInt16(request.height), source_standard: request.sourceColor.standard,
                    source_properties: request.sourceColor.properties, output_standard: request.outputColor.standard,
                    output_properties: request.outputColor.properties,
                    filter_flags: UInt32(request.highQualityScaling ? VA_FILTER_SCALING_HQ : VA_FILTER_SCALING_FAST),
                    tone_maps: request.toneMapping == nil ? 0 : 1,
                    hdr10: request.toneMapping?.libva ?? VAHdrMetaDataHDR10(),
                    deinterlacing: request.deinterlacing?.algorithm.libva ?? VAProcDeinterlacingNone,
                    deinterlacing_flags: request.deinterlacing?.flags ?? 0, past: past.baseAddress,
                    past_count: UInt32(past.count), future: future.baseAddress, future_count: UInt32(future.count))
                return CVAAPI_process_picture(handle, context, target, &parameters, &call)
            }
        }
        guard VAStatusCheck.succeeded(status) else {
            let function: StaticString =
                switch call.map({ String(cString: $0) }) {
                case "vaBeginPicture": "vaBeginPicture"
                case "vaCreateBuffer": "vaCreateBuffer"
                case "vaRenderPicture": "vaRenderPicture"
                default: "vaEndPicture"
                }
            return .failure(VAFailure(function: function, status: status))
        }
        return .success(())
    }
}

extension Display.ProcessingQuery {
    /// Whether the driver lists `VAProcDeinterlacingBob`.
    var listsBobDeinterlacing: Bool { deinterlacingAlgorithms.contains(VAProcDeinterlacingBob.rawValue) }

    /// Whether the driver lists `VAProcDeinterlacingMotionAdaptive`.
    var listsMotionAdaptiveDeinterlacing: Bool {
        deinterlacingAlgorithms.contains(VAProcDeinterlacingMotionAdaptive.rawValue)
    }

    /// libva's name of a `VAProcFilterType` without its prefix: `"Deinterlacing"`.
    static func filterName(_ value: UInt32) -> String {
        let names: [UInt32: String] = [
            VAProcFilterNoiseReduction.rawValue: "NoiseReduction", VAProcFilterDeinterlacing.rawValue: "Deinterlacing",
            VAProcFilterSharpening.rawValue: "Sharpening", VAProcFilterColorBalance.rawValue: "ColorBalance",
            VAProcFilterSkinToneEnhancement.rawValue: "SkinToneEnhancement",
            VAProcFilterTotalColorCorrection.rawValue: "TotalColorCorrection",
            VAProcFilterHVSNoiseReduction.rawValue: "HVSNoiseReduction",
            VAProcFilterHighDynamicRangeToneMapping.rawValue: "HighDynamicRangeToneMapping",
            VAProcFilter3DLUT.rawValue: "3DLUT",
        ]
        return names[value] ?? "filter \(value)"
    }

    /// libva's name of a `VAProcDeinterlacingType` without its prefix: `"Bob"`.
    static func deinterlacingName(_ value: UInt32) -> String {
        let names: [UInt32: String] = [
            VAProcDeinterlacingBob.rawValue: "Bob", VAProcDeinterlacingWeave.rawValue: "Weave",
            VAProcDeinterlacingMotionAdaptive.rawValue: "MotionAdaptive",
            VAProcDeinterlacingMotionCompensated.rawValue: "MotionCompensated",
        ]
        return names[value] ?? "deinterlacing \(value)"
    }

    /// libva's name of a `VAProcColorStandardType` without its prefix: `"BT709"`.
    static func colorStandardName(_ value: UInt32) -> String {
        let names: [UInt32: String] = [
            VAProcColorStandardNone.rawValue: "None", VAProcColorStandardBT601.rawValue: "BT601",
            VAProcColorStandardBT709.rawValue: "BT709", VAProcColorStandardBT470M.rawValue: "BT470M",
            VAProcColorStandardBT470BG.rawValue: "BT470BG", VAProcColorStandardSMPTE170M.rawValue: "SMPTE170M",
            VAProcColorStandardSMPTE240M.rawValue: "SMPTE240M", VAProcColorStandardGenericFilm.rawValue: "GenericFilm",
            VAProcColorStandardSRGB.rawValue: "SRGB", VAProcColorStandardSTRGB.rawValue: "STRGB",
            VAProcColorStandardXVYCC601.rawValue: "XVYCC601", VAProcColorStandardXVYCC709.rawValue: "XVYCC709",
            VAProcColorStandardBT2020.rawValue: "BT2020", VAProcColorStandardExplicit.rawValue: "Explicit",
        ]
        return names[value] ?? "standard \(value)"
    }
}

/// A picture for ``Display/process(_:into:on:)``: which rectangle of which surface, its colour
/// and the colour wanted, and the scaling quality.
struct ProcessingRequest: Sendable {
    var source: Display.SurfaceID
    var x = 0
    var y = 0
    var width: Int
    var height: Int
    var sourceColor: ProcessingColor
    var outputColor: ProcessingColor
    /// `VA_FILTER_SCALING_HQ` (the CPU path's bicubic, on the test driver) rather than `_FAST`.
    var highQualityScaling = true
    /// The HDR10 metadata to tone map the picture to SDR with; nil: no tone mapping.
    var toneMapping: HDR10Metadata?
    /// Deinterlace the picture; nil: no deinterlacing.
    var deinterlacing: DeinterlacingRequest?
}

/// One progressive picture of one field of an interlaced frame, by a VA deinterlacer.
struct DeinterlacingRequest: Sendable {
    /// The deinterlacers VAToolbox uses.
    enum Algorithm: Sendable {
        /// `VAProcDeinterlacingBob`: the field alone.
        case bob
        /// `VAProcDeinterlacingMotionAdaptive`: the field with the pictures around it.
        case motionAdaptive

        fileprivate var libva: VAProcDeinterlacingType {
            switch self {
            case .bob: VAProcDeinterlacingBob
            case .motionAdaptive: VAProcDeinterlacingMotionAdaptive
            }
        }
    }

    var algorithm: Algorithm
    /// The frame's bottom field comes first.
    var bottomFieldFirst: Bool
    /// The frame's second field is the one deinterlaced, rather than its first.
    var secondField = false
    /// The surfaces of the pictures before and after it, nearest first, as many as the driver
    /// takes and there are (fewer at a sequence's ends).
    var past: [Display.SurfaceID] = []
    var future: [Display.SurfaceID] = []

    /// The `VA_DEINTERLACING_*` flags, as FFmpeg's `deinterlace_vaapi` sets them:
    /// `BOTTOM_FIELD_FIRST` for a bottom-field-first frame, `BOTTOM_FIELD` when the field
    /// deinterlaced is the bottom one (the first of a bottom-field-first frame, the second of a
    /// top-field-first one).
    fileprivate var flags: UInt32 {
        var flags: Int32 = bottomFieldFirst ? VA_DEINTERLACING_BOTTOM_FIELD_FIRST : 0
        if bottomFieldFirst != secondField { flags |= VA_DEINTERLACING_BOTTOM_FIELD }
        return UInt32(flags)
    }
}

/// A picture's HDR10 metadata as VA's tone mapping filter takes it (`VAHdrMetaDataHDR10`):
/// the mastering display in H.265's units (primaries green, blue, red in steps of 0.00002,
/// luminance in steps of 0.0001 cd/m²) and the content light level in cd/m² (0 when unknown).
struct HDR10Metadata: Sendable {
    /// x, y of green, blue, red.
    var primaries: [(x: UInt16, y: UInt16)]
    var whitePoint: (x: UInt16, y: UInt16)
    var maximumLuminance: UInt32
    var minimumLuminance: UInt32
    var maximumContentLightLevel: UInt16
    var maximumFrameAverageLightLevel: UInt16

    fileprivate var libva: VAHdrMetaDataHDR10 {
        var metadata = VAHdrMetaDataHDR10()
        let point = { (index: Int) -> (x: UInt16, y: UInt16) in index < primaries.count ? primaries[index] : (0, 0) }
        metadata.display_primaries_x = (point(0).x, point(1).x, point(2).x)
        metadata.display_primaries_y = (point(0).y, point(1).y, point(2).y)
        metadata.white_point_x = whitePoint.x
        metadata.white_point_y = whitePoint.y
        metadata.max_display_mastering_luminance = maximumLuminance
        metadata.min_display_mastering_luminance = minimumLuminance
        metadata.max_content_light_level = maximumContentLightLevel
        metadata.max_pic_average_light_level = maximumFrameAverageLightLevel
        return metadata
    }
}

/// A side's colour as VA video processing takes it: a standard and, for
/// `VAProcColorStandardExplicit`, the H.273 code points, with the range and chroma siting.
struct ProcessingColor: Sendable {
    /// The colour standards VAToolbox names.
    enum Standard: Sendable, Hashable, CaseIterable {
        case bt601, bt709, bt2020, explicit

        /// The `VAProcColorStandardType` value.
        var libva: UInt32 {
            switch self {
            case .bt601: VAProcColorStandardBT601.rawValue
            case .bt709: VAProcColorStandardBT709.rawValue
            case .bt2020: VAProcColorStandardBT2020.rawValue
            case .explicit: VAProcColorStandardExplicit.rawValue
            }
        }

        /// libva's name without its prefix: `"BT709"`.
        var name: String {
            switch self {
            case .bt601: "BT601"
            case .bt709: "BT709"
            case .bt2020: "BT2020"
            case .explicit: "Explicit"
            }
        }
    }

    var colorStandard: Standard
    /// H.273 matrix coefficients, colour primaries and transfer characteristics (for
    /// ``Standard/explicit``; informative otherwise).
    var matrix: UInt8
    var primaries: UInt8
    var transfer: UInt8
    var fullRange: Bool
    /// `VA_CHROMA_SITING_*`: vertical | horizontal, 0 unknown.
    var chromaSiting: UInt8 = 0

    /// The VA chroma siting of libavutil's `AVChromaLocation` (H.273's chroma sample location
    /// type + 1), as FFmpeg's `vaapi_vpp.c` maps it; unknown for an unspecified location.
    static func chromaSiting(ofLocation location: Int) -> UInt8 {
        let (top, center, bottom) = (
            VA_CHROMA_SITING_VERTICAL_TOP, VA_CHROMA_SITING_VERTICAL_CENTER, VA_CHROMA_SITING_VERTICAL_BOTTOM
        )
        let (left, middle) = (VA_CHROMA_SITING_HORIZONTAL_LEFT, VA_CHROMA_SITING_HORIZONTAL_CENTER)
        let sitings: [Int: Int32] = [
            1: center | left, 2: center | middle, 3: top | left, 4: top | middle, 5: bottom | left, 6: bottom | middle,
        ]
        return UInt8(sitings[location] ?? VA_CHROMA_SITING_UNKNOWN)
    }

    fileprivate var standard: VAProcColorStandardType { VAProcColorStandardType(rawValue: colorStandard.libva) }

    fileprivate var properties: VAProcColorProperties {
        var properties = VAProcColorProperties()
        properties.chroma_sample_location = chromaSiting
        properties.color_range = fullRange ? CVAAPI_RANGE_FULL : CVAAPI_RANGE_REDUCED
        properties.colour_primaries = primaries
        properties.transfer_characteristics = transfer
        properties.matrix_coefficients = matrix
        return properties
    }
}
