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
        return .success(query)
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
        var parameters = CVAAPI_ProcessingRequest(
            source: request.source, x: Int16(request.x), y: Int16(request.y), width: UInt16(request.width),
            height: UInt16(request.height), source_standard: request.sourceColor.standard,
            source_properties: request.sourceColor.properties, output_standard: request.outputColor.standard,
            output_properties: request.outputColor.properties,
            filter_flags: UInt32(request.highQualityScaling ? VA_FILTER_SCALING_HQ : VA_FILTER_SCALING_FAST))
        let status = CVAAPI_process_picture(handle, context, target, &parameters, &call)
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
