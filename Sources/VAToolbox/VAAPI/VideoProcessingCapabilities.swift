/// What a device converts on its GPU through VA-API video processing (`VAEntrypointVideoProc`):
/// what its driver lists, and what VAToolbox uses of it (``VADevice/videoProcessingCapabilities()``,
/// `vatoolbox devices`).
public struct VideoProcessingCapabilities: Sendable, Hashable {
    /// Why VAToolbox converts nothing on this device's GPU — a driver without video processing
    /// (nvidia-vaapi-driver), one whose conversions ignore the colour standard (i965), or a
    /// driver that refused the processing configuration; nil when it converts there.
    public let unavailableReason: String?
    /// The formats VAToolbox has the GPU convert to: those of ``PixelFormat/bgra``,
    /// ``PixelFormat/nv12VideoRange`` (and full range) and ``PixelFormat/p010VideoRange`` the
    /// driver writes. Empty when ``unavailableReason`` is set.
    public let outputPixelFormats: [PixelFormat]
    /// Every surface format the driver's processing writes, as its FourCC (`"NV12"`, `"RGBA"`, …),
    /// in the driver's order.
    public let outputFourCCs: [String]
    /// The filters it lists, libva's names without their prefix (`"Deinterlacing"`, …).
    public let filters: [String]
    /// The colour standards it takes in (`"BT601"`, `"BT709"`, …).
    public let inputColorStandards: [String]
    /// The colour standards it writes.
    public let outputColorStandards: [String]
    /// The largest picture side in and out, when the driver says.
    public let maximumSize: Int?
    /// The smallest picture side in and out, when the driver says.
    public let minimumSize: Int?
    /// Whether VAToolbox tone maps HDR10 pictures to SDR on this GPU
    /// (``ImageBufferAttributes/toneMapsHDRToSDR``): the driver lists
    /// `VAProcFilterHighDynamicRangeToneMapping` with an HDR10 → SDR cap (iHD) and converts here.
    public let toneMapsHDR10ToSDR: Bool
    /// The deinterlacing algorithms it lists, libva's names without their prefix (`"Bob"`,
    /// `"MotionAdaptive"`, …).
    public let deinterlacingAlgorithms: [String]
    /// How many pictures before and after each its motion-adaptive deinterlacing takes; nil
    /// where it is not listed.
    public let motionAdaptiveReferences: References?
    /// Whether a ``Deinterlacer``'s bwdif runs on this GPU: the driver lists motion-adaptive
    /// deinterlacing, it takes the next picture (Mesa's; not iHD's), and VAToolbox processes here.
    public let deinterlacesWithBwdif: Bool

    /// How many pictures before and after the one deinterlaced a deinterlacer takes
    /// (`vaQueryVideoProcPipelineCaps` with its filter).
    public struct References: Sendable, Hashable {
        /// Pictures before it (`num_forward_references`).
        public let before: Int
        /// Pictures after it (`num_backward_references`).
        public let after: Int
    }

    init(unavailableReason: String) {
        self.unavailableReason = unavailableReason
        outputPixelFormats = []
        outputFourCCs = []
        filters = []
        inputColorStandards = []
        outputColorStandards = []
        maximumSize = nil
        minimumSize = nil
        toneMapsHDR10ToSDR = false
        deinterlacingAlgorithms = []
        motionAdaptiveReferences = nil
        deinterlacesWithBwdif = false
    }

    init(_ query: Display.ProcessingQuery, unavailableReason: String?) {
        self.unavailableReason = unavailableReason
        outputPixelFormats =
            unavailableReason != nil
            ? []
            : [PixelFormat.bgra, .nv12VideoRange, .p010VideoRange].filter { format in
                VideoProcessor.surfaceFormat(of: format).map { query.outputFourCCs.contains($0.fourCC) } ?? false
            }
        outputFourCCs = query.outputFourCCs.map(Self.text(ofFourCC:))
        filters = query.filters.map(Display.ProcessingQuery.filterName)
        inputColorStandards = query.inputStandards.map(Display.ProcessingQuery.colorStandardName)
        outputColorStandards = query.outputStandards.map(Display.ProcessingQuery.colorStandardName)
        maximumSize = query.maximumSize
        minimumSize = query.minimumSize
        toneMapsHDR10ToSDR = unavailableReason == nil && query.toneMapsHDR10ToSDR
        deinterlacingAlgorithms = query.deinterlacingAlgorithms.map(Display.ProcessingQuery.deinterlacingName)
        motionAdaptiveReferences = query.motionAdaptiveReferences.map { References(before: $0.past, after: $0.future) }
        deinterlacesWithBwdif =
            unavailableReason == nil && query.listsMotionAdaptiveDeinterlacing
            && (query.motionAdaptiveReferences?.future ?? 0) > 0
    }

    /// A VA FourCC (first character in the low byte) as text.
    private static func text(ofFourCC value: UInt32) -> String {
        String(
            (0..<4).map { index in
                let byte = UInt8(truncatingIfNeeded: value >> (8 * index))
                return (32..<127).contains(byte) ? Character(Unicode.Scalar(byte)) : "?"
            })
    }
}
