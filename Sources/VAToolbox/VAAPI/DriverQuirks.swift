/// What VAToolbox does differently for each VA driver, keyed on the driver's vendor string as
/// FFmpeg keys its own quirks (`libavutil/hwcontext_vaapi.c`, `vaapi_driver_quirks_table`).
///
/// VA-API says nothing of these differences, so they are data here, each with its source:
///
/// | driver | read-back | decode errors | render targets | export |
/// |---|---|---|---|---|
/// | iHD (intel/media-driver) | `vaDeriveImage` | `vaSyncSurface` returns `VA_STATUS_ERROR_DECODING_ERROR` | — | separate or composed, CCS planes |
/// | i965 (intel-vaapi-driver) | `vaGetImage` (a blit) | none | — | separate or composed |
/// | Mesa (gallium `frontends/va`) | `vaGetImage` | none | — | separate or composed; not interlaced surfaces |
/// | nvidia-vaapi-driver | `vaGetImage` (no derive) | none | 32 | separate layers only |
/// | any other | `vaGetImage` | assumed, as iHD | — | separate or composed |
public struct DriverQuirks: Sendable, Hashable, CustomStringConvertible {
    /// The driver family, from the vendor string.
    public enum Driver: String, Sendable, Hashable {
        /// intel/media-driver: "Intel iHD driver for Intel(R) Gen Graphics - …".
        case intelIHD = "iHD"
        /// intel/intel-vaapi-driver: "Intel i965 driver for Intel(R) … - …".
        case intelI965 = "i965"
        /// Mesa's gallium VA front end (radeonsi, …): "Mesa Gallium driver … for …".
        case mesa = "Mesa"
        /// elFarto/nvidia-vaapi-driver: "VA-API NVDEC driver [direct backend]".
        case nvidia = "nvidia"
        /// Anything else (the test driver without a personality among them).
        case other = "other"
    }

    /// How a locked pixel buffer reads its surface.
    public enum ReadBack: String, Sendable, Hashable {
        /// `vaDeriveImage`: map the surface itself, no copy.
        case deriveImage = "vaDeriveImage"
        /// `vaGetImage` into an image kept for reuse, then map the image.
        case getImage = "vaGetImage"
    }

    /// The driver family.
    public let driver: Driver
    /// How surfaces are read back.
    ///
    /// iHD maps with `vaDeriveImage` (GStreamer's `va` plugin does the same: iHD's `vaGetImage`
    /// is a detiling copy, slow on some parts). i965's `vaGetImage` is a fast blit, Mesa refuses
    /// to derive interlaced surfaces (`image.c` `vlVaDeriveImage`), and nvidia has no
    /// `vaDeriveImage` (`vabackend.c` `nvDeriveImage`).
    public let readBack: ReadBack
    /// Whether the driver reports damaged pictures through `vaSyncSurface`
    /// (`VA_STATUS_ERROR_DECODING_ERROR`), so that each picture must be synchronised before it
    /// is handed out to learn its status.
    ///
    /// iHD does (`media_libva.cpp` `DdiMedia_SyncSurface`). Mesa (`vlVaSyncSurface`), nvidia
    /// (`nvSyncSurface`) and i965 (`i965_SyncSurface`) never do: their pictures are
    /// synchronised only when a pixel buffer is locked, exported or copied. An unknown driver is
    /// treated as iHD.
    public let reportsDecodeErrorsAtSync: Bool
    /// The most surfaces a decoder may use, when the driver has a limit no VA attribute reports:
    /// 32 on nvidia (`vabackend.c` `nvCreateContext` clamps `ulNumDecodeSurfaces`, and the 33rd
    /// surface's picture fails to decode).
    public let renderTargetLimit: Int?
    /// Whether the driver exports a surface as one composed layer; nvidia exports separate
    /// layers only (`nvExportSurfaceHandle`).
    public let exportsComposedLayers: Bool
    /// Whether the driver exports a surface that holds field pictures; Mesa refuses
    /// (`src/gallium/frontends/va/surface.c` `vlVaExportSurfaceHandle`: interlaced buffers fail
    /// with `VA_STATUS_ERROR_INVALID_SURFACE`).
    public let exportsInterlacedSurfaces: Bool

    /// The quirks of the driver whose vendor string (`vaQueryVendorString`) is `vendor`: the
    /// first row of the driver table whose vendor prefix it starts with, else ``Driver/other``'s.
    public init(vendor: String) {
        self = Self.table.first { vendor.hasPrefix($0.vendorPrefix) }?.quirks ?? Self.unknown
    }

    private init(
        _ driver: Driver, _ readBack: ReadBack, decodeErrorsAtSync: Bool, renderTargetLimit: Int?,
        composedExport: Bool, interlacedExport: Bool
    ) {
        self.driver = driver
        self.readBack = readBack
        reportsDecodeErrorsAtSync = decodeErrorsAtSync
        self.renderTargetLimit = renderTargetLimit
        exportsComposedLayers = composedExport
        exportsInterlacedSurfaces = interlacedExport
    }

    /// One row per driver, keyed on its vendor string's prefix, as FFmpeg's
    /// `vaapi_driver_quirks_table[]` is; each field's source is in the field's documentation.
    static let table: [(vendorPrefix: String, quirks: DriverQuirks)] = [
        (
            "Intel iHD driver",
            DriverQuirks(
                .intelIHD, .deriveImage, decodeErrorsAtSync: true, renderTargetLimit: nil, composedExport: true,
                interlacedExport: true)
        ),
        (
            "Intel i965 driver",
            DriverQuirks(
                .intelI965, .getImage, decodeErrorsAtSync: false, renderTargetLimit: nil, composedExport: true,
                interlacedExport: true)
        ),
        (
            "Mesa Gallium driver",
            DriverQuirks(
                .mesa, .getImage, decodeErrorsAtSync: false, renderTargetLimit: nil, composedExport: true,
                interlacedExport: false)
        ),
        (
            "VA-API NVDEC driver",
            DriverQuirks(
                .nvidia, .getImage, decodeErrorsAtSync: false, renderTargetLimit: 32, composedExport: false,
                interlacedExport: true)
        ),
    ]

    /// Any other driver: read back with `vaGetImage`, and synchronised before hand-out as iHD is,
    /// in case it reports decode errors there.
    static let unknown = DriverQuirks(
        .other, .getImage, decodeErrorsAtSync: true, renderTargetLimit: nil, composedExport: true,
        interlacedExport: true)

    /// How a decoder's surface pool is sized on this driver (`SurfacePool`), in words:
    /// `"libavcodec's reference surfaces + the stream's reorder depth + 4 spares (+ minimumBufferCount),
    /// at most 32"`.
    public var surfacePoolRule: String {
        "libavcodec's reference surfaces + the stream's reorder depth + \(SurfacePool.defaultHeldSurfaces) "
            + "spares (+ minimumBufferCount)" + (renderTargetLimit.map { ", at most \($0)" } ?? "")
    }

    /// `"iHD: read-back vaDeriveImage, sync before hand-out, up to 4 pictures behind the GPU (…),
    /// no surface limit, export separate layers (composed on request)"`.
    public var description: String {
        let sync =
            reportsDecodeErrorsAtSync
            ? "sync before hand-out, up to \(SurfacePool.defaultSynchronisationDepth) pictures behind the GPU "
                + "(the driver reports decode errors there)"
            : "sync at lock/export only (the driver reports no decode errors)"
        let limit = renderTargetLimit.map { "at most \($0) surfaces per decoder" } ?? "no surface limit"
        let export = exportsComposedLayers ? "separate layers (composed on request)" : "separate layers only"
        return "\(driver.rawValue): read-back \(readBack.rawValue), \(sync), \(limit), export \(export)"
    }
}
