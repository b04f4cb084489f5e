/// Converts GPU surfaces on the GPU through VA video processing (`VAEntrypointVideoProc`): what
/// FFmpeg's `scale_vaapi` and GStreamer's `vapostproc` do, and what a ``PixelTransferSession``
/// or a session's image-buffer attributes use for a GPU picture when the driver can.
///
/// One picture at a time: `vaBeginPicture` on a processing context, a pipeline buffer naming the
/// source surface, its visible rectangle (the crop), its colour standard, range and chroma siting
/// from the picture's tags, the output's, and `VA_FILTER_SCALING_HQ`; then `vaEndPicture`. The
/// output surface comes from a pool this processor owns (``ProcessedFramePool``) and stays on the
/// GPU: a lock reads it back, ``PixelBuffer/exportDMABuf(separateLayers:)`` shares it. The same
/// call tone maps HDR10 to SDR (`VAProcFilterHighDynamicRangeToneMapping`, ``ToneMapping``) when
/// asked, and a session's field mode deinterlaces with `VAProcDeinterlacingBob`
/// (``deinterlace(_:)``), each where the driver lists the filter.
///
/// It refuses — and the CPU converts — what the driver cannot do as the CPU would (the reason is
/// the ``PixelTransferPath/cpu(reason:)`` reported):
/// - no video processing (nvidia-vaapi-driver: no `VAProfileNone`, libva answers the VPP queries
///   `VA_STATUS_ERROR_UNIMPLEMENTED`);
/// - an output format the driver does not list for its processing configuration, or one
///   VAToolbox has no surface format for (BGRA, NV12 and P010 are made on the GPU);
/// - a colour standard it does not list (i965 lists BT.601 only);
/// - i965 at all: it converts every picture as BT.601 limited range whatever the pipeline says
///   (intel-vaapi-driver `gen8_post_processing.c` `gen8_pp_plx_avs_initialize` takes the matrix
///   from the surface's `VA_SRC_COLOR_MASK` flags, which its VPP path never sets), so even a
///   BT.601 full-range picture would come out wrong;
/// - a size outside the driver's limits;
/// - and, after any processing call fails, every later picture (the driver is not trusted again).
final class VideoProcessor: SurfaceProcessing {
    private let device: VADevice
    /// The processing configuration and context, made at the first picture; nil before.
    private var session: (config: Display.ConfigID, context: Display.ContextID)?
    private var capabilities: Display.ProcessingQuery?
    /// The output pools of the current format and size, oldest first: another is made when the
    /// application holds every surface of those before, up to ``maximumPools``.
    private var pools: [ProcessedFramePool] = []
    /// Why nothing more is converted here, once that is known for every picture.
    private var broken: String?

    init(device: VADevice) {
        self.device = device
    }

    deinit {
        pools.removeAll()
        if let session {
            device.display.destroyContext(session.context)
            device.display.destroyConfig(session.config)
        }
    }

    func process(
        _ image: PixelBuffer, to format: PixelFormat, width: Int, height: Int, minimumBufferCount: Int,
        toneMapping: Bool
    ) -> Result<PixelBuffer, SurfaceProcessingRefusal> {
        do throws(SurfaceProcessingRefusal) {
            return .success(
                try convert(
                    image, to: format, width: width, height: height, minimumBufferCount: minimumBufferCount,
                    toneMapping: toneMapping))
        } catch {
            return .failure(error)
        }
    }

    func deinterlace(_ image: PixelBuffer) -> Result<PixelBuffer, SurfaceProcessingRefusal> {
        do throws(SurfaceProcessingRefusal) {
            return .success(try deinterlaced(image))
        } catch {
            return .failure(error)
        }
    }

    /// `image` deinterlaced by `VAProcDeinterlacingBob` into a surface of its own format and size
    /// (its first field, as FFmpeg's `deinterlace_vaapi` flags it at frame rate).
    private func deinterlaced(_ image: PixelBuffer) throws(SurfaceProcessingRefusal) -> PixelBuffer {
        let capabilities = try startDeinterlacing(image)
        guard capabilities.listsBobDeinterlacing else {
            throw SurfaceProcessingRefusal(
                reason: "the \(device.quirks.driver.rawValue) driver's video processing does not list Bob deinterlacing"
            )
        }
        var request = try sourceRequest(of: image)
        request.deinterlacing = DeinterlacingRequest(
            algorithm: .bob, bottomFieldFirst: !image.attachments.topFieldFirst)
        return try run(
            request, from: image, into: .nv12, image.pixelFormat, image.width, image.height, 0, deinterlaced: true)
    }

    /// What the driver processes, for deinterlacing `image` on the GPU: an 8-bit 4:2:0 picture
    /// within the driver's limits.
    private func startDeinterlacing(_ image: PixelBuffer) throws(SurfaceProcessingRefusal) -> Display.ProcessingQuery {
        if let broken { throw SurfaceProcessingRefusal(reason: broken) }
        guard image.pixelFormat == .nv12VideoRange || image.pixelFormat == .nv12FullRange else {
            throw SurfaceProcessingRefusal(reason: "VAToolbox deinterlaces 8-bit 4:2:0 pictures on the GPU only")
        }
        let capabilities = try start(width: image.width, height: image.height)
        try Self.checkSides([image.width, image.height], capabilities)
        return capabilities
    }

    func temporalDeinterlacingReferences(
        for image: PixelBuffer
    ) -> Result<TemporalDeinterlacingReferences, SurfaceProcessingRefusal> {
        do throws(SurfaceProcessingRefusal) {
            let capabilities = try startDeinterlacing(image)
            let driver = device.quirks.driver.rawValue
            guard capabilities.listsMotionAdaptiveDeinterlacing else {
                throw SurfaceProcessingRefusal(
                    reason: "the \(driver) driver's video processing does not list motion-adaptive deinterlacing")
            }
            guard let references = capabilities.motionAdaptiveReferences else {
                throw SurfaceProcessingRefusal(
                    reason: "the \(driver) driver did not say which pictures its motion-adaptive deinterlacing takes")
            }
            // bwdif and yadif read the next picture; a deinterlacer that takes none (iHD: its
            // video engine keeps the previous field itself) computes something else.
            guard references.future > 0 else {
                throw SurfaceProcessingRefusal(
                    reason:
                        "the \(driver) driver's motion-adaptive deinterlacing takes no next picture, which bwdif needs")
            }
            return .success(TemporalDeinterlacingReferences(past: references.past, future: references.future))
        } catch {
            return .failure(error)
        }
    }

    func deinterlaceTemporally(
        _ image: PixelBuffer, secondField: Bool, past: [PixelBuffer], future: [PixelBuffer]
    ) -> Result<PixelBuffer, SurfaceProcessingRefusal> {
        do throws(SurfaceProcessingRefusal) {
            _ = try startDeinterlacing(image)
            var request = try sourceRequest(of: image)
            var deinterlacing = DeinterlacingRequest(
                algorithm: .motionAdaptive, bottomFieldFirst: !image.attachments.topFieldFirst,
                secondField: secondField)
            for (pictures, isPast) in [(past, true), (future, false)] {
                let surfaces = pictures.compactMap(\.vaSurface)
                guard surfaces.count == pictures.count else {
                    throw SurfaceProcessingRefusal(reason: "a picture next to it is not a GPU surface")
                }
                if isPast { deinterlacing.past = surfaces } else { deinterlacing.future = surfaces }
            }
            request.deinterlacing = deinterlacing
            return .success(
                try run(
                    request, from: image, into: .nv12, image.pixelFormat, image.width, image.height, 0,
                    deinterlaced: true))
        } catch {
            return .failure(error)
        }
    }

    /// The request for `image` as it is: its surface, visible rectangle and colour on both sides.
    private func sourceRequest(of image: PixelBuffer) throws(SurfaceProcessingRefusal) -> ProcessingRequest {
        do throws(VTError) {
            return try image.withSurface { (frame) throws(VTError) -> ProcessingRequest in
                guard let frame else { throw VTError.parameter.with("not a GPU surface") }
                return ProcessingRequest(
                    source: SurfaceFrame.surface(of: frame.pointer), x: frame.cropLeft, y: frame.cropTop,
                    width: frame.width - frame.cropLeft, height: frame.height - frame.cropTop,
                    sourceColor: Self.color(of: frame), outputColor: Self.color(of: frame))
            }
        } catch {
            throw SurfaceProcessingRefusal(reason: error.reason)
        }
    }

    private func convert(
        _ image: PixelBuffer, to format: PixelFormat, width: Int, height: Int, minimumBufferCount: Int,
        toneMapping: Bool
    ) throws(SurfaceProcessingRefusal) -> PixelBuffer {
        if let broken { throw SurfaceProcessingRefusal(reason: broken) }
        guard let surfaceFormat = Self.surfaceFormat(of: format) else {
            throw SurfaceProcessingRefusal(reason: "VA video processing does not make \(format) pictures here")
        }
        let capabilities = try start(width: width, height: height)
        guard capabilities.outputFourCCs.contains(surfaceFormat.fourCC) else {
            throw SurfaceProcessingRefusal(
                reason: "the \(device.quirks.driver.rawValue) driver's video processing does not write \(format)")
        }
        try Self.checkSides([width, height, image.width, image.height], capabilities)
        let request = try sourceRequest(of: image)
        var processing = request
        if toneMapping {
            processing.toneMapping = try toneMappingMetadata(of: image, capabilities)
            processing.outputColor = try toneMappedColor(for: request.sourceColor, format: format, capabilities)
        } else {
            processing.outputColor = try outputColor(for: request.sourceColor, format: format, capabilities)
        }
        return try run(processing, from: image, into: surfaceFormat, format, width, height, minimumBufferCount)
    }

    /// The HDR10 metadata VA's tone mapping filter is given for `image`, or why the GPU does not
    /// tone map it: a driver without the filter's HDR10 → SDR cap (Mesa, i965), a picture that is
    /// not PQ (the filter takes HDR10 only; HLG is mapped on the CPU), or one without a
    /// mastering display (FFmpeg's `tonemap_vaapi` refuses those too: the driver's curve needs it).
    private func toneMappingMetadata(
        of image: PixelBuffer, _ capabilities: Display.ProcessingQuery
    ) throws(SurfaceProcessingRefusal) -> HDR10Metadata {
        guard capabilities.toneMapsHDR10ToSDR else {
            throw SurfaceProcessingRefusal(
                reason: "the \(device.quirks.driver.rawValue) driver's video processing does not tone map HDR10 to SDR")
        }
        let attachments = image.attachments
        guard attachments.transferFunction == .pq else {
            throw SurfaceProcessingRefusal(
                reason: "VA video processing tone maps HDR10 (PQ) pictures only; HLG is tone mapped on the CPU")
        }
        guard let display = attachments.masteringDisplayColorVolume else {
            throw SurfaceProcessingRefusal(
                reason: "the picture has no mastering display metadata, which VA tone mapping needs")
        }
        let light = attachments.contentLightLevel
        return HDR10Metadata(
            primaries: [display.green, display.blue, display.red].map { ($0.xCode, $0.yCode) },
            whitePoint: (display.whitePoint.xCode, display.whitePoint.yCode),
            maximumLuminance: display.maximumLuminanceCode, minimumLuminance: display.minimumLuminanceCode,
            maximumContentLightLevel: light?.maximumContentLightLevel ?? 0,
            maximumFrameAverageLightLevel: light?.maximumFrameAverageLightLevel ?? 0)
    }

    /// Refuses picture sides outside the driver's limits.
    private static func checkSides(
        _ sides: [Int], _ capabilities: Display.ProcessingQuery
    ) throws(SurfaceProcessingRefusal) {
        if let maximum = capabilities.maximumSize, let largest = sides.max(), largest > maximum {
            throw SurfaceProcessingRefusal(reason: "the driver processes pictures up to \(maximum) pixels wide")
        }
        if let minimum = capabilities.minimumSize, let smallest = sides.min(), smallest < minimum {
            throw SurfaceProcessingRefusal(reason: "the driver processes pictures from \(minimum) pixels wide")
        }
    }

    /// The output side of a tone-mapped picture: SDR BT.709 (standard, primaries, transfer and
    /// matrix), the range the FourCC names, from a BT.2020 source.
    private func toneMappedColor(
        for source: ProcessingColor, format: PixelFormat, _ capabilities: Display.ProcessingQuery
    ) throws(SurfaceProcessingRefusal) -> ProcessingColor {
        guard source.colorStandard == .bt2020, capabilities.inputStandards.contains(source.colorStandard.libva),
            capabilities.outputStandards.contains(ProcessingColor.Standard.bt709.libva)
        else {
            throw SurfaceProcessingRefusal(
                reason: "VA tone mapping takes BT.2020 pictures into BT.709, which this picture or driver does not give"
            )
        }
        var output = source
        output.colorStandard = .bt709
        output.matrix = 1
        output.primaries = 1
        output.transfer = 1
        output.fullRange = format.isFullRange
        return output
    }

    /// Makes the processing configuration and context, and asks what they process, at the first
    /// picture.
    private func start(width: Int, height: Int) throws(SurfaceProcessingRefusal) -> Display.ProcessingQuery {
        if let capabilities { return capabilities }
        if let refusal = Self.refusal(of: device) {
            broken = refusal
            throw SurfaceProcessingRefusal(reason: refusal)
        }
        switch Self.open(device, width: width, height: height) {
        case .success(let opened):
            device.faults?.passThrough(processingContext: opened.context)
            session = (opened.config, opened.context)
            capabilities = opened.query
            return opened.query
        case .failure(let error):
            let reason = Self.reason(error)
            broken = reason
            throw SurfaceProcessingRefusal(reason: reason)
        }
    }

    /// Why VAToolbox does not process on `device` at all, before asking it anything; nil when it
    /// may.
    static func refusal(of device: VADevice) -> String? {
        if device.quirks.driver == .intelI965 {
            return "the i965 driver converts every picture as BT.601 limited range, whatever its colours "
                + "(intel-vaapi-driver gen8_pp_plx_avs_initialize)"
        }
        if !device.display.listsVideoProcessing() {
            return "the \(device.quirks.driver.rawValue) driver has no video processing (no VAEntrypointVideoProc)"
        }
        return nil
    }

    /// A processing configuration and context on `device`, and what they process; the caller
    /// destroys them.
    private static func open(_ device: VADevice, width: Int, height: Int) -> Result<
        (config: Display.ConfigID, context: Display.ContextID, query: Display.ProcessingQuery), VTError
    > {
        let display = device.display
        do throws(VTError) {
            let config = try display.createProcessingConfig().get(
                as: .pixelTransferNotSupported, "the driver refused a video processing configuration")
            guard case .success(let context) = display.createProcessingContext(config, width: width, height: height)
            else {
                display.destroyConfig(config)
                throw VTError.pixelTransferNotSupported.with("the driver refused a video processing context")
            }
            switch display.processingCapabilities(config: config, context: context) {
            case .success(let query): return .success((config, context, query))
            case .failure(let failure):
                display.destroyContext(context)
                display.destroyConfig(config)
                throw failure.error(as: .pixelTransferNotSupported, "the driver did not say what it processes")
            }
        } catch {
            return .failure(error)
        }
    }

    /// What `device`'s video processing offers, asked on a configuration and context made for
    /// the question and destroyed after.
    static func capabilities(of device: VADevice) -> VideoProcessingCapabilities {
        let refusal = refusal(of: device)
        guard refusal == nil || device.display.listsVideoProcessing() else {
            return VideoProcessingCapabilities(unavailableReason: refusal ?? "")
        }
        switch open(device, width: 64, height: 64) {
        case .success(let opened):
            device.display.destroyContext(opened.context)
            device.display.destroyConfig(opened.config)
            return VideoProcessingCapabilities(opened.query, unavailableReason: refusal)
        case .failure(let error):
            return VideoProcessingCapabilities(unavailableReason: reason(error))
        }
    }

    private static func reason(_ error: VTError) -> String {
        error.cause.map { "\(error.reason) (\($0.function): \($0.message))" } ?? error.reason
    }

    /// The output side's colour: the source's standard, the range the format names; for RGB,
    /// the identity matrix where the standard is explicit.
    private func outputColor(
        for source: ProcessingColor, format: PixelFormat, _ capabilities: Display.ProcessingQuery
    ) throws(SurfaceProcessingRefusal) -> ProcessingColor {
        let standard = source.colorStandard
        guard capabilities.inputStandards.contains(standard.libva) else {
            throw SurfaceProcessingRefusal(
                reason: "the driver's video processing does not take \(standard.name) pictures (it lists "
                    + Self.names(of: capabilities.inputStandards) + ")")
        }
        guard capabilities.outputStandards.contains(standard.libva) else {
            throw SurfaceProcessingRefusal(
                reason: "the driver's video processing does not write \(standard.name) (it lists "
                    + Self.names(of: capabilities.outputStandards) + ")")
        }
        var output = source
        output.fullRange = format.isFullRange
        if format == .bgra && standard == .explicit { output.matrix = 0 }
        return output
    }

    /// Processes into a free surface of the pools (remade for a new format or size; another pool
    /// when the application holds every surface of those there are). When it holds every surface
    /// of ``maximumPools`` pools, this picture is converted on the CPU and the next ones try again.
    private func run(
        _ request: ProcessingRequest, from image: PixelBuffer, into surfaceFormat: SurfaceFormat, _ format: PixelFormat,
        _ width: Int, _ height: Int, _ minimumBufferCount: Int, deinterlaced: Bool = false
    ) throws(SurfaceProcessingRefusal) -> PixelBuffer {
        guard let session else { throw SurfaceProcessingRefusal(reason: "no video processing context") }
        if let first = pools.first, first.format != surfaceFormat || first.width != width || first.height != height {
            pools.removeAll()
        }
        let count = max(minimumBufferCount, Self.poolSize)
        var picture: PixelBuffer?
        do throws(VTError) {
            let marks = Marks(toneMapped: request.toneMapping != nil, deinterlaced: deinterlaced)
            for pool in pools where picture == nil { picture = try nextPicture(from: pool, like: image, format, marks) }
            if picture == nil, pools.count < Self.maximumPools {
                let fresh = try ProcessedFramePool(
                    device: device, format: surfaceFormat, width: width, height: height, count: count)
                pools.append(fresh)
                picture = try nextPicture(from: fresh, like: image, format, marks)
            }
        } catch {
            let reason = Self.reason(error)
            broken = reason
            throw SurfaceProcessingRefusal(reason: reason)
        }
        guard let output = picture, let target = output.vaSurface else {
            throw SurfaceProcessingRefusal(
                reason: "the application holds all \(pools.count * count) converted GPU pictures this session keeps")
        }
        do throws(VTError) {
            try device.display.process(request, into: target, on: session.context).get(
                as: .pixelTransferNotSupported, "the driver failed to process the picture")
            return output
        } catch {
            let reason = Self.reason(error)
            broken = reason
            throw SurfaceProcessingRefusal(reason: reason)
        }
    }

    /// What a processed picture's properties say beyond its source's.
    private struct Marks {
        /// SDR BT.709, without HDR metadata.
        var toneMapped: Bool
        /// Progressive.
        var deinterlaced: Bool
    }

    /// A pixel buffer of a free surface of `pool`, with `image`'s properties (changed as `marks`
    /// says), to process `image` into; nil when every surface of the pool is held.
    private func nextPicture(
        from pool: ProcessedFramePool, like image: PixelBuffer, _ format: PixelFormat, _ marks: Marks
    ) throws(VTError) -> PixelBuffer? {
        try image.withSurface { (frame) throws(VTError) -> PixelBuffer? in
            guard let frame, let output = try pool.nextFrame(like: frame, fullRange: format.isFullRange) else {
                return nil
            }
            if marks.toneMapped { output.frame.markToneMappedToSDR() }
            if marks.deinterlaced { output.frame.markProgressive() }
            return PixelBuffer(taking: output, pixelFormat: format, surfaceAccess: device)
        }
    }

    /// Surfaces per output pool when the attributes ask for no more: the pictures a consumer
    /// typically holds (displayed, queued, being drawn) and one being processed.
    static let poolSize = 6
    /// The most output pools at once: 24 surfaces by default (200 MiB of 1080p BGRA) before the
    /// pictures an application keeps are converted into CPU memory instead.
    static let maximumPools = 4

    /// The surface format VA video processing writes for `format`; nil for formats it does not
    /// make here (planar ones: the CPU makes those).
    static func surfaceFormat(of format: PixelFormat) -> SurfaceFormat? {
        switch format {
        case .bgra: .bgra
        case .nv12VideoRange, .nv12FullRange: .nv12
        case .p010VideoRange, .p010FullRange: .p010
        default: nil
        }
    }

    /// A picture's colour as VA video processing takes it: BT.709, BT.601 (also for an
    /// unspecified matrix, as libswscale and the CPU path take it), BT.2020, or the explicit
    /// H.273 matrix.
    static func color(of frame: Frame) -> ProcessingColor {
        let matrix = frame.matrixCoefficients
        let standard: ProcessingColor.Standard =
            switch matrix {
            case 1: .bt709
            case 2, 5, 6: .bt601
            case 9: .bt2020
            default: .explicit
            }
        return ProcessingColor(
            colorStandard: standard, matrix: UInt8(clamping: matrix), primaries: UInt8(clamping: frame.colourPrimaries),
            transfer: UInt8(clamping: frame.transferCharacteristics), fullRange: frame.isFullRange,
            chromaSiting: ProcessingColor.chromaSiting(ofLocation: frame.chromaLocation))
    }

    private static func names(of standards: [UInt32]) -> String {
        let names = standards.compactMap { value in ProcessingColor.Standard.allCases.first { $0.libva == value }?.name
        }
        return names.isEmpty ? "none VAToolbox names" : names.joined(separator: ", ")
    }
}

extension VADevice {
    func makeProcessor() -> any SurfaceProcessing { VideoProcessor(device: self) }

    /// What this device converts on its GPU through VA video processing, and whether VAToolbox
    /// uses it (asked anew at each call: a processing configuration and context are made and
    /// destroyed).
    public func videoProcessingCapabilities() -> VideoProcessingCapabilities {
        VideoProcessor.capabilities(of: self)
    }
}
