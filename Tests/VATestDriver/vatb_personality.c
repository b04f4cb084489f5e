// Driver personalities: what `VATB_PERSONALITY` changes, each behaviour cited to the real
// driver's source file and function.
#define _GNU_SOURCE 1

#include "vatb_personality.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// DRM fourccs and modifiers (drm_fourcc.h's fourcc_code and fourcc_mod_code), spelled out so
// that no libdrm header is needed.
#define DRM_FOURCC(a, b, c, d) ((uint32_t)(a) | ((uint32_t)(b) << 8) | ((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))
#define DRM_MODIFIER(vendor, value) (((uint64_t)(vendor) << 56) | ((uint64_t)(value) & 0x00ffffffffffffffull))
#define FORMAT_NV12 DRM_FOURCC('N', 'V', '1', '2')
#define FORMAT_P010 DRM_FOURCC('P', '0', '1', '0')
#define FORMAT_R8 DRM_FOURCC('R', '8', ' ', ' ')
#define FORMAT_R16 DRM_FOURCC('R', '1', '6', ' ')
#define FORMAT_GR88 DRM_FOURCC('G', 'R', '8', '8')
#define FORMAT_RG88 DRM_FOURCC('R', 'G', '8', '8')
#define FORMAT_GR1616 DRM_FOURCC('G', 'R', '3', '2')
#define FORMAT_RG1616 DRM_FOURCC('R', 'G', '3', '2')
#define MODIFIER_LINEAR 0ull
// I915_FORMAT_MOD_Y_TILED = fourcc_mod_code(INTEL, 2)
#define MODIFIER_INTEL_Y_TILED DRM_MODIFIER(0x01, 2)
// I915_FORMAT_MOD_Y_TILED_GEN12_MC_CCS = fourcc_mod_code(INTEL, 7): media compression, with a
// CCS auxiliary plane per plane.
#define MODIFIER_INTEL_GEN12_MC_CCS DRM_MODIFIER(0x01, 7)
// DRM_FORMAT_MOD_NVIDIA_BLOCK_LINEAR_2D(0, 1, 2, 0x06, 4) = fourcc_mod_code(NVIDIA, 0x10 | h |
// kind << 12 | gen << 20 | sector << 22): one block-linear layout (the parameters are an example;
// the real driver's depend on the GPU).
#define MODIFIER_NVIDIA_BLOCK_LINEAR DRM_MODIFIER(0x03, 0x10 | 4 | (0x06 << 12) | (2 << 20) | (1 << 22))

// MARK: - Video processing (VPP)

// What each driver lists for video processing. The test driver processes colour conversion,
// scaling and cropping only (vatb_video_processing.c); a listed filter is refused when rendered.
#define COUNT(array) ((unsigned int)(sizeof(array) / sizeof((array)[0])))
#define ROTATIONS(first) (first | (1u << VA_ROTATION_90) | (1u << VA_ROTATION_180) | (1u << VA_ROTATION_270))

// The test driver's own: what it processes, nothing more.
static const VAProcColorStandardType test_color_standards[] = {
    VAProcColorStandardBT601, VAProcColorStandardBT709, VAProcColorStandardBT2020, VAProcColorStandardExplicit,
};
static const uint32_t test_output_fourccs[] = {
    VA_FOURCC_NV12, VA_FOURCC_P010, VA_FOURCC_BGRA, VA_FOURCC_RGBA, VA_FOURCC_BGRX, VA_FOURCC_RGBX,
};

// intel/media-driver (iHD):
// - VAProfileNone gives VideoProc then Stats (media_libva_caps.cpp
//   MediaLibvaCaps::LoadNoneProfileEntrypoints).
// - Filters, in the order of media_libva.cpp `vp_supported_filters` (softlet:
//   ddi_vp_functions.cpp DdiVpFunctions::m_vpSupportedFilters), each kept when its caps count is
//   not 0; HVS noise reduction and HDR tone mapping as on a TGL-class part (FtrHVSDenoise, FtrHDR).
// - Deinterlacing Bob, MotionAdaptive, MotionCompensated, no Weave (DdiVpFunctions::
//   QueryDeinterlacingCapsAttrib). The motion-adaptive ones take no reference pictures: the
//   pipeline caps answer 0 forward and 0 backward whatever the filters (media_libva.cpp
//   DdiMedia_QueryVideoProcPipelineCaps: DDI_CODEC_NUM_FWD_REF and DDI_CODEC_NUM_BK_REF are 0);
//   the VEBox keeps the previous field itself. The model does not process them.
// - Colour standards in and out BT601, BT709, SRGB, STRGB, BT2020, Explicit
//   (ddi_media_functions.cpp m_vpInputColorStd / m_vpOutputColorStd); pipeline_flags
//   VA_PROC_PIPELINE_FAST, filter_flags 0, rotations 0/90/180/270, both mirrors, 16…16384
//   (DdiMedia_QueryVideoProcPipelineCaps).
// - Output surfaces (MediaLibvaCapsG12::QuerySurfaceAttributes then m_vpSurfaceAttr): NV12 first,
//   then RGBA, BGRA, RGBX, P010 among others; no BGRX. Only the formats this model lays out are
//   listed (its I420, YV12, YUY2, 422H/V, RGBP, RG24, ARGB, ABGR and 10-bit RGB are left out).
// - HDR tone mapping: one cap, HDR10 metadata, HDR→HDR, HDR→SDR and HDR→EDR
//   (ddi_vp_functions.cpp DdiVpFunctions::QueryHDRToneMappingCapsAttrib); the metadata the
//   filter buffer points to is read at vaRenderPicture (DdiVpFunctions::DdiSetProcFilterHdrTmParams).
static const VAProcFilterType ihd_filters[] = {
    VAProcFilterNoiseReduction, VAProcFilterDeinterlacing, VAProcFilterSharpening, VAProcFilterColorBalance,
    VAProcFilterSkinToneEnhancement, VAProcFilterTotalColorCorrection, VAProcFilterHVSNoiseReduction,
    VAProcFilterHighDynamicRangeToneMapping,
};
static const VAProcDeinterlacingType ihd_deinterlacing[] = {
    VAProcDeinterlacingBob, VAProcDeinterlacingMotionAdaptive, VAProcDeinterlacingMotionCompensated,
};
static const VAProcColorStandardType ihd_color_standards[] = {
    VAProcColorStandardBT601, VAProcColorStandardBT709, VAProcColorStandardSRGB, VAProcColorStandardSTRGB,
    VAProcColorStandardBT2020, VAProcColorStandardExplicit,
};
static const uint32_t ihd_output_fourccs[] = {
    VA_FOURCC_NV12, VA_FOURCC_RGBA, VA_FOURCC_BGRA, VA_FOURCC_RGBX, VA_FOURCC_P010,
};

// Mesa's gallium VA front end:
// - VAProfileNone is always listed, last, with VideoProc only (config.c vlVaQueryConfigProfiles,
//   vlVaQueryConfigEntrypoints: "Support postprocessing through vl_compositor").
// - Filters: Deinterlacing only, and only for a valid VPP context, else
//   VA_STATUS_ERROR_INVALID_CONTEXT (postproc.c vlVaQueryVideoProcFilters).
// - Deinterlacing Bob, Weave, MotionAdaptive (postproc.c vlVaQueryVideoProcFilterCaps);
//   MotionAdaptive takes two past pictures and one future one (postproc.c
//   vlVaQueryVideoProcPipelineCaps: num_forward_references 2, num_backward_references 1 for a
//   VAProcDeinterlacingMotionAdaptive filter; vlVaApplyDeint passes forward_references[1],
//   forward_references[0], the picture and backward_references[0] to vl_deint_filter_render).
// - Colour standards BT601, BT709, BT2020, Explicit in and out (postproc.c
//   vlVaQueryVideoProcPipelineCaps, vpp_color_standards); pipeline and filter flags 0; rotations
//   90/180/270 without the bit for none, both mirrors; sizes from the pipe driver (radeonsi with
//   VPE: 16…10240).
// - Output surfaces: NV12, P010 and the 8-bit RGB formats the compositor renders to.
static const VAProcFilterType mesa_filters[] = {VAProcFilterDeinterlacing};
static const VAProcDeinterlacingType mesa_deinterlacing[] = {
    VAProcDeinterlacingBob, VAProcDeinterlacingWeave, VAProcDeinterlacingMotionAdaptive,
};
static const VAProcColorStandardType mesa_color_standards[] = {
    VAProcColorStandardBT601, VAProcColorStandardBT709, VAProcColorStandardBT2020, VAProcColorStandardExplicit,
};
static const uint32_t mesa_output_fourccs[] = {
    VA_FOURCC_NV12, VA_FOURCC_P010, VA_FOURCC_BGRA, VA_FOURCC_RGBA, VA_FOURCC_BGRX, VA_FOURCC_RGBX,
};

// intel/intel-vaapi-driver (i965), as on Kaby Lake (gen9, has_vpp, HAS_VPP_P010):
// - VAProfileNone with VideoProc when HAS_VPP (i965_drv_video.c i965_QueryConfigProfiles,
//   i965_QueryConfigEntrypoints).
// - Filters from the platform's table (i965_device_info.c, gen9: NoiseReduction, Deinterlacing,
//   Sharpening, ColorBalance, SkinToneEnhancement; i965_QueryVideoProcFilters), deinterlacing Bob,
//   MotionAdaptive, MotionCompensated, never Weave (i965_QueryVideoProcFilterCaps); no HDR. Its
//   motion-adaptive references are not modelled (VAToolbox processes nothing on i965, below).
// - Pipeline caps: flags 0, one colour standard in and out, BT601; rotation, mirroring and the
//   size limits are never written (i965_QueryVideoProcPipelineCaps).
// - Output surfaces for a VideoProc config: NV12, I420, YV12, IMC3, YUY2, RGBA, RGBX, BGRA, BGRX,
//   YV16, P010, I010 (i965_QuerySurfaceAttributes, GEN9 with HAS_VPP_P010); the model lays out
//   NV12, RGBA, RGBX, BGRA, BGRX and P010.
// - Colour: every YUV→RGB conversion is BT.601 limited range whatever the pipeline says
//   (gen8_post_processing.c gen8_pp_plx_avs_initialize picks the matrix from the surface's
//   VA_SRC_COLOR_MASK flags, which the VPP path never sets).
// - Scaling: VA_FILTER_SCALING_HQ (and NL_ANAMORPHIC) take the AVS with Lanczos coefficients,
//   the rest bilinear (i965_post_processing.c avs_is_needed, i965_vpp_avs.c
//   avs_update_coefficients).
static const VAProcFilterType i965_filters[] = {
    VAProcFilterNoiseReduction, VAProcFilterDeinterlacing, VAProcFilterSharpening, VAProcFilterColorBalance,
    VAProcFilterSkinToneEnhancement,
};
static const VAProcColorStandardType i965_color_standards[] = {VAProcColorStandardBT601};
static const uint32_t i965_output_fourccs[] = {
    VA_FOURCC_NV12, VA_FOURCC_RGBA, VA_FOURCC_RGBX, VA_FOURCC_BGRA, VA_FOURCC_BGRX, VA_FOURCC_P010,
};

// elFarto/nvidia-vaapi-driver: no VPP. Its profiles have VAEntrypointVLD only and VAProfileNone
// is not listed; it never fills vtable_vpp (src/vabackend.c __vaDriverInit), so libva answers
// the three VPP queries with VA_STATUS_ERROR_UNIMPLEMENTED (va/va.c VA_VPP_INVOKE).

// The test personality processes what VAToolbox asks of VPP: conversion, Bob and
// motion-adaptive deinterlacing (with Mesa's references), and HDR10 → SDR tone mapping as iHD
// lists it.
static const VAProcFilterType test_filters[] = {VAProcFilterDeinterlacing, VAProcFilterHighDynamicRangeToneMapping};
static const VAProcDeinterlacingType test_deinterlacing[] = {
    VAProcDeinterlacingBob, VAProcDeinterlacingMotionAdaptive,
};

static const VATBProcessing test_processing = {
    .available = true,
    .filters = test_filters,
    .filter_count = COUNT(test_filters),
    .deinterlacing = test_deinterlacing,
    .deinterlacing_count = COUNT(test_deinterlacing),
    .motion_adaptive_past_references = 2,
    .motion_adaptive_future_references = 1,
    .hdr_tone_mapping_flags = VA_TONE_MAPPING_HDR_TO_SDR,
    .color_standards = test_color_standards,
    .color_standard_count = COUNT(test_color_standards),
    .output_fourccs = test_output_fourccs,
    .output_fourcc_count = COUNT(test_output_fourccs),
    .rotation_flags = 0,
    .min_size = 16,
};

static const VATBPersonality personalities[] = {
    {
        .kind = VATB_PERSONALITY_TEST,
        .name = "",
        .derives_images = true,
        .exports_composed_layers = true,
        .chroma_layer_format_8 = FORMAT_GR88,
        .chroma_layer_format_16 = FORMAT_GR1616,
        .modifier = MODIFIER_LINEAR,
        .reports_decode_errors = true,
        .processing = test_processing,
    },
    // intel/media-driver (iHD).
    // - vaDeriveImage maps the surface (media_libva.cpp DdiMedia_DeriveImage); GStreamer's va
    //   plugin maps with it on iHD.
    // - Exports both layouts with the surface's tiling and, where media compression is on (Gen12
    //   and later), a CCS auxiliary plane after each plane, with the
    //   I915_FORMAT_MOD_Y_TILED_GEN12_MC_CCS modifier (media_libva.cpp DdiMedia_ExportSurfaceHandle:
    //   num_planes doubles for a compressed surface).
    // - A picture the hardware reports in error makes vaSyncSurface return
    //   VA_STATUS_ERROR_DECODING_ERROR (media_libva.cpp DdiMedia_SyncSurface: a completed status
    //   report with CODECHAL_STATUS_ERROR; vaQuerySurfaceError then lists the macroblocks).
    {
        .kind = VATB_PERSONALITY_IHD,
        .name = "ihd",
        .derives_images = true,
        .exports_composed_layers = true,
        .chroma_layer_format_8 = FORMAT_GR88,
        .chroma_layer_format_16 = FORMAT_GR1616,
        .modifier = MODIFIER_INTEL_GEN12_MC_CCS,
        .compression_planes = true,
        .reports_decode_errors = true,
        .processing = {
            .available = true,
            .lists_stats_entrypoint = true,
            .filters = ihd_filters,
            .filter_count = COUNT(ihd_filters),
            .deinterlacing = ihd_deinterlacing,
            .deinterlacing_count = COUNT(ihd_deinterlacing),
            .hdr_tone_mapping_flags = VA_TONE_MAPPING_HDR_TO_HDR | VA_TONE_MAPPING_HDR_TO_SDR | VA_TONE_MAPPING_HDR_TO_EDR,
            .color_standards = ihd_color_standards,
            .color_standard_count = COUNT(ihd_color_standards),
            .output_fourccs = ihd_output_fourccs,
            .output_fourcc_count = COUNT(ihd_output_fourccs),
            .pipeline_flags = VA_PROC_PIPELINE_FAST,
            .rotation_flags = ROTATIONS(1u << VA_ROTATION_NONE),
            .mirror_flags = VA_MIRROR_HORIZONTAL | VA_MIRROR_VERTICAL,
            .min_size = 16,
            .max_size = 16384,
        },
    },
    // intel/intel-vaapi-driver (i965).
    // - vaGetImage is a blit into linear memory (i965_drv_video.c i965_GetImage →
    //   get_image_nv12 / the render ring copy), the path GStreamer uses on i965; vaDeriveImage
    //   works too (i965_DeriveImage).
    // - Exports both layouts, Y-tiled (i965_drv_video.c i965_ExportSurfaceHandle:
    //   I915_FORMAT_MOD_Y_TILED for I915_TILING_Y).
    // - No decode error reporting: i965_SyncSurface waits for the batch and returns success.
    {
        .kind = VATB_PERSONALITY_I965,
        .name = "i965",
        .derives_images = true,
        .exports_composed_layers = true,
        .chroma_layer_format_8 = FORMAT_GR88,
        .chroma_layer_format_16 = FORMAT_GR1616,
        .modifier = MODIFIER_INTEL_Y_TILED,
        .processing = {
            .available = true,
            .filters = i965_filters,
            .filter_count = COUNT(i965_filters),
            .deinterlacing = ihd_deinterlacing, // the same three, in the same order
            .deinterlacing_count = COUNT(ihd_deinterlacing),
            .color_standards = i965_color_standards,
            .color_standard_count = COUNT(i965_color_standards),
            .output_fourccs = i965_output_fourccs,
            .output_fourcc_count = COUNT(i965_output_fourccs),
            .leaves_limits_unset = true,
            .converts_as_bt601_limited = true,
            .hq_scaling_is_lanczos = true,
        },
    },
    // Mesa's gallium VA front end (radeonsi).
    // - vaDeriveImage refuses an interlaced surface with VA_STATUS_ERROR_OPERATION_FAILED
    //   (src/gallium/frontends/va/image.c vlVaDeriveImage: surf->buffer->interlaced).
    // - vaExportSurfaceHandle refuses an interlaced surface with VA_STATUS_ERROR_INVALID_SURFACE
    //   (src/gallium/frontends/va/surface.c vlVaExportSurfaceHandle). Mesa's video buffers are
    //   interlaced when the decoder writes fields (vlVaEndPicture reallocates the buffer to the
    //   decoder's preference); here a surface becomes interlaced when a field picture is decoded
    //   into it.
    // - No decode errors: vlVaEndPicture submits and vlVaSyncSurface only waits for the fence.
    {
        .kind = VATB_PERSONALITY_MESA,
        .name = "mesa",
        .derives_images = true,
        .refuses_interlaced_surfaces = true,
        .exports_composed_layers = true,
        .chroma_layer_format_8 = FORMAT_GR88,
        .chroma_layer_format_16 = FORMAT_GR1616,
        .modifier = MODIFIER_LINEAR,
        .processing = {
            .available = true,
            .filters_need_context = true,
            .filters = mesa_filters,
            .filter_count = COUNT(mesa_filters),
            .deinterlacing = mesa_deinterlacing,
            .deinterlacing_count = COUNT(mesa_deinterlacing),
            .motion_adaptive_past_references = 2,
            .motion_adaptive_future_references = 1,
            .color_standards = mesa_color_standards,
            .color_standard_count = COUNT(mesa_color_standards),
            .output_fourccs = mesa_output_fourccs,
            .output_fourcc_count = COUNT(mesa_output_fourccs),
            .rotation_flags = ROTATIONS(0u),
            .mirror_flags = VA_MIRROR_HORIZONTAL | VA_MIRROR_VERTICAL,
            .min_size = 16,
            .max_size = 10240,
        },
    },
    // elFarto/nvidia-vaapi-driver.
    // - No vaDeriveImage: nvDeriveImage returns VA_STATUS_ERROR_OPERATION_FAILED (src/vabackend.c).
    // - Separate layers only: nvExportSurfaceHandle returns VA_STATUS_ERROR_INVALID_SURFACE without
    //   VA_EXPORT_SURFACE_SEPARATE_LAYERS (src/vabackend.c); chroma is DRM_FORMAT_RG88 (8-bit) or
    //   DRM_FORMAT_RG1616 (10-bit) (src/vabackend.c formatsInfo); memory is block-linear
    //   (src/direct/direct-export-buf.c).
    // - At most 32 decode surfaces: nvCreateContext clamps ulNumDecodeSurfaces to 32, and
    //   nvBeginPicture gives each new surface the next picture index, so the 33rd surface's
    //   picture fails in cuvidDecodePicture and nvEndPicture returns VA_STATUS_ERROR_DECODING_ERROR.
    // - No decode errors reported: nvSyncSurface waits for the resolve thread and returns success.
    // - Vendor "VA-API NVDEC driver [direct backend]" or "[egl backend]" (__vaDriverInit, from
    //   NVD_BACKEND read in the library constructor); the EGL back end cannot export on current
    //   NVIDIA drivers, which is why NVD_BACKEND=direct is needed.
    {
        .kind = VATB_PERSONALITY_NVIDIA,
        .name = "nvidia",
        .derives_images = false,
        .exports_composed_layers = false,
        .chroma_layer_format_8 = FORMAT_RG88,
        .chroma_layer_format_16 = FORMAT_RG1616,
        .modifier = MODIFIER_NVIDIA_BLOCK_LINEAR,
        .render_target_limit = 32,
    },
};

static bool nvidia_egl_backend(void) {
    const char *backend = getenv("NVD_BACKEND");
    return backend == NULL || strncmp(backend, "direct", 6) != 0;
}

const VATBPersonality *vatb_personality_from_environment(char *vendor, size_t size) {
    const char *name = getenv("VATB_PERSONALITY");
    const VATBPersonality *personality = &personalities[0];
    for (size_t i = 1; name != NULL && i < sizeof(personalities) / sizeof(personalities[0]); i++) {
        if (strcmp(personalities[i].name, name) == 0) personality = &personalities[i];
    }
    // The vendor strings the real drivers give (vaQueryVendorString), which FFmpeg's quirk table
    // (libavutil/hwcontext_vaapi.c vaapi_driver_quirks_table) and VAToolbox read.
    switch (personality->kind) {
    case VATB_PERSONALITY_TEST: snprintf(vendor, size, "VAToolbox test driver 1.0"); break;
    case VATB_PERSONALITY_IHD:
        // media_libva.cpp DdiMedia__Initialize: "Intel iHD driver for Intel(R) Gen Graphics - " + version.
        snprintf(vendor, size, "Intel iHD driver for Intel(R) Gen Graphics - 23.1.1 () [VAToolbox test driver]");
        break;
    case VATB_PERSONALITY_I965:
        // i965_drv_video.c i965_Init: "Intel i965 driver for Intel(R) <chipset> - <version>".
        snprintf(vendor, size, "Intel i965 driver for Intel(R) Kaby Lake - 2.4.1 [VAToolbox test driver]");
        break;
    case VATB_PERSONALITY_MESA:
        // src/gallium/frontends/va/context.c VA_DRIVER_INIT_FUNC: "Mesa Gallium driver <version> for <GPU>".
        snprintf(vendor, size, "Mesa Gallium driver 22.3.6 for AMD Radeon (VAToolbox test driver)");
        break;
    case VATB_PERSONALITY_NVIDIA:
        snprintf(
            vendor, size, "VA-API NVDEC driver [%s backend] (VAToolbox test driver)",
            nvidia_egl_backend() ? "egl" : "direct");
        break;
    }
    return personality;
}

bool vatb_personality_nvidia_egl_backend(const VATBPersonality *personality) {
    return personality->kind == VATB_PERSONALITY_NVIDIA && nvidia_egl_backend();
}

void vatb_personality_fill_export(
    const VATBPersonality *personality, bool ten_bit, bool composed, uint32_t pitch, uint32_t chroma_offset,
    uint32_t rows, uint32_t size, VADRMPRIMESurfaceDescriptor *out, uint32_t *extra_bytes
) {
    out->objects[0].drm_format_modifier = personality->modifier;
    // A compression plane per plane: one byte per 8 bytes of a row, rows rounded up to a
    // multiple of 8, after the surface's memory (its bytes are zero: nothing compressed).
    uint32_t aux_pitch = (pitch / 8 + 63) / 64 * 64;
    uint32_t luma_aux_offset = size;
    uint32_t chroma_aux_offset = size + aux_pitch * rows;
    uint32_t chroma_rows = (rows + 1) / 2;
    *extra_bytes = personality->compression_planes ? aux_pitch * (rows + chroma_rows) : 0;
    if (composed) {
        out->num_layers = 1;
        out->layers[0].drm_format = ten_bit ? FORMAT_P010 : FORMAT_NV12;
        out->layers[0].num_planes = 2;
        out->layers[0].offset[1] = chroma_offset;
        out->layers[0].pitch[0] = out->layers[0].pitch[1] = pitch;
        if (personality->compression_planes) {
            out->layers[0].num_planes = 4;
            out->layers[0].offset[2] = luma_aux_offset;
            out->layers[0].offset[3] = chroma_aux_offset;
            out->layers[0].pitch[2] = out->layers[0].pitch[3] = aux_pitch;
        }
        return;
    }
    out->num_layers = 2;
    out->layers[0].drm_format = ten_bit ? FORMAT_R16 : FORMAT_R8;
    out->layers[1].drm_format = ten_bit ? personality->chroma_layer_format_16 : personality->chroma_layer_format_8;
    out->layers[0].num_planes = out->layers[1].num_planes = 1;
    out->layers[1].offset[0] = chroma_offset;
    out->layers[0].pitch[0] = out->layers[1].pitch[0] = pitch;
    if (personality->compression_planes) {
        out->layers[0].num_planes = out->layers[1].num_planes = 2;
        out->layers[0].offset[1] = luma_aux_offset;
        out->layers[1].offset[1] = chroma_aux_offset;
        out->layers[0].pitch[1] = out->layers[1].pitch[1] = aux_pitch;
    }
}
