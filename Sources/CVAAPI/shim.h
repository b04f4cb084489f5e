#pragma once
// libva and its DRM back end for Swift.
#include <va/va.h>
#include <va/va_drm.h>
#include <va/va_drmcommon.h>
#include <va/va_backend.h>
#include <va/va_str.h>
#include <va/va_vpp.h>

/// `VA_STATUS_SUCCESS` as a typed constant.
static const VAStatus CVAAPI_STATUS_SUCCESS = VA_STATUS_SUCCESS;
/// `VA_INVALID_ID`: the id of no surface, buffer, context or config.
static const VAGenericID CVAAPI_INVALID_ID = VA_INVALID_ID;
/// `VA_MAJOR_VERSION` of the headers the package is built against.
static const int CVAAPI_MAJOR_VERSION = VA_MAJOR_VERSION;
/// `VA_MINOR_VERSION` of the headers.
static const int CVAAPI_MINOR_VERSION = VA_MINOR_VERSION;
/// `VA_MICRO_VERSION` of the headers.
static const int CVAAPI_MICRO_VERSION = VA_MICRO_VERSION;

/// `VA_EXPORT_SURFACE_READ_ONLY | VA_EXPORT_SURFACE_SEPARATE_LAYERS`: export each plane as its own layer.
static const uint32_t CVAAPI_EXPORT_READ_SEPARATE = VA_EXPORT_SURFACE_READ_ONLY | VA_EXPORT_SURFACE_SEPARATE_LAYERS;
/// `VA_EXPORT_SURFACE_READ_ONLY | VA_EXPORT_SURFACE_COMPOSED_LAYERS`: export all planes as one layer.
static const uint32_t CVAAPI_EXPORT_READ_COMPOSED = VA_EXPORT_SURFACE_READ_ONLY | VA_EXPORT_SURFACE_COMPOSED_LAYERS;
/// `VA_SURFACE_ATTRIB_MEM_TYPE_DRM_PRIME_2`: export as a `VADRMPRIMESurfaceDescriptor`.
static const uint32_t CVAAPI_MEM_TYPE_DRM_PRIME_2 = VA_SURFACE_ATTRIB_MEM_TYPE_DRM_PRIME_2;
/// `VA_RT_FORMAT_YUV420`.
static const unsigned int CVAAPI_RT_FORMAT_YUV420 = VA_RT_FORMAT_YUV420;
/// `VA_RT_FORMAT_YUV420_10`.
static const unsigned int CVAAPI_RT_FORMAT_YUV420_10 = VA_RT_FORMAT_YUV420_10;
/// `VA_RT_FORMAT_YUV422`.
static const unsigned int CVAAPI_RT_FORMAT_YUV422 = VA_RT_FORMAT_YUV422;
/// `VA_RT_FORMAT_YUV444`.
static const unsigned int CVAAPI_RT_FORMAT_YUV444 = VA_RT_FORMAT_YUV444;
/// `VA_RT_FORMAT_YUV400`.
static const unsigned int CVAAPI_RT_FORMAT_YUV400 = VA_RT_FORMAT_YUV400;
/// `VA_ATTRIB_NOT_SUPPORTED`: the value of a config attribute the driver does not know.
static const unsigned int CVAAPI_ATTRIB_NOT_SUPPORTED = VA_ATTRIB_NOT_SUPPORTED;
/// `VA_FOURCC_NV12`.
static const unsigned int CVAAPI_FOURCC_NV12 = VA_FOURCC_NV12;
/// `VA_FOURCC_P010`.
static const unsigned int CVAAPI_FOURCC_P010 = VA_FOURCC_P010;

/// `VASurfaceReady`: `vaQuerySurfaceStatus` says the GPU has finished the surface's picture.
static const VASurfaceStatus CVAAPI_SURFACE_READY = VASurfaceReady;

/// `vaCreateSurfaces` with the one attribute every driver takes, the surfaces' pixel format (as
/// libavutil's `vaapi_pool_alloc` sets it; Swift cannot fill `VASurfaceAttrib`'s union tidily).
static inline VAStatus CVAAPI_create_surfaces(VADisplay display, unsigned int rt_format, unsigned int width,
                                              unsigned int height, VASurfaceID *surfaces, unsigned int count,
                                              unsigned int fourcc) {
    VASurfaceAttrib attribute = {
        .type = VASurfaceAttribPixelFormat,
        .flags = VA_SURFACE_ATTRIB_SETTABLE,
        .value = {.type = VAGenericValueTypeInteger, .value = {.i = (int)fourcc}},
    };
    return vaCreateSurfaces(display, rt_format, width, height, surfaces, count, &attribute, 1);
}

/// The driver context behind a display (`((VADisplayContextP)display)->pDriverContext`).
static inline VADriverContextP CVAAPI_driver_context(VADisplay display) {
    return display ? ((VADisplayContextP)display)->pDriverContext : NULL;
}

/// `VASurfaceAttribMaxWidth` (Swift does not see this anonymous enum's members).
static const int CVAAPI_SURFACE_ATTRIB_MAX_WIDTH = VASurfaceAttribMaxWidth;
/// `VASurfaceAttribMaxHeight`.
static const int CVAAPI_SURFACE_ATTRIB_MAX_HEIGHT = VASurfaceAttribMaxHeight;
/// `VASurfaceAttribMinWidth`.
static const int CVAAPI_SURFACE_ATTRIB_MIN_WIDTH = VASurfaceAttribMinWidth;
/// `VASurfaceAttribMinHeight`.
static const int CVAAPI_SURFACE_ATTRIB_MIN_HEIGHT = VASurfaceAttribMinHeight;
/// `VAGenericValueTypeInteger`.
static const int CVAAPI_GENERIC_VALUE_INTEGER = VAGenericValueTypeInteger;

/// One plane of a `VAImage` (Swift imports the fixed arrays as tuples).
static inline void CVAAPI_image_plane(const VAImage *image, int plane, uint32_t *pitch, uint32_t *offset) {
    *pitch = image->pitches[plane];
    *offset = image->offsets[plane];
}

/// An object of an exported surface: its file descriptor, size and format modifier.
static inline void CVAAPI_prime_object(const VADRMPRIMESurfaceDescriptor *descriptor, int index, int *fd,
                                       uint32_t *size, uint64_t *modifier) {
    *fd = descriptor->objects[index].fd;
    *size = descriptor->objects[index].size;
    *modifier = descriptor->objects[index].drm_format_modifier;
}

/// A layer of an exported surface: its DRM format and plane count.
static inline void CVAAPI_prime_layer(const VADRMPRIMESurfaceDescriptor *descriptor, int index, uint32_t *format,
                                      uint32_t *planes) {
    *format = descriptor->layers[index].drm_format;
    *planes = descriptor->layers[index].num_planes;
}

/// A plane of a layer of an exported surface: which object holds it, where, and its pitch.
static inline void CVAAPI_prime_plane(const VADRMPRIMESurfaceDescriptor *descriptor, int layer, int plane,
                                      uint32_t *object, uint32_t *offset, uint32_t *pitch) {
    *object = descriptor->layers[layer].object_index[plane];
    *offset = descriptor->layers[layer].offset[plane];
    *pitch = descriptor->layers[layer].pitch[plane];
}

/// `VA_FOURCC_BGRA`: packed B, G, R, A bytes.
static const unsigned int CVAAPI_FOURCC_BGRA = VA_FOURCC_BGRA;
/// `VA_RT_FORMAT_RGB32`.
static const unsigned int CVAAPI_RT_FORMAT_RGB32 = VA_RT_FORMAT_RGB32;
/// `VA_SURFACE_ATTRIB_MEM_TYPE_VA`'s sibling: `VASurfaceAttribPixelFormat`.
static const int CVAAPI_SURFACE_ATTRIB_PIXEL_FORMAT = VASurfaceAttribPixelFormat;
/// `VA_SOURCE_RANGE_REDUCED` and `VA_SOURCE_RANGE_FULL`.
static const uint8_t CVAAPI_RANGE_REDUCED = VA_SOURCE_RANGE_REDUCED;
static const uint8_t CVAAPI_RANGE_FULL = VA_SOURCE_RANGE_FULL;

/// What one picture through a video-processing context asks for: the source surface and the
/// rectangle of it to read, the colour on both sides, and the scaling flags (plain scalars, so
/// that Swift need not build a `VAProcPipelineParameterBuffer` with its pointers).
typedef struct CVAAPI_ProcessingRequest {
    VASurfaceID source;
    int16_t x, y;
    uint16_t width, height;
    VAProcColorStandardType source_standard;
    VAProcColorProperties source_properties;
    VAProcColorStandardType output_standard;
    VAProcColorProperties output_properties;
    uint32_t filter_flags;
    /// Whether to tone map HDR10 to SDR: a `VAProcFilterParameterBufferHDRToneMapping` with
    /// `hdr10` as the input's metadata, as FFmpeg's vf_tonemap_vaapi.c passes it.
    uint8_t tone_maps;
    VAHdrMetaDataHDR10 hdr10;
    /// Deinterlacing: a `VAProcFilterParameterBufferDeinterlacing` of this algorithm
    /// (`VAProcDeinterlacingType`) and flags (`VA_DEINTERLACING_*`) when not `VAProcDeinterlacingNone`.
    VAProcDeinterlacingType deinterlacing;
    uint32_t deinterlacing_flags;
    /// The reference pictures of a motion-adaptive deinterlacer, nearest first: past ones
    /// (`forward_references`) and future ones (`backward_references`); the arrays are the
    /// caller's, alive until this returns.
    VASurfaceID *past;
    uint32_t past_count;
    VASurfaceID *future;
    uint32_t future_count;
} CVAAPI_ProcessingRequest;

/// The reference pictures a deinterlacing `algorithm` takes on a video-processing context:
/// `vaQueryVideoProcPipelineCaps` asked with a filter buffer of it, as FFmpeg's
/// `deinterlace_vaapi` asks (the buffer is destroyed after). `*past` and `*future` are the
/// `num_forward_references` and `num_backward_references` answered.
static inline VAStatus CVAAPI_query_deinterlacing_references(VADisplay display, VAContextID context,
                                                             VAProcDeinterlacingType algorithm, uint32_t *past,
                                                             uint32_t *future) {
    VAProcFilterParameterBufferDeinterlacing deinterlacing = {
        .type = VAProcFilterDeinterlacing,
        .algorithm = algorithm,
    };
    VABufferID filter = VA_INVALID_ID;
    VAStatus status = vaCreateBuffer(display, context, VAProcFilterParameterBufferType, sizeof(deinterlacing), 1,
                                     &deinterlacing, &filter);
    if (status != VA_STATUS_SUCCESS) return status;
    VAProcPipelineCaps caps = {0};
    status = vaQueryVideoProcPipelineCaps(display, context, &filter, 1, &caps);
    vaDestroyBuffer(display, filter);
    *past = caps.num_forward_references;
    *future = caps.num_backward_references;
    return status;
}

/// Processes one picture into `target` on a video-processing context: `vaBeginPicture`, a
/// `VAProcPipelineParameterBuffer` made from `request` (`vaCreateBuffer`), `vaRenderPicture`,
/// `vaEndPicture`, and the buffer destroyed. The whole target is written (`output_region` NULL),
/// with an opaque black background. On failure returns the status and sets `*call` to the name of
/// the call that failed.
static inline VAStatus CVAAPI_process_picture(VADisplay display, VAContextID context, VASurfaceID target,
                                              const CVAAPI_ProcessingRequest *request, const char **call) {
    VARectangle region = {.x = request->x, .y = request->y, .width = request->width, .height = request->height};
    VAProcPipelineParameterBuffer parameters = {
        .surface = request->source,
        .surface_region = &region,
        .surface_color_standard = request->source_standard,
        .output_region = NULL,
        .output_background_color = 0xff000000,
        .output_color_standard = request->output_standard,
        .filter_flags = request->filter_flags,
        .input_color_properties = request->source_properties,
        .output_color_properties = request->output_properties,
        .forward_references = request->past,
        .num_forward_references = request->past_count,
        .backward_references = request->future,
        .num_backward_references = request->future_count,
    };
    VABufferID buffer = VA_INVALID_ID;
    VABufferID filters[2] = {VA_INVALID_ID, VA_INVALID_ID};
    unsigned int filter_count = 0;
    // The metadata the filter buffer points to is the request's, alive until this returns: iHD
    // copies it at vaRenderPicture (media_driver ddi_vp_functions.cpp SetProcFilterHdrTmParams).
    VAHdrMetaDataHDR10 hdr10 = request->hdr10;
    VAProcFilterParameterBufferHDRToneMapping tone_mapping = {
        .type = VAProcFilterHighDynamicRangeToneMapping,
        .data = {.metadata_type = VAProcHighDynamicRangeMetadataHDR10, .metadata = &hdr10,
                 .metadata_size = sizeof(hdr10)},
    };
    VAProcFilterParameterBufferDeinterlacing deinterlacing = {
        .type = VAProcFilterDeinterlacing,
        .algorithm = request->deinterlacing,
        .flags = request->deinterlacing_flags,
    };
    *call = "vaBeginPicture";
    VAStatus status = vaBeginPicture(display, context, target);
    if (status != VA_STATUS_SUCCESS) return status;
    *call = "vaCreateBuffer";
    status = VA_STATUS_SUCCESS;
    if (request->deinterlacing != VAProcDeinterlacingNone) {
        status = vaCreateBuffer(display, context, VAProcFilterParameterBufferType, sizeof(deinterlacing), 1,
                                &deinterlacing, &filters[filter_count++]);
    }
    if (status == VA_STATUS_SUCCESS && request->tone_maps) {
        status = vaCreateBuffer(display, context, VAProcFilterParameterBufferType, sizeof(tone_mapping), 1,
                                &tone_mapping, &filters[filter_count++]);
    }
    if (filter_count > 0) {
        parameters.filters = filters;
        parameters.num_filters = filter_count;
    }
    if (status == VA_STATUS_SUCCESS) {
        status = vaCreateBuffer(display, context, VAProcPipelineParameterBufferType, sizeof(parameters), 1,
                                &parameters, &buffer);
    }
    if (status == VA_STATUS_SUCCESS) {
        *call = "vaRenderPicture";
        status = vaRenderPicture(display, context, &buffer, 1);
    }
    // vaEndPicture ends the picture begun, even after a failure (the context is then ready for
    // the next one); its status counts only when all before succeeded.
    VAStatus ended = vaEndPicture(display, context);
    if (status == VA_STATUS_SUCCESS) {
        *call = "vaEndPicture";
        status = ended;
    }
    if (buffer != VA_INVALID_ID) vaDestroyBuffer(display, buffer);
    for (unsigned int i = 0; i < 2; i++) {
        if (filters[i] != VA_INVALID_ID) vaDestroyBuffer(display, filters[i]);
    }
    return status;
}
