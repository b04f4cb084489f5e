// The VAToolbox test VA driver: a libva back end that runs without a GPU.
//
// It implements the entry points FFmpeg's VA-API hwaccel and hwcontext (and VAToolbox) call,
// keeps surfaces in ordinary memory (NV12 or P010), and instead of decoding it stamps each
// picture's identity (POC, decode index, a hash of its slice data) into the render target.
// Faults are injected on request through environment variables read at vaInitialize. Given
// VATB_REFERENCE_STREAM, real decoded pictures replace the stamps (vatb_reference_pictures.c).
// Docs/TestVADriver.md describes the stamp layout and the variables.
#define _GNU_SOURCE 1

#include "vatb_test_driver.h"
#include "vatb_reference_pictures.h"
#include "vatb_personality.h"
#include "vatb_fault_injection.h"
#include "vatb_video_processing.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <va/va.h>
#include <va/va_backend.h>
#include <va/va_backend_vpp.h>
#include <va/va_dec_av1.h>
#include <va/va_dec_vp8.h>
#include <va/va_dec_vp9.h>
#include <va/va_drmcommon.h>

// MARK: - Constants

#define VATB_STAMP_VERSION 1u
#define VATB_DEFAULT_MAX_SIZE 4096
#define VATB_MIN_SIZE 16
#define VATB_MAX_OBJECTS 0x0fffffffu


// Object ids live in one range per type, so that an id of the wrong type is refused.
enum {
    ID_BASE_CONFIG = 0x10000000u,
    ID_BASE_CONTEXT = 0x20000000u,
    ID_BASE_SURFACE = 0x30000000u,
    ID_BASE_BUFFER = 0x40000000u,
    ID_BASE_IMAGE = 0x50000000u,
};

// MARK: - Process-wide counters

static atomic_long live_drivers, live_configs, live_contexts, live_surfaces, live_buffers, live_images;
static atomic_long total_end_pictures, total_failed_end_pictures, total_syncs;
// Successful vaDeriveImage and vaGetImage calls: only in the live report (VATBLiveObjects keeps
// its layout), so that a subprocess test sees which read-back path its client took.
static atomic_long total_derived_images, total_got_images;
// Pictures processed by VPP contexts (vaEndPicture), in the live report: the conversions a client
// had the "GPU" make instead of converting on the CPU.
static atomic_long total_processed_pictures;

void vatb_test_driver_live_objects(VATBLiveObjects *out) {
    if (out == NULL) return;
    out->drivers = atomic_load(&live_drivers);
    out->configs = atomic_load(&live_configs);
    out->contexts = atomic_load(&live_contexts);
    out->surfaces = atomic_load(&live_surfaces);
    out->buffers = atomic_load(&live_buffers);
    out->images = atomic_load(&live_images);
    out->end_pictures = atomic_load(&total_end_pictures);
    out->failed_end_pictures = atomic_load(&total_failed_end_pictures);
    out->syncs = atomic_load(&total_syncs);
}

// MARK: - Objects

// A destroyed object's id is given to the next object made, lowest free index first, as Mesa's VA
// front end does (src/gallium/auxiliary/util/u_handle_table.c, handle_table_add searches from
// `filled`, handle_table_remove lowers it; vlVaCreateBuffer and vlVaCreateSurfaces2 take their
// ids there); intel/media-driver also reuses freed ids (media_libva_util.cpp,
// DdiMediaUtil_AllocPMediaSurfaceFromHeap and its buffer and image twins take the heap's
// pFirstFreeHeapElement, the last one released). Ids that only grew
// would grow the table by a pointer for every buffer ever made: a long decode (4 buffers a
// picture) would show as a slow heap growth that no real driver has.
typedef struct ObjectTable {
    void **items;
    uint32_t count;    // slots in use or freed: ids run from base to base + count - 1
    uint32_t capacity;
    uint32_t filled;   // every slot below this one holds an object
    uint32_t base;
} ObjectTable;

// The codec a profile belongs to: it decides which buffer types vaRenderPicture takes and what
// the picture parameters say about the picture.
typedef enum Codec {
    CODEC_H264,
    CODEC_HEVC,
    CODEC_MPEG2,
    CODEC_VP8,
    CODEC_VP9,
    CODEC_AV1,
    CODEC_VPP, // a video-processing context (VAProfileNone, VAEntrypointVideoProc)
} Codec;

typedef struct Config {
    VAProfile profile;
    VAEntrypoint entrypoint;
    unsigned int rt_format;
} Config;

typedef struct Surface {
    unsigned int width, height;
    unsigned int rt_format;
    uint32_t fourcc;
    unsigned int bytes_per_sample;
    unsigned int planes; // 2 (NV12, P010: luma, interleaved chroma) or 1 (packed RGB)
    uint32_t pitch;
    uint32_t chroma_offset;
    uint32_t size;
    uint8_t *data;
    int derived_images;
    // The first field of an H.264 or MPEG-2 field pair decoded into this surface, waiting for the
    // second.
    bool has_first_field;
    unsigned int first_field_flags;
    uint64_t first_field_hash;
    int32_t first_field_poc;
    uint32_t first_field_slices;
    uint32_t first_field_bytes;
    // Personalities (vatb_personality.c): the last picture was a field (Mesa's interlaced
    // buffers), it had macroblock errors (VATB_CORRUPT_PICTURE), and when the simulated GPU
    // finishes it (VATB_LATENCY_US; CLOCK_MONOTONIC nanoseconds, 0 = ready).
    bool interlaced;
    bool damaged;
    uint64_t ready_ns;
    // Reference mode: what the decoder says of the picture the surface holds (its chroma siting
    // is checked against a VPP pipeline's); `described` false for a stamp.
    bool described;
    VATBPictureDescription description;
} Surface;

typedef struct Buffer {
    VABufferType type;
    unsigned int element_size;
    unsigned int num_elements;
    size_t capacity;
    uint8_t *data;
    bool owns_data;
    bool owned_by_image;
} Buffer;

typedef struct Image {
    VAImage image;
    VASurfaceID derived_from; // VA_INVALID_ID unless made by vaDeriveImage
} Image;

// One slice parameter element waiting for its slice data buffer.
typedef struct PendingSlice {
    uint32_t offset;
    uint32_t size;
} PendingSlice;

typedef struct Context {
    VAConfigID config;
    VAProfile profile;
    Codec codec;
    int width, height;
    VASurfaceID *render_targets;
    int num_render_targets;
    uint32_t decode_index;
    // The picture between vaBeginPicture and vaEndPicture.
    bool in_picture;
    VASurfaceID target;
    uint64_t hash;
    uint32_t slices;
    uint32_t hashed_bytes;
    // AV1: the hash of the picture's first slice data buffer as a whole (its first tile group's
    // tile data, the tile_size_minus_1 fields between tiles included, trailing zeros stripped):
    // the key reference mode finds the picture by, since it is a suffix of the OBU's payload
    // whether the picture has one tile or several (vatb_reference_pictures.c).
    uint64_t tile_group_hash;
    bool tile_group_hashed;
    int32_t poc;
    bool poc_is_decode_index; // no POC in the parameters: the stamp's POC is the decode index
    bool continues_first_field;
    unsigned int field_flags;
    bool invalid_slice;
    // AV1 with film grain: the surface the film-grained picture goes to (VA_INVALID_SURFACE if none).
    VASurfaceID display_target;
    // Slice parameter elements rendered but not yet paired, as groups (one per buffer), FIFO.
    PendingSlice *pending;
    size_t *group_ends;
    size_t pending_count, pending_capacity, group_count, group_capacity, group_head, pending_head;
    // The surfaces decoded into so far, for a personality's render-target limit (nvidia: 32).
    VASurfaceID decoded_targets[64];
    int decoded_target_count;
    // A VPP context: the pipeline rendered for the picture.
    VATBPipeline pipeline;
    bool has_pipeline;
} Context;

typedef struct FaultWindow {
    unsigned long first; // 0 = off
    unsigned long count; // 0 = every call from `first` on
} FaultWindow;

typedef struct Driver {
    pthread_mutex_t lock;
    ObjectTable configs, contexts, surfaces, buffers, images;
    bool trace;
    bool live_report;
    bool call_report; // VATB_CALL_REPORT: print the calls of each entry point at Terminate
    bool context_report;
    bool fail_create_config;
    bool fail_create_context;
    FaultWindow fail_end_picture, fail_sync;
    unsigned long end_picture_calls, sync_calls;
    // VATB_FAIL_PROCESSING: pictures of VPP contexts (counted apart from decoded ones) that fail.
    FaultWindow fail_processing;
    unsigned long processing_calls;
    bool unsupported[64]; // indexed by VAProfile
    int max_width, max_height;
    VATBReferencePictures *reference; // VATB_REFERENCE_STREAM's pictures, NULL in stamp mode
    // VATB_PERSONALITY and the vendor string it gives.
    const VATBPersonality *personality;
    char vendor[160];
    bool nvidia_egl_backend; // NVD_BACKEND at init (nvidia: its EGL back end cannot export)
    // VATB_CORRUPT_PICTURE: vaEndPicture calls whose pictures have macroblock errors.
    FaultWindow corrupt_picture;
    // VATB_FAULT_PROFILES: injected decode faults only in contexts of these profiles (none listed:
    // every context).
    bool fault_profiles[64];
    bool any_fault_profile;
    // VATB_LATENCY_US: a simulated GPU whose decode engines (VATB_ENGINES, shared by the whole
    // process: see engine_timeline) decode one picture at a time each, each picture taking this
    // long, with at most VATB_QUEUE_DEPTH pictures queued per engine (vaEndPicture waits for room).
    uint64_t latency_ns;
    uint64_t queue_depth;
} Driver;

#define DRIVER(ctx) ((Driver *)(ctx)->pDriverData)

static void read_engine_count(void);

static void trace(Driver *driver, const char *call) {
    if (driver->trace) fprintf(stderr, "vatb: %s\n", call);
}

#define ENTER(ctx)                         \
    Driver *driver = DRIVER(ctx);          \
    trace(driver, __func__ + 5);           \
    pthread_mutex_lock(&driver->lock);     \
    VAStatus status = VA_STATUS_SUCCESS
#define LEAVE()                              \
    do {                                     \
        pthread_mutex_unlock(&driver->lock); \
        return status;                       \
    } while (0)

static VAStatus table_add(ObjectTable *table, void *item, uint32_t *id) {
    while (table->filled < table->count && table->items[table->filled] != NULL) table->filled += 1;
    if (table->filled < table->count) {
        table->items[table->filled] = item;
        *id = table->base + table->filled;
        table->filled += 1;
        return VA_STATUS_SUCCESS;
    }
    if (table->count >= VATB_MAX_OBJECTS) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    if (table->count == table->capacity) {
        uint32_t capacity = table->capacity ? table->capacity * 2 : 64;
        void **items = realloc(table->items, capacity * sizeof(void *));
        if (items == NULL) return VA_STATUS_ERROR_ALLOCATION_FAILED;
        table->items = items;
        table->capacity = capacity;
    }
    table->items[table->count] = item;
    *id = table->base + table->count;
    table->count += 1;
    table->filled = table->count;
    return VA_STATUS_SUCCESS;
}

static void *table_get(const ObjectTable *table, uint32_t id) {
    if (id < table->base || id - table->base >= table->count) return NULL;
    return table->items[id - table->base];
}

static void table_remove(ObjectTable *table, uint32_t id) {
    if (id < table->base || id - table->base >= table->count) return;
    table->items[id - table->base] = NULL;
    if (id - table->base < table->filled) table->filled = id - table->base;
}

// MARK: - Profiles and formats

typedef struct ProfileInfo {
    VAProfile profile;
    const char *name;
    Codec codec;
    unsigned int rt_format; // every RT format the profile decodes to (VAConfigAttribRTFormat)
} ProfileInfo;

// RT formats as real drivers report them: one bit depth per profile, except AV1 Profile 0, which
// covers 8- and 10-bit 4:2:0 streams (intel/media-driver, media_ddi_decode_av1.cpp,
// DdiDecodeAV1::CodecHalInit: "VAProfileAV1Profile0 supports both 420 8bit and 420 10bit").
static const ProfileInfo profiles[] = {
    {VAProfileH264ConstrainedBaseline, "H264ConstrainedBaseline", CODEC_H264, VA_RT_FORMAT_YUV420},
    {VAProfileH264Main, "H264Main", CODEC_H264, VA_RT_FORMAT_YUV420},
    {VAProfileH264High, "H264High", CODEC_H264, VA_RT_FORMAT_YUV420},
    {VAProfileHEVCMain, "HEVCMain", CODEC_HEVC, VA_RT_FORMAT_YUV420},
    {VAProfileHEVCMain10, "HEVCMain10", CODEC_HEVC, VA_RT_FORMAT_YUV420_10},
    {VAProfileMPEG2Simple, "MPEG2Simple", CODEC_MPEG2, VA_RT_FORMAT_YUV420},
    {VAProfileMPEG2Main, "MPEG2Main", CODEC_MPEG2, VA_RT_FORMAT_YUV420},
    {VAProfileVP8Version0_3, "VP8Version0_3", CODEC_VP8, VA_RT_FORMAT_YUV420},
    {VAProfileVP9Profile0, "VP9Profile0", CODEC_VP9, VA_RT_FORMAT_YUV420},
    {VAProfileVP9Profile2, "VP9Profile2", CODEC_VP9, VA_RT_FORMAT_YUV420_10},
    {VAProfileAV1Profile0, "AV1Profile0", CODEC_AV1, VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV420_10},
};
#define PROFILE_COUNT ((int)(sizeof(profiles) / sizeof(profiles[0])))

static const ProfileInfo *profile_info(const Driver *driver, VAProfile profile) {
    for (int i = 0; i < PROFILE_COUNT; i++) {
        if (profiles[i].profile == profile) return driver->unsupported[profiles[i].profile] ? NULL : &profiles[i];
    }
    return NULL;
}

// The buffer types FFmpeg 5.1's hwaccel renders for each codec (libavcodec/vaapi_h264.c,
// vaapi_hevc.c, vaapi_mpeg2.c, vaapi_vp8.c, vaapi_vp9.c, vaapi_av1.c). Any other type is refused
// with VA_STATUS_ERROR_UNSUPPORTED_BUFFERTYPE, as intel/media-driver does: its per-codec
// RenderPicture (media_ddi_decode_av1.cpp DdiDecodeAV1::RenderPicture, media_ddi_decode_vp8.cpp
// DdiDecodeVP8::RenderPicture, ...) hands an unknown type to DdiCpInterface::RenderCencPicture,
// which returns that status without content protection (media_libva_cp_interface.cpp).
static bool accepts_buffer_type(Codec codec, VABufferType type) {
    if (codec == CODEC_VPP) return type == VAProcPipelineParameterBufferType;
    switch (type) {
    case VAPictureParameterBufferType:
    case VASliceParameterBufferType:
    case VASliceDataBufferType: return true;
    case VAIQMatrixBufferType:
        return codec == CODEC_H264 || codec == CODEC_HEVC || codec == CODEC_MPEG2 || codec == CODEC_VP8;
    case VAProbabilityBufferType: return codec == CODEC_VP8;
    default: return false;
    }
}

// The RGB formats are the ones VPP writes (masks as libva's va_fool and FFmpeg's
// hwcontext_vaapi.c vaapi_format_map read them: 32 bits, little-endian bytes B, G, R, A for BGRA).
static const VAImageFormat image_formats[] = {
    {.fourcc = VA_FOURCC_NV12, .byte_order = VA_LSB_FIRST, .bits_per_pixel = 12},
    {.fourcc = VA_FOURCC_P010, .byte_order = VA_LSB_FIRST, .bits_per_pixel = 24},
    {.fourcc = VA_FOURCC_BGRA, .byte_order = VA_LSB_FIRST, .bits_per_pixel = 32, .depth = 32,
     .red_mask = 0x00ff0000, .green_mask = 0x0000ff00, .blue_mask = 0x000000ff, .alpha_mask = 0xff000000},
    {.fourcc = VA_FOURCC_RGBA, .byte_order = VA_LSB_FIRST, .bits_per_pixel = 32, .depth = 32,
     .red_mask = 0x000000ff, .green_mask = 0x0000ff00, .blue_mask = 0x00ff0000, .alpha_mask = 0xff000000},
    {.fourcc = VA_FOURCC_BGRX, .byte_order = VA_LSB_FIRST, .bits_per_pixel = 32, .depth = 24,
     .red_mask = 0x00ff0000, .green_mask = 0x0000ff00, .blue_mask = 0x000000ff},
    {.fourcc = VA_FOURCC_RGBX, .byte_order = VA_LSB_FIRST, .bits_per_pixel = 32, .depth = 24,
     .red_mask = 0x000000ff, .green_mask = 0x0000ff00, .blue_mask = 0x00ff0000},
};
#define IMAGE_FORMAT_COUNT ((int)(sizeof(image_formats) / sizeof(image_formats[0])))

static bool is_rgb_fourcc(uint32_t fourcc) {
    return fourcc == VA_FOURCC_BGRA || fourcc == VA_FOURCC_RGBA || fourcc == VA_FOURCC_BGRX
        || fourcc == VA_FOURCC_RGBX;
}

// The surface format of an RT format when no pixel-format attribute names one.
static uint32_t fourcc_for_rt_format(unsigned int rt_format) {
    if (rt_format == VA_RT_FORMAT_YUV420) return VA_FOURCC_NV12;
    if (rt_format == VA_RT_FORMAT_YUV420_10) return VA_FOURCC_P010;
    if (rt_format == VA_RT_FORMAT_RGB32) return VA_FOURCC_BGRA;
    return 0;
}

// Whether a surface of `fourcc` can be made for `rt_format`.
static bool rt_format_holds(unsigned int rt_format, uint32_t fourcc) {
    if (rt_format == VA_RT_FORMAT_RGB32) return is_rgb_fourcc(fourcc);
    return fourcc_for_rt_format(rt_format) == fourcc;
}

static uint32_t align_up(uint32_t value, uint32_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

// The plane layout of an NV12 or P010 picture: luma pitch = width (in bytes) aligned to 64,
// chroma plane after the luma plane at pitch × height aligned to 16.
// A packed RGB picture is one plane of 4-byte pixels, pitch aligned to 64, rows to 16 (its
// chroma_offset is its size: there is no chroma plane).
typedef struct Layout {
    unsigned int bytes_per_sample;
    unsigned int planes;
    uint32_t pitch, chroma_offset, size;
} Layout;

static bool layout_for(uint32_t fourcc, unsigned int width, unsigned int height, Layout *layout) {
    if (width == 0 || height == 0 || width > 65536 || height > 65536) return false;
    if (is_rgb_fourcc(fourcc)) {
        layout->bytes_per_sample = 4;
        layout->planes = 1;
        layout->pitch = align_up(width * 4, 64);
        layout->chroma_offset = layout->size = layout->pitch * align_up(height, 16);
        return true;
    }
    if (fourcc != VA_FOURCC_NV12 && fourcc != VA_FOURCC_P010) return false;
    layout->planes = 2;
    layout->bytes_per_sample = fourcc == VA_FOURCC_P010 ? 2 : 1;
    layout->pitch = align_up(width * layout->bytes_per_sample, 64);
    uint32_t aligned_height = align_up(height, 16);
    layout->chroma_offset = layout->pitch * aligned_height;
    layout->size = layout->chroma_offset + layout->pitch * (aligned_height / 2);
    return true;
}

// MARK: - Environment

static void parse_fault_window(const char *name, FaultWindow *window) {
    const char *value = getenv(name);
    window->first = 0;
    window->count = 1;
    if (value == NULL || *value == '\0') return;
    char *end = NULL;
    window->first = strtoul(value, &end, 10);
    if (end != NULL && *end == ':') window->count = strtoul(end + 1, NULL, 10);
}

static bool in_fault_window(const FaultWindow *window, unsigned long call) {
    if (window->first == 0 || call < window->first) return false;
    return window->count == 0 || call - window->first < window->count;
}

static bool env_flag(const char *name) {
    const char *value = getenv(name);
    return value != NULL && *value != '\0' && strcmp(value, "0") != 0;
}

// Sets `flags[profile]` for each profile named in the variable (comma-separated VAProfile names
// without "VAProfile"); whether any was.
static bool parse_profile_list(const char *name, bool flags[64]) {
    bool any = false;
    const char *list = getenv(name);
    while (list != NULL && *list != '\0') {
        size_t length = strcspn(list, ",");
        for (int i = 0; i < PROFILE_COUNT; i++) {
            if (strlen(profiles[i].name) == length && strncmp(profiles[i].name, list, length) == 0) {
                flags[profiles[i].profile] = true;
                any = true;
            }
        }
        list += length;
        if (*list == ',') list++;
    }
    return any;
}

static void parse_environment(Driver *driver) {
    driver->trace = env_flag("VATB_TRACE");
    driver->live_report = env_flag("VATB_LIVE_REPORT");
    driver->call_report = env_flag("VATB_CALL_REPORT");
    driver->context_report = env_flag("VATB_CONTEXT_REPORT");
    driver->fail_create_config = env_flag("VATB_FAIL_CREATE_CONFIG");
    driver->fail_create_context = env_flag("VATB_FAIL_CREATE_CONTEXT");
    parse_fault_window("VATB_FAIL_END_PICTURE", &driver->fail_end_picture);
    parse_fault_window("VATB_FAIL_SYNC", &driver->fail_sync);
    parse_fault_window("VATB_FAIL_PROCESSING", &driver->fail_processing);

    parse_profile_list("VATB_UNSUPPORTED_PROFILES", driver->unsupported);

    driver->personality = vatb_personality_from_environment(driver->vendor, sizeof(driver->vendor));
    driver->nvidia_egl_backend = vatb_personality_nvidia_egl_backend(driver->personality);
    parse_fault_window("VATB_CORRUPT_PICTURE", &driver->corrupt_picture);
    driver->any_fault_profile = parse_profile_list("VATB_FAULT_PROFILES", driver->fault_profiles);
    const char *latency = getenv("VATB_LATENCY_US");
    driver->latency_ns = latency != NULL ? strtoull(latency, NULL, 10) * 1000ull : 0;
    const char *depth = getenv("VATB_QUEUE_DEPTH");
    driver->queue_depth = depth != NULL && strtoull(depth, NULL, 10) > 0 ? strtoull(depth, NULL, 10) : 4;
    read_engine_count();

    driver->max_width = VATB_DEFAULT_MAX_SIZE;
    driver->max_height = VATB_DEFAULT_MAX_SIZE;
    const char *size = getenv("VATB_MAX_SIZE");
    int width = 0, height = 0;
    if (size != NULL && sscanf(size, "%dx%d", &width, &height) == 2 && width > 0 && height > 0) {
        driver->max_width = width;
        driver->max_height = height;
    }
}

// MARK: - Freeing

static void free_context(Context *context) {
    if (context == NULL) return;
    free(context->render_targets);
    free(context->pending);
    free(context->group_ends);
    free(context);
}

static void free_surface(Surface *surface) {
    if (surface == NULL) return;
    free(surface->data);
    free(surface);
}

static void free_buffer(Buffer *buffer) {
    if (buffer == NULL) return;
    if (buffer->owns_data) free(buffer->data);
    free(buffer);
}

static void free_table(ObjectTable *table, void (*free_item)(void *)) {
    for (uint32_t i = 0; i < table->count; i++) {
        if (table->items[i] != NULL) free_item(table->items[i]);
    }
    free(table->items);
    table->items = NULL;
    table->count = table->capacity = table->filled = 0;
}

static void free_context_item(void *item) { free_context(item); }
static void free_surface_item(void *item) { free_surface(item); }
static void free_buffer_item(void *item) { free_buffer(item); }

// MARK: - Configs

// The RT formats a VPP config reads and writes.
#define VPP_RT_FORMATS (VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV420_10 | VA_RT_FORMAT_RGB32)

// Whether `profile` is video processing under this personality (VAProfileNone).
static bool processes(const Driver *driver, VAProfile profile) {
    return profile == VAProfileNone && driver->personality->processing.available;
}

static VAStatus vatb_QueryConfigProfiles(VADriverContextP ctx, VAProfile *profile_list, int *num_profiles) {
    VATB_INJECT();
    ENTER(ctx);
    int count = 0;
    for (int i = 0; i < PROFILE_COUNT; i++) {
        if (!driver->unsupported[profiles[i].profile]) profile_list[count++] = profiles[i].profile;
    }
    // Video processing, listed last as Mesa lists it (config.c vlVaQueryConfigProfiles).
    if (driver->personality->processing.available) profile_list[count++] = VAProfileNone;
    *num_profiles = count;
    LEAVE();
}

static VAStatus vatb_QueryConfigEntrypoints(
    VADriverContextP ctx, VAProfile profile, VAEntrypoint *entrypoint_list, int *num_entrypoints
) {
    VATB_INJECT();
    ENTER(ctx);
    if (processes(driver, profile)) {
        entrypoint_list[0] = VAEntrypointVideoProc;
        *num_entrypoints = 1;
        if (driver->personality->processing.lists_stats_entrypoint) entrypoint_list[(*num_entrypoints)++] = VAEntrypointStats;
    } else if (profile_info(driver, profile) == NULL) {
        *num_entrypoints = 0;
        status = VA_STATUS_ERROR_UNSUPPORTED_PROFILE;
    } else {
        entrypoint_list[0] = VAEntrypointVLD;
        *num_entrypoints = 1;
    }
    LEAVE();
}

static void fill_config_attribute(const Driver *driver, unsigned int rt_format, VAConfigAttrib *attrib) {
    switch (attrib->type) {
    case VAConfigAttribRTFormat: attrib->value = rt_format; break;
    case VAConfigAttribDecSliceMode: attrib->value = VA_DEC_SLICE_MODE_NORMAL; break;
    case VAConfigAttribMaxPictureWidth: attrib->value = (uint32_t)driver->max_width; break;
    case VAConfigAttribMaxPictureHeight: attrib->value = (uint32_t)driver->max_height; break;
    default: attrib->value = VA_ATTRIB_NOT_SUPPORTED; break;
    }
}

static VAStatus vatb_GetConfigAttributes(
    VADriverContextP ctx, VAProfile profile, VAEntrypoint entrypoint, VAConfigAttrib *attrib_list, int num_attribs
) {
    VATB_INJECT();
    ENTER(ctx);
    const ProfileInfo *info = profile_info(driver, profile);
    if (processes(driver, profile)) {
        if (entrypoint != VAEntrypointVideoProc) {
            status = VA_STATUS_ERROR_UNSUPPORTED_ENTRYPOINT;
        } else {
            // Only the RT formats are answered (Mesa config.c vlVaGetConfigAttributes).
            for (int i = 0; i < num_attribs; i++) {
                attrib_list[i].value = attrib_list[i].type == VAConfigAttribRTFormat ? VPP_RT_FORMATS
                                                                                      : VA_ATTRIB_NOT_SUPPORTED;
            }
        }
    } else if (info == NULL) {
        status = VA_STATUS_ERROR_UNSUPPORTED_PROFILE;
    } else if (entrypoint != VAEntrypointVLD) {
        status = VA_STATUS_ERROR_UNSUPPORTED_ENTRYPOINT;
    } else {
        for (int i = 0; i < num_attribs; i++) fill_config_attribute(driver, info->rt_format, &attrib_list[i]);
    }
    LEAVE();
}

static VAStatus vatb_CreateConfig(
    VADriverContextP ctx, VAProfile profile, VAEntrypoint entrypoint, VAConfigAttrib *attrib_list, int num_attribs,
    VAConfigID *config_id
) {
    VATB_INJECT();
    ENTER(ctx);
    const ProfileInfo *info = profile_info(driver, profile);
    unsigned int rt_format = info != NULL ? info->rt_format : 0;
    if (driver->fail_create_config) {
        status = VA_STATUS_ERROR_OPERATION_FAILED;
    } else if (processes(driver, profile)) {
        // Mesa accepts only the RT format attribute here (config.c vlVaCreateConfig).
        rt_format = VPP_RT_FORMATS;
        if (entrypoint != VAEntrypointVideoProc) status = VA_STATUS_ERROR_UNSUPPORTED_ENTRYPOINT;
        for (int i = 0; status == VA_STATUS_SUCCESS && i < num_attribs; i++) {
            if (attrib_list[i].type != VAConfigAttribRTFormat) {
                status = VA_STATUS_ERROR_INVALID_VALUE;
            } else if ((rt_format = attrib_list[i].value & VPP_RT_FORMATS) == 0) {
                status = VA_STATUS_ERROR_UNSUPPORTED_RT_FORMAT;
            }
        }
    } else if (info == NULL) {
        status = VA_STATUS_ERROR_UNSUPPORTED_PROFILE;
    } else if (entrypoint != VAEntrypointVLD) {
        status = VA_STATUS_ERROR_UNSUPPORTED_ENTRYPOINT;
    } else {
        for (int i = 0; i < num_attribs; i++) {
            if (attrib_list[i].type == VAConfigAttribRTFormat) {
                // The config keeps the formats asked for that the profile has.
                rt_format = attrib_list[i].value & info->rt_format;
                if (rt_format == 0) status = VA_STATUS_ERROR_UNSUPPORTED_RT_FORMAT;
            }
        }
    }
    if (status == VA_STATUS_SUCCESS) {
        Config *config = calloc(1, sizeof(*config));
        if (config == NULL) {
            status = VA_STATUS_ERROR_ALLOCATION_FAILED;
        } else {
            config->profile = profile;
            config->entrypoint = entrypoint;
            config->rt_format = rt_format;
            status = table_add(&driver->configs, config, config_id);
            if (status == VA_STATUS_SUCCESS) {
                atomic_fetch_add(&live_configs, 1);
            } else {
                free(config);
            }
        }
    }
    LEAVE();
}

static VAStatus vatb_DestroyConfig(VADriverContextP ctx, VAConfigID config_id) {
    ENTER(ctx);
    Config *config = table_get(&driver->configs, config_id);
    if (config == NULL) {
        status = VA_STATUS_ERROR_INVALID_CONFIG;
    } else {
        table_remove(&driver->configs, config_id);
        free(config);
        atomic_fetch_sub(&live_configs, 1);
    }
    LEAVE();
}

static VAStatus vatb_QueryConfigAttributes(
    VADriverContextP ctx, VAConfigID config_id, VAProfile *profile, VAEntrypoint *entrypoint,
    VAConfigAttrib *attrib_list, int *num_attribs
) {
    VATB_INJECT();
    ENTER(ctx);
    Config *config = table_get(&driver->configs, config_id);
    if (config == NULL) {
        status = VA_STATUS_ERROR_INVALID_CONFIG;
    } else {
        static const VAConfigAttribType types[] = {
            VAConfigAttribRTFormat, VAConfigAttribDecSliceMode, VAConfigAttribMaxPictureWidth,
            VAConfigAttribMaxPictureHeight,
        };
        *profile = config->profile;
        *entrypoint = config->entrypoint;
        int count = (int)(sizeof(types) / sizeof(types[0]));
        for (int i = 0; i < count; i++) {
            attrib_list[i].type = types[i];
            fill_config_attribute(driver, config->rt_format, &attrib_list[i]);
        }
        *num_attribs = count;
    }
    LEAVE();
}

// MARK: - Surfaces

static VAStatus vatb_QuerySurfaceAttributes(
    VADriverContextP ctx, VAConfigID config_id, VASurfaceAttrib *attrib_list, unsigned int *num_attribs
) {
    VATB_INJECT();
    ENTER(ctx);
    VASurfaceAttrib attribs[16];
    unsigned int count = 0;
    Config *config = table_get(&driver->configs, config_id);
    if (config == NULL && config_id != VA_INVALID_ID) {
        status = VA_STATUS_ERROR_INVALID_CONFIG;
        LEAVE();
    }
    memset(attribs, 0, sizeof(attribs));
#define ADD_ATTRIB(attrib_type, attrib_flags, attrib_value)    \
    do {                                                       \
        attribs[count].type = (attrib_type);                   \
        attribs[count].flags = (attrib_flags);                 \
        attribs[count].value.type = VAGenericValueTypeInteger; \
        attribs[count].value.value.i = (int)(attrib_value);    \
        count++;                                               \
    } while (0)
    const unsigned int settable = VA_SURFACE_ATTRIB_GETTABLE | VA_SURFACE_ATTRIB_SETTABLE;
    if (config != NULL && config->entrypoint == VAEntrypointVideoProc) {
        // What the personality's VPP writes, in its order.
        const VATBProcessing *processing = &driver->personality->processing;
        for (unsigned int i = 0; i < processing->output_fourcc_count; i++) {
            ADD_ATTRIB(VASurfaceAttribPixelFormat, settable, processing->output_fourccs[i]);
        }
    } else {
        if (config == NULL || (config->rt_format & VA_RT_FORMAT_YUV420) != 0) {
            ADD_ATTRIB(VASurfaceAttribPixelFormat, settable, VA_FOURCC_NV12);
        }
        if (config == NULL || (config->rt_format & VA_RT_FORMAT_YUV420_10) != 0) {
            ADD_ATTRIB(VASurfaceAttribPixelFormat, settable, VA_FOURCC_P010);
        }
    }
    ADD_ATTRIB(VASurfaceAttribMinWidth, VA_SURFACE_ATTRIB_GETTABLE, VATB_MIN_SIZE);
    ADD_ATTRIB(VASurfaceAttribMinHeight, VA_SURFACE_ATTRIB_GETTABLE, VATB_MIN_SIZE);
    ADD_ATTRIB(VASurfaceAttribMaxWidth, VA_SURFACE_ATTRIB_GETTABLE, driver->max_width);
    ADD_ATTRIB(VASurfaceAttribMaxHeight, VA_SURFACE_ATTRIB_GETTABLE, driver->max_height);
    ADD_ATTRIB(
        VASurfaceAttribMemoryType, settable, VA_SURFACE_ATTRIB_MEM_TYPE_VA | VA_SURFACE_ATTRIB_MEM_TYPE_DRM_PRIME_2
    );
#undef ADD_ATTRIB
    if (attrib_list == NULL) {
        *num_attribs = count;
    } else if (*num_attribs < count) {
        *num_attribs = count;
        status = VA_STATUS_ERROR_MAX_NUM_EXCEEDED;
    } else {
        memcpy(attrib_list, attribs, count * sizeof(VASurfaceAttrib));
        *num_attribs = count;
    }
    LEAVE();
}

static Surface *new_surface(uint32_t fourcc, unsigned int rt_format, unsigned int width, unsigned int height) {
    Layout layout;
    if (!layout_for(fourcc, width, height, &layout)) return NULL;
    Surface *surface = calloc(1, sizeof(*surface));
    if (surface == NULL) return NULL;
    surface->data = malloc(layout.size);
    if (surface->data == NULL) {
        free(surface);
        return NULL;
    }
    surface->width = width;
    surface->height = height;
    surface->rt_format = rt_format;
    surface->fourcc = fourcc;
    surface->bytes_per_sample = layout.bytes_per_sample;
    surface->planes = layout.planes;
    surface->pitch = layout.pitch;
    surface->chroma_offset = layout.chroma_offset;
    surface->size = layout.size;
    memset(surface->data, 0, surface->chroma_offset);
    memset(surface->data + surface->chroma_offset, 0x80, surface->size - surface->chroma_offset);
    return surface;
}

static VAStatus vatb_CreateSurfaces2(
    VADriverContextP ctx, unsigned int format, unsigned int width, unsigned int height, VASurfaceID *surfaces,
    unsigned int num_surfaces, VASurfaceAttrib *attrib_list, unsigned int num_attribs
) {
    VATB_INJECT();
    ENTER(ctx);
    uint32_t fourcc = fourcc_for_rt_format(format);
    if (fourcc == 0) {
        status = VA_STATUS_ERROR_UNSUPPORTED_RT_FORMAT;
        LEAVE();
    }
    for (unsigned int i = 0; i < num_attribs; i++) {
        const VASurfaceAttrib *attrib = &attrib_list[i];
        if (!(attrib->flags & VA_SURFACE_ATTRIB_SETTABLE)) continue;
        if (attrib->type == VASurfaceAttribPixelFormat) {
            uint32_t asked = (uint32_t)attrib->value.value.i;
            if (rt_format_holds(format, asked)) {
                fourcc = asked;
            } else {
                status = VA_STATUS_ERROR_INVALID_IMAGE_FORMAT;
            }
        } else if (attrib->type == VASurfaceAttribMemoryType) {
            if ((uint32_t)attrib->value.value.i != VA_SURFACE_ATTRIB_MEM_TYPE_VA) {
                status = VA_STATUS_ERROR_UNSUPPORTED_MEMORY_TYPE;
            }
        } else if (attrib->type == VASurfaceAttribExternalBufferDescriptor) {
            status = VA_STATUS_ERROR_UNSUPPORTED_MEMORY_TYPE;
        }
    }
    if (status == VA_STATUS_SUCCESS) {
        if (width < 1 || height < 1) {
            status = VA_STATUS_ERROR_INVALID_PARAMETER;
        } else if (width > (unsigned int)driver->max_width || height > (unsigned int)driver->max_height) {
            status = VA_STATUS_ERROR_RESOLUTION_NOT_SUPPORTED;
        }
    }
    for (unsigned int i = 0; status == VA_STATUS_SUCCESS && i < num_surfaces; i++) {
        Surface *surface = new_surface(fourcc, format, width, height);
        if (surface == NULL) {
            status = VA_STATUS_ERROR_ALLOCATION_FAILED;
        } else {
            status = table_add(&driver->surfaces, surface, &surfaces[i]);
            if (status != VA_STATUS_SUCCESS) free_surface(surface);
        }
        if (status != VA_STATUS_SUCCESS) {
            // Undo what this call made.
            for (unsigned int j = 0; j < i; j++) {
                free_surface(table_get(&driver->surfaces, surfaces[j]));
                table_remove(&driver->surfaces, surfaces[j]);
                atomic_fetch_sub(&live_surfaces, 1);
                surfaces[j] = VA_INVALID_SURFACE;
            }
        } else {
            atomic_fetch_add(&live_surfaces, 1);
        }
    }
    LEAVE();
}

static VAStatus vatb_CreateSurfaces(
    VADriverContextP ctx, int width, int height, int format, int num_surfaces, VASurfaceID *surfaces
) {
    if (width < 0 || height < 0 || num_surfaces < 0) return VA_STATUS_ERROR_INVALID_PARAMETER;
    return vatb_CreateSurfaces2(
        ctx, (unsigned int)format, (unsigned int)width, (unsigned int)height, surfaces, (unsigned int)num_surfaces,
        NULL, 0);
}

static VAStatus vatb_DestroySurfaces(VADriverContextP ctx, VASurfaceID *surface_list, int num_surfaces) {
    ENTER(ctx);
    for (int i = 0; i < num_surfaces; i++) {
        Surface *surface = table_get(&driver->surfaces, surface_list[i]);
        if (surface == NULL) {
            status = VA_STATUS_ERROR_INVALID_SURFACE;
        } else if (surface->derived_images > 0) {
            status = VA_STATUS_ERROR_SURFACE_BUSY;
        }
    }
    if (status == VA_STATUS_SUCCESS) {
        for (int i = 0; i < num_surfaces; i++) {
            free_surface(table_get(&driver->surfaces, surface_list[i]));
            table_remove(&driver->surfaces, surface_list[i]);
            atomic_fetch_sub(&live_surfaces, 1);
        }
    }
    LEAVE();
}

// MARK: - Contexts

static VAStatus vatb_CreateContext(
    VADriverContextP ctx, VAConfigID config_id, int picture_width, int picture_height, int flag,
    VASurfaceID *render_targets, int num_render_targets, VAContextID *context_id
) {
    VATB_INJECT();
    (void)flag;
    ENTER(ctx);
    Config *config = table_get(&driver->configs, config_id);
    if (config == NULL) {
        status = VA_STATUS_ERROR_INVALID_CONFIG;
    } else if (driver->fail_create_context) {
        status = VA_STATUS_ERROR_OPERATION_FAILED;
    } else if (picture_width < 1 || picture_height < 1 || num_render_targets < 0) {
        status = VA_STATUS_ERROR_INVALID_PARAMETER;
    } else if (picture_width > driver->max_width || picture_height > driver->max_height) {
        status = VA_STATUS_ERROR_RESOLUTION_NOT_SUPPORTED;
    } else {
        for (int i = 0; i < num_render_targets; i++) {
            if (table_get(&driver->surfaces, render_targets[i]) == NULL) status = VA_STATUS_ERROR_INVALID_SURFACE;
        }
    }
    Context *context = NULL;
    if (status == VA_STATUS_SUCCESS) {
        context = calloc(1, sizeof(*context));
        if (context == NULL) status = VA_STATUS_ERROR_ALLOCATION_FAILED;
    }
    if (status == VA_STATUS_SUCCESS && num_render_targets > 0) {
        context->render_targets = malloc((size_t)num_render_targets * sizeof(VASurfaceID));
        if (context->render_targets == NULL) {
            status = VA_STATUS_ERROR_ALLOCATION_FAILED;
        } else {
            memcpy(context->render_targets, render_targets, (size_t)num_render_targets * sizeof(VASurfaceID));
        }
    }
    if (status == VA_STATUS_SUCCESS) {
        const ProfileInfo *info = profile_info(driver, config->profile);
        context->config = config_id;
        context->profile = config->profile;
        context->codec = config->entrypoint == VAEntrypointVideoProc ? CODEC_VPP
            : info != NULL                                     ? info->codec
                                                               : CODEC_H264;
        context->width = picture_width;
        context->height = picture_height;
        context->num_render_targets = num_render_targets;
        context->target = VA_INVALID_SURFACE;
        status = table_add(&driver->contexts, context, context_id);
    }
    if (status == VA_STATUS_SUCCESS) {
        atomic_fetch_add(&live_contexts, 1);
        // The surfaces the client gave the decoder (its pool), for a test of what the client says
        // it allocated.
        if (driver->context_report) {
            fprintf(stderr, "vatb: context %dx%d render_targets=%d\n", picture_width, picture_height,
                num_render_targets);
        }
    } else {
        free_context(context);
    }
    LEAVE();
}

static VAStatus vatb_DestroyContext(VADriverContextP ctx, VAContextID context_id) {
    ENTER(ctx);
    Context *context = table_get(&driver->contexts, context_id);
    if (context == NULL) {
        status = VA_STATUS_ERROR_INVALID_CONTEXT;
    } else {
        table_remove(&driver->contexts, context_id);
        free_context(context);
        atomic_fetch_sub(&live_contexts, 1);
    }
    LEAVE();
}

// MARK: - Buffers

static VAStatus create_buffer(
    Driver *driver, VABufferType type, unsigned int size, unsigned int num_elements, const void *data,
    VABufferID *buf_id, Buffer **out
) {
    if (size == 0 || num_elements == 0) return VA_STATUS_ERROR_INVALID_PARAMETER;
    if ((size_t)size * num_elements > (size_t)1 << 31) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    Buffer *buffer = calloc(1, sizeof(*buffer));
    if (buffer == NULL) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    buffer->type = type;
    buffer->element_size = size;
    buffer->num_elements = num_elements;
    buffer->capacity = (size_t)size * num_elements;
    buffer->owns_data = true;
    buffer->data = data != NULL ? malloc(buffer->capacity) : calloc(1, buffer->capacity);
    if (buffer->data == NULL) {
        free(buffer);
        return VA_STATUS_ERROR_ALLOCATION_FAILED;
    }
    if (data != NULL) memcpy(buffer->data, data, buffer->capacity);
    VAStatus status = table_add(&driver->buffers, buffer, buf_id);
    if (status != VA_STATUS_SUCCESS) {
        free_buffer(buffer);
        return status;
    }
    if (out != NULL) *out = buffer;
    return VA_STATUS_SUCCESS;
}

static VAStatus vatb_CreateBuffer(
    VADriverContextP ctx, VAContextID context, VABufferType type, unsigned int size, unsigned int num_elements,
    void *data, VABufferID *buf_id
) {
    VATB_INJECT();
    ENTER(ctx);
    if (context != VA_INVALID_ID && table_get(&driver->contexts, context) == NULL) {
        status = VA_STATUS_ERROR_INVALID_CONTEXT;
    } else {
        status = create_buffer(driver, type, size, num_elements, data, buf_id, NULL);
        if (status == VA_STATUS_SUCCESS) atomic_fetch_add(&live_buffers, 1);
    }
    LEAVE();
}

static VAStatus vatb_BufferSetNumElements(VADriverContextP ctx, VABufferID buf_id, unsigned int num_elements) {
    VATB_INJECT();
    ENTER(ctx);
    Buffer *buffer = table_get(&driver->buffers, buf_id);
    if (buffer == NULL) {
        status = VA_STATUS_ERROR_INVALID_BUFFER;
    } else if ((size_t)num_elements * buffer->element_size > buffer->capacity) {
        status = VA_STATUS_ERROR_INVALID_PARAMETER;
    } else {
        buffer->num_elements = num_elements;
    }
    LEAVE();
}

static VAStatus vatb_MapBuffer(VADriverContextP ctx, VABufferID buf_id, void **pbuf) {
    VATB_INJECT();
    ENTER(ctx);
    Buffer *buffer = table_get(&driver->buffers, buf_id);
    if (buffer == NULL) {
        status = VA_STATUS_ERROR_INVALID_BUFFER;
    } else {
        *pbuf = buffer->data;
    }
    LEAVE();
}

static VAStatus vatb_UnmapBuffer(VADriverContextP ctx, VABufferID buf_id) {
    VATB_INJECT();
    ENTER(ctx);
    if (table_get(&driver->buffers, buf_id) == NULL) status = VA_STATUS_ERROR_INVALID_BUFFER;
    LEAVE();
}

static VAStatus vatb_DestroyBuffer(VADriverContextP ctx, VABufferID buffer_id) {
    ENTER(ctx);
    Buffer *buffer = table_get(&driver->buffers, buffer_id);
    if (buffer == NULL || buffer->owned_by_image) {
        status = VA_STATUS_ERROR_INVALID_BUFFER;
    } else {
        table_remove(&driver->buffers, buffer_id);
        free_buffer(buffer);
        atomic_fetch_sub(&live_buffers, 1);
    }
    LEAVE();
}

static VAStatus vatb_BufferInfo(
    VADriverContextP ctx, VABufferID buf_id, VABufferType *type, unsigned int *size, unsigned int *num_elements
) {
    VATB_INJECT();
    ENTER(ctx);
    Buffer *buffer = table_get(&driver->buffers, buf_id);
    if (buffer == NULL) {
        status = VA_STATUS_ERROR_INVALID_BUFFER;
    } else {
        *type = buffer->type;
        *size = buffer->element_size;
        *num_elements = buffer->num_elements;
    }
    LEAVE();
}

// MARK: - Decoding (stamping)

#define FNV_OFFSET_BASIS 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv1a(uint64_t hash, const uint8_t *bytes, size_t count) {
    for (size_t i = 0; i < count; i++) {
        hash ^= bytes[i];
        hash *= FNV_PRIME;
    }
    return hash;
}

static void reset_picture(Context *context) {
    context->in_picture = false;
    context->target = VA_INVALID_SURFACE;
    context->hash = FNV_OFFSET_BASIS;
    context->slices = 0;
    context->hashed_bytes = 0;
    context->tile_group_hash = FNV_OFFSET_BASIS;
    context->tile_group_hashed = false;
    context->poc = 0;
    context->poc_is_decode_index = false;
    context->continues_first_field = false;
    context->field_flags = 0;
    context->invalid_slice = false;
    context->display_target = VA_INVALID_SURFACE;
    context->pending_count = context->pending_head = 0;
    context->group_count = context->group_head = 0;
    context->has_pipeline = false;
}

// MARK: - The simulated GPU (VATB_LATENCY_US)

static uint64_t now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

static void sleep_until_ns(uint64_t deadline) {
    if (deadline == 0) return;
    struct timespec until = {.tv_sec = (time_t)(deadline / 1000000000ull), .tv_nsec = (long)(deadline % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR) {}
}

// The simulated GPU's decode engines: one timeline per process, shared by every display and
// context, as a real GPU's video engines are shared by every context decoding on it (iHD parts
// have one or two VDBoxes; the kernel's scheduler, not the VA display, shares them out). Each
// engine decodes one picture at a time; a picture goes to the engine free first. VATB_ENGINES
// (1 to 16, default 1) is read at every vaInitialize; the process's displays should agree.
// With VATB_SHARED_GPU=NAME the timeline is shared by every process that names the same GPU
// (a file /dev/shm/vatb-gpu-NAME, its updates under flock), so that N decoding processes meet
// the one GPU that N sessions in one process meet.
#define VATB_MAX_ENGINES 16
static pthread_mutex_t engine_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t process_engine_free_ns[VATB_MAX_ENGINES];
static uint64_t *engine_free_ns = process_engine_free_ns;
static int shared_gpu_fd = -1;
static unsigned engine_count = 1;

static void read_engine_count(void) {
    const char *text = getenv("VATB_ENGINES");
    unsigned long count = text != NULL ? strtoul(text, NULL, 10) : 1;
    pthread_mutex_lock(&engine_lock);
    engine_count = count < 1 ? 1 : count > VATB_MAX_ENGINES ? VATB_MAX_ENGINES : (unsigned)count;
    const char *name = getenv("VATB_SHARED_GPU");
    if (name != NULL && *name != 0 && shared_gpu_fd < 0) {
        char path[256];
        snprintf(path, sizeof(path), "/dev/shm/vatb-gpu-%s", name);
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        size_t size = sizeof(uint64_t) * VATB_MAX_ENGINES;
        void *mapping = MAP_FAILED;
        if (fd >= 0 && ftruncate(fd, (off_t)size) == 0)
            mapping = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (mapping != MAP_FAILED) {
            engine_free_ns = mapping;
            shared_gpu_fd = fd;
        } else {
            fprintf(stderr, "vatb: VATB_SHARED_GPU: cannot map %s; the GPU is this process's alone\n", path);
            if (fd >= 0) close(fd);
        }
    }
    pthread_mutex_unlock(&engine_lock);
}

// Takes the engines (the process's lock, and the shared GPU's file lock when there is one).
static void lock_engines(void) {
    pthread_mutex_lock(&engine_lock);
    if (shared_gpu_fd >= 0)
        while (flock(shared_gpu_fd, LOCK_EX) != 0 && errno == EINTR) {}
}

static void unlock_engines(void) {
    if (shared_gpu_fd >= 0) flock(shared_gpu_fd, LOCK_UN);
    pthread_mutex_unlock(&engine_lock);
}

// The engine that is free first, and when (engines locked).
static unsigned first_free_engine(uint64_t *free_ns) {
    unsigned best = 0;
    for (unsigned engine = 1; engine < engine_count; engine++)
        if (engine_free_ns[engine] < engine_free_ns[best]) best = engine;
    *free_ns = engine_free_ns[best];
    return best;
}

// Queues one picture of `latency` on the engine free first; returns when it will be done.
static uint64_t schedule_picture(uint64_t latency) {
    lock_engines();
    uint64_t free_ns;
    unsigned engine = first_free_engine(&free_ns);
    uint64_t start = now_ns();
    if (free_ns > start) start = free_ns;
    engine_free_ns[engine] = start + latency;
    unlock_engines();
    return start + latency;
}

// Waits, without any lock, until the simulated GPU has room in its queue: at most queue_depth
// pictures waiting or running on the engine free first.
static void wait_for_queue_room(Driver *driver) {
    pthread_mutex_lock(&driver->lock);
    uint64_t latency = driver->latency_ns;
    uint64_t allowed = latency * (driver->queue_depth > 0 ? driver->queue_depth - 1 : 0);
    pthread_mutex_unlock(&driver->lock);
    if (latency == 0) return;
    lock_engines();
    uint64_t busy_until;
    first_free_engine(&busy_until);
    unlock_engines();
    if (busy_until <= allowed) return;
    sleep_until_ns(busy_until - allowed);
}

// Waits, without the driver's lock, until the simulated GPU has finished the surface's picture:
// what vaSyncSurface does, and what real drivers do before copying or exporting a surface.
static void wait_for_surface(Driver *driver, VASurfaceID surface_id) {
    pthread_mutex_lock(&driver->lock);
    Surface *surface = table_get(&driver->surfaces, surface_id);
    uint64_t ready = surface != NULL ? surface->ready_ns : 0;
    pthread_mutex_unlock(&driver->lock);
    sleep_until_ns(ready);
}

// Whether an injected decode fault applies to the context (VATB_FAULT_PROFILES).
static bool fault_applies(const Driver *driver, const Context *context) {
    return !driver->any_fault_profile || driver->fault_profiles[context->profile];
}

// A personality's render-target limit (nvidia: 32 surfaces per context, see vatb_personality.c):
// false when the target is one surface more than the context may decode into.
static bool within_render_target_limit(const Driver *driver, Context *context, VASurfaceID target) {
    int limit = driver->personality->render_target_limit;
    if (limit == 0) return true;
    for (int i = 0; i < context->decoded_target_count; i++) {
        if (context->decoded_targets[i] == target) return true;
    }
    if (context->decoded_target_count >= limit || context->decoded_target_count >= 64) return false;
    context->decoded_targets[context->decoded_target_count++] = target;
    return true;
}

static VAStatus vatb_BeginPicture(VADriverContextP ctx, VAContextID context_id, VASurfaceID render_target) {
    VATB_INJECT();
    ENTER(ctx);
    Context *context = table_get(&driver->contexts, context_id);
    if (context == NULL) {
        status = VA_STATUS_ERROR_INVALID_CONTEXT;
    } else if (table_get(&driver->surfaces, render_target) == NULL) {
        status = VA_STATUS_ERROR_INVALID_SURFACE;
    } else {
        reset_picture(context);
        context->in_picture = true;
        context->target = render_target;
        // Beyond the limit the picture fails at vaEndPicture, as cuvidDecodePicture does.
        if (!within_render_target_limit(driver, context, render_target)) context->invalid_slice = true;
    }
    LEAVE();
}

// The second field of a field pair continues the first field's hash, slice count and POC when
// it is decoded into a surface whose last picture was a single field of the other parity (see
// Docs/TestVADriver.md). This happens when the picture parameters are rendered, so they must come
// before the slices, as FFmpeg renders them.
static void continue_field_pair(Driver *driver, Context *context) {
    Surface *surface = table_get(&driver->surfaces, context->target);
    if (context->field_flags == 0 || surface == NULL || !surface->has_first_field
        || surface->first_field_flags == context->field_flags || context->slices != 0) {
        return;
    }
    context->hash = surface->first_field_hash;
    context->slices = surface->first_field_slices;
    context->hashed_bytes = surface->first_field_bytes;
    context->continues_first_field = true;
    if (surface->first_field_poc < context->poc) context->poc = surface->first_field_poc;
}

static void take_h264_picture_parameters(Driver *driver, Context *context, const VAPictureParameterBufferH264 *params) {
    const VAPictureH264 *picture = &params->CurrPic;
    unsigned int field = picture->flags & (VA_PICTURE_H264_TOP_FIELD | VA_PICTURE_H264_BOTTOM_FIELD);
    if (field == VA_PICTURE_H264_TOP_FIELD) {
        context->poc = picture->TopFieldOrderCnt;
    } else if (field == VA_PICTURE_H264_BOTTOM_FIELD) {
        context->poc = picture->BottomFieldOrderCnt;
    } else {
        field = 0;
        context->poc = picture->TopFieldOrderCnt < picture->BottomFieldOrderCnt ? picture->TopFieldOrderCnt
                                                                                : picture->BottomFieldOrderCnt;
    }
    context->field_flags = field;
    continue_field_pair(driver, context);
}

// MPEG-2 has no POC in its VA parameters: the stamp's POC is the decode index (the first field's
// for a field pair). picture_structure is 1 (top field), 2 (bottom field) or 3 (frame), as Mesa
// reads it (src/gallium/frontends/va/picture_mpeg12.c, vlVaHandlePictureParameterBufferMPEG12).
// FFmpeg decodes both fields of a frame into the same surface, one vaBeginPicture/vaEndPicture
// each (libavcodec/mpeg12dec.c mpeg_field_start; vaapi_mpeg2.c sets is_first_field).
static void take_mpeg2_picture_parameters(
    Driver *driver, Context *context, const VAPictureParameterBufferMPEG2 *params
) {
    unsigned int structure = params->picture_coding_extension.bits.picture_structure;
    context->poc_is_decode_index = true;
    context->poc = (int32_t)(context->decode_index + 1);
    context->field_flags = structure == 1 || structure == 2 ? structure : 0;
    if (!params->picture_coding_extension.bits.is_first_field) continue_field_pair(driver, context);
}

// AV1: the POC field carries order_hint. With film grain (apply_grain), the decoded picture goes
// to the render target (current_frame, kept for reference) and the film-grained one to
// current_display_picture, the surface FFmpeg outputs (libavcodec/vaapi_av1.c,
// vaapi_av1_start_frame). Real drivers write both: Mesa takes current_display_picture as
// film_grain_target (src/gallium/frontends/va/picture_av1.c, vlVaHandlePictureParameterBufferAV1;
// picture.c, vlVaQueryApplyFilmGrainAV1 and vlVaEndPicture), intel/media-driver as
// filmGrainOutSurface (media_ddi_decode_av1.cpp, DdiDecodeAV1::ParsePicParams and SetDecodeParams).
static void take_av1_picture_parameters(Context *context, const VADecPictureParameterBufferAV1 *params) {
    context->poc = params->order_hint;
    context->display_target = params->film_grain_info.film_grain_info_fields.bits.apply_grain
        ? params->current_display_picture
        : VA_INVALID_SURFACE;
}

static void take_picture_parameters(Driver *driver, Context *context, const Buffer *buffer) {
    size_t size = (size_t)buffer->element_size * buffer->num_elements;
    const void *data = buffer->data;
    switch (context->codec) {
    case CODEC_H264:
        if (size >= sizeof(VAPictureParameterBufferH264)) take_h264_picture_parameters(driver, context, data);
        break;
    case CODEC_HEVC:
        if (size >= sizeof(VAPictureParameterBufferHEVC)) {
            context->poc = ((const VAPictureParameterBufferHEVC *)data)->CurrPic.pic_order_cnt;
            context->field_flags = 0;
        }
        break;
    case CODEC_MPEG2:
        if (size >= sizeof(VAPictureParameterBufferMPEG2)) take_mpeg2_picture_parameters(driver, context, data);
        break;
    case CODEC_VP8:
    case CODEC_VP9:
        // No POC: the stamp's POC is the decode index.
        context->poc_is_decode_index = true;
        context->poc = (int32_t)(context->decode_index + 1);
        break;
    case CODEC_AV1:
        if (size >= sizeof(VADecPictureParameterBufferAV1)) take_av1_picture_parameters(context, data);
        break;
    case CODEC_VPP: break; // refused by accepts_buffer_type
    }
}

static bool push_slice_parameters(Context *context, const Buffer *buffer) {
    size_t count = buffer->num_elements;
    if (buffer->element_size < 2 * sizeof(uint32_t)) return false;
    if (context->pending_count + count > context->pending_capacity) {
        size_t capacity = (context->pending_count + count) * 2;
        PendingSlice *pending = realloc(context->pending, capacity * sizeof(PendingSlice));
        if (pending == NULL) return false;
        context->pending = pending;
        context->pending_capacity = capacity;
    }
    if (context->group_count == context->group_capacity) {
        size_t capacity = context->group_capacity ? context->group_capacity * 2 : 16;
        size_t *ends = realloc(context->group_ends, capacity * sizeof(size_t));
        if (ends == NULL) return false;
        context->group_ends = ends;
        context->group_capacity = capacity;
    }
    for (size_t i = 0; i < count; i++) {
        // Every VASliceParameterBuffer* begins with slice_data_size, slice_data_offset.
        uint32_t fields[2];
        memcpy(fields, buffer->data + i * buffer->element_size, sizeof(fields));
        context->pending[context->pending_count++] = (PendingSlice){.size = fields[0], .offset = fields[1]};
    }
    context->group_ends[context->group_count++] = context->pending_count;
    return true;
}

static void hash_slice_data(Context *context, const Buffer *buffer) {
    if (context->group_head == context->group_count) {
        context->invalid_slice = true; // slice data without slice parameters
        return;
    }
    size_t end = context->group_ends[context->group_head++];
    size_t data_size = (size_t)buffer->element_size * buffer->num_elements;
    if (context->codec == CODEC_AV1 && !context->tile_group_hashed) {
        size_t length = data_size;
        while (length > 0 && buffer->data[length - 1] == 0) length--;
        context->tile_group_hash = fnv1a(FNV_OFFSET_BASIS, buffer->data, length);
        context->tile_group_hashed = true;
    }
    for (; context->pending_head < end; context->pending_head++) {
        PendingSlice slice = context->pending[context->pending_head];
        if ((size_t)slice.offset + slice.size > data_size) {
            context->invalid_slice = true;
            continue;
        }
        const uint8_t *bytes = buffer->data + slice.offset;
        size_t length = slice.size;
        while (length > 0 && bytes[length - 1] == 0) length--;
        context->hash = fnv1a(context->hash, bytes, length);
        context->slices += 1;
        context->hashed_bytes += (uint32_t)length;
    }
}

static VAStatus vatb_RenderPicture(VADriverContextP ctx, VAContextID context_id, VABufferID *buffers, int num_buffers) {
    VATB_INJECT();
    ENTER(ctx);
    Context *context = table_get(&driver->contexts, context_id);
    if (context == NULL) {
        status = VA_STATUS_ERROR_INVALID_CONTEXT;
        LEAVE();
    }
    if (!context->in_picture) {
        status = VA_STATUS_ERROR_OPERATION_FAILED;
        LEAVE();
    }
    // Every buffer is checked before any is used, so a refused call changes nothing.
    for (int i = 0; status == VA_STATUS_SUCCESS && i < num_buffers; i++) {
        const Buffer *buffer = table_get(&driver->buffers, buffers[i]);
        if (buffer == NULL || buffer->owned_by_image) {
            status = VA_STATUS_ERROR_INVALID_BUFFER;
        } else if (!accepts_buffer_type(context->codec, buffer->type)) {
            status = VA_STATUS_ERROR_UNSUPPORTED_BUFFERTYPE;
        }
    }
    for (int i = 0; status == VA_STATUS_SUCCESS && i < num_buffers; i++) {
        const Buffer *buffer = table_get(&driver->buffers, buffers[i]);
        switch (buffer->type) {
        case VAPictureParameterBufferType: take_picture_parameters(driver, context, buffer); break;
        case VASliceParameterBufferType:
            if (!push_slice_parameters(context, buffer)) status = VA_STATUS_ERROR_ALLOCATION_FAILED;
            break;
        case VASliceDataBufferType: hash_slice_data(context, buffer); break;
        case VAProcPipelineParameterBufferType:
            if (buffer->element_size < sizeof(VAProcPipelineParameterBuffer)) {
                status = VA_STATUS_ERROR_INVALID_BUFFER;
            } else {
                const VAProcPipelineParameterBuffer *parameters = (const VAProcPipelineParameterBuffer *)buffer->data;
                context->has_pipeline = vatb_vpp_take_pipeline(parameters, &context->pipeline);
                if (!context->has_pipeline) status = VA_STATUS_ERROR_INVALID_PARAMETER;
                // The filters are buffers the pipeline names, read now as iHD reads them
                // (ddi_vp_functions.cpp DdiSetProcFilterHdrTmParams at vaRenderPicture).
                for (unsigned int f = 0; status == VA_STATUS_SUCCESS && f < parameters->num_filters; f++) {
                    const Buffer *filter =
                        parameters->filters == NULL ? NULL : table_get(&driver->buffers, parameters->filters[f]);
                    if (filter == NULL || filter->type != VAProcFilterParameterBufferType) {
                        status = VA_STATUS_ERROR_INVALID_BUFFER;
                    } else {
                        status = vatb_vpp_take_filter(
                            &driver->personality->processing, filter->data, filter->element_size, &context->pipeline);
                    }
                }
                if (status != VA_STATUS_SUCCESS) context->has_pipeline = false;
            }
            break;
        default: break;
        }
    }
    LEAVE();
}

static void write_u32(uint8_t *to, uint32_t value) {
    for (int i = 0; i < 4; i++) to[i] = (uint8_t)(value >> (8 * i));
}

static void write_u64(uint8_t *to, uint64_t value) {
    for (int i = 0; i < 8; i++) to[i] = (uint8_t)(value >> (8 * i));
}

// Fills the luma plane with the hash pattern and the chroma plane with 0x80.
static void fill_picture(Surface *surface, uint64_t hash) {
    uint32_t luma_rows = surface->chroma_offset / surface->pitch;
    for (uint32_t y = 0; y < luma_rows; y++) {
        uint8_t *row = surface->data + (size_t)y * surface->pitch;
        for (uint32_t x = 0; x < surface->pitch; x++) row[x] = (uint8_t)(hash >> (8 * ((x + y) & 7)));
    }
    memset(surface->data + surface->chroma_offset, 0x80, surface->size - surface->chroma_offset);
}

// Fills the picture and writes the stamp (Docs/TestVADriver.md, "The stamp").
static void stamp_picture(Surface *surface, const char *magic, const Context *context, uint32_t decode_index) {
    fill_picture(surface, context->hash);
    surface->described = false;
    uint8_t *stamp = surface->data;
    memcpy(stamp, magic, 4);
    write_u32(stamp + 4, VATB_STAMP_VERSION);
    write_u32(stamp + 8, (uint32_t)context->poc);
    write_u32(stamp + 12, decode_index);
    write_u64(stamp + 16, context->hash);
    write_u32(stamp + 24, context->slices);
    write_u32(stamp + 28, (uint32_t)context->profile);
    write_u32(stamp + 32, context->hashed_bytes);
}

// The pixels of a surface, as the reference pictures and video processing take them.
static VATBPictureTarget picture_target(const Surface *surface) {
    return (VATBPictureTarget){
        .data = surface->data, .fourcc = surface->fourcc, .width = surface->width, .height = surface->height,
        .pitch = surface->pitch, .chroma_offset = surface->chroma_offset,
    };
}

// Reference mode: the picture libavcodec decoded from the same slice data replaces the stamp
// (Docs/TestVADriver.md, "Real pixels"). Without one (a hidden VP9 frame) the stamp stays. AV1
// with film grain: the render target gets the picture without grain, the display surface the one
// with it, as a GPU writes them (see take_av1_picture_parameters).
static void fill_reference_picture(Driver *driver, Surface *surface, uint64_t hash, bool film_grain) {
    if (driver->reference == NULL) return;
    VATBPictureTarget target = picture_target(surface);
    surface->described = vatb_reference_pictures_fill(driver->reference, hash, film_grain, &target, &surface->description);
    if (!surface->described && driver->trace) {
        fprintf(stderr, "vatb: no reference picture for hash %016llx\n", (unsigned long long)hash);
    }
}

// The picture of a VPP context: the pipeline's source surface processed into the render target
// (vatb_video_processing.c), finished by the simulated GPU as a decoded picture is.
static VAStatus end_processing(Driver *driver, Context *context, Surface *target) {
    if (!context->has_pipeline) return VA_STATUS_ERROR_INVALID_PARAMETER;
    driver->processing_calls += 1;
    if (in_fault_window(&driver->fail_processing, driver->processing_calls)) return VA_STATUS_ERROR_OPERATION_FAILED;
    Surface *source = table_get(&driver->surfaces, context->pipeline.parameters.surface);
    if (source == NULL || source == target) return VA_STATUS_ERROR_INVALID_SURFACE;
    // The chroma siting must be the one the stream states (reference mode): libswscale, like the
    // CPU path, places chroma by its own default, so a wrong siting is refused rather than shown.
    if (source->described) {
        uint8_t expected = vatb_vpp_chroma_siting(source->description.chroma_location);
        uint8_t given = context->pipeline.parameters.input_color_properties.chroma_sample_location;
        if (given != expected) {
            if (driver->trace) fprintf(stderr, "vatb: chroma siting %u, the stream's is %u\n", given, expected);
            return VA_STATUS_ERROR_INVALID_PARAMETER;
        }
    }
    // Every reference named must be a surface other than the target; the nearest past and future
    // ones are the model's (vatb_vpp_process).
    const VATBPipeline *pipeline = &context->pipeline;
    Surface *previous = NULL, *next = NULL;
    for (unsigned int i = 0; i < pipeline->past_count + pipeline->future_count; i++) {
        bool past = i < pipeline->past_count;
        Surface *reference = table_get(
            &driver->surfaces, past ? pipeline->past[i] : pipeline->future[i - pipeline->past_count]);
        if (reference == NULL || reference == target) return VA_STATUS_ERROR_INVALID_SURFACE;
        if (i == 0 && past) previous = reference;
        if (i == pipeline->past_count) next = reference;
    }
    VATBPictureTarget from = picture_target(source), before, after;
    VATBPictureTarget to = picture_target(target);
    if (previous != NULL) before = picture_target(previous);
    if (next != NULL) after = picture_target(next);
    VAStatus status = vatb_vpp_process(
        &driver->personality->processing, pipeline, &from, previous != NULL ? &before : NULL,
        next != NULL ? &after : NULL, &to);
    if (status != VA_STATUS_SUCCESS) return status;
    atomic_fetch_add(&total_processed_pictures, 1);
    target->interlaced = false;
    target->damaged = false;
    target->has_first_field = false;
    // The processing starts once the source's picture (and the next one it reads) is decoded.
    if (driver->latency_ns > 0) {
        uint64_t ready = schedule_picture(driver->latency_ns);
        uint64_t inputs = next != NULL && next->ready_ns > source->ready_ns ? next->ready_ns : source->ready_ns;
        target->ready_ns = ready > inputs ? ready : inputs + driver->latency_ns;
    }
    return VA_STATUS_SUCCESS;
}

static VAStatus vatb_EndPicture(VADriverContextP ctx, VAContextID context_id) {
    VATB_INJECT();
    wait_for_queue_room(DRIVER(ctx));
    ENTER(ctx);
    Context *context = table_get(&driver->contexts, context_id);
    if (context == NULL) {
        status = VA_STATUS_ERROR_INVALID_CONTEXT;
        LEAVE();
    }
    Surface *surface = table_get(&driver->surfaces, context->target);
    if (!context->in_picture || surface == NULL) {
        reset_picture(context);
        status = surface == NULL && context->in_picture ? VA_STATUS_ERROR_INVALID_SURFACE
                                                         : VA_STATUS_ERROR_OPERATION_FAILED;
        LEAVE();
    }
    if (context->codec == CODEC_VPP) {
        status = end_processing(driver, context, surface);
        reset_picture(context);
        LEAVE();
    }
    driver->end_picture_calls += 1;
    // The film-grain output surface of an AV1 picture, if any (see take_av1_picture_parameters).
    Surface *display = NULL;
    if (context->display_target != VA_INVALID_SURFACE && context->display_target != context->target) {
        display = table_get(&driver->surfaces, context->display_target);
        if (display == NULL) context->invalid_slice = true;
    }
    bool injected = fault_applies(driver, context);
    bool fail = (injected && in_fault_window(&driver->fail_end_picture, driver->end_picture_calls))
        || context->invalid_slice;
    if (fail) {
        stamp_picture(surface, "FALT", context, 0);
        if (display != NULL) stamp_picture(display, "FALT", context, 0);
        surface->has_first_field = false;
        atomic_fetch_add(&total_failed_end_pictures, 1);
        status = VA_STATUS_ERROR_DECODING_ERROR;
    } else {
        context->decode_index += 1;
        if (context->poc_is_decode_index && !context->continues_first_field) {
            context->poc = (int32_t)context->decode_index;
        }
        stamp_picture(surface, "VATB", context, context->decode_index);
        uint64_t key = context->codec == CODEC_AV1
            ? vatb_reference_av1_key(context->tile_group_hash, (unsigned int)context->poc)
            : context->hash;
        fill_reference_picture(driver, surface, key, false);
        if (display != NULL) {
            stamp_picture(display, "VATB", context, context->decode_index);
            fill_reference_picture(driver, display, key, true);
        }
        bool first_field = context->field_flags != 0 && !context->continues_first_field;
        surface->has_first_field = first_field;
        if (first_field) {
            surface->first_field_flags = context->field_flags;
            surface->first_field_hash = context->hash;
            surface->first_field_poc = context->poc;
            surface->first_field_slices = context->slices;
            surface->first_field_bytes = context->hashed_bytes;
        }
        atomic_fetch_add(&total_end_pictures, 1);
        surface->interlaced = context->field_flags != 0;
        surface->damaged = injected && in_fault_window(&driver->corrupt_picture, driver->end_picture_calls);
        if (driver->latency_ns > 0) {
            surface->ready_ns = schedule_picture(driver->latency_ns);
            if (display != NULL) display->ready_ns = surface->ready_ns;
        }
    }
    reset_picture(context);
    LEAVE();
}

// VATB_FAIL_SYNC fails with VA_STATUS_ERROR_HW_BUSY, what iHD returns when the hardware did not
// complete the picture (media_libva.cpp DdiMedia_SyncSurface: CODECHAL_STATUS_INCOMPLETE): a device
// fault. A picture with macroblock errors (VATB_CORRUPT_PICTURE) gives
// VA_STATUS_ERROR_DECODING_ERROR under personalities that report decode errors (iHD), and nothing
// under the others. The wait for the simulated GPU happens without the driver's lock.
static VAStatus vatb_SyncSurface(VADriverContextP ctx, VASurfaceID render_target) {
    VATB_INJECT();
    Driver *driver = DRIVER(ctx);
    trace(driver, "SyncSurface");
    atomic_fetch_add(&total_syncs, 1);
    pthread_mutex_lock(&driver->lock);
    VAStatus status = VA_STATUS_SUCCESS;
    Surface *surface = table_get(&driver->surfaces, render_target);
    uint64_t ready = 0;
    if (surface == NULL) {
        status = VA_STATUS_ERROR_INVALID_SURFACE;
    } else {
        driver->sync_calls += 1;
        ready = surface->ready_ns;
        if (in_fault_window(&driver->fail_sync, driver->sync_calls)) {
            memcpy(surface->data, "FALT", 4);
            status = VA_STATUS_ERROR_HW_BUSY;
        } else if (surface->damaged && driver->personality->reports_decode_errors) {
            status = VA_STATUS_ERROR_DECODING_ERROR;
        }
    }
    pthread_mutex_unlock(&driver->lock);
    sleep_until_ns(ready);
    return status;
}

static VAStatus vatb_SyncSurface2(VADriverContextP ctx, VASurfaceID surface, uint64_t timeout_ns) {
    (void)timeout_ns;
    return vatb_SyncSurface(ctx, surface);
}

// Rendering while the simulated GPU (VATB_LATENCY_US) has not finished the surface's picture, as
// iHD answers while the picture's batch is busy (media_libva.cpp DdiMedia_QuerySurfaceStatus);
// ready otherwise. Never waits.
static VAStatus vatb_QuerySurfaceStatus(VADriverContextP ctx, VASurfaceID render_target, VASurfaceStatus *status_out) {
    VATB_INJECT();
    ENTER(ctx);
    Surface *surface = table_get(&driver->surfaces, render_target);
    if (surface == NULL) {
        status = VA_STATUS_ERROR_INVALID_SURFACE;
    } else {
        *status_out = surface->ready_ns > now_ns() ? VASurfaceRendering : VASurfaceReady;
    }
    LEAVE();
}

// MARK: - Images

static VAStatus vatb_QueryImageFormats(VADriverContextP ctx, VAImageFormat *format_list, int *num_formats) {
    VATB_INJECT();
    ENTER(ctx);
    memcpy(format_list, image_formats, sizeof(image_formats));
    *num_formats = IMAGE_FORMAT_COUNT;
    LEAVE();
}

static VAStatus add_image(
    Driver *driver, uint32_t fourcc, unsigned int width, unsigned int height, Surface *alias, VASurfaceID alias_id,
    VAImage *out
) {
    Layout layout;
    if (!layout_for(fourcc, width, height, &layout)) return VA_STATUS_ERROR_INVALID_IMAGE_FORMAT;
    Image *image = calloc(1, sizeof(*image));
    if (image == NULL) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    Buffer *buffer = NULL;
    VABufferID buffer_id = VA_INVALID_ID;
    VAStatus status;
    if (alias != NULL) {
        buffer = calloc(1, sizeof(*buffer));
        status = buffer == NULL ? VA_STATUS_ERROR_ALLOCATION_FAILED : VA_STATUS_SUCCESS;
        if (status == VA_STATUS_SUCCESS) {
            buffer->type = VAImageBufferType;
            buffer->element_size = alias->size;
            buffer->num_elements = 1;
            buffer->capacity = alias->size;
            buffer->data = alias->data;
            buffer->owns_data = false;
            status = table_add(&driver->buffers, buffer, &buffer_id);
            if (status != VA_STATUS_SUCCESS) free(buffer);
        }
    } else {
        status = create_buffer(driver, VAImageBufferType, layout.size, 1, NULL, &buffer_id, &buffer);
        if (status == VA_STATUS_SUCCESS && layout.planes == 2) {
            memset(buffer->data + layout.chroma_offset, 0x80, layout.size - layout.chroma_offset);
        }
    }
    if (status != VA_STATUS_SUCCESS) {
        free(image);
        return status;
    }
    buffer->owned_by_image = true;
    VAImage *va = &image->image;
    for (int i = 0; i < IMAGE_FORMAT_COUNT; i++) {
        if (image_formats[i].fourcc == fourcc) va->format = image_formats[i];
    }
    va->buf = buffer_id;
    va->width = (uint16_t)width;
    va->height = (uint16_t)height;
    va->data_size = layout.size;
    va->num_planes = layout.planes;
    va->pitches[0] = layout.pitch;
    va->offsets[0] = 0;
    if (layout.planes == 2) {
        va->pitches[1] = layout.pitch;
        va->offsets[1] = layout.chroma_offset;
    }
    image->derived_from = alias != NULL ? alias_id : VA_INVALID_ID;
    status = table_add(&driver->images, image, &va->image_id);
    if (status != VA_STATUS_SUCCESS) {
        table_remove(&driver->buffers, buffer_id);
        free_buffer(buffer);
        free(image);
        return status;
    }
    if (alias != NULL) alias->derived_images += 1;
    *out = *va;
    atomic_fetch_add(&live_images, 1);
    return VA_STATUS_SUCCESS;
}

static VAStatus vatb_CreateImage(
    VADriverContextP ctx, VAImageFormat *format, int width, int height, VAImage *image
) {
    VATB_INJECT();
    ENTER(ctx);
    if (width < 1 || height < 1) {
        status = VA_STATUS_ERROR_INVALID_PARAMETER;
    } else {
        status = add_image(driver, format->fourcc, (unsigned int)width, (unsigned int)height, NULL, 0, image);
    }
    LEAVE();
}

static VAStatus vatb_DeriveImage(VADriverContextP ctx, VASurfaceID surface_id, VAImage *image) {
    VATB_INJECT();
    wait_for_surface(DRIVER(ctx), surface_id);
    ENTER(ctx);
    Surface *surface = table_get(&driver->surfaces, surface_id);
    if (surface == NULL) {
        status = VA_STATUS_ERROR_INVALID_SURFACE;
    } else if (!driver->personality->derives_images
               || (surface->interlaced && driver->personality->refuses_interlaced_surfaces)) {
        status = VA_STATUS_ERROR_OPERATION_FAILED; // see vatb_personality.c
    } else {
        status = add_image(driver, surface->fourcc, surface->width, surface->height, surface, surface_id, image);
        if (status == VA_STATUS_SUCCESS) atomic_fetch_add(&total_derived_images, 1);
    }
    LEAVE();
}

static VAStatus vatb_DestroyImage(VADriverContextP ctx, VAImageID image_id) {
    ENTER(ctx);
    Image *image = table_get(&driver->images, image_id);
    if (image == NULL) {
        status = VA_STATUS_ERROR_INVALID_IMAGE;
        LEAVE();
    }
    Surface *surface = table_get(&driver->surfaces, image->derived_from);
    if (surface != NULL) surface->derived_images -= 1;
    free_buffer(table_get(&driver->buffers, image->image.buf));
    table_remove(&driver->buffers, image->image.buf);
    table_remove(&driver->images, image_id);
    free(image);
    atomic_fetch_sub(&live_images, 1);
    LEAVE();
}

// Checks that a rectangle (in luma samples) lies inside both the surface and the image, and that
// they have the same format.
static VAStatus check_rect(
    const Surface *surface, const Image *image, int surface_x, int surface_y, int image_x, int image_y,
    unsigned int width, unsigned int height
) {
    const VAImage *va = &image->image;
    if (va->format.fourcc != surface->fourcc) return VA_STATUS_ERROR_INVALID_IMAGE_FORMAT;
    if (surface_x < 0 || surface_y < 0 || image_x < 0 || image_y < 0) return VA_STATUS_ERROR_INVALID_PARAMETER;
    if ((unsigned int)surface_x + width > surface->width || (unsigned int)surface_y + height > surface->height
        || (unsigned int)image_x + width > va->width || (unsigned int)image_y + height > va->height) {
        return VA_STATUS_ERROR_INVALID_PARAMETER;
    }
    return VA_STATUS_SUCCESS;
}

// Copies a rectangle between a surface and an image's memory; `to_image` chooses the direction.
// Odd positions and sizes are widened for the half-resolution chroma plane.
static void copy_planes(
    Surface *surface, uint8_t *image_data, const VAImage *va, int surface_x, int surface_y, int image_x,
    int image_y, unsigned int width, unsigned int height, bool to_image
) {
    unsigned int bps = surface->bytes_per_sample;
    // Luma.
    for (unsigned int row = 0; row < height; row++) {
        uint8_t *s = surface->data + (size_t)(surface_y + (int)row) * surface->pitch + (size_t)surface_x * bps;
        uint8_t *i = image_data + va->offsets[0] + (size_t)(image_y + (int)row) * va->pitches[0] + (size_t)image_x * bps;
        if (to_image) {
            memcpy(i, s, (size_t)width * bps);
        } else {
            memcpy(s, i, (size_t)width * bps);
        }
    }
    if (surface->planes == 1) return;
    // Chroma: interleaved CbCr at half resolution, so 2 samples (2 × bps bytes) per 2 luma columns.
    unsigned int chroma_x0 = (unsigned int)surface_x / 2, image_cx0 = (unsigned int)image_x / 2;
    unsigned int chroma_rows = (height + (unsigned int)surface_y % 2 + 1) / 2;
    unsigned int chroma_columns = (width + (unsigned int)surface_x % 2 + 1) / 2;
    for (unsigned int row = 0; row < chroma_rows; row++) {
        unsigned int surface_row = (unsigned int)surface_y / 2 + row, image_row = (unsigned int)image_y / 2 + row;
        if (surface_row >= (surface->height + 1) / 2 || image_row >= ((unsigned int)va->height + 1) / 2) break;
        uint8_t *s = surface->data + surface->chroma_offset + (size_t)surface_row * surface->pitch
            + (size_t)chroma_x0 * 2 * bps;
        uint8_t *i = image_data + va->offsets[1] + (size_t)image_row * va->pitches[1] + (size_t)image_cx0 * 2 * bps;
        size_t bytes = (size_t)chroma_columns * 2 * bps;
        if (to_image) {
            memcpy(i, s, bytes);
        } else {
            memcpy(s, i, bytes);
        }
    }
}

static VAStatus vatb_GetImage(
    VADriverContextP ctx, VASurfaceID surface_id, int x, int y, unsigned int width, unsigned int height,
    VAImageID image_id
) {
    VATB_INJECT();
    wait_for_surface(DRIVER(ctx), surface_id);
    ENTER(ctx);
    Surface *surface = table_get(&driver->surfaces, surface_id);
    Image *image = table_get(&driver->images, image_id);
    if (surface == NULL) {
        status = VA_STATUS_ERROR_INVALID_SURFACE;
    } else if (image == NULL) {
        status = VA_STATUS_ERROR_INVALID_IMAGE;
    } else {
        status = check_rect(surface, image, x, y, 0, 0, width, height);
        Buffer *buffer = table_get(&driver->buffers, image->image.buf);
        if (status == VA_STATUS_SUCCESS && buffer != NULL && buffer->data != surface->data) {
            copy_planes(surface, buffer->data, &image->image, x, y, 0, 0, width, height, true);
        }
        if (status == VA_STATUS_SUCCESS) atomic_fetch_add(&total_got_images, 1);
    }
    LEAVE();
}

static VAStatus vatb_PutImage(
    VADriverContextP ctx, VASurfaceID surface_id, VAImageID image_id, int src_x, int src_y, unsigned int src_width,
    unsigned int src_height, int dest_x, int dest_y, unsigned int dest_width, unsigned int dest_height
) {
    VATB_INJECT();
    ENTER(ctx);
    Surface *surface = table_get(&driver->surfaces, surface_id);
    Image *image = table_get(&driver->images, image_id);
    if (surface == NULL) {
        status = VA_STATUS_ERROR_INVALID_SURFACE;
    } else if (image == NULL) {
        status = VA_STATUS_ERROR_INVALID_IMAGE;
    } else if (src_width != dest_width || src_height != dest_height) {
        status = VA_STATUS_ERROR_UNIMPLEMENTED; // no scaling
    } else {
        status = check_rect(surface, image, dest_x, dest_y, src_x, src_y, src_width, src_height);
        Buffer *buffer = table_get(&driver->buffers, image->image.buf);
        if (status == VA_STATUS_SUCCESS && buffer != NULL && buffer->data != surface->data) {
            copy_planes(surface, buffer->data, &image->image, dest_x, dest_y, src_x, src_y, src_width, src_height, false);
        }
    }
    LEAVE();
}

// MARK: - Export

static VAStatus vatb_ExportSurfaceHandle(
    VADriverContextP ctx, VASurfaceID surface_id, uint32_t mem_type, uint32_t flags, void *descriptor
) {
    VATB_INJECT();
    wait_for_surface(DRIVER(ctx), surface_id);
    ENTER(ctx);
    const VATBPersonality *personality = driver->personality;
    Surface *surface = table_get(&driver->surfaces, surface_id);
    bool separate = (flags & VA_EXPORT_SURFACE_SEPARATE_LAYERS) != 0;
    bool composed = (flags & VA_EXPORT_SURFACE_COMPOSED_LAYERS) != 0;
    if (surface == NULL) {
        status = VA_STATUS_ERROR_INVALID_SURFACE;
    } else if (mem_type != VA_SURFACE_ATTRIB_MEM_TYPE_DRM_PRIME_2) {
        status = VA_STATUS_ERROR_UNSUPPORTED_MEMORY_TYPE;
    } else if (separate == composed || descriptor == NULL) {
        status = VA_STATUS_ERROR_INVALID_PARAMETER;
    } else if (composed && !personality->exports_composed_layers) {
        status = VA_STATUS_ERROR_INVALID_SURFACE; // nvidia: separate layers only
    } else if (surface->interlaced && personality->refuses_interlaced_surfaces) {
        status = VA_STATUS_ERROR_INVALID_SURFACE; // Mesa: no interlaced export
    } else if (driver->nvidia_egl_backend) {
        status = VA_STATUS_ERROR_ALLOCATION_FAILED; // nvidia's EGL back end cannot export
    }
    if (status != VA_STATUS_SUCCESS) LEAVE();

    int fd = memfd_create("vatb-surface", MFD_CLOEXEC);
    if (fd < 0) {
        status = VA_STATUS_ERROR_OPERATION_FAILED;
        LEAVE();
    }
    size_t written = 0;
    while (written < surface->size) {
        ssize_t n = write(fd, surface->data + written, surface->size - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        written += (size_t)n;
    }
    uint32_t extra_bytes = 0;
    VADRMPRIMESurfaceDescriptor *out = descriptor;
    memset(out, 0, sizeof(*out));
    if (surface->planes == 1) {
        // Packed RGB (a VPP output): one layer of one plane either way, as the DRM format of its
        // bytes (drm_fourcc.h: ARGB8888 is B, G, R, A in memory).
        out->num_layers = 1;
        out->layers[0].num_planes = 1;
        out->layers[0].pitch[0] = surface->pitch;
        out->objects[0].drm_format_modifier = personality->modifier;
        switch (surface->fourcc) {
        case VA_FOURCC_BGRA: out->layers[0].drm_format = VA_FOURCC('A', 'R', '2', '4'); break;
        case VA_FOURCC_RGBA: out->layers[0].drm_format = VA_FOURCC('A', 'B', '2', '4'); break;
        case VA_FOURCC_BGRX: out->layers[0].drm_format = VA_FOURCC('X', 'R', '2', '4'); break;
        default: out->layers[0].drm_format = VA_FOURCC('X', 'B', '2', '4'); break;
        }
    } else {
        vatb_personality_fill_export(
            personality, surface->fourcc == VA_FOURCC_P010, composed, surface->pitch, surface->chroma_offset,
            surface->chroma_offset / surface->pitch, surface->size, out, &extra_bytes);
    }
    // Compression planes (iHD) follow the surface's bytes, zero: nothing is compressed.
    if (written == surface->size && extra_bytes > 0 && ftruncate(fd, (off_t)surface->size + extra_bytes) != 0) {
        written = 0;
    }
    if (written != surface->size || lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        status = VA_STATUS_ERROR_OPERATION_FAILED;
        LEAVE();
    }

    out->fourcc = surface->fourcc;
    out->width = surface->width;
    out->height = surface->height;
    out->num_objects = 1;
    out->objects[0].fd = fd;
    out->objects[0].size = surface->size + extra_bytes;
    LEAVE();
}

// MARK: - Video processing queries (vatb_video_processing.c)

// The context given to a VPP query: Mesa needs a valid VPP context for the filter list
// (postproc.c vlVaQueryVideoProcFilters: VA_STATUS_ERROR_INVALID_CONTEXT), iHD ignores it.
static VAStatus check_processing_context(Driver *driver, VAContextID context_id) {
    Context *context = table_get(&driver->contexts, context_id);
    if (context != NULL && context->codec == CODEC_VPP) return VA_STATUS_SUCCESS;
    return driver->personality->processing.filters_need_context ? VA_STATUS_ERROR_INVALID_CONTEXT
                                                                : VA_STATUS_SUCCESS;
}

static VAStatus vatb_QueryVideoProcFilters(
    VADriverContextP ctx, VAContextID context, VAProcFilterType *filters, unsigned int *num_filters
) {
    VATB_INJECT();
    ENTER(ctx);
    status = check_processing_context(driver, context);
    if (status == VA_STATUS_SUCCESS) {
        status = vatb_vpp_query_filters(&driver->personality->processing, filters, num_filters);
    }
    LEAVE();
}

static VAStatus vatb_QueryVideoProcFilterCaps(
    VADriverContextP ctx, VAContextID context, VAProcFilterType type, void *filter_caps, unsigned int *num_filter_caps
) {
    VATB_INJECT();
    ENTER(ctx);
    status = check_processing_context(driver, context);
    if (status == VA_STATUS_SUCCESS) {
        status = vatb_vpp_query_filter_caps(&driver->personality->processing, type, filter_caps, num_filter_caps);
    }
    LEAVE();
}

static VAStatus vatb_QueryVideoProcPipelineCaps(
    VADriverContextP ctx, VAContextID context, VABufferID *filters, unsigned int num_filters,
    VAProcPipelineCaps *pipeline_caps
) {
    VATB_INJECT();
    ENTER(ctx);
    status = check_processing_context(driver, context);
    // The filters asked about must be ones the personality lists (FFmpeg's vaapi_vpp.c passes the
    // tone mapping filter's buffer here, its deinterlace_vaapi the deinterlacing one); one it lists
    // but this model does not process (UNIMPLEMENTED) is answered as its driver answers, and
    // refused when a picture asks for it.
    VATBPipeline scratch;
    memset(&scratch, 0, sizeof(scratch));
    for (unsigned int i = 0; status == VA_STATUS_SUCCESS && i < num_filters; i++) {
        const Buffer *filter = filters == NULL ? NULL : table_get(&driver->buffers, filters[i]);
        status = filter == NULL || filter->type != VAProcFilterParameterBufferType
            ? VA_STATUS_ERROR_INVALID_BUFFER
            : vatb_vpp_take_filter(&driver->personality->processing, filter->data, filter->element_size, &scratch);
        if (status == VA_STATUS_ERROR_UNIMPLEMENTED) {
            status = VA_STATUS_SUCCESS;
        } else if (status != VA_STATUS_SUCCESS && status != VA_STATUS_ERROR_INVALID_BUFFER) {
            status = VA_STATUS_ERROR_UNSUPPORTED_FILTER;
        }
    }
    if (status == VA_STATUS_SUCCESS) {
        status = vatb_vpp_query_pipeline_caps(
            &driver->personality->processing, (unsigned int)driver->max_width, scratch.motion_adaptive, pipeline_caps);
    }
    LEAVE();
}

// MARK: - Not implemented

static VAStatus vatb_QuerySurfaceError(VADriverContextP ctx, VASurfaceID surface, VAStatus error, void **info) {
    (void)ctx, (void)surface, (void)error, (void)info;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus vatb_PutSurface(
    VADriverContextP ctx, VASurfaceID surface, void *draw, short srcx, short srcy, unsigned short srcw,
    unsigned short srch, short destx, short desty, unsigned short destw, unsigned short desth, VARectangle *cliprects,
    unsigned int number_cliprects, unsigned int flags
) {
    (void)ctx, (void)surface, (void)draw, (void)srcx, (void)srcy, (void)srcw, (void)srch, (void)destx, (void)desty;
    (void)destw, (void)desth, (void)cliprects, (void)number_cliprects, (void)flags;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus vatb_SetImagePalette(VADriverContextP ctx, VAImageID image, unsigned char *palette) {
    (void)ctx, (void)image, (void)palette;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus vatb_QuerySubpictureFormats(
    VADriverContextP ctx, VAImageFormat *format_list, unsigned int *flags, unsigned int *num_formats
) {
    (void)ctx, (void)format_list, (void)flags;
    *num_formats = 0;
    return VA_STATUS_SUCCESS;
}

static VAStatus vatb_CreateSubpicture(VADriverContextP ctx, VAImageID image, VASubpictureID *subpicture) {
    (void)ctx, (void)image, (void)subpicture;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus vatb_DestroySubpicture(VADriverContextP ctx, VASubpictureID subpicture) {
    (void)ctx, (void)subpicture;
    return VA_STATUS_ERROR_INVALID_SUBPICTURE;
}

static VAStatus vatb_SetSubpictureImage(VADriverContextP ctx, VASubpictureID subpicture, VAImageID image) {
    (void)ctx, (void)subpicture, (void)image;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus vatb_SetSubpictureChromakey(
    VADriverContextP ctx, VASubpictureID subpicture, unsigned int chromakey_min, unsigned int chromakey_max,
    unsigned int chromakey_mask
) {
    (void)ctx, (void)subpicture, (void)chromakey_min, (void)chromakey_max, (void)chromakey_mask;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus vatb_SetSubpictureGlobalAlpha(VADriverContextP ctx, VASubpictureID subpicture, float global_alpha) {
    (void)ctx, (void)subpicture, (void)global_alpha;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus vatb_AssociateSubpicture(
    VADriverContextP ctx, VASubpictureID subpicture, VASurfaceID *target_surfaces, int num_surfaces, short src_x,
    short src_y, unsigned short src_width, unsigned short src_height, short dest_x, short dest_y,
    unsigned short dest_width, unsigned short dest_height, unsigned int flags
) {
    (void)ctx, (void)subpicture, (void)target_surfaces, (void)num_surfaces, (void)src_x, (void)src_y;
    (void)src_width, (void)src_height, (void)dest_x, (void)dest_y, (void)dest_width, (void)dest_height, (void)flags;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus vatb_DeassociateSubpicture(
    VADriverContextP ctx, VASubpictureID subpicture, VASurfaceID *target_surfaces, int num_surfaces
) {
    (void)ctx, (void)subpicture, (void)target_surfaces, (void)num_surfaces;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus vatb_QueryDisplayAttributes(VADriverContextP ctx, VADisplayAttribute *attr_list, int *num_attributes) {
    (void)ctx, (void)attr_list;
    *num_attributes = 0;
    return VA_STATUS_SUCCESS;
}

static VAStatus vatb_GetDisplayAttributes(VADriverContextP ctx, VADisplayAttribute *attr_list, int num_attributes) {
    (void)ctx, (void)attr_list, (void)num_attributes;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus vatb_SetDisplayAttributes(VADriverContextP ctx, VADisplayAttribute *attr_list, int num_attributes) {
    (void)ctx, (void)attr_list, (void)num_attributes;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus vatb_LockSurface(
    VADriverContextP ctx, VASurfaceID surface, unsigned int *fourcc, unsigned int *luma_stride,
    unsigned int *chroma_u_stride, unsigned int *chroma_v_stride, unsigned int *luma_offset,
    unsigned int *chroma_u_offset, unsigned int *chroma_v_offset, unsigned int *buffer_name, void **buffer
) {
    (void)ctx, (void)surface, (void)fourcc, (void)luma_stride, (void)chroma_u_stride, (void)chroma_v_stride;
    (void)luma_offset, (void)chroma_u_offset, (void)chroma_v_offset, (void)buffer_name, (void)buffer;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus vatb_UnlockSurface(VADriverContextP ctx, VASurfaceID surface) {
    (void)ctx, (void)surface;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus vatb_AcquireBufferHandle(VADriverContextP ctx, VABufferID buf_id, VABufferInfo *buf_info) {
    (void)ctx, (void)buf_id, (void)buf_info;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus vatb_ReleaseBufferHandle(VADriverContextP ctx, VABufferID buf_id) {
    (void)ctx, (void)buf_id;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

static VAStatus vatb_SyncBuffer(VADriverContextP ctx, VABufferID buf_id, uint64_t timeout_ns) {
    (void)ctx, (void)buf_id, (void)timeout_ns;
    return VA_STATUS_ERROR_UNIMPLEMENTED;
}

// MARK: - Init and terminate

static VAStatus vatb_Terminate(VADriverContextP ctx) {
    Driver *driver = DRIVER(ctx);
    trace(driver, "Terminate");
    // Leftovers are freed, but the live counts stay: only explicit destroy calls lower them.
    free_table(&driver->images, free);
    free_table(&driver->buffers, free_buffer_item);
    free_table(&driver->contexts, free_context_item);
    free_table(&driver->surfaces, free_surface_item);
    free_table(&driver->configs, free);
    bool live_report = driver->live_report;
    bool call_report = driver->call_report;
    vatb_reference_pictures_close(driver->reference);
    pthread_mutex_destroy(&driver->lock);
    free(driver);
    ctx->pDriverData = NULL;
    atomic_fetch_sub(&live_drivers, 1);
    if (call_report) vatb_report_calls();
    if (live_report) {
        // For a test that runs a client as a subprocess: the process-wide counters once this
        // driver instance is gone (libva dlcloses the driver right after).
        VATBLiveObjects live;
        vatb_test_driver_live_objects(&live);
        fprintf(stderr,
            "vatb: live drivers=%ld configs=%ld contexts=%ld surfaces=%ld buffers=%ld images=%ld "
            "end_pictures=%ld failed_end_pictures=%ld syncs=%ld derived_images=%ld got_images=%ld "
            "processed_pictures=%ld\n",
            live.drivers, live.configs, live.contexts, live.surfaces, live.buffers, live.images, live.end_pictures,
            live.failed_end_pictures, live.syncs, atomic_load(&total_derived_images), atomic_load(&total_got_images),
            atomic_load(&total_processed_pictures));
    }
    return VA_STATUS_SUCCESS;
}

#define VATB_INIT_NAME_(major, minor) __vaDriverInit_##major##_##minor
#define VATB_INIT_NAME(major, minor) VATB_INIT_NAME_(major, minor)
#define VATB_INIT_FUNC VATB_INIT_NAME(VA_MAJOR_VERSION, VA_MINOR_VERSION)

/// The entry point libva looks up (`__vaDriverInit_1_17` with libva 2.17's headers).
VAStatus VATB_INIT_FUNC(VADriverContextP ctx);

VAStatus VATB_INIT_FUNC(VADriverContextP ctx) {
    Driver *driver = calloc(1, sizeof(*driver));
    if (driver == NULL) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    if (pthread_mutex_init(&driver->lock, NULL) != 0) {
        free(driver);
        return VA_STATUS_ERROR_OPERATION_FAILED;
    }
    driver->configs.base = ID_BASE_CONFIG;
    driver->contexts.base = ID_BASE_CONTEXT;
    driver->surfaces.base = ID_BASE_SURFACE;
    driver->buffers.base = ID_BASE_BUFFER;
    driver->images.base = ID_BASE_IMAGE;
    parse_environment(driver);
    trace(driver, "Init");
    if (vatb_reference_pictures_from_environment(&driver->reference) != 0) {
        pthread_mutex_destroy(&driver->lock);
        free(driver);
        return VA_STATUS_ERROR_OPERATION_FAILED;
    }

    ctx->pDriverData = driver;
    ctx->version_major = VA_MAJOR_VERSION;
    ctx->version_minor = VA_MINOR_VERSION;
    ctx->max_profiles = PROFILE_COUNT + 1; // and VAProfileNone for video processing
    ctx->max_entrypoints = 2;
    ctx->max_attributes = 4;
    ctx->max_image_formats = IMAGE_FORMAT_COUNT;
    ctx->max_subpic_formats = 1;
    ctx->max_display_attributes = 1;
    ctx->str_vendor = driver->vendor;

    struct VADriverVTable *vtable = ctx->vtable;
    vtable->vaTerminate = vatb_Terminate;
    vtable->vaQueryConfigProfiles = vatb_QueryConfigProfiles;
    vtable->vaQueryConfigEntrypoints = vatb_QueryConfigEntrypoints;
    vtable->vaGetConfigAttributes = vatb_GetConfigAttributes;
    vtable->vaCreateConfig = vatb_CreateConfig;
    vtable->vaDestroyConfig = vatb_DestroyConfig;
    vtable->vaQueryConfigAttributes = vatb_QueryConfigAttributes;
    vtable->vaCreateSurfaces = vatb_CreateSurfaces;
    vtable->vaDestroySurfaces = vatb_DestroySurfaces;
    vtable->vaCreateContext = vatb_CreateContext;
    vtable->vaDestroyContext = vatb_DestroyContext;
    vtable->vaCreateBuffer = vatb_CreateBuffer;
    vtable->vaBufferSetNumElements = vatb_BufferSetNumElements;
    vtable->vaMapBuffer = vatb_MapBuffer;
    vtable->vaUnmapBuffer = vatb_UnmapBuffer;
    vtable->vaDestroyBuffer = vatb_DestroyBuffer;
    vtable->vaBeginPicture = vatb_BeginPicture;
    vtable->vaRenderPicture = vatb_RenderPicture;
    vtable->vaEndPicture = vatb_EndPicture;
    vtable->vaSyncSurface = vatb_SyncSurface;
    vtable->vaQuerySurfaceStatus = vatb_QuerySurfaceStatus;
    vtable->vaQuerySurfaceError = vatb_QuerySurfaceError;
    vtable->vaPutSurface = vatb_PutSurface;
    vtable->vaQueryImageFormats = vatb_QueryImageFormats;
    vtable->vaCreateImage = vatb_CreateImage;
    vtable->vaDeriveImage = vatb_DeriveImage;
    vtable->vaDestroyImage = vatb_DestroyImage;
    vtable->vaSetImagePalette = vatb_SetImagePalette;
    vtable->vaGetImage = vatb_GetImage;
    vtable->vaPutImage = vatb_PutImage;
    vtable->vaQuerySubpictureFormats = vatb_QuerySubpictureFormats;
    vtable->vaCreateSubpicture = vatb_CreateSubpicture;
    vtable->vaDestroySubpicture = vatb_DestroySubpicture;
    vtable->vaSetSubpictureImage = vatb_SetSubpictureImage;
    vtable->vaSetSubpictureChromakey = vatb_SetSubpictureChromakey;
    vtable->vaSetSubpictureGlobalAlpha = vatb_SetSubpictureGlobalAlpha;
    vtable->vaAssociateSubpicture = vatb_AssociateSubpicture;
    vtable->vaDeassociateSubpicture = vatb_DeassociateSubpicture;
    vtable->vaQueryDisplayAttributes = vatb_QueryDisplayAttributes;
    vtable->vaGetDisplayAttributes = vatb_GetDisplayAttributes;
    vtable->vaSetDisplayAttributes = vatb_SetDisplayAttributes;
    vtable->vaBufferInfo = vatb_BufferInfo;
    vtable->vaLockSurface = vatb_LockSurface;
    vtable->vaUnlockSurface = vatb_UnlockSurface;
    vtable->vaCreateSurfaces2 = vatb_CreateSurfaces2;
    vtable->vaQuerySurfaceAttributes = vatb_QuerySurfaceAttributes;
    vtable->vaAcquireBufferHandle = vatb_AcquireBufferHandle;
    vtable->vaReleaseBufferHandle = vatb_ReleaseBufferHandle;
    vtable->vaExportSurfaceHandle = vatb_ExportSurfaceHandle;
    vtable->vaSyncSurface2 = vatb_SyncSurface2;
    vtable->vaSyncBuffer = vatb_SyncBuffer;
    // No VPP table under a personality without video processing: libva then answers the VPP
    // queries with VA_STATUS_ERROR_UNIMPLEMENTED, as for nvidia-vaapi-driver.
    if (driver->personality->processing.available && ctx->vtable_vpp != NULL) {
        ctx->vtable_vpp->version = VA_DRIVER_VTABLE_VPP_VERSION;
        ctx->vtable_vpp->vaQueryVideoProcFilters = vatb_QueryVideoProcFilters;
        ctx->vtable_vpp->vaQueryVideoProcFilterCaps = vatb_QueryVideoProcFilterCaps;
        ctx->vtable_vpp->vaQueryVideoProcPipelineCaps = vatb_QueryVideoProcPipelineCaps;
    }

    atomic_fetch_add(&live_drivers, 1);
    return VA_STATUS_SUCCESS;
}
