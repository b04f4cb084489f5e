// Video processing in the test VA driver: see vatb_video_processing.h and Docs/TestVADriver.md.
//
// The conversion is the one VAToolbox's CPU path makes (Sources/VAToolbox/LibAV/Scaler.swift,
// itself what the ffmpeg CLI's scale filter does): a libswscale context with both sizes, both
// formats, the scaling flags and both ranges set before sws_init_context, then the source matrix
// through sws_setColorspaceDetails. Every parameter comes from the pipeline buffer, so a client
// that passes the wrong colour standard, range or scaling flag gets a different picture from its
// CPU path, never a pass.
//
// HDR tone mapping runs libavfilter's chain of VAToolbox's CPU path on the picture, its HDR10
// metadata attached as the decoder attaches it (side data `tonemap` takes its peak from), so a
// wrong or missing metadata gives a different picture too.
#include "vatb_video_processing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/frame.h>
#include <libavutil/imgutils.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/mem.h>
#include <libavutil/opt.h>
#include <libavutil/pixfmt.h>
#include <libswscale/swscale.h>

// The chain of Sources/VAToolbox/CoreVideo/ToneMapping.swift (ToneMapping.filters).
static const char tone_mapping_filters[] =
    "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
    "zscale=t=bt709:m=bt709:r=tv,format=yuv420p";

bool vatb_vpp_take_pipeline(const VAProcPipelineParameterBuffer *parameters, VATBPipeline *out) {
    memset(out, 0, sizeof(*out));
    out->parameters = *parameters;
    if (parameters->num_forward_references > VATB_MAX_REFERENCES
        || parameters->num_backward_references > VATB_MAX_REFERENCES
        || (parameters->num_forward_references > 0 && parameters->forward_references == NULL)
        || (parameters->num_backward_references > 0 && parameters->backward_references == NULL)) {
        return false;
    }
    out->past_count = parameters->num_forward_references;
    out->future_count = parameters->num_backward_references;
    for (unsigned int i = 0; i < out->past_count; i++) out->past[i] = parameters->forward_references[i];
    for (unsigned int i = 0; i < out->future_count; i++) out->future[i] = parameters->backward_references[i];
    if (parameters->surface_region != NULL) {
        out->surface_region = *parameters->surface_region;
        out->has_surface_region = true;
    }
    if (parameters->output_region != NULL) {
        out->output_region = *parameters->output_region;
        out->has_output_region = true;
    }
    // The client's pointers are not kept.
    out->parameters.surface_region = NULL;
    out->parameters.output_region = NULL;
    out->parameters.filters = NULL;
    out->parameters.forward_references = NULL;
    out->parameters.backward_references = NULL;
    out->parameters.additional_outputs = NULL;
    out->parameters.blend_state = NULL;
    out->parameters.output_hdr_metadata = NULL;
    return true;
}

VAStatus vatb_vpp_take_filter(const VATBProcessing *processing, const void *data, size_t size, VATBPipeline *out) {
    if (data == NULL || size < sizeof(VAProcFilterType)) return VA_STATUS_ERROR_INVALID_PARAMETER;
    VAProcFilterType type;
    memcpy(&type, data, sizeof(type));
    bool listed = false;
    for (unsigned int i = 0; i < processing->filter_count; i++) listed = listed || processing->filters[i] == type;
    if (!listed) return VA_STATUS_ERROR_UNSUPPORTED_FILTER;
    if (type == VAProcFilterDeinterlacing) {
        if (size < sizeof(VAProcFilterParameterBufferDeinterlacing)) return VA_STATUS_ERROR_INVALID_PARAMETER;
        VAProcFilterParameterBufferDeinterlacing filter;
        memcpy(&filter, data, sizeof(filter));
        bool algorithm_listed = false;
        for (unsigned int i = 0; i < processing->deinterlacing_count; i++) {
            algorithm_listed = algorithm_listed || processing->deinterlacing[i] == filter.algorithm;
        }
        if (!algorithm_listed) return VA_STATUS_ERROR_UNSUPPORTED_FILTER;
        // Bob, the single-picture deinterlacer, is modelled, and motion-adaptive deinterlacing
        // where the personality takes the next picture for it; the others are not.
        bool motion_adaptive = filter.algorithm == VAProcDeinterlacingMotionAdaptive
            && processing->motion_adaptive_future_references > 0;
        if (filter.algorithm != VAProcDeinterlacingBob && !motion_adaptive) return VA_STATUS_ERROR_UNIMPLEMENTED;
        out->deinterlaces = true;
        out->motion_adaptive = motion_adaptive;
        out->deinterlacing_flags = filter.flags;
        return VA_STATUS_SUCCESS;
    }
    if (type != VAProcFilterHighDynamicRangeToneMapping) return VA_STATUS_ERROR_UNIMPLEMENTED;
    if (!(processing->hdr_tone_mapping_flags & VA_TONE_MAPPING_HDR_TO_SDR)) return VA_STATUS_ERROR_UNSUPPORTED_FILTER;
    if (size < sizeof(VAProcFilterParameterBufferHDRToneMapping)) return VA_STATUS_ERROR_INVALID_PARAMETER;
    VAProcFilterParameterBufferHDRToneMapping filter;
    memcpy(&filter, data, sizeof(filter));
    if (filter.data.metadata_type != VAProcHighDynamicRangeMetadataHDR10 || filter.data.metadata == NULL
        || filter.data.metadata_size < sizeof(VAHdrMetaDataHDR10)) {
        return VA_STATUS_ERROR_INVALID_PARAMETER;
    }
    memcpy(&out->hdr10, filter.data.metadata, sizeof(out->hdr10));
    out->tone_maps = true;
    return VA_STATUS_SUCCESS;
}

VAStatus vatb_vpp_query_filters(const VATBProcessing *processing, VAProcFilterType *filters, unsigned int *num_filters) {
    if (num_filters == NULL) return VA_STATUS_ERROR_INVALID_PARAMETER;
    // iHD fills as many as fit (media_libva.cpp DdiMedia_QueryVideoProcFilters).
    unsigned int count = processing->filter_count < *num_filters ? processing->filter_count : *num_filters;
    for (unsigned int i = 0; i < count && filters != NULL; i++) filters[i] = processing->filters[i];
    *num_filters = filters == NULL ? processing->filter_count : count;
    return VA_STATUS_SUCCESS;
}

VAStatus vatb_vpp_query_filter_caps(
    const VATBProcessing *processing, VAProcFilterType type, void *filter_caps, unsigned int *num_filter_caps
) {
    if (num_filter_caps == NULL) return VA_STATUS_ERROR_INVALID_PARAMETER;
    bool listed = false;
    for (unsigned int i = 0; i < processing->filter_count; i++) listed = listed || processing->filters[i] == type;
    if (!listed) return VA_STATUS_ERROR_UNSUPPORTED_FILTER;
    if (type == VAProcFilterHighDynamicRangeToneMapping) {
        // One cap: HDR10 metadata (iHD DdiVpFunctions::QueryHDRToneMappingCapsAttrib).
        if (*num_filter_caps < 1 || filter_caps == NULL) {
            *num_filter_caps = 1;
            return VA_STATUS_ERROR_MAX_NUM_EXCEEDED;
        }
        VAProcFilterCapHighDynamicRange *caps = filter_caps;
        memset(caps, 0, sizeof(*caps));
        caps->metadata_type = VAProcHighDynamicRangeMetadataHDR10;
        caps->caps_flag = processing->hdr_tone_mapping_flags;
        *num_filter_caps = 1;
        return VA_STATUS_SUCCESS;
    }
    if (type != VAProcFilterDeinterlacing) {
        *num_filter_caps = 0;
        return VA_STATUS_SUCCESS;
    }
    // Both drivers set the count and refuse a list too short for it (iHD
    // DdiVpFunctions::QueryDeinterlacingCapsAttrib, Mesa postproc.c vlVaQueryVideoProcFilterCaps).
    unsigned int needed = processing->deinterlacing_count;
    if (*num_filter_caps < needed || filter_caps == NULL) {
        *num_filter_caps = needed;
        return VA_STATUS_ERROR_MAX_NUM_EXCEEDED;
    }
    VAProcFilterCapDeinterlacing *caps = filter_caps;
    for (unsigned int i = 0; i < needed; i++) caps[i].type = processing->deinterlacing[i];
    *num_filter_caps = needed;
    return VA_STATUS_SUCCESS;
}

VAStatus vatb_vpp_query_pipeline_caps(
    const VATBProcessing *processing, unsigned int driver_max_size, bool motion_adaptive, VAProcPipelineCaps *caps
) {
    if (caps == NULL) return VA_STATUS_ERROR_INVALID_PARAMETER;
    // The colour-standard lists point at the driver's own static arrays, as both drivers do
    // (iHD DdiMedia_QueryVideoProcPipelineCaps: input_color_standards = vp_input_color_std; Mesa
    // postproc.c vlVaQueryVideoProcPipelineCaps: vpp_color_standards); FFmpeg's vaapi_vpp.c
    // passes an uninitialised struct.
    caps->input_color_standards = (VAProcColorStandardType *)processing->color_standards;
    caps->output_color_standards = (VAProcColorStandardType *)processing->color_standards;
    caps->num_input_color_standards = processing->color_standard_count;
    caps->num_output_color_standards = processing->color_standard_count;
    caps->pipeline_flags = processing->pipeline_flags;
    caps->filter_flags = 0;
    caps->num_forward_references = motion_adaptive ? processing->motion_adaptive_past_references : 0;
    caps->num_backward_references = motion_adaptive ? processing->motion_adaptive_future_references : 0;
    if (processing->leaves_limits_unset) return VA_STATUS_SUCCESS;
    caps->rotation_flags = processing->rotation_flags;
    caps->mirror_flags = processing->mirror_flags;
    caps->blend_flags = 0;
    caps->num_additional_outputs = 0;
    uint32_t max_size = processing->max_size != 0 ? processing->max_size : driver_max_size;
    caps->max_input_width = caps->max_input_height = max_size;
    caps->max_output_width = caps->max_output_height = max_size;
    caps->min_input_width = caps->min_input_height = processing->min_size;
    caps->min_output_width = caps->min_output_height = processing->min_size;
    return VA_STATUS_SUCCESS;
}

uint8_t vatb_vpp_chroma_siting(int chroma_location) {
    switch (chroma_location) {
    case AVCHROMA_LOC_LEFT: return VA_CHROMA_SITING_VERTICAL_CENTER | VA_CHROMA_SITING_HORIZONTAL_LEFT;
    case AVCHROMA_LOC_CENTER: return VA_CHROMA_SITING_VERTICAL_CENTER | VA_CHROMA_SITING_HORIZONTAL_CENTER;
    case AVCHROMA_LOC_TOPLEFT: return VA_CHROMA_SITING_VERTICAL_TOP | VA_CHROMA_SITING_HORIZONTAL_LEFT;
    case AVCHROMA_LOC_TOP: return VA_CHROMA_SITING_VERTICAL_TOP | VA_CHROMA_SITING_HORIZONTAL_CENTER;
    case AVCHROMA_LOC_BOTTOMLEFT: return VA_CHROMA_SITING_VERTICAL_BOTTOM | VA_CHROMA_SITING_HORIZONTAL_LEFT;
    case AVCHROMA_LOC_BOTTOM: return VA_CHROMA_SITING_VERTICAL_BOTTOM | VA_CHROMA_SITING_HORIZONTAL_CENTER;
    default: return VA_CHROMA_SITING_UNKNOWN;
    }
}

bool vatb_vpp_writes(const VATBProcessing *processing, uint32_t fourcc) {
    for (unsigned int i = 0; i < processing->output_fourcc_count; i++) {
        if (processing->output_fourccs[i] == fourcc) return true;
    }
    return false;
}

static enum AVPixelFormat pixel_format(uint32_t fourcc) {
    switch (fourcc) {
    case VA_FOURCC_NV12: return AV_PIX_FMT_NV12;
    case VA_FOURCC_P010: return AV_PIX_FMT_P010LE;
    case VA_FOURCC_BGRA: return AV_PIX_FMT_BGRA;
    case VA_FOURCC_RGBA: return AV_PIX_FMT_RGBA;
    case VA_FOURCC_BGRX: return AV_PIX_FMT_BGR0;
    case VA_FOURCC_RGBX: return AV_PIX_FMT_RGB0;
    default: return AV_PIX_FMT_NONE;
    }
}

static bool is_rgb(uint32_t fourcc) {
    return fourcc == VA_FOURCC_BGRA || fourcc == VA_FOURCC_RGBA || fourcc == VA_FOURCC_BGRX
        || fourcc == VA_FOURCC_RGBX;
}

static bool lists_standard(const VATBProcessing *processing, VAProcColorStandardType standard) {
    for (unsigned int i = 0; i < processing->color_standard_count; i++) {
        if (processing->color_standards[i] == standard) return true;
    }
    return false;
}

// The libswscale matrix (an H.273 matrix_coefficients value, SWS_CS_*) of a YCbCr colour
// standard; -1 for one the personality does not list or that names no YCbCr matrix.
static int matrix_of(
    const VATBProcessing *processing, VAProcColorStandardType standard, const VAProcColorProperties *properties
) {
    if (!lists_standard(processing, standard)) return -1;
    switch (standard) {
    case VAProcColorStandardBT601: return SWS_CS_ITU601;
    case VAProcColorStandardBT709: return SWS_CS_ITU709;
    case VAProcColorStandardBT2020: return SWS_CS_BT2020;
    case VAProcColorStandardExplicit:
        // 0 is the identity (RGB), which says nothing of how to convert YCbCr; 2 (unspecified) is
        // libswscale's default, BT.601, as the CPU path takes it (FFmpeg's scale_vaapi passes it
        // for a stream without colour description).
        return properties->matrix_coefficients == 0 ? -1 : properties->matrix_coefficients;
    default: return -1;
    }
}

static bool region_fits(const VARectangle *region, const VATBPictureTarget *picture) {
    return region->x >= 0 && region->y >= 0 && region->width > 0 && region->height > 0
        && (unsigned int)region->x + region->width <= picture->width
        && (unsigned int)region->y + region->height <= picture->height;
}

// The plane pointers of `picture` from the top-left corner of `region`: the luma (or packed RGB)
// plane from the sample itself, the interleaved chroma plane from the pair and row that hold it,
// as VAToolbox's read-back crops (Sources/VAToolbox/VAAPI/VADevice+SurfaceAccess.swift).
static void planes_at(const VATBPictureTarget *picture, const VARectangle *region, uint8_t *data[4], int pitch[4]) {
    memset(data, 0, 4 * sizeof(*data));
    memset(pitch, 0, 4 * sizeof(*pitch));
    if (is_rgb(picture->fourcc)) {
        data[0] = picture->data + (size_t)region->y * picture->pitch + (size_t)region->x * 4;
        pitch[0] = (int)picture->pitch;
        return;
    }
    size_t sample = picture->fourcc == VA_FOURCC_P010 ? 2 : 1;
    data[0] = picture->data + (size_t)region->y * picture->pitch + (size_t)region->x * sample;
    data[1] = picture->data + picture->chroma_offset + (size_t)(region->y / 2) * picture->pitch
        + (size_t)(region->x & ~1) * sample;
    pitch[0] = pitch[1] = (int)picture->pitch;
}

// A planar copy of a region of an NV12 or P010 picture: yuv420p, or yuv420p10le (P010's samples
// shifted down to the low bits). The decoder's own pictures are planar, and libswscale converts
// planar and semi-planar input by different routes (its unscaled yuv2rgb special cases take
// planar input only), so VAToolbox's CPU path unpacks a surface first too
// (Sources/VAToolbox/LibAV/Scaler.swift): the same picture then converts to the same bytes.
typedef struct PlanarPicture {
    uint8_t *memory;
    uint8_t *data[4];
    int pitch[4];
    enum AVPixelFormat format;
} PlanarPicture;

static uint16_t low_bits(const uint8_t *p010_sample) {
    return (uint16_t)((p010_sample[0] | p010_sample[1] << 8) >> 6);
}

static void put_u16(uint8_t *to, uint16_t value) {
    to[0] = (uint8_t)value;
    to[1] = (uint8_t)(value >> 8);
}

static bool unpack(const VATBPictureTarget *source, const VARectangle *region, PlanarPicture *out) {
    bool ten_bit = source->fourcc == VA_FOURCC_P010;
    size_t sample = ten_bit ? 2 : 1;
    size_t width = region->width, height = region->height;
    size_t chroma_width = (width + 1) / 2, chroma_height = (height + 1) / 2;
    size_t luma_bytes = width * sample * height, chroma_bytes = chroma_width * sample * chroma_height;
    out->memory = malloc(luma_bytes + 2 * chroma_bytes);
    if (out->memory == NULL) return false;
    out->format = ten_bit ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P;
    out->data[0] = out->memory;
    out->data[1] = out->memory + luma_bytes;
    out->data[2] = out->memory + luma_bytes + chroma_bytes;
    out->data[3] = NULL;
    out->pitch[0] = (int)(width * sample);
    out->pitch[1] = out->pitch[2] = (int)(chroma_width * sample);
    out->pitch[3] = 0;
    uint8_t *planes[4];
    int pitches[4];
    planes_at(source, region, planes, pitches);
    for (size_t y = 0; y < height; y++) {
        const uint8_t *from = planes[0] + y * (size_t)pitches[0];
        uint8_t *to = out->data[0] + y * (size_t)out->pitch[0];
        for (size_t x = 0; x < width; x++) {
            if (ten_bit) {
                put_u16(to + 2 * x, low_bits(from + 2 * x));
            } else {
                to[x] = from[x];
            }
        }
    }
    for (size_t y = 0; y < chroma_height; y++) {
        const uint8_t *from = planes[1] + y * (size_t)pitches[1];
        uint8_t *cb = out->data[1] + y * (size_t)out->pitch[1];
        uint8_t *cr = out->data[2] + y * (size_t)out->pitch[2];
        for (size_t x = 0; x < chroma_width; x++) {
            if (ten_bit) {
                put_u16(cb + 2 * x, low_bits(from + 4 * x));
                put_u16(cr + 2 * x, low_bits(from + 4 * x + 2));
            } else {
                cb[x] = from[2 * x];
                cr[x] = from[2 * x + 1];
            }
        }
    }
    return true;
}

// The libavutil chroma location of a VA chroma siting (vatb_vpp_chroma_siting inverted).
static enum AVChromaLocation chroma_location_of(uint8_t siting) {
    for (int location = AVCHROMA_LOC_LEFT; location <= AVCHROMA_LOC_BOTTOM; location++) {
        if (vatb_vpp_chroma_siting(location) == siting) return (enum AVChromaLocation)location;
    }
    return AVCHROMA_LOC_UNSPECIFIED;
}

// Attaches the HDR10 metadata as the decoder's side data: the mastering display (primaries in
// VA's green, blue, red order) and, when given, the content light level.
static bool attach_hdr10(AVFrame *frame, const VAHdrMetaDataHDR10 *metadata) {
    bool has_primaries = false;
    for (int i = 0; i < 3; i++) has_primaries = has_primaries || metadata->display_primaries_x[i] != 0;
    if (has_primaries || metadata->max_display_mastering_luminance != 0) {
        AVMasteringDisplayMetadata *display = av_mastering_display_metadata_create_side_data(frame);
        if (display == NULL) return false;
        static const int rgb_index[3] = {1, 2, 0}; // VA's green, blue, red
        for (int i = 0; i < 3; i++) {
            display->display_primaries[rgb_index[i]][0] = av_make_q(metadata->display_primaries_x[i], 50000);
            display->display_primaries[rgb_index[i]][1] = av_make_q(metadata->display_primaries_y[i], 50000);
        }
        display->white_point[0] = av_make_q(metadata->white_point_x, 50000);
        display->white_point[1] = av_make_q(metadata->white_point_y, 50000);
        display->max_luminance = av_make_q((int)metadata->max_display_mastering_luminance, 10000);
        display->min_luminance = av_make_q((int)metadata->min_display_mastering_luminance, 10000);
        display->has_primaries = has_primaries;
        display->has_luminance = metadata->max_display_mastering_luminance != 0;
    }
    if (metadata->max_content_light_level != 0 || metadata->max_pic_average_light_level != 0) {
        AVContentLightMetadata *light = av_content_light_metadata_create_side_data(frame);
        if (light == NULL) return false;
        light->MaxCLL = metadata->max_content_light_level;
        light->MaxFALL = metadata->max_pic_average_light_level;
    }
    return true;
}

// The picture through libavfilter's `filters`: tone_mapping_filters (the picture tagged PQ
// BT.2020 with its HDR10 metadata; a yuv420p BT.709 frame comes out), the vertical filter
// (`pp=lb`, the picture as it is; the same format comes out), or a temporal deinterlacer: then
// `pictures` are the sequence around the picture, sent in order before the end of the stream,
// and the `wanted`-th picture out is returned. NULL when libavfilter fails.
static AVFrame *filtered(
    const VATBPipeline *pipeline, const char *filters, const PlanarPicture *const *pictures, int count, int wanted,
    int width, int height, bool full
) {
    bool tone_maps = filters == tone_mapping_filters;
    AVFrame *output = av_frame_alloc();
    AVFilterGraph *graph = avfilter_graph_alloc();
    AVFilterInOut *chain_input = avfilter_inout_alloc();
    AVFilterInOut *chain_output = avfilter_inout_alloc();
    AVFilterContext *source = NULL, *sink = NULL;
    bool done = false;
    if (output == NULL || graph == NULL || chain_input == NULL || chain_output == NULL) goto end;
    char arguments[160];
    snprintf(
        arguments, sizeof(arguments), "video_size=%dx%d:pix_fmt=%d:time_base=1/25:pixel_aspect=1/1", width, height,
        pictures[0]->format);
    if (avfilter_graph_create_filter(&source, avfilter_get_by_name("buffer"), "in", arguments, NULL, graph) < 0
        || avfilter_graph_create_filter(&sink, avfilter_get_by_name("buffersink"), "out", NULL, NULL, graph) < 0) {
        goto end;
    }
    chain_input->name = av_strdup("in");
    chain_input->filter_ctx = source;
    chain_output->name = av_strdup("out");
    chain_output->filter_ctx = sink;
    if (avfilter_graph_parse_ptr(graph, filters, &chain_output, &chain_input, NULL) < 0
        || avfilter_graph_config(graph, NULL) < 0) {
        goto end;
    }
    for (int i = 0; i < count; i++) {
        AVFrame *input = av_frame_alloc();
        if (input == NULL) goto end;
        input->format = pictures[i]->format;
        input->width = width;
        input->height = height;
        input->pts = i;
        if (av_frame_get_buffer(input, 0) < 0) {
            av_frame_free(&input);
            goto end;
        }
        av_image_copy(
            input->data, input->linesize, (const uint8_t **)pictures[i]->data, pictures[i]->pitch,
            pictures[i]->format, width, height);
        input->color_range = full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
        input->chroma_location =
            chroma_location_of(pipeline->parameters.input_color_properties.chroma_sample_location);
        if (tone_maps) {
            input->color_primaries = AVCOL_PRI_BT2020;
            input->color_trc = AVCOL_TRC_SMPTE2084;
            input->colorspace = AVCOL_SPC_BT2020_NCL;
            if (!attach_hdr10(input, &pipeline->hdr10)) {
                av_frame_free(&input);
                goto end;
            }
        }
        int sent = av_buffersrc_add_frame(source, input);
        av_frame_free(&input);
        if (sent < 0) goto end;
    }
    if (av_buffersrc_add_frame(source, NULL) < 0) goto end;
    for (int i = 0; i <= wanted; i++) {
        av_frame_unref(output);
        if (av_buffersink_get_frame(sink, output) < 0) goto end;
    }
    done = output->format == (tone_maps ? AV_PIX_FMT_YUV420P : pictures[0]->format);
end:
    avfilter_inout_free(&chain_input);
    avfilter_inout_free(&chain_output);
    avfilter_graph_free(&graph);
    if (!done) av_frame_free(&output);
    return output;
}

// The source's deinterlaced picture by the model of motion-adaptive deinterlacing: libavfilter's
// `bwdif` over the previous, this and the next picture (those there are), each field's picture
// out (`send_field`) with the field order the flags give, as the CPU path's Deinterlacer runs it
// over the whole sequence (`parity=auto` reads the same order from the picture). A picture's
// output depends on those three pictures only, so this is the sequence's picture byte for byte.
// The flags name the field: VA_DEINTERLACING_BOTTOM_FIELD for the bottom one, which is the
// second of a top-field-first picture and the first of a bottom-field-first one.
static AVFrame *deinterlaced_temporally(
    const VATBPipeline *pipeline, const PlanarPicture *previous, const PlanarPicture *current,
    const PlanarPicture *next, int width, int height, bool full
) {
    bool bottom_first = pipeline->deinterlacing_flags & VA_DEINTERLACING_BOTTOM_FIELD_FIRST;
    bool bottom = pipeline->deinterlacing_flags & VA_DEINTERLACING_BOTTOM_FIELD;
    char filters[64];
    snprintf(filters, sizeof(filters), "bwdif=mode=send_field:parity=%s:deint=all", bottom_first ? "bff" : "tff");
    const PlanarPicture *pictures[3];
    int count = 0;
    if (previous != NULL) pictures[count++] = previous;
    pictures[count++] = current;
    if (next != NULL) pictures[count++] = next;
    // Two pictures out per picture in: the previous one's come first.
    int wanted = (previous != NULL ? 2 : 0) + (bottom != bottom_first ? 1 : 0);
    return filtered(pipeline, filters, pictures, count, wanted, width, height, full);
}

// Whether the pipeline's output is SDR BT.709: the standard, or explicit BT.709 primaries and
// transfer.
static bool writes_bt709(const VAProcPipelineParameterBuffer *parameters) {
    if (parameters->output_color_standard == VAProcColorStandardBT709) return true;
    return parameters->output_color_standard == VAProcColorStandardExplicit
        && parameters->output_color_properties.colour_primaries == 1
        && parameters->output_color_properties.transfer_characteristics == 1;
}

VAStatus vatb_vpp_process(
    const VATBProcessing *processing, const VATBPipeline *pipeline, const VATBPictureTarget *source,
    const VATBPictureTarget *previous, const VATBPictureTarget *next, const VATBPictureTarget *destination
) {
    const VAProcPipelineParameterBuffer *parameters = &pipeline->parameters;
    unsigned int filters = (pipeline->tone_maps ? 1u : 0u) + (pipeline->deinterlaces ? 1u : 0u);
    if (parameters->num_filters != filters || parameters->rotation_state != VA_ROTATION_NONE
        || parameters->mirror_state != 0 || parameters->num_additional_outputs != 0) {
        return VA_STATUS_ERROR_UNIMPLEMENTED;
    }
    enum AVPixelFormat source_format = pixel_format(source->fourcc);
    enum AVPixelFormat destination_format = pixel_format(destination->fourcc);
    if (source_format == AV_PIX_FMT_NONE || is_rgb(source->fourcc) || destination_format == AV_PIX_FMT_NONE
        || !vatb_vpp_writes(processing, destination->fourcc)) {
        return VA_STATUS_ERROR_UNSUPPORTED_RT_FORMAT;
    }
    VARectangle input = {.x = 0, .y = 0, .width = (uint16_t)source->width, .height = (uint16_t)source->height};
    VARectangle output = {
        .x = 0, .y = 0, .width = (uint16_t)destination->width, .height = (uint16_t)destination->height,
    };
    if (pipeline->has_surface_region) input = pipeline->surface_region;
    if (pipeline->has_output_region) output = pipeline->output_region;
    if (!region_fits(&input, source) || !region_fits(&output, destination)) return VA_STATUS_ERROR_INVALID_PARAMETER;

    // The source matrix; an RGB output takes no matrix, a YCbCr output keeps the source's (the
    // CPU path converts YCbCr ranges and depths, never matrices). i965 checks none of it.
    int matrix = matrix_of(processing, parameters->surface_color_standard, &parameters->input_color_properties);
    if (!processing->converts_as_bt601_limited) {
        if (matrix < 0) return VA_STATUS_ERROR_INVALID_PARAMETER;
        // Tone mapping takes PQ BT.2020 (HDR10) and makes BT.709, whose matrix converts on.
        if (pipeline->tone_maps) {
            uint8_t transfer = parameters->input_color_properties.transfer_characteristics;
            if (matrix != SWS_CS_BT2020 || (transfer != 0 && transfer != AVCOL_TRC_SMPTE2084)
                || !writes_bt709(parameters)) {
                return VA_STATUS_ERROR_INVALID_PARAMETER;
            }
            matrix = SWS_CS_ITU709;
        }
        if (!is_rgb(destination->fourcc)
            && matrix_of(processing, parameters->output_color_standard, &parameters->output_color_properties)
                != matrix) {
            return VA_STATUS_ERROR_INVALID_PARAMETER;
        }
    }
    // Ranges: an unknown input range is limited, as a decoder's YCbCr is; an unknown output range
    // is full for RGB and limited for YCbCr.
    int source_full = parameters->input_color_properties.color_range == VA_SOURCE_RANGE_FULL;
    uint8_t output_range = parameters->output_color_properties.color_range;
    int destination_full = output_range == VA_SOURCE_RANGE_FULL
        || (output_range == VA_SOURCE_RANGE_UNKNOWN && is_rgb(destination->fourcc));
    if (processing->converts_as_bt601_limited) {
        matrix = SWS_CS_ITU601;
        source_full = 0;
        destination_full = is_rgb(destination->fourcc);
    }
    // VA_FILTER_SCALING_HQ is libswscale's bicubic, the CPU path's (Lanczos for i965's AVS); the
    // rest bilinear. At the same size libswscale's unscaled planar-to-RGB route ignores the flag;
    // a scaled picture shows it.
    uint32_t scaling = parameters->filter_flags & VA_FILTER_SCALING_MASK;
    int flags = SWS_BILINEAR;
    if (scaling == VA_FILTER_SCALING_HQ) flags = processing->hq_scaling_is_lanczos ? SWS_LANCZOS : SWS_BICUBIC;
    if (scaling == VA_FILTER_SCALING_NL_ANAMORPHIC && processing->hq_scaling_is_lanczos) flags = SWS_LANCZOS;

    // The references are the source's size and format, and read from the same region.
    const VATBPictureTarget *references[2] = {previous, next};
    for (int i = 0; i < 2; i++) {
        if (references[i] == NULL) continue;
        if (!pipeline->motion_adaptive) return VA_STATUS_ERROR_INVALID_PARAMETER;
        if (references[i]->fourcc != source->fourcc || references[i]->width != source->width
            || references[i]->height != source->height) {
            return VA_STATUS_ERROR_INVALID_SURFACE;
        }
    }
    PlanarPicture planar, before = {0}, after = {0};
    if (!unpack(source, &input, &planar)) return VA_STATUS_ERROR_ALLOCATION_FAILED;
    if ((previous != NULL && !unpack(previous, &input, &before)) || (next != NULL && !unpack(next, &input, &after))) {
        free(planar.memory);
        free(before.memory);
        return VA_STATUS_ERROR_ALLOCATION_FAILED;
    }
    AVFrame *mapped = NULL;
    // Deinterlacing takes 8-bit pictures here, as the CPU path's filters do.
    if (pipeline->deinterlaces && (pipeline->tone_maps || planar.format != AV_PIX_FMT_YUV420P)) {
        free(planar.memory);
        free(before.memory);
        free(after.memory);
        return VA_STATUS_ERROR_UNIMPLEMENTED;
    }
    if (pipeline->motion_adaptive) {
        mapped = deinterlaced_temporally(
            pipeline, previous != NULL ? &before : NULL, &planar, next != NULL ? &after : NULL, input.width,
            input.height, source_full);
    } else if (pipeline->tone_maps || pipeline->deinterlaces) {
        const PlanarPicture *pictures[1] = {&planar};
        mapped = filtered(
            pipeline, pipeline->tone_maps ? tone_mapping_filters : "pp=lb", pictures, 1, 0, input.width, input.height,
            source_full);
    }
    free(before.memory);
    free(after.memory);
    if (pipeline->tone_maps || pipeline->deinterlaces) {
        if (mapped == NULL) {
            free(planar.memory);
            return VA_STATUS_ERROR_OPERATION_FAILED;
        }
        for (int i = 0; i < 4; i++) {
            planar.data[i] = mapped->data[i];
            planar.pitch[i] = mapped->linesize[i];
        }
        planar.format = (enum AVPixelFormat)mapped->format;
        source_full = mapped->color_range == AVCOL_RANGE_JPEG;
    }
    struct SwsContext *context = sws_alloc_context();
    if (context == NULL) {
        av_frame_free(&mapped);
        free(planar.memory);
        return VA_STATUS_ERROR_ALLOCATION_FAILED;
    }
    const struct {
        const char *name;
        int64_t value;
    } options[] = {
        {"srcw", input.width}, {"srch", input.height}, {"src_format", planar.format},
        {"dstw", output.width}, {"dsth", output.height}, {"dst_format", destination_format},
        {"sws_flags", flags}, {"src_range", source_full}, {"dst_range", destination_full},
    };
    for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
        if (av_opt_set_int(context, options[i].name, options[i].value, 0) < 0) {
            sws_freeContext(context);
            av_frame_free(&mapped);
            free(planar.memory);
            return VA_STATUS_ERROR_OPERATION_FAILED;
        }
    }
    if (sws_init_context(context, NULL, NULL) < 0) {
        sws_freeContext(context);
        av_frame_free(&mapped);
        free(planar.memory);
        return VA_STATUS_ERROR_OPERATION_FAILED;
    }
    const int *coefficients = sws_getCoefficients(matrix);
    sws_setColorspaceDetails(context, coefficients, source_full, coefficients, destination_full, 0, 1 << 16, 1 << 16);
    uint8_t *destination_planes[4];
    int destination_pitches[4];
    planes_at(destination, &output, destination_planes, destination_pitches);
    int rows = sws_scale(
        context, (const uint8_t *const *)planar.data, planar.pitch, 0, input.height, destination_planes,
        destination_pitches);
    sws_freeContext(context);
    av_frame_free(&mapped);
    free(planar.memory);
    return rows > 0 ? VA_STATUS_SUCCESS : VA_STATUS_ERROR_OPERATION_FAILED;
}
