#pragma once
// Video processing in the test VA driver (VAProfileNone / VAEntrypointVideoProc): the three VPP
// queries answered as each personality's real driver answers them, and a picture processed with
// libswscale, the library VAToolbox's CPU conversion uses, so that the GPU path's output can be
// compared with the CPU's byte for byte. Docs/TestVADriver.md, "Video processing".

#include <stdbool.h>
#include <stdint.h>

#include <va/va.h>
#include <va/va_vpp.h>

#include "vatb_personality.h"
#include "vatb_reference_pictures.h"

/// A picture's pipeline as vaRenderPicture received it: the parameter buffer, and the rectangles
/// it points to copied (the pointers are the client's and valid only during the call).
typedef struct VATBPipeline {
    VAProcPipelineParameterBuffer parameters;
    VARectangle surface_region, output_region;
    bool has_surface_region, has_output_region;
    /// An HDR tone mapping filter buffer came with it, with this HDR10 metadata (copied: the
    /// buffer points to the client's memory).
    bool tone_maps;
    VAHdrMetaDataHDR10 hdr10;
    /// A deinterlacing filter buffer came with it (Bob, or motion adaptive), with these
    /// VA_DEINTERLACING_* flags.
    bool deinterlaces;
    bool motion_adaptive;
    uint32_t deinterlacing_flags;
    /// The reference pictures the pipeline named (copied), nearest first: past (forward) and
    /// future (backward). More than VATB_MAX_REFERENCES is refused at vaRenderPicture.
    VASurfaceID past[4], future[4];
    unsigned int past_count, future_count;
} VATBPipeline;

/// The most past or future reference pictures a pipeline may name here.
#define VATB_MAX_REFERENCES 4

/// Copies what `parameters` says, and the rectangles and reference surfaces it points to, into
/// `out`; false when it names more than VATB_MAX_REFERENCES references either way.
bool vatb_vpp_take_pipeline(const VAProcPipelineParameterBuffer *parameters, VATBPipeline *out);

/// Takes one of the pipeline's filter buffers (a VAProcFilterParameterBufferType buffer's `size`
/// bytes at `data`): an HDR tone mapping filter of HDR10 metadata the personality lists is kept
/// in `out`, and so is a Bob deinterlacing filter of a personality that lists Bob, and a
/// motion-adaptive one of a personality whose motion-adaptive deinterlacing takes a future picture.
/// VA_STATUS_ERROR_UNSUPPORTED_FILTER for a filter or algorithm the personality does not list,
/// VA_STATUS_ERROR_INVALID_PARAMETER for a malformed one, VA_STATUS_ERROR_UNIMPLEMENTED for the
/// other filters, which this model does not process.
VAStatus vatb_vpp_take_filter(const VATBProcessing *processing, const void *data, size_t size, VATBPipeline *out);

/// vaQueryVideoProcFilters: the personality's filters, as many as fit in `*num_filters`.
VAStatus vatb_vpp_query_filters(const VATBProcessing *processing, VAProcFilterType *filters, unsigned int *num_filters);

/// vaQueryVideoProcFilterCaps: the deinterlacing algorithms and the HDR tone mapping caps; other
/// listed filters have no caps here.
VAStatus vatb_vpp_query_filter_caps(
    const VATBProcessing *processing, VAProcFilterType type, void *filter_caps, unsigned int *num_filter_caps);

/// vaQueryVideoProcPipelineCaps; `driver_max_size` stands for a max_size of 0 (the test driver's
/// own limit). With `motion_adaptive` (a motion-adaptive deinterlacing filter among those asked
/// about), the references it takes.
VAStatus vatb_vpp_query_pipeline_caps(
    const VATBProcessing *processing, unsigned int driver_max_size, bool motion_adaptive, VAProcPipelineCaps *caps);

/// The VA chroma siting (`VA_CHROMA_SITING_*`) of libavutil's `AVChromaLocation`; unknown for
/// an unspecified location. FFmpeg's vaapi_vpp.c maps them the same way.
uint8_t vatb_vpp_chroma_siting(int chroma_location);

/// Whether a VPP context of the personality writes surfaces of `fourcc`.
bool vatb_vpp_writes(const VATBProcessing *processing, uint32_t fourcc);

/// Processes `source` (NV12 or P010) into `destination` as `pipeline` asks: crop to the surface
/// region, convert with the colour standard, range and scaling flags given, write into the output
/// region. With Bob deinterlacing, the source region (8-bit) first goes through the CPU path's
/// vertical filter (libavfilter's `pp=lb`, Sources/VAToolbox/Decompression/FieldModeFilter.swift):
/// the model's Bob is the session's deinterlace mode, so GPU and CPU pictures compare byte for
/// byte. With motion-adaptive deinterlacing, the source region (8-bit) with the nearest past
/// picture `previous` and future picture `next` (either NULL at a sequence's ends) goes through
/// the CPU path's temporal deinterlacer (libavfilter's `bwdif`, Sources/VAToolbox/CoreVideo/
/// Deinterlacer.swift), and the field the flags name comes out: what `bwdif` makes of the
/// picture mid-sequence, or at the start and end of one where a reference is missing. With HDR
/// tone mapping, the source region first goes through libavfilter's chain of
/// VAToolbox's CPU path (Sources/VAToolbox/CoreVideo/ToneMapping.swift), the metadata as the
/// picture's side data. VA_STATUS_ERROR_INVALID_PARAMETER for a colour standard the personality
/// does not list, a region outside its surface, or tone mapping of a picture that is not PQ
/// BT.2020 or into an output that is not BT.709; VA_STATUS_ERROR_UNIMPLEMENTED for other filters,
/// rotation, mirroring or blending, which this model does not process.
VAStatus vatb_vpp_process(
    const VATBProcessing *processing, const VATBPipeline *pipeline, const VATBPictureTarget *source,
    const VATBPictureTarget *previous, const VATBPictureTarget *next, const VATBPictureTarget *destination);
