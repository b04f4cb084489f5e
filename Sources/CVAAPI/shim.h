#pragma once
// libva and its DRM back end for Swift.
#include <va/va.h>
#include <va/va_drm.h>
#include <va/va_drmcommon.h>
#include <va/va_backend.h>
#include <va/va_str.h>

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
