#pragma once
// Driver personalities of the test VA driver: `VATB_PERSONALITY=ihd|i965|mesa|nvidia` makes it
// behave, in the respects VAToolbox depends on, as that real driver does. Each behaviour is cited
// to the real driver's source in vatb_personality.c. Docs/TestVADriver.md lists them.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <va/va.h>
#include <va/va_drmcommon.h>
#include <va/va_vpp.h>

/// Which real driver the test driver imitates.
typedef enum VATBPersonalityKind {
    VATB_PERSONALITY_TEST,   // the test driver itself (no VATB_PERSONALITY)
    VATB_PERSONALITY_IHD,    // intel/media-driver
    VATB_PERSONALITY_I965,   // intel/intel-vaapi-driver
    VATB_PERSONALITY_MESA,   // Mesa's gallium VA front end (radeonsi)
    VATB_PERSONALITY_NVIDIA, // elFarto/nvidia-vaapi-driver
} VATBPersonalityKind;

/// What a personality's driver answers to the video-processing (VPP) queries, each list in the
/// real driver's order (vatb_personality.c cites them).
typedef struct VATBProcessing {
    /// VAProfileNone is listed with VAEntrypointVideoProc; false: no VPP at all (libva then
    /// answers VA_STATUS_ERROR_UNIMPLEMENTED to the three VPP queries).
    bool available;
    /// VAEntrypointStats follows VideoProc for VAProfileNone (iHD's legacy caps).
    bool lists_stats_entrypoint;
    /// vaQueryVideoProcFilters needs a valid VPP context (Mesa); iHD ignores the context.
    bool filters_need_context;
    const VAProcFilterType *filters;
    unsigned int filter_count;
    const VAProcDeinterlacingType *deinterlacing;
    unsigned int deinterlacing_count;
    /// What vaQueryVideoProcPipelineCaps answers for a VAProcDeinterlacingMotionAdaptive filter:
    /// the past (forward) and future (backward) reference pictures it takes. The model processes
    /// motion-adaptive deinterlacing only with a future reference (bwdif needs the next picture).
    uint8_t motion_adaptive_past_references, motion_adaptive_future_references;
    /// The HDR tone mapping filter's caps: one VAProcFilterCapHighDynamicRange of HDR10 metadata
    /// with these VA_TONE_MAPPING_* flags; 0 when the filter is not listed.
    uint16_t hdr_tone_mapping_flags;
    /// Colour standards accepted in and out (one list for both, as both drivers fill them).
    const VAProcColorStandardType *color_standards;
    unsigned int color_standard_count;
    /// The surface fourccs a VPP context writes (vaQuerySurfaceAttributes on its config).
    const uint32_t *output_fourccs;
    unsigned int output_fourcc_count;
    uint32_t pipeline_flags;
    uint32_t rotation_flags, mirror_flags;
    uint32_t min_size, max_size;
    /// vaQueryVideoProcPipelineCaps leaves rotation, mirroring and the size limits as the caller
    /// passed them (i965).
    bool leaves_limits_unset;
    /// Every conversion is BT.601 limited range, whatever the pipeline's colour standard and
    /// ranges say (i965).
    bool converts_as_bt601_limited;
    /// VA_FILTER_SCALING_HQ is Lanczos (i965's AVS) rather than the CPU path's bicubic.
    bool hq_scaling_is_lanczos;
} VATBProcessing;

/// What a personality changes.
typedef struct VATBPersonality {
    VATBPersonalityKind kind;
    /// The VATB_PERSONALITY value.
    const char *name;
    /// vaDeriveImage works (on surfaces that are not interlaced).
    bool derives_images;
    /// vaDeriveImage and vaExportSurfaceHandle refuse a surface that holds field pictures.
    bool refuses_interlaced_surfaces;
    /// vaExportSurfaceHandle accepts VA_EXPORT_SURFACE_COMPOSED_LAYERS.
    bool exports_composed_layers;
    /// The DRM formats of the chroma layer when exporting separate layers (8-bit, 10-bit).
    uint32_t chroma_layer_format_8, chroma_layer_format_16;
    /// The format modifier of exported memory.
    uint64_t modifier;
    /// Exports carry a compression (CCS) auxiliary plane after each plane.
    bool compression_planes;
    /// How many distinct surfaces a context decodes into; 0 = no limit. The first picture into
    /// one more surface fails at vaEndPicture.
    int render_target_limit;
    /// A picture with macroblock errors makes vaSyncSurface return VA_STATUS_ERROR_DECODING_ERROR.
    bool reports_decode_errors;
    /// Video processing (vatb_video_processing.c).
    VATBProcessing processing;
} VATBPersonality;

/// The personality named by VATB_PERSONALITY (the test driver's own when unset or unknown), with
/// its vendor string written into `vendor` (`size` bytes; nvidia's names NVD_BACKEND's back end).
const VATBPersonality *vatb_personality_from_environment(char *vendor, size_t size);

/// Whether an nvidia personality runs the EGL back end (NVD_BACKEND unset or "egl"), whose export
/// fails on current NVIDIA drivers. Read at driver init, as nvidia-vaapi-driver reads it when it
/// loads.
bool vatb_personality_nvidia_egl_backend(const VATBPersonality *personality);

/// The layers and planes of an exported NV12/P010 surface of `pitch` and `chroma_offset` in one
/// memory object of `size` bytes (compression planes, if any, start at `size` and add
/// `*extra_bytes` to the object).
void vatb_personality_fill_export(
    const VATBPersonality *personality, bool ten_bit, bool composed, uint32_t pitch, uint32_t chroma_offset,
    uint32_t rows, uint32_t size, VADRMPRIMESurfaceDescriptor *out, uint32_t *extra_bytes
);
