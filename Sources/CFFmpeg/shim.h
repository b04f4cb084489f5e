#pragma once
// FFmpeg headers for Swift, plus helpers standing in for the macros Swift cannot import.
#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/md5.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

/// `AVERROR(e)`: the libav* error code for a POSIX errno value.
static inline int CFFmpeg_AVERROR(int errnum) { return AVERROR(errnum); }
/// `AVERROR(EAGAIN)`: output is not available in the current state; send more input.
static inline int CFFmpeg_AVERROR_EAGAIN(void) { return AVERROR(EAGAIN); }
/// `AVERROR_EOF`: end of file, or the decoder is fully drained.
static inline int CFFmpeg_AVERROR_EOF(void) { return AVERROR_EOF; }
/// `AVERROR_INVALIDDATA`: invalid data found when processing input.
static inline int CFFmpeg_AVERROR_INVALIDDATA(void) { return AVERROR_INVALIDDATA; }
/// `AV_NOPTS_VALUE`: an undefined timestamp.
static inline int64_t CFFmpeg_AV_NOPTS_VALUE(void) { return AV_NOPTS_VALUE; }
/// `av_err2str` without the compound literal: writes the message for `errnum` into `buffer`.
static inline const char *CFFmpeg_av_err2str(int errnum, char *buffer, size_t size) {
    return av_make_error_string(buffer, size, errnum);
}

/// `frame->data[plane]`: Swift imports the fixed-size array as a tuple.
static inline uint8_t *CFFmpeg_frame_data(const AVFrame *frame, int plane) { return frame->data[plane]; }
/// `frame->linesize[plane]`.
static inline int CFFmpeg_frame_linesize(const AVFrame *frame, int plane) { return frame->linesize[plane]; }
/// Points `frame`'s planes into `buffer` (which the frame then owns as `buf[0]`), laid out for
/// the frame's format, width and height with rows aligned to `align` bytes.
static inline int CFFmpeg_frame_fill(AVFrame *frame, AVBufferRef *buffer, int align) {
    frame->buf[0] = buffer;
    return av_image_fill_arrays(frame->data, frame->linesize, buffer->data, (enum AVPixelFormat)frame->format,
                                frame->width, frame->height, align);
}
/// `sws_scale` from one whole frame into another.
static inline int CFFmpeg_sws_scale_frame(struct SwsContext *context, const AVFrame *source, AVFrame *destination) {
    return sws_scale(context, (const uint8_t *const *)source->data, source->linesize, 0, source->height,
                     destination->data, destination->linesize);
}

/// The layout of `AVVAAPIDeviceContext` from libavutil/hwcontext_vaapi.h (unchanged since
/// FFmpeg 3). That header includes libva's, and a header included by two Clang modules hides
/// its enum constants from Swift files that import only one of them, so this module mirrors the
/// two fields instead of including it.
typedef struct CFFmpeg_VAAPIDeviceContext {
    void *display;
    unsigned int driver_quirks;
} CFFmpeg_VAAPIDeviceContext;

/// The callback libavutil runs when the last reference to a device context goes away.
typedef void (*CFFmpeg_device_free_callback)(void *opaque);

/// The `AVHWDeviceContext` free hook: forwards to the callback stored with the context.
static inline void CFFmpeg_device_free_trampoline(AVHWDeviceContext *device) {
    CFFmpeg_device_free_callback callback = (CFFmpeg_device_free_callback)((void **)device->user_opaque)[0];
    void *opaque = ((void **)device->user_opaque)[1];
    av_free(device->user_opaque);
    device->user_opaque = NULL;
    callback(opaque);
}

/// Wraps an initialised `VADisplay` in a new VA-API `AVHWDeviceContext` (the display stays the
/// caller's: libavutil does not terminate it). `on_free(opaque)` runs when the last reference to
/// the device context — held by every frames context and so by every decoded surface — goes
/// away, which is when the display may be terminated. Returns NULL with `*status` set on failure
/// (and then does not call `on_free`).
static inline AVBufferRef *CFFmpeg_vaapi_device_create(void *display, CFFmpeg_device_free_callback on_free,
                                                       void *opaque, int *status) {
    AVBufferRef *reference = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_VAAPI);
    if (!reference) {
        *status = AVERROR(ENOMEM);
        return NULL;
    }
    AVHWDeviceContext *device = (AVHWDeviceContext *)reference->data;
    ((CFFmpeg_VAAPIDeviceContext *)device->hwctx)->display = display;
    *status = av_hwdevice_ctx_init(reference);
    if (*status < 0) {
        av_buffer_unref(&reference);
        return NULL;
    }
    void **hook = av_malloc(2 * sizeof(void *));
    if (!hook) {
        *status = AVERROR(ENOMEM);
        av_buffer_unref(&reference);
        return NULL;
    }
    hook[0] = (void *)on_free;
    hook[1] = opaque;
    device->user_opaque = hook;
    device->free = CFFmpeg_device_free_trampoline;
    return reference;
}

/// The layout of `AVVAAPIFramesContext` from libavutil/hwcontext_vaapi.h (unchanged since FFmpeg 3),
/// mirrored for the reason given above.
typedef struct CFFmpeg_VAAPIFramesContext {
    void *attributes;
    int nb_attributes;
    unsigned int *surface_ids;
    int nb_surfaces;
} CFFmpeg_VAAPIFramesContext;

/// Tells a VA-API frames context which surfaces its (caller-supplied) pool holds, for libavcodec's
/// `vaCreateContext`: a copy libavutil frees with the context (`vaapi_frames_uninit`). Returns 0,
/// or `AVERROR(ENOMEM)`.
static inline int CFFmpeg_vaapi_frames_set_surfaces(AVHWFramesContext *frames, const unsigned int *surfaces,
                                                    int count) {
    CFFmpeg_VAAPIFramesContext *context = (CFFmpeg_VAAPIFramesContext *)frames->hwctx;
    unsigned int *copy = av_malloc_array((size_t)count, sizeof(*copy));
    if (!copy) return AVERROR(ENOMEM);
    for (int i = 0; i < count; i++) copy[i] = surfaces[i];
    av_freep(&context->surface_ids);
    context->surface_ids = copy;
    context->nb_surfaces = count;
    return 0;
}

/// The `VADisplay` of a VA-API frame (`AV_PIX_FMT_VAAPI`), through its frames and device contexts.
static inline void *CFFmpeg_frame_vaapi_display(const AVFrame *frame) {
    if (!frame->hw_frames_ctx) return NULL;
    AVHWFramesContext *frames = (AVHWFramesContext *)frame->hw_frames_ctx->data;
    return ((CFFmpeg_VAAPIDeviceContext *)frames->device_ctx->hwctx)->display;
}

/// The `VASurfaceID` a VA-API frame lives in (`data[3]`).
static inline unsigned int CFFmpeg_frame_vaapi_surface(const AVFrame *frame) {
    return (unsigned int)(uintptr_t)frame->data[3];
}

/// The software pixel format of a hardware frame's surfaces (`AV_PIX_FMT_NONE` for a software frame).
static inline enum AVPixelFormat CFFmpeg_frame_hw_sw_format(const AVFrame *frame) {
    if (!frame->hw_frames_ctx) return AV_PIX_FMT_NONE;
    return ((AVHWFramesContext *)frame->hw_frames_ctx->data)->sw_format;
}

/// The size of a hardware frame's surfaces (the frames context's, before cropping); 0 for a software frame.
static inline void CFFmpeg_frame_hw_size(const AVFrame *frame, int *width, int *height) {
    *width = 0;
    *height = 0;
    if (!frame->hw_frames_ctx) return;
    AVHWFramesContext *frames = (AVHWFramesContext *)frame->hw_frames_ctx->data;
    *width = frames->width;
    *height = frames->height;
}

/// Points a software frame's two planes into mapped memory, which `buffer` owns.
static inline void CFFmpeg_frame_set_planes(AVFrame *frame, AVBufferRef *buffer, uint8_t *luma, int luma_pitch,
                                            uint8_t *chroma, int chroma_pitch) {
    frame->buf[0] = buffer;
    frame->data[0] = luma;
    frame->linesize[0] = luma_pitch;
    frame->data[1] = chroma;
    frame->linesize[1] = chroma_pitch;
}
