#pragma once
// FFmpeg headers for Swift, plus helpers standing in for the macros Swift cannot import.
#include <errno.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/md5.h>
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
