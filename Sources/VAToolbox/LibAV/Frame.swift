internal import CFFmpeg
import Synchronization

/// How libav lays a frame's samples out in memory — libavutil's `AVPixelFormat`, named as
/// `ffmpeg -pix_fmt` names it (`yuv420p`, `nv12`, `p010le`).
///
/// The layers above map it to their own formats; this layer only knows its geometry: planes,
/// chroma subsampling, bytes per row.
struct PixelLayout: Hashable, Sendable {
    /// The `AVPixelFormat` value.
    let rawValue: Int32

    /// Wraps an `AVPixelFormat` value.
    init(rawValue: Int32) { self.rawValue = rawValue }
    fileprivate init(_ format: AVPixelFormat) { rawValue = format.rawValue }

    /// `yuv420p` (`AV_PIX_FMT_YUV420P`).
    static let yuv420p = Self(AV_PIX_FMT_YUV420P)
    /// `yuvj420p` (`AV_PIX_FMT_YUVJ420P`): `yuv420p` in full range.
    static let yuvj420p = Self(AV_PIX_FMT_YUVJ420P)
    /// `nv12` (`AV_PIX_FMT_NV12`).
    static let nv12 = Self(AV_PIX_FMT_NV12)
    /// `p010le` (`AV_PIX_FMT_P010LE`).
    static let p010le = Self(AV_PIX_FMT_P010LE)
    /// `nv16` (`AV_PIX_FMT_NV16`).
    static let nv16 = Self(AV_PIX_FMT_NV16)
    /// `p210le` (`AV_PIX_FMT_P210LE`).
    static let p210le = Self(AV_PIX_FMT_P210LE)
    /// `nv24` (`AV_PIX_FMT_NV24`).
    static let nv24 = Self(AV_PIX_FMT_NV24)
    /// `p410le` (`AV_PIX_FMT_P410LE`).
    static let p410le = Self(AV_PIX_FMT_P410LE)
    /// `bgra` (`AV_PIX_FMT_BGRA`).
    static let bgra = Self(AV_PIX_FMT_BGRA)
    /// `rgb24` (`AV_PIX_FMT_RGB24`).
    static let rgb24 = Self(AV_PIX_FMT_RGB24)
    /// `yuv422p` (`AV_PIX_FMT_YUV422P`).
    static let yuv422p = Self(AV_PIX_FMT_YUV422P)
    /// `yuvj422p` (`AV_PIX_FMT_YUVJ422P`).
    static let yuvj422p = Self(AV_PIX_FMT_YUVJ422P)
    /// `yuv444p` (`AV_PIX_FMT_YUV444P`).
    static let yuv444p = Self(AV_PIX_FMT_YUV444P)
    /// `yuvj444p` (`AV_PIX_FMT_YUVJ444P`).
    static let yuvj444p = Self(AV_PIX_FMT_YUVJ444P)
    /// `gray` (`AV_PIX_FMT_GRAY8`).
    static let gray8 = Self(AV_PIX_FMT_GRAY8)
    /// `yuv420p10le` (`AV_PIX_FMT_YUV420P10LE`).
    static let yuv420p10le = Self(AV_PIX_FMT_YUV420P10LE)
    /// `yuv422p10le` (`AV_PIX_FMT_YUV422P10LE`).
    static let yuv422p10le = Self(AV_PIX_FMT_YUV422P10LE)
    /// `yuv444p10le` (`AV_PIX_FMT_YUV444P10LE`).
    static let yuv444p10le = Self(AV_PIX_FMT_YUV444P10LE)
    /// `yuv420p12le` (`AV_PIX_FMT_YUV420P12LE`).
    static let yuv420p12le = Self(AV_PIX_FMT_YUV420P12LE)
    /// `yuv422p12le` (`AV_PIX_FMT_YUV422P12LE`).
    static let yuv422p12le = Self(AV_PIX_FMT_YUV422P12LE)
    /// `yuv444p12le` (`AV_PIX_FMT_YUV444P12LE`).
    static let yuv444p12le = Self(AV_PIX_FMT_YUV444P12LE)
    /// `gray10le` (`AV_PIX_FMT_GRAY10LE`).
    static let gray10le = Self(AV_PIX_FMT_GRAY10LE)
    /// `yuv440p` (`AV_PIX_FMT_YUV440P`).
    static let yuv440p = Self(AV_PIX_FMT_YUV440P)
    /// `yuvj440p` (`AV_PIX_FMT_YUVJ440P`).
    static let yuvj440p = Self(AV_PIX_FMT_YUVJ440P)
    /// `yuv440p10le` (`AV_PIX_FMT_YUV440P10LE`).
    static let yuv440p10le = Self(AV_PIX_FMT_YUV440P10LE)
    /// `yuv440p12le` (`AV_PIX_FMT_YUV440P12LE`).
    static let yuv440p12le = Self(AV_PIX_FMT_YUV440P12LE)
    /// `vaapi` (`AV_PIX_FMT_VAAPI`): a VA surface, whose samples are on the GPU.
    static let vaapi = Self(AV_PIX_FMT_VAAPI)

    fileprivate var format: AVPixelFormat { AVPixelFormat(rawValue: rawValue) }

    /// FFmpeg's name (`av_get_pix_fmt_name`), for example `"yuv420p"`; nil for an unknown value.
    var name: String? { av_get_pix_fmt_name(format).map { String(cString: $0) } }

    /// The number of planes (`av_pix_fmt_count_planes`); 0 for an unknown value.
    var planeCount: Int { max(0, Int(av_pix_fmt_count_planes(format))) }

    /// Bits per sample of the first component (8 for `nv12`, 10 for `p010le`); 0 when unknown.
    var bitsPerComponent: Int {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return 0 }
        return Int(descriptor.pointee.comp.0.depth)
    }

    /// The bytes one picture of this layout takes with rows aligned to `alignment`
    /// (`av_image_get_buffer_size`); nil when the layout or size is invalid.
    func bufferSize(width: Int, height: Int, alignment: Int) -> Int? {
        let size = av_image_get_buffer_size(format, Int32(width), Int32(height), Int32(alignment))
        return size > 0 ? Int(size) : nil
    }
}

/// A libav frame (`AVFrame`) lent by its owner — a ``FrameReference``, or a decoder's receiving
/// frame for the duration of the call that lends it — read and written through Swift accessors.
///
/// Not an owner: it is valid only while its owner keeps the frame, so never keep one beyond the
/// call that lends it.
struct Frame {
    /// The frame, for the other C layers (the VA-API layer reads a surface frame's surface).
    let pointer: UnsafeMutablePointer<AVFrame>

    /// Lends the frame at `pointer`.
    init(_ pointer: UnsafeMutablePointer<AVFrame>) { self.pointer = pointer }

    /// The width in pixels (`width`; a VA frame's is cropped on the right only).
    var width: Int { Int(pointer.pointee.width) }
    /// The height in pixels (`height`; a VA frame's is cropped at the bottom only).
    var height: Int { Int(pointer.pointee.height) }
    /// The layout of the frame (`format`): ``PixelLayout/vaapi`` for a VA surface.
    var layout: PixelLayout { PixelLayout(rawValue: pointer.pointee.format) }
    /// Whether the frame is a VA surface (`AV_PIX_FMT_VAAPI`), whose samples are on the GPU.
    var isSurface: Bool { pointer.pointee.format == AV_PIX_FMT_VAAPI.rawValue }
    /// The layout of the samples: a VA surface's software format (its frames context's
    /// `sw_format`), the frame's own layout otherwise.
    var sampleLayout: PixelLayout {
        isSurface ? PixelLayout(CFFmpeg_frame_hw_sw_format(pointer)) : layout
    }
    /// The columns cropped on the left that the width still counts (`crop_left`): libavcodec
    /// crops a VA frame on the right and bottom only, and leaves the rest to the read-back.
    var cropLeft: Int { Int(pointer.pointee.crop_left) }
    /// The rows cropped at the top that the height still counts (`crop_top`).
    var cropTop: Int { Int(pointer.pointee.crop_top) }

    /// The time stamp (`pts`): a decoder's frame carries the token of its sample.
    var timeStamp: Int64 { pointer.pointee.pts }
    /// The decode time stamp of the packet that released the frame from the decoder
    /// (`pkt_dts`: the token of that sample); nil when none did (a drain).
    var releasingTimeStamp: Int64? {
        pointer.pointee.pkt_dts == CFFmpeg_AV_NOPTS_VALUE() ? nil : pointer.pointee.pkt_dts
    }
    /// What the decoder says is wrong with the picture (`decode_error_flags`).
    var decodeErrors: DecodeErrors { DecodeErrors(rawValue: pointer.pointee.decode_error_flags) }
    /// Whether the decoder marked the frame corrupt (`AV_FRAME_FLAG_CORRUPT`).
    var isMarkedCorrupt: Bool { pointer.pointee.flags & Int32(AV_FRAME_FLAG_CORRUPT) != 0 }

    /// The errors a decoder reports on a frame — libavcodec's `FF_DECODE_ERROR_*` flags.
    struct DecodeErrors: OptionSet, Sendable {
        /// The flags as libavcodec sets them.
        let rawValue: Int32
        /// Wraps `decode_error_flags`.
        init(rawValue: Int32) { self.rawValue = rawValue }
        /// `FF_DECODE_ERROR_INVALID_BITSTREAM`.
        static let invalidBitstream = Self(rawValue: Int32(FF_DECODE_ERROR_INVALID_BITSTREAM))
        /// `FF_DECODE_ERROR_MISSING_REFERENCE`.
        static let missingReference = Self(rawValue: Int32(FF_DECODE_ERROR_MISSING_REFERENCE))
        /// `FF_DECODE_ERROR_CONCEALMENT_ACTIVE`.
        static let concealmentActive = Self(rawValue: Int32(FF_DECODE_ERROR_CONCEALMENT_ACTIVE))
        /// `FF_DECODE_ERROR_DECODE_SLICES`.
        static let slicesNotDecoded = Self(rawValue: Int32(FF_DECODE_ERROR_DECODE_SLICES))
    }

    /// The colour description: ITU-T H.273 code points, which libavutil's `AVCOL_PRI_*`,
    /// `AVCOL_TRC_*` and `AVCOL_SPC_*` values are (2 is unspecified).
    var colourPrimaries: Int { Int(pointer.pointee.color_primaries.rawValue) }
    /// The transfer characteristics, an H.273 code point (`color_trc`).
    var transferCharacteristics: Int { Int(pointer.pointee.color_trc.rawValue) }
    /// The matrix coefficients, an H.273 code point (`colorspace`).
    var matrixCoefficients: Int { Int(pointer.pointee.colorspace.rawValue) }
    /// Whether the samples use the full range (`AVCOL_RANGE_JPEG`).
    var isFullRange: Bool { pointer.pointee.color_range == AVCOL_RANGE_JPEG }
    /// Whether the decoder states the range (`color_range` is not `AVCOL_RANGE_UNSPECIFIED`).
    var statesColorRange: Bool { pointer.pointee.color_range != AVCOL_RANGE_UNSPECIFIED }
    /// The sample aspect ratio (`sample_aspect_ratio`), 0:1 or 0:0 when unknown.
    var sampleAspectRatio: (numerator: Int, denominator: Int) {
        (Int(pointer.pointee.sample_aspect_ratio.num), Int(pointer.pointee.sample_aspect_ratio.den))
    }
    /// Whether the picture is interlaced (`interlaced_frame`).
    var isInterlaced: Bool { pointer.pointee.interlaced_frame != 0 }
    /// Whether the top field comes first (`top_field_first`).
    var isTopFieldFirst: Bool { pointer.pointee.top_field_first != 0 }
    /// The picture's coding type as libavutil's letter (`av_get_picture_type_char(pict_type)`):
    /// `I`, `P`, `B`, `S` (S(GMC)-VOP), `i` (SI), `p` (SP), `b` (BI), `?` when the decoder states
    /// none.
    var pictureTypeLetter: Character {
        Character(Unicode.Scalar(UInt8(bitPattern: av_get_picture_type_char(pointer.pointee.pict_type))))
    }
    /// Whether the decoder marks the picture a key frame (`key_frame`).
    var isKeyFrame: Bool { pointer.pointee.key_frame != 0 }
    /// Where chroma samples sit, as libavutil's `AVChromaLocation` (`chroma_location`): H.273's
    /// `chroma_sample_loc_type` plus one, 0 when unspecified.
    var chromaLocation: Int { Int(pointer.pointee.chroma_location.rawValue) }

    /// The mastering display colour volume the frame carries
    /// (`AV_FRAME_DATA_MASTERING_DISPLAY_METADATA`: the decoder's reading of an HEVC or H.264
    /// SEI message or an AV1 metadata OBU), nil when it carries none with both primaries and
    /// luminance.
    var masteringDisplay: MasteringDisplayValues? {
        sideData(AV_FRAME_DATA_MASTERING_DISPLAY_METADATA, as: AVMasteringDisplayMetadata.self)
            .flatMap(MasteringDisplayValues.init)
    }

    /// The content light level the frame carries (`AV_FRAME_DATA_CONTENT_LIGHT_LEVEL`), nil when
    /// none.
    var contentLightLevel: LightLevelValues? {
        sideData(AV_FRAME_DATA_CONTENT_LIGHT_LEVEL, as: AVContentLightMetadata.self).map(LightLevelValues.init)
    }

    /// The frame metadata entry (`AVFrame.metadata`) that marks the frame's mastering display as
    /// its container's (``markStaticHDRMetadataFromContainer(masteringDisplay:contentLightLevel:)``).
    private static let containerMasteringDisplayKey = "vatoolbox.container_mastering_display"
    /// The entry that marks the frame's content light level as its container's.
    private static let containerContentLightLevelKey = "vatoolbox.container_content_light_level"

    /// Whether the frame's mastering display is its container's, attached by VAToolbox, rather
    /// than its stream's.
    var masteringDisplayIsFromContainer: Bool { hasMetadataEntry(Self.containerMasteringDisplayKey) }
    /// Whether the frame's content light level is its container's.
    var contentLightLevelIsFromContainer: Bool { hasMetadataEntry(Self.containerContentLightLevelKey) }

    /// Marks the static HDR metadata just attached from the container (in the frame's
    /// `metadata` dictionary, which travels with the frame as its side data does). Nothing is
    /// marked when memory runs out.
    func markStaticHDRMetadataFromContainer(masteringDisplay: Bool, contentLightLevel: Bool) {
        if masteringDisplay { _ = av_dict_set(&pointer.pointee.metadata, Self.containerMasteringDisplayKey, "1", 0) }
        if contentLightLevel { _ = av_dict_set(&pointer.pointee.metadata, Self.containerContentLightLevelKey, "1", 0) }
    }

    private func hasMetadataEntry(_ key: String) -> Bool {
        av_dict_get(pointer.pointee.metadata, key, nil, 0) != nil
    }

    /// Attaches a stream's static HDR metadata as side data, each where the frame carries none of
    /// its own. Nothing is attached when memory runs out.
    ///
    /// - Parameters:
    ///   - mastering: Chromaticities in steps of 0.00002 and luminance in steps of 0.0001 cd/m²,
    ///     the HEVC SEI message's units, which become the rationals libavcodec's HEVC decoder makes.
    ///   - light: MaxCLL and MaxFALL.
    func attachStaticHDRMetadata(_ mastering: MasteringDisplayCodes?, _ light: LightLevelValues?) {
        if let mastering, av_frame_get_side_data(pointer, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA) == nil,
            let metadata = av_mastering_display_metadata_create_side_data(pointer)
        {
            func point(_ index: Int) -> (AVRational, AVRational) {
                (
                    AVRational(num: Int32(mastering.chromaticities[2 * index]), den: 50000),
                    AVRational(num: Int32(mastering.chromaticities[2 * index + 1]), den: 50000)
                )
            }
            func luminance(_ code: UInt32) -> AVRational { AVRational(num: Int32(clamping: code), den: 10000) }
            metadata.pointee.display_primaries = (point(0), point(1), point(2))
            metadata.pointee.white_point = point(3)
            metadata.pointee.max_luminance = luminance(mastering.maximumLuminance)
            metadata.pointee.min_luminance = luminance(mastering.minimumLuminance)
            metadata.pointee.has_primaries = 1
            metadata.pointee.has_luminance = 1
        }
        if let light, av_frame_get_side_data(pointer, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL) == nil,
            let metadata = av_content_light_metadata_create_side_data(pointer)
        {
            metadata.pointee.MaxCLL = UInt32(clamping: light.maximumContentLightLevel)
            metadata.pointee.MaxFALL = UInt32(clamping: light.maximumFrameAverageLightLevel)
        }
    }

    /// The key under which VAToolbox keeps an `ambient_viewing_environment` SEI message in the
    /// frame's metadata (`AVFrame.metadata`, copied with the frame's properties as libavfilter's
    /// `lavfi.` values are): libavcodec 5.1 has no side data type for it
    /// (`AV_FRAME_DATA_AMBIENT_VIEWING_ENVIRONMENT` came in 6.1).
    private static let ambientViewingEnvironmentKey = "vatoolbox.ambient_viewing_environment"

    /// The ambient viewing environment kept on the frame (``attachAmbientViewingEnvironment(_:)``):
    /// `ambient_illuminance`, `ambient_light_x`, `ambient_light_y`; nil when none.
    var ambientViewingEnvironment: (illuminance: UInt32, x: UInt16, y: UInt16)? {
        guard let entry = av_dict_get(pointer.pointee.metadata, Self.ambientViewingEnvironmentKey, nil, 0),
            let value = entry.pointee.value
        else { return nil }
        let fields = String(cString: value).split(separator: " ")
        guard fields.count == 3, let illuminance = UInt32(fields[0]), let x = UInt16(fields[1]),
            let y = UInt16(fields[2])
        else { return nil }
        return (illuminance, x, y)
    }

    /// Keeps an ambient viewing environment on the frame, where it has none. Nothing is kept when
    /// memory runs out.
    func attachAmbientViewingEnvironment(_ environment: (illuminance: UInt32, x: UInt16, y: UInt16)) {
        guard ambientViewingEnvironment == nil else { return }
        av_dict_set(
            &pointer.pointee.metadata, Self.ambientViewingEnvironmentKey,
            "\(environment.illuminance) \(environment.x) \(environment.y)", 0)
    }

    /// Removes the static HDR metadata (mastering display, content light level): a tone-mapped
    /// picture is SDR, as FFmpeg's `tonemap_vaapi` leaves its pictures.
    func removeStaticHDRMetadata() {
        av_frame_remove_side_data(pointer, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA)
        av_frame_remove_side_data(pointer, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL)
    }

    /// Tags the frame as a picture tone mapped to SDR: BT.709 primaries, transfer and matrix (the
    /// tags libavfilter's `zscale` gives the CPU's), without static HDR metadata.
    func markToneMappedToSDR() {
        pointer.pointee.color_primaries = AVCOL_PRI_BT709
        pointer.pointee.color_trc = AVCOL_TRC_BT709
        pointer.pointee.colorspace = AVCOL_SPC_BT709
        removeStaticHDRMetadata()
    }

    /// Marks the frame progressive (`interlaced_frame` 0): a deinterlacer's picture.
    func markProgressive() {
        pointer.pointee.interlaced_frame = 0
        pointer.pointee.top_field_first = 0
    }

    /// The key under which VAToolbox keeps the transfer an `alternative_transfer_characteristics`
    /// SEI message prefers (``separateAlternativeTransfer(stated:alternative:)``).
    private static let alternativeTransferKey = "vatoolbox.alternative_transfer_characteristics"

    /// The preferred transfer kept on the frame, an H.273 code point; nil when none.
    var alternativeTransferCharacteristics: UInt8? {
        guard let entry = av_dict_get(pointer.pointee.metadata, Self.alternativeTransferKey, nil, 0),
            let value = entry.pointee.value
        else { return nil }
        return UInt8(String(cString: value))
    }

    /// Keeps the stream's preferred transfer apart from the one its parameter sets state:
    /// libavcodec's H.264 and HEVC decoders put the preferred one in the decoder's `color_trc`,
    /// which each picture copies (`h264_slice.c` `h264_init_ps`, `hevcdec.c`
    /// `export_stream_params`); this puts the stated one back and keeps the preferred one in the
    /// frame's metadata. Nothing is kept when memory runs out.
    ///
    /// - Parameters:
    ///   - stated: The transfer the video usability information states (2 when unspecified).
    ///   - alternative: The preferred transfer.
    func separateAlternativeTransfer(stated: UInt8, alternative: UInt8) {
        if pointer.pointee.color_trc.rawValue == UInt32(alternative) {
            pointer.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(stated))
        }
        av_dict_set(&pointer.pointee.metadata, Self.alternativeTransferKey, "\(alternative)", 0)
    }

    /// The ICC profile the frame carries (`AV_FRAME_DATA_ICC_PROFILE`), its bytes; nil when none.
    var iccProfile: [UInt8]? {
        guard let side = av_frame_get_side_data(pointer, AV_FRAME_DATA_ICC_PROFILE), let data = side.pointee.data,
            side.pointee.size > 0
        else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(side.pointee.size)))
    }

    /// The entry that marks the frame's ICC profile as its container's.
    private static let containerICCProfileKey = "vatoolbox.container_icc_profile"

    /// Whether the frame's ICC profile is its container's, attached by VAToolbox.
    var iccProfileIsFromContainer: Bool { hasMetadataEntry(Self.containerICCProfileKey) }

    /// Attaches a container's ICC profile as side data, where the frame carries none of its
    /// own, marked as the container's. Nothing is attached when memory runs out.
    func attachContainerICCProfile(_ profile: [UInt8]) {
        guard !profile.isEmpty, av_frame_get_side_data(pointer, AV_FRAME_DATA_ICC_PROFILE) == nil,
            let side = av_frame_new_side_data(pointer, AV_FRAME_DATA_ICC_PROFILE, profile.count),
            let data = side.pointee.data
        else { return }
        data.update(from: profile, count: profile.count)
        _ = av_dict_set(&pointer.pointee.metadata, Self.containerICCProfileKey, "1", 0)
    }

    /// The frame's side data of `type`, read as a `Value`; nil when absent or too small.
    private func sideData<Value>(_ type: AVFrameSideDataType, as: Value.Type) -> Value? {
        guard let side = av_frame_get_side_data(pointer, type), let data = side.pointee.data,
            side.pointee.size >= MemoryLayout<Value>.size
        else { return nil }
        return UnsafeRawPointer(data).loadUnaligned(as: Value.self)
    }

    /// The first byte of plane `plane` (`data[plane]`); nil for a plane the frame lacks.
    func data(_ plane: Int) -> UnsafeMutablePointer<UInt8>? { CFFmpeg_frame_data(pointer, Int32(plane)) }
    /// The distance in bytes from one row of plane `plane` to the next (`linesize[plane]`).
    func bytesPerRow(_ plane: Int) -> Int { Int(CFFmpeg_frame_linesize(pointer, Int32(plane))) }

    /// Where one plane of a CPU frame lies and how large it is.
    struct PlaneGeometry {
        /// The first byte.
        let baseAddress: UnsafeMutableRawPointer
        /// The distance in bytes from one row to the next.
        let bytesPerRow: Int
        /// The width in samples; for an interleaved chroma plane, in sample pairs; for packed
        /// RGB, in pixels.
        let width: Int
        /// The height in rows.
        let height: Int
        /// The bytes of one row that carry pixels (`av_image_get_linesize`).
        let bytesPerRowOfPixels: Int
    }

    /// The frame's planes in order, each made into a `Plane` by `make`: one array, no other
    /// allocation. A CPU frame only; a plane without data is skipped.
    func planes<Plane>(_ make: (PlaneGeometry) -> Plane) -> [Plane] {
        let format = layout.format
        guard let descriptor = av_pix_fmt_desc_get(format) else { return [] }
        let count = Int(av_pix_fmt_count_planes(format))
        let isRGB = descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0
        var planes: [Plane] = []
        planes.reserveCapacity(max(0, count))
        for index in 0..<max(0, count) {
            guard let data = data(index) else { continue }
            let isChroma = index == 1 || index == 2
            let shiftX = isChroma ? Int(descriptor.pointee.log2_chroma_w) : 0
            let shiftY = isChroma ? Int(descriptor.pointee.log2_chroma_h) : 0
            let planeWidth = (width + (1 << shiftX) - 1) >> shiftX
            let planeHeight = (height + (1 << shiftY) - 1) >> shiftY
            let isInterleaved = count == 2 && index == 1
            planes.append(
                make(
                    PlaneGeometry(
                        baseAddress: UnsafeMutableRawPointer(data), bytesPerRow: bytesPerRow(index),
                        width: isInterleaved || !isRGB ? planeWidth : width, height: planeHeight,
                        bytesPerRowOfPixels: Int(av_image_get_linesize(format, pointer.pointee.width, Int32(index))))))
        }
        return planes
    }

    /// The bytes of the pictures' rows without padding, all planes: what `ffmpeg -f rawvideo`
    /// writes of it.
    var pixelByteCount: Int { planes { $0.bytesPerRowOfPixels * $0.height }.reduce(0, +) }

    /// Whether the frame's buffers are its alone, writable without a copy (`av_frame_is_writable`).
    var isWritable: Bool { av_frame_is_writable(pointer) != 0 }

    /// Gives the frame buffers of its own, copying shared ones (`av_frame_make_writable`).
    ///
    /// - Throws: ``VTError/allocationFailed`` when the copy cannot be made.
    func makeWritable() throws(VTError) {
        try FFmpegStatus.check(
            av_frame_make_writable(pointer), "av_frame_make_writable", "copying a shared frame to write to it")
    }

    /// Copies `source`'s properties — time stamps, colour, aspect, fields, side data — but not
    /// its pixels (`av_frame_copy_props`).
    ///
    /// - Parameter purpose: What the copy is for, in the error.
    /// - Throws: ``VTError/allocationFailed`` when the side data cannot be copied.
    func copyProperties(from source: Frame, _ purpose: String) throws(VTError) {
        try FFmpegStatus.check(av_frame_copy_props(pointer, source.pointer), "av_frame_copy_props", purpose)
    }

    /// Lets go of the frame's buffers, leaving it empty (`av_frame_unref`).
    func unreference() { av_frame_unref(pointer) }

    /// Copies what a conversion gives its output (``Scaler``): `source`'s range, colour
    /// description, aspect ratio and fields — not its time stamps or side data.
    func copyPictureDescription(from source: Frame) {
        let from = source.pointer.pointee
        pointer.pointee.color_range = from.color_range
        pointer.pointee.colorspace = from.colorspace
        pointer.pointee.color_primaries = from.color_primaries
        pointer.pointee.color_trc = from.color_trc
        pointer.pointee.sample_aspect_ratio = from.sample_aspect_ratio
        pointer.pointee.interlaced_frame = from.interlaced_frame
        pointer.pointee.top_field_first = from.top_field_first
    }

    /// Copies `source`'s pixels into this frame's planes, of the same layout and size
    /// (`av_frame_copy`).
    ///
    /// - Throws: ``VTError/pixelTransferNotSupported`` when the layouts or sizes differ.
    func copyPixels(from source: Frame) throws(VTError) {
        let status = av_frame_copy(pointer, source.pointer)
        guard status >= 0 else {
            throw FFmpegStatus.error(status, "av_frame_copy", "copying a converted picture")
                .replacingStatus(with: .pixelTransferNotSupported)
        }
    }
}

/// An owned reference to an `AVFrame`, freed (`av_frame_free`) when it goes away.
///
/// Non-copyable, so that exactly one owner holds the frame and no `Frame` it lends outlives it
/// by accident; moving it costs nothing (a pixel buffer holds one inline, with no allocation of
/// its own).
///
/// Unchecked `Sendable`: the struct is non-copyable, so exactly one owner holds the frame at a
/// time; sending it to another thread moves that ownership, and FFmpeg frames carry no thread
/// affinity.
struct FrameReference: ~Copyable, @unchecked Sendable {
    /// The frame, for the other C layers.
    let pointer: UnsafeMutablePointer<AVFrame>

    /// Takes ownership of a frame the caller allocated.
    init(adopting frame: UnsafeMutablePointer<AVFrame>) {
        pointer = frame
    }

    /// Moves the buffers of `source` into a new frame, leaving `source` empty
    /// (`av_frame_move_ref`); nil when the new frame cannot be allocated.
    init?(movingFrom source: Frame) {
        guard let frame = av_frame_alloc() else { return nil }
        av_frame_move_ref(frame, source.pointer)
        pointer = frame
    }

    /// A new empty frame (`av_frame_alloc`).
    ///
    /// - Throws: ``VTError/allocationFailed`` when memory runs out.
    static func allocate(_ purpose: @autoclosure () -> String) throws(VTError) -> FrameReference {
        guard let frame = av_frame_alloc() else { throw VTError.allocationFailed.with(purpose()) }
        return FrameReference(adopting: frame)
    }

    /// The frame, lent while this reference lives.
    var frame: Frame { Frame(pointer) }

    /// Whether the frame is a VA surface (`AV_PIX_FMT_VAAPI`).
    var isSurface: Bool { frame.isSurface }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&frame)
    }

    /// An NV12 frame of `source`'s size and properties whose luma plane is `source`'s first
    /// plane (a reference to its buffer, not a copy) and whose chroma plane, rows
    /// `chromaBytesPerRow` apart, is a buffer from `pool`, left for the caller to fill.
    ///
    /// - Throws: ``VTError/allocationFailed`` when memory runs out.
    static func nv12(
        sharingLumaOf source: Frame, chromaFrom pool: PlanePool, chromaBytesPerRow: Int, chromaRows: Int
    ) throws(VTError) -> FrameReference {
        let owned = try allocate("allocating an NV12 frame")
        let frame = owned.pointer
        guard let luma = av_frame_get_plane_buffer(source.pointer, 0), let lumaReference = av_buffer_ref(luma),
            let lumaData = source.data(0)
        else { throw VTError.allocationFailed.with("referencing the decoder's luma plane") }
        frame.pointee.buf.0 = lumaReference  // the frame owns it from here
        guard let chroma = av_buffer_pool_get(pool.pointer) else {
            throw VTError.allocationFailed.with("allocating a \(chromaBytesPerRow)x\(chromaRows) chroma plane")
        }
        frame.pointee.buf.1 = chroma
        guard let chromaData = chroma.pointee.data else {
            throw VTError.allocationFailed.with("a pooled chroma plane without memory")
        }
        CFFmpeg_frame_set_planes(
            frame, lumaReference, lumaData, Int32(source.bytesPerRow(0)), chromaData, Int32(chromaBytesPerRow))
        frame.pointee.width = source.pointer.pointee.width
        frame.pointee.height = source.pointer.pointee.height
        frame.pointee.format = AV_PIX_FMT_NV12.rawValue
        try owned.frame.copyProperties(from: source, "describing an NV12 frame")
        return owned
    }
}

/// A pool of equal buffers (`AVBufferPool`) for single planes; a buffer goes back to it when the
/// last frame using it goes away.
///
/// Not thread-safe to replace; `av_buffer_pool_get` itself may be called from any thread.
final class PlanePool {
    fileprivate let pointer: OpaquePointer
    /// The bytes of one buffer.
    let size: Int

    /// A pool of `size`-byte buffers (`av_buffer_pool_init`).
    ///
    /// - Throws: ``VTError/allocationFailed`` when memory runs out.
    init(size: Int) throws(VTError) {
        guard let pool = av_buffer_pool_init(size, nil) else {
            throw VTError.allocationFailed.with("creating a chroma plane pool")
        }
        pointer = pool
        self.size = size
    }

    deinit {
        var pool: OpaquePointer? = pointer
        av_buffer_pool_uninit(&pool)
    }
}

/// A pool of whole frames of one layout and size (`AVBufferPool`, one buffer per frame, rows
/// aligned), counting the buffers it allocates; a buffer goes back to it when the last frame
/// using it goes away, and the pool frees itself once released and every buffer is back.
///
/// Unchecked `Sendable`: `av_buffer_pool_get` is thread-safe (FFmpeg documents the pool as
/// usable from several threads), the pointer never changes and the counter is atomic.
final class FramePool: @unchecked Sendable {
    /// The layout of the frames.
    let layout: PixelLayout
    /// The width of the frames.
    let width: Int
    /// The height of the frames.
    let height: Int
    /// The alignment of every row, in bytes.
    let rowAlignment: Int
    private let pointer: OpaquePointer
    /// Buffers allocated so far (shared with the C allocation callback).
    private let allocations: Allocations

    /// A pool of `width` x `height` frames of `layout` (`av_buffer_pool_init2`); nil when the
    /// layout has no valid size at that size or memory runs out.
    init?(layout: PixelLayout, width: Int, height: Int, rowAlignment: Int) {
        guard let size = layout.bufferSize(width: width, height: height, alignment: rowAlignment) else {
            return nil
        }
        let allocations = Allocations()
        let opaque = Unmanaged.passUnretained(allocations).toOpaque()
        guard
            let pool = av_buffer_pool_init2(
                size, opaque,
                { opaque, size in
                    // Counts the allocation, then allocates as FFmpeg's default pool would.
                    if let opaque {
                        Unmanaged<Allocations>.fromOpaque(opaque).takeUnretainedValue().count.add(1, ordering: .relaxed)
                    }
                    return av_buffer_alloc(size)
                }, nil)
        else { return nil }
        self.layout = layout
        self.width = width
        self.height = height
        self.rowAlignment = rowAlignment
        self.allocations = allocations
        pointer = pool
    }

    deinit {
        var pool: OpaquePointer? = pointer
        av_buffer_pool_uninit(&pool)
    }

    /// How many buffers the pool has allocated since it was made.
    var allocatedCount: Int { allocations.count.load(ordering: .relaxed) }

    /// A frame from the pool, its planes laid out in one pooled buffer (`av_buffer_pool_get`,
    /// `av_image_fill_arrays`); its contents are undefined until written.
    ///
    /// - Parameter buffer: What the buffer is, for the error when it cannot be allocated.
    /// - Throws: ``VTError/allocationFailed`` when memory runs out.
    func makeFrame(buffer: @autoclosure () -> String) throws(VTError) -> FrameReference {
        let owned = try FrameReference.allocate("allocating a frame")
        let frame = owned.pointer
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.format = layout.rawValue
        guard let data = av_buffer_pool_get(pointer) else {
            throw VTError.allocationFailed.with("allocating a \(buffer())")
        }
        try FFmpegStatus.check(
            CFFmpeg_frame_fill(frame, data, Int32(rowAlignment)), "av_image_fill_arrays",
            "laying out a pooled buffer")
        return owned
    }

    /// The allocation counter the C callback reaches through its opaque pointer.
    private final class Allocations: Sendable {
        let count = Atomic<Int>(0)
    }
}

// MARK: - MD5, for checksums of frames comparable with FFmpeg's

/// An MD5 computation (libavutil's `av_md5_*`), for checksums comparable with FFmpeg's.
struct MD5: ~Copyable {
    private let context: OpaquePointer?

    /// Starts a computation (`av_md5_alloc`, `av_md5_init`).
    init() {
        context = av_md5_alloc()
        av_md5_init(context)
    }

    deinit { av_free(UnsafeMutableRawPointer(context)) }

    /// Adds bytes.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        av_md5_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    /// The digest as lowercase hex. The computation cannot be used afterwards.
    consuming func finish() -> String {
        var digest = [UInt8](repeating: 0, count: 16)
        digest.withUnsafeMutableBufferPointer { av_md5_final(context, $0.baseAddress) }
        return digest.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            .joined()
    }
}

/// libavutil's mastering display metadata (`AVMasteringDisplayMetadata`, frame or stream side
/// data) as numbers: the chromaticities red x, y, green x, y, blue x, y, white point x, y, and the
/// luminance in cd/m².
struct MasteringDisplayValues: Sendable, Hashable {
    /// Red, green, blue and the white point, x then y (8 values).
    let chromaticities: [Double]
    /// The maximum luminance in cd/m².
    let maximumLuminance: Double
    /// The minimum luminance in cd/m².
    let minimumLuminance: Double

    /// The values of `metadata`; nil unless it has both primaries and luminance.
    init?(_ metadata: AVMasteringDisplayMetadata) {
        guard metadata.has_primaries != 0, metadata.has_luminance != 0 else { return nil }
        func value(_ rational: AVRational) -> Double {
            rational.den == 0 ? .nan : Double(rational.num) / Double(rational.den)
        }
        let (red, green, blue) = metadata.display_primaries
        chromaticities = [red, green, blue, metadata.white_point].flatMap { [value($0.0), value($0.1)] }
        maximumLuminance = value(metadata.max_luminance)
        minimumLuminance = value(metadata.min_luminance)
    }

    /// Values from their parts (the AV1 metadata OBU, read in Swift).
    init(chromaticities: [Double], maximumLuminance: Double, minimumLuminance: Double) {
        self.chromaticities = chromaticities
        self.maximumLuminance = maximumLuminance
        self.minimumLuminance = minimumLuminance
    }
}

/// A mastering display in the HEVC SEI message's integer units, to attach to a frame:
/// chromaticities in steps of 0.00002 (red x, y, green, blue, white point), luminance in steps of
/// 0.0001 cd/m².
struct MasteringDisplayCodes: Sendable, Hashable {
    /// Red, green, blue and the white point, x then y (8 values).
    let chromaticities: [UInt16]
    /// The maximum luminance.
    let maximumLuminance: UInt32
    /// The minimum luminance.
    let minimumLuminance: UInt32
}

/// libavutil's content light level (`AVContentLightMetadata`): MaxCLL and MaxFALL in cd/m².
struct LightLevelValues: Sendable, Hashable {
    /// MaxCLL.
    let maximumContentLightLevel: Int
    /// MaxFALL.
    let maximumFrameAverageLightLevel: Int

    init(_ metadata: AVContentLightMetadata) {
        maximumContentLightLevel = Int(metadata.MaxCLL)
        maximumFrameAverageLightLevel = Int(metadata.MaxFALL)
    }

    /// Values from their parts.
    init(maximumContentLightLevel: Int, maximumFrameAverageLightLevel: Int) {
        self.maximumContentLightLevel = maximumContentLightLevel
        self.maximumFrameAverageLightLevel = maximumFrameAverageLightLevel
    }
}
