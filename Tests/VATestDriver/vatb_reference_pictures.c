// The test VA driver's reference mode: real decoded pixels instead of stamps.
//
// At driver init (VATB_REFERENCE_STREAM=path) the stream is decoded once with libavcodec on the
// CPU, single-threaded, without cropping (the surface holds the coded picture, as a GPU's does).
// Each packet goes in with pts = its index, so each output frame names the packet that started
// it. Then every packet's slice data is hashed exactly as vatb_test_driver.c hashes what FFmpeg's
// VA-API hwaccel renders (FNV-1a 64 over each slice's bytes without trailing zeros, see
// Docs/TestVADriver.md, "The stamp"), and the hash is mapped to the packet's frame. At
// vaEndPicture the driver looks its hash up and copies that frame into the render target.
//
// What the hwaccel renders per codec, and so what is hashed here, per packet:
// - H.264, HEVC: every VCL NAL unit (H.264 types 1-5, HEVC 0-31), header included, emulation
//   prevention bytes kept (libavcodec/vaapi_h264.c and vaapi_hevc.c take H2645NAL.raw_data), from
//   Annex B or from length-prefixed (avcC/hvcC) packets.
// - MPEG-2: every slice, from its start code 00 00 01 SS (SS = 0x01-0xAF) to the next start code
//   (vaapi_mpeg2.c vaapi_mpeg2_decode_slice).
// - VP8: the frame after its 3-byte (10 on a key frame) header (vaapi_vp8.c).
// - VP9: each frame of a superframe; a show_existing_frame frame is not decoded (vaapi_vp9.c):
//   it outputs the surface of a reference slot, so the slots are followed (walk_vp9).
// - AV1: the tile data of each tile group (vaapi_av1.c), which starts after the uncompressed frame
//   header: every suffix of the OBU payload starting in its first bytes is registered (walk_av1_obus,
//   one tile or several: the driver hashes the tile group's data whole); a show_existing_frame is not decoded, so the 8 reference slots are
//   followed through the sequence header and each frame header up to refresh_frame_flags. Hashes
//   are keyed with the picture's order_hint. Streams with film grain are decoded a second time
//   without it, for the render target (the display surface gets the picture with grain).
//
// Field pictures continue one hash over both fields, as the driver does: a picture that starts
// inside a packet (an H.264 or HEVC slice with first_mb_in_slice / first_slice_segment_in_pic_flag
// saying so, an MPEG-2 picture start code) registers the hash so far and continues it, and a
// packet that starts no output frame of its own (the second field of an H.264 PAFF pair, in a
// packet of its own) continues the previous packet's hash.
#define _GNU_SOURCE 1

#include "vatb_reference_pictures.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
#include <va/va.h>

#define FNV_OFFSET_BASIS 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

// MARK: - The picture map

typedef struct Entry {
    uint64_t hash;
    int frame;       // index into frames
    bool ambiguous;  // the same hash also names a frame with other pixels: never filled
} Entry;

struct VATBReferencePictures {
    char *path;
    int references;
    AVFrame **frames;
    int frame_count, frame_capacity;
    // AV1 with film grain: frames[i] decoded without the grain (the picture a GPU keeps for
    // reference, in the render target); NULL for streams without film grain.
    AVFrame **plain_frames;
    Entry *entries;
    size_t entry_count, entry_capacity;
    VATBReferencePictures *next;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static VATBReferencePictures *cache;

static void set_error(char *error, size_t size, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, size, format, arguments);
    va_end(arguments);
}

static void free_pictures(VATBReferencePictures *pictures) {
    if (pictures == NULL) return;
    for (int i = 0; i < pictures->frame_count; i++) {
        av_frame_free(&pictures->frames[i]);
        if (pictures->plain_frames != NULL) av_frame_free(&pictures->plain_frames[i]);
    }
    free(pictures->frames);
    free(pictures->plain_frames);
    free(pictures->entries);
    free(pictures->path);
    free(pictures);
}

static bool add_entry(VATBReferencePictures *pictures, uint64_t hash, int frame) {
    if (frame < 0) return true;
    if (pictures->entry_count == pictures->entry_capacity) {
        size_t capacity = pictures->entry_capacity ? pictures->entry_capacity * 2 : 256;
        Entry *entries = realloc(pictures->entries, capacity * sizeof(Entry));
        if (entries == NULL) return false;
        pictures->entries = entries;
        pictures->entry_capacity = capacity;
    }
    pictures->entries[pictures->entry_count++] = (Entry){.hash = hash, .frame = frame};
    return true;
}

static int compare_entries(const void *a, const void *b) {
    const Entry *left = a, *right = b;
    if (left->hash != right->hash) return left->hash < right->hash ? -1 : 1;
    return (left->frame > right->frame) - (left->frame < right->frame);
}

// Whether two decoded frames have the same visible pixels.
static bool same_pixels(const AVFrame *a, const AVFrame *b) {
    if (a == b) return true;
    if (a->format != b->format || a->width != b->width || a->height != b->height) return false;
    const AVPixFmtDescriptor *descriptor = av_pix_fmt_desc_get(a->format);
    if (descriptor == NULL) return false;
    int bytes = (descriptor->comp[0].depth + 7) / 8;
    for (int plane = 0; plane < 3 && a->data[plane] != NULL; plane++) {
        int shift_x = plane == 0 ? 0 : descriptor->log2_chroma_w;
        int shift_y = plane == 0 ? 0 : descriptor->log2_chroma_h;
        int width = AV_CEIL_RSHIFT(a->width, shift_x) * bytes, height = AV_CEIL_RSHIFT(a->height, shift_y);
        for (int y = 0; y < height; y++) {
            const uint8_t *row_a = a->data[plane] + (ptrdiff_t)y * a->linesize[plane];
            const uint8_t *row_b = b->data[plane] + (ptrdiff_t)y * b->linesize[plane];
            if (memcmp(row_a, row_b, (size_t)width) != 0) return false;
        }
    }
    return true;
}

// Sorts the entries by hash, drops repeats of one frame and marks a hash that names frames with
// different pixels (identical slice data decoded against different references) as ambiguous.
static void finish_entries(VATBReferencePictures *pictures) {
    qsort(pictures->entries, pictures->entry_count, sizeof(Entry), compare_entries);
    size_t kept = 0;
    for (size_t i = 0; i < pictures->entry_count; i++) {
        Entry entry = pictures->entries[i];
        if (kept > 0 && pictures->entries[kept - 1].hash == entry.hash) {
            Entry *previous = &pictures->entries[kept - 1];
            if (!same_pixels(pictures->frames[previous->frame], pictures->frames[entry.frame])) {
                previous->ambiguous = true;
            }
            continue;
        }
        pictures->entries[kept++] = entry;
    }
    pictures->entry_count = kept;
}

// MARK: - Hashing a packet's slice data

// One run over the packets: the running hash, the frame it belongs to, and whether it has taken
// any bytes since the last picture boundary.
typedef struct Walk {
    VATBReferencePictures *pictures;
    uint64_t hash;
    int frame;
    bool has_bytes;
    bool ok;
    // VP9: the hash of the picture in each of the 8 reference slots (0: none), for
    // show_existing_frame.
    uint64_t vp9_slots[8];
} Walk;

static void walk_bytes(Walk *walk, const uint8_t *bytes, size_t size) {
    while (size > 0 && bytes[size - 1] == 0) size--;
    for (size_t i = 0; i < size; i++) {
        walk->hash ^= bytes[i];
        walk->hash *= FNV_PRIME;
    }
    walk->has_bytes = true;
}

// The end of a picture's slices: its hash names the frame. `restart` begins a fresh hash (a
// picture of its own), otherwise the next picture continues this one (the second field).
static void walk_picture_end(Walk *walk, bool restart) {
    if (walk->has_bytes && !add_entry(walk->pictures, walk->hash, walk->frame)) walk->ok = false;
    walk->has_bytes = false;
    if (restart) walk->hash = FNV_OFFSET_BASIS;
}

// Finds the next 00 00 01 at or after `from`; returns `size` when there is none.
static size_t next_start_code(const uint8_t *data, size_t size, size_t from) {
    for (size_t i = from; i + 2 < size; i++) {
        if (data[i] == 0 && data[i + 1] == 0 && data[i + 2] == 1) return i;
    }
    return size;
}

typedef enum NALFormat { NAL_ANNEX_B, NAL_LENGTH_PREFIXED } NALFormat;

// An H.264 or HEVC VCL NAL unit: hashed; one that starts a picture ends the one before.
static void walk_nal(Walk *walk, enum AVCodecID codec, const uint8_t *nal, size_t size) {
    if (size < 3) return;
    bool vcl, first_in_picture;
    if (codec == AV_CODEC_ID_H264) {
        int type = nal[0] & 0x1f;
        vcl = type >= 1 && type <= 5;
        first_in_picture = (nal[1] & 0x80) != 0; // first_mb_in_slice ue(v) == 0
    } else {
        int type = (nal[0] >> 1) & 0x3f;
        vcl = type <= 31;
        first_in_picture = (nal[2] & 0x80) != 0; // first_slice_segment_in_pic_flag
    }
    if (!vcl) return;
    if (first_in_picture) walk_picture_end(walk, false);
    walk_bytes(walk, nal, size);
}

static void walk_h2645(Walk *walk, enum AVCodecID codec, NALFormat format, int length_size, const AVPacket *packet) {
    const uint8_t *data = packet->data;
    size_t size = (size_t)packet->size;
    if (format == NAL_ANNEX_B) {
        size_t start = next_start_code(data, size, 0);
        while (start < size) {
            size_t nal = start + 3;
            size_t end = next_start_code(data, size, nal);
            walk_nal(walk, codec, data + nal, end - nal);
            start = end;
        }
        return;
    }
    size_t at = 0;
    while (at + (size_t)length_size <= size) {
        size_t length = 0;
        for (int i = 0; i < length_size; i++) length = length << 8 | data[at + (size_t)i];
        at += (size_t)length_size;
        if (length > size - at) break;
        walk_nal(walk, codec, data + at, length);
        at += length;
    }
}

static void walk_mpeg2(Walk *walk, const AVPacket *packet) {
    const uint8_t *data = packet->data;
    size_t size = (size_t)packet->size;
    size_t start = next_start_code(data, size, 0);
    while (start < size) {
        size_t end = next_start_code(data, size, start + 3);
        if (start + 3 < size) {
            uint8_t code = data[start + 3];
            if (code == 0x00) walk_picture_end(walk, false); // picture_start_code
            if (code >= 0x01 && code <= 0xaf) walk_bytes(walk, data + start, end - start);
        }
        start = end;
    }
}

static void walk_vp8(Walk *walk, const AVPacket *packet) {
    if (packet->size < 3) return;
    size_t header = (packet->data[0] & 1) == 0 ? 10 : 3; // frame tag bit 0: 0 on key frames
    if ((size_t)packet->size > header) walk_bytes(walk, packet->data + header, (size_t)packet->size - header);
}

// Reads VP9 header bits, most significant first; past the end reads zeros.
typedef struct Bits {
    const uint8_t *data;
    size_t size, position;
} Bits;

static unsigned int read_bits(Bits *bits, int count) {
    unsigned int value = 0;
    for (int i = 0; i < count; i++, bits->position++) {
        size_t byte = bits->position / 8;
        unsigned int bit = byte < bits->size ? (bits->data[byte] >> (7 - bits->position % 8)) & 1 : 0;
        value = value << 1 | bit;
    }
    return value;
}

// What the start of a VP9 uncompressed header (spec 6.2, uncompressed_header) says about the
// reference slots: show_existing_frame with frame_to_show_map_idx, or the refresh_frame_flags of a
// decoded frame (all slots for a key frame).
typedef struct VP9FrameHeader {
    bool show_existing_frame;
    unsigned int frame_to_show_map_idx;
    unsigned int refresh_frame_flags;
} VP9FrameHeader;

static VP9FrameHeader vp9_frame_header(const uint8_t *frame, size_t size) {
    Bits bits = {.data = frame, .size = size};
    VP9FrameHeader header = {0};
    read_bits(&bits, 2); // frame_marker
    unsigned int profile = read_bits(&bits, 1);
    profile |= read_bits(&bits, 1) << 1;
    if (profile == 3) read_bits(&bits, 1); // reserved_zero
    header.show_existing_frame = read_bits(&bits, 1);
    if (header.show_existing_frame) {
        header.frame_to_show_map_idx = read_bits(&bits, 3);
        return header;
    }
    unsigned int frame_type = read_bits(&bits, 1);
    unsigned int show_frame = read_bits(&bits, 1);
    unsigned int error_resilient_mode = read_bits(&bits, 1);
    if (frame_type == 0) { // KEY_FRAME
        header.refresh_frame_flags = 0xff;
        return header;
    }
    unsigned int intra_only = show_frame ? 0 : read_bits(&bits, 1);
    if (!error_resilient_mode) read_bits(&bits, 2); // reset_frame_context
    if (intra_only) {
        read_bits(&bits, 24); // frame_sync_code
        if (profile > 0) {    // color_config
            if (profile >= 2) read_bits(&bits, 1); // ten_or_twelve_bit
            unsigned int color_space = read_bits(&bits, 3);
            if (color_space != 7) read_bits(&bits, 1); // color_range (not CS_RGB)
            if (profile == 1 || profile == 3) read_bits(&bits, color_space != 7 ? 3 : 1);
        }
    }
    header.refresh_frame_flags = read_bits(&bits, 8);
    return header;
}

static uint64_t fnv1a_stripped(const uint8_t *bytes, size_t size) {
    while (size > 0 && bytes[size - 1] == 0) size--;
    uint64_t hash = FNV_OFFSET_BASIS;
    for (size_t i = 0; i < size; i++) {
        hash ^= bytes[i];
        hash *= FNV_PRIME;
    }
    return hash;
}

// Each frame of the packet (a superframe is split by its index, Annex B of the VP9 spec) is a
// picture of its own, hashed whole. The packet's output frame is its last frame: a decoded one
// (the hidden frames before it are never output), or a show_existing_frame, which shows the picture
// of a reference slot: then that picture's hash names the output frame. That is how a hidden frame
// (an alt-ref) shown later gets its pixels: libavcodec outputs it only through such a frame.
static void walk_vp9(Walk *walk, const AVPacket *packet) {
    const uint8_t *data = packet->data;
    size_t size = (size_t)packet->size;
    size_t offsets[8], sizes[8];
    int count = 0;
    uint8_t marker = size > 0 ? data[size - 1] : 0;
    if ((marker & 0xe0) == 0xc0) {
        int frames = (marker & 7) + 1, bytes = ((marker >> 3) & 3) + 1;
        size_t index = 2 + (size_t)bytes * (size_t)frames;
        if (size >= index && data[size - index] == marker) {
            size_t at = 0;
            const uint8_t *sizes_at = data + size - index + 1;
            for (int i = 0; i < frames; i++) {
                size_t frame_size = 0;
                for (int j = 0; j < bytes; j++) frame_size |= (size_t)sizes_at[i * bytes + j] << (8 * j);
                if (frame_size > size - index - at) break;
                offsets[count] = at;
                sizes[count++] = frame_size;
                at += frame_size;
            }
        }
    }
    if (count == 0) {
        offsets[0] = 0;
        sizes[0] = size;
        count = 1;
    }
    uint64_t shown = 0;
    for (int i = 0; i < count; i++) {
        VP9FrameHeader header = vp9_frame_header(data + offsets[i], sizes[i]);
        if (header.show_existing_frame) {
            shown = walk->vp9_slots[header.frame_to_show_map_idx];
            continue;
        }
        shown = fnv1a_stripped(data + offsets[i], sizes[i]);
        for (int slot = 0; slot < 8; slot++) {
            if (header.refresh_frame_flags & (1u << slot)) walk->vp9_slots[slot] = shown;
        }
    }
    if (shown != 0 && !add_entry(walk->pictures, shown, walk->frame)) walk->ok = false;
}

// MARK: - AV1

// What the driver keys AV1 pictures by: libavcodec/vaapi_av1.c (vaapi_av1_decode_slice) renders
// one slice data buffer per tile group, the tile group's tile data (av1dec.c hands it the CBS
// tile group's tile_data: from after the tile group header to the end of the OBU payload), with
// one slice parameter buffer per tile (offset and size of the tile in it). The stamp hashes each
// tile; reference mode keys a picture by the hash of its first slice data buffer as a whole, the
// tile_size_minus_1 fields between tiles included, trailing zeros stripped (vatb_test_driver.c,
// hash_slice_data). The tile data starts after the uncompressed frame header and its byte
// alignment (an OBU_FRAME, AV1 spec 5.10) and the tile group header (5.11.1:
// tile_start_and_end_present_flag when the picture has several tiles), or at the start of an
// OBU_TILE_GROUP payload with one tile. Rather than parse the whole frame header, every suffix of
// the payload that starts in its first AV1_TILE_START_SEARCH bytes is hashed: the driver's key is
// one of them, for one tile or many (SVT-AV1's and libaom's tiled streams). A picture split into
// several tile group OBUs is registered by its first only, so it keeps its stamp (traced), never
// gets wrong pixels. Short suffixes of one picture can
// equal another picture's whole tile data (a nearly static picture codes to a few bytes, the same
// bytes as in other pictures decoded against other references): the hashes are keyed with the
// picture's order_hint (vatb_reference_av1_key), which the driver has from the picture parameters,
// so that only pictures of one order_hint can collide.
#define AV1_TILE_START_SEARCH 512

enum {
    AV1_OBU_SEQUENCE_HEADER = 1,
    AV1_OBU_FRAME_HEADER = 3,
    AV1_OBU_TILE_GROUP = 4,
    AV1_OBU_FRAME = 6,
    AV1_OBU_REDUNDANT_FRAME_HEADER = 7,
};

// The sequence header fields (spec 5.5) that the uncompressed header needs up to
// refresh_frame_flags.
typedef struct AV1Sequence {
    bool valid;
    bool reduced_still_picture_header;
    bool decoder_model_info_present;
    bool equal_picture_interval;
    unsigned int buffer_removal_time_length, frame_presentation_time_length;
    unsigned int operating_points;
    unsigned int operating_point_idc[32];
    bool decoder_model_present_for_this_op[32];
    bool frame_id_numbers_present;
    unsigned int frame_id_length;
    unsigned int seq_force_screen_content_tools, seq_force_integer_mv;
    unsigned int order_hint_bits;
    bool film_grain_params_present;
} AV1Sequence;

// The candidate tile-data hashes of one picture.
typedef struct AV1Picture {
    uint64_t hashes[AV1_TILE_START_SEARCH];
    size_t count;
    bool key_frame;
    unsigned int order_hint;
} AV1Picture;

// uvlc() (spec 4.10.3).
static unsigned int read_uvlc(Bits *bits) {
    int leading_zeros = 0;
    while (leading_zeros < 32 && read_bits(bits, 1) == 0) leading_zeros++;
    if (leading_zeros >= 32) return UINT32_MAX;
    return read_bits(bits, leading_zeros) + (1u << leading_zeros) - 1;
}

// sequence_header_obu (spec 5.5.1), with color_config (5.5.2) only to reach
// film_grain_params_present.
static AV1Sequence av1_sequence_header(const uint8_t *data, size_t size) {
    Bits bits = {.data = data, .size = size};
    AV1Sequence sequence = {.valid = true, .operating_points = 1};
    unsigned int profile = read_bits(&bits, 3);
    read_bits(&bits, 1); // still_picture
    sequence.reduced_still_picture_header = read_bits(&bits, 1);
    if (sequence.reduced_still_picture_header) {
        read_bits(&bits, 5); // seq_level_idx[0]
    } else {
        if (read_bits(&bits, 1)) {  // timing_info_present_flag
            read_bits(&bits, 32);   // num_units_in_display_tick
            read_bits(&bits, 32);   // time_scale
            sequence.equal_picture_interval = read_bits(&bits, 1);
            if (sequence.equal_picture_interval) read_uvlc(&bits); // num_ticks_per_picture_minus_1
            sequence.decoder_model_info_present = read_bits(&bits, 1);
        }
        unsigned int buffer_delay_length = 0;
        if (sequence.decoder_model_info_present) { // decoder_model_info (5.5.4)
            buffer_delay_length = read_bits(&bits, 5) + 1;
            read_bits(&bits, 32); // num_units_in_decoding_tick
            sequence.buffer_removal_time_length = read_bits(&bits, 5) + 1;
            sequence.frame_presentation_time_length = read_bits(&bits, 5) + 1;
        }
        bool initial_display_delay_present = read_bits(&bits, 1);
        sequence.operating_points = read_bits(&bits, 5) + 1;
        for (unsigned int i = 0; i < sequence.operating_points; i++) {
            sequence.operating_point_idc[i] = read_bits(&bits, 12);
            if (read_bits(&bits, 5) > 7) read_bits(&bits, 1); // seq_level_idx, seq_tier
            if (sequence.decoder_model_info_present) {
                sequence.decoder_model_present_for_this_op[i] = read_bits(&bits, 1);
                if (sequence.decoder_model_present_for_this_op[i]) { // operating_parameters_info
                    read_bits(&bits, (int)buffer_delay_length); // decoder_buffer_delay
                    read_bits(&bits, (int)buffer_delay_length); // encoder_buffer_delay
                    read_bits(&bits, 1);                        // low_delay_mode_flag
                }
            }
            if (initial_display_delay_present && read_bits(&bits, 1)) read_bits(&bits, 4);
        }
    }
    int width_bits = (int)read_bits(&bits, 4) + 1, height_bits = (int)read_bits(&bits, 4) + 1;
    read_bits(&bits, width_bits);  // max_frame_width_minus_1
    read_bits(&bits, height_bits); // max_frame_height_minus_1
    if (!sequence.reduced_still_picture_header) sequence.frame_id_numbers_present = read_bits(&bits, 1);
    if (sequence.frame_id_numbers_present) {
        unsigned int delta_frame_id_length = read_bits(&bits, 4) + 2;
        sequence.frame_id_length = read_bits(&bits, 3) + 1 + delta_frame_id_length;
    }
    read_bits(&bits, 3); // use_128x128_superblock, enable_filter_intra, enable_intra_edge_filter
    sequence.seq_force_screen_content_tools = 2; // SELECT_SCREEN_CONTENT_TOOLS
    sequence.seq_force_integer_mv = 2;           // SELECT_INTEGER_MV
    if (!sequence.reduced_still_picture_header) {
        read_bits(&bits, 4); // interintra, masked compound, warped motion, dual filter
        bool enable_order_hint = read_bits(&bits, 1);
        if (enable_order_hint) read_bits(&bits, 2); // enable_jnt_comp, enable_ref_frame_mvs
        if (!read_bits(&bits, 1)) sequence.seq_force_screen_content_tools = read_bits(&bits, 1);
        if (sequence.seq_force_screen_content_tools > 0) {
            if (!read_bits(&bits, 1)) sequence.seq_force_integer_mv = read_bits(&bits, 1);
        }
        if (enable_order_hint) sequence.order_hint_bits = read_bits(&bits, 3) + 1;
    }
    read_bits(&bits, 3); // enable_superres, enable_cdef, enable_restoration
    // color_config (5.5.2)
    bool high_bitdepth = read_bits(&bits, 1);
    bool twelve_bit = profile == 2 && high_bitdepth ? read_bits(&bits, 1) : false;
    bool mono_chrome = profile == 1 ? false : read_bits(&bits, 1);
    unsigned int primaries = 2, transfer = 2, matrix = 2;
    if (read_bits(&bits, 1)) { // color_description_present_flag
        primaries = read_bits(&bits, 8);
        transfer = read_bits(&bits, 8);
        matrix = read_bits(&bits, 8);
    }
    if (mono_chrome) {
        read_bits(&bits, 1); // color_range
    } else if (primaries == 1 && transfer == 13 && matrix == 0) { // sRGB: 4:4:4, full range
        read_bits(&bits, 1); // separate_uv_delta_q
    } else {
        read_bits(&bits, 1); // color_range
        bool subsampling_x = profile == 0, subsampling_y = profile == 0;
        if (profile == 2) {
            subsampling_x = true;
            if (twelve_bit) {
                subsampling_x = read_bits(&bits, 1);
                subsampling_y = subsampling_x ? read_bits(&bits, 1) : false;
            }
        }
        if (subsampling_x && subsampling_y) read_bits(&bits, 2); // chroma_sample_position
        read_bits(&bits, 1);                                      // separate_uv_delta_q
    }
    sequence.film_grain_params_present = read_bits(&bits, 1);
    return sequence;
}

// What the start of an uncompressed header (spec 5.9.2) says about the reference slots.
typedef struct AV1FrameHeader {
    bool show_existing_frame;
    unsigned int frame_to_show_map_idx;
    bool show_frame;
    bool key_frame;
    unsigned int order_hint;
    unsigned int refresh_frame_flags;
} AV1FrameHeader;

static AV1FrameHeader av1_frame_header(const AV1Sequence *sequence, const uint8_t *data, size_t size,
    unsigned int temporal_id, unsigned int spatial_id) {
    Bits bits = {.data = data, .size = size};
    AV1FrameHeader header = {.show_frame = true, .key_frame = true, .refresh_frame_flags = 0xff};
    if (sequence->reduced_still_picture_header) return header;
    header.show_existing_frame = read_bits(&bits, 1);
    if (header.show_existing_frame) {
        header.frame_to_show_map_idx = read_bits(&bits, 3);
        header.refresh_frame_flags = 0; // all slots if the shown frame is a key frame (7.21)
        return header;
    }
    unsigned int frame_type = read_bits(&bits, 2); // KEY_FRAME 0, INTER 1, INTRA_ONLY 2, SWITCH 3
    header.key_frame = frame_type == 0;
    bool intra = frame_type == 0 || frame_type == 2;
    header.show_frame = read_bits(&bits, 1);
    if (header.show_frame && sequence->decoder_model_info_present && !sequence->equal_picture_interval) {
        read_bits(&bits, (int)sequence->frame_presentation_time_length); // temporal_point_info
    }
    if (!header.show_frame) read_bits(&bits, 1); // showable_frame
    bool error_resilient_mode = frame_type == 3 || (header.key_frame && header.show_frame) ? true : read_bits(&bits, 1);
    read_bits(&bits, 1); // disable_cdf_update
    unsigned int allow_screen_content_tools = sequence->seq_force_screen_content_tools == 2
        ? read_bits(&bits, 1)
        : sequence->seq_force_screen_content_tools;
    if (allow_screen_content_tools && sequence->seq_force_integer_mv == 2) read_bits(&bits, 1); // force_integer_mv
    if (sequence->frame_id_numbers_present) read_bits(&bits, (int)sequence->frame_id_length); // current_frame_id
    if (frame_type != 3 && !sequence->reduced_still_picture_header) read_bits(&bits, 1); // frame_size_override_flag
    header.order_hint = read_bits(&bits, (int)sequence->order_hint_bits);
    if (!intra && !error_resilient_mode) read_bits(&bits, 3); // primary_ref_frame
    if (sequence->decoder_model_info_present && read_bits(&bits, 1)) { // buffer_removal_time_present_flag
        for (unsigned int i = 0; i < sequence->operating_points; i++) {
            if (!sequence->decoder_model_present_for_this_op[i]) continue;
            unsigned int idc = sequence->operating_point_idc[i];
            bool in_temporal_layer = (idc >> temporal_id) & 1, in_spatial_layer = (idc >> (spatial_id + 8)) & 1;
            if (idc == 0 || (in_temporal_layer && in_spatial_layer)) {
                read_bits(&bits, (int)sequence->buffer_removal_time_length); // buffer_removal_time
            }
        }
    }
    if (!(frame_type == 3 || (header.key_frame && header.show_frame))) header.refresh_frame_flags = read_bits(&bits, 8);
    return header;
}

// One run of the AV1 walk: the sequence header in force, the picture being decoded, and the
// picture in each of the 8 reference slots (spec 7.20), for show_existing_frame.
typedef struct AV1Walk {
    AV1Sequence sequence;
    AV1Picture *slots[8];
    AV1Picture **pictures;
    size_t picture_count, picture_capacity;
    AV1FrameHeader header;
    bool in_frame;
} AV1Walk;

static void free_av1_walk(AV1Walk *av1) {
    for (size_t i = 0; i < av1->picture_count; i++) free(av1->pictures[i]);
    free(av1->pictures);
}

static AV1Picture *new_av1_picture(AV1Walk *av1) {
    if (av1->picture_count == av1->picture_capacity) {
        size_t capacity = av1->picture_capacity ? av1->picture_capacity * 2 : 32;
        AV1Picture **pictures = realloc(av1->pictures, capacity * sizeof(AV1Picture *));
        if (pictures == NULL) return NULL;
        av1->pictures = pictures;
        av1->picture_capacity = capacity;
    }
    AV1Picture *picture = calloc(1, sizeof(AV1Picture));
    if (picture != NULL) av1->pictures[av1->picture_count++] = picture;
    return picture;
}

static void register_av1_picture(Walk *walk, const AV1Picture *picture) {
    for (size_t i = 0; i < picture->count && walk->ok; i++) {
        uint64_t key = vatb_reference_av1_key(picture->hashes[i], picture->order_hint);
        if (!add_entry(walk->pictures, key, walk->frame)) walk->ok = false;
    }
}

// The tile data of the frame whose header was read last: its candidate hashes, then the frame is
// output (show_frame) and/or kept in the slots refresh_frame_flags names.
static void walk_av1_tiles(Walk *walk, AV1Walk *av1, const uint8_t *data, size_t size) {
    if (!av1->in_frame) return;
    av1->in_frame = false; // one tile group per frame: later ones keep the stamp
    AV1Picture *picture = new_av1_picture(av1);
    if (picture == NULL) {
        walk->ok = false;
        return;
    }
    picture->key_frame = av1->header.key_frame;
    picture->order_hint = av1->header.order_hint;
    while (size > 0 && data[size - 1] == 0) size--;
    for (size_t start = 0; start < size && start < AV1_TILE_START_SEARCH; start++) {
        picture->hashes[picture->count++] = fnv1a_stripped(data + start, size - start);
    }
    if (av1->header.show_frame) register_av1_picture(walk, picture);
    for (int slot = 0; slot < 8; slot++) {
        if (av1->header.refresh_frame_flags & (1u << slot)) av1->slots[slot] = picture;
    }
}

// The OBUs of a low-overhead (spec 5.2) temporal unit, as libavformat's demuxers hand them out
// (IVF, MP4, Matroska, the obu demuxer; the Annex B demuxer rewrites to this format).
static void walk_av1_obus(Walk *walk, AV1Walk *av1, const uint8_t *data, size_t size) {
    size_t at = 0;
    while (at < size && walk->ok) {
        uint8_t header = data[at++];
        unsigned int type = (header >> 3) & 0xf;
        bool extension = (header >> 2) & 1, has_size = (header >> 1) & 1;
        unsigned int temporal_id = 0, spatial_id = 0;
        if (extension) {
            if (at >= size) return;
            temporal_id = data[at] >> 5;
            spatial_id = (data[at] >> 3) & 3;
            at++;
        }
        size_t payload = size - at;
        if (has_size) { // leb128 (4.10.5)
            payload = 0;
            for (int i = 0; i < 8; i++) {
                if (at >= size) return;
                uint8_t byte = data[at++];
                payload |= (size_t)(byte & 0x7f) << (7 * i);
                if (!(byte & 0x80)) break;
            }
            if (payload > size - at) return;
        }
        const uint8_t *body = data + at;
        at += payload;
        switch (type) {
        case AV1_OBU_SEQUENCE_HEADER: av1->sequence = av1_sequence_header(body, payload); break;
        case AV1_OBU_FRAME_HEADER:
        case AV1_OBU_FRAME: {
            if (!av1->sequence.valid) break;
            av1->header = av1_frame_header(&av1->sequence, body, payload, temporal_id, spatial_id);
            if (av1->header.show_existing_frame) {
                // FFmpeg does not decode it (vaapi_av1.c is not called): the frame output is the
                // surface of the slot, decoded earlier, so that picture's hashes name this frame.
                const AV1Picture *shown = av1->slots[av1->header.frame_to_show_map_idx];
                if (shown != NULL) {
                    register_av1_picture(walk, shown);
                    if (shown->key_frame) {
                        for (int slot = 0; slot < 8; slot++) av1->slots[slot] = av1->slots[av1->header.frame_to_show_map_idx];
                    }
                }
                av1->in_frame = false;
                break;
            }
            av1->in_frame = true;
            if (type == AV1_OBU_FRAME) walk_av1_tiles(walk, av1, body, payload);
            break;
        }
        case AV1_OBU_TILE_GROUP: walk_av1_tiles(walk, av1, body, payload); break;
        default: break; // OBU_REDUNDANT_FRAME_HEADER repeats the header: nothing new
        }
    }
}

// MARK: - Decoding

typedef struct Decoding {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVPacket **packets;
    int *packet_frames; // per packet: the frame it started, or -1
    int packet_count, packet_capacity;
    AVFrame *frame;
} Decoding;

static void free_decoding(Decoding *decoding) {
    for (int i = 0; i < decoding->packet_count; i++) av_packet_free(&decoding->packets[i]);
    free(decoding->packets);
    free(decoding->packet_frames);
    av_frame_free(&decoding->frame);
    avcodec_free_context(&decoding->codec);
    avformat_close_input(&decoding->format);
}

// Moves every frame the decoder has ready into `pictures`. Only running out of memory is an
// error: a damaged picture decodes to nothing, as in the ffmpeg CLI.
static int receive_frames(Decoding *decoding, VATBReferencePictures *pictures) {
    for (;;) {
        int result = avcodec_receive_frame(decoding->codec, decoding->frame);
        if (result == AVERROR(EAGAIN) || result == AVERROR_EOF) return 0;
        if (result < 0) return result == AVERROR(ENOMEM) ? result : 0;
        int64_t packet = decoding->frame->pts;
        if (packet < 0 || packet >= decoding->packet_count) {
            av_frame_unref(decoding->frame);
            continue;
        }
        if (pictures->frame_count == pictures->frame_capacity) {
            int capacity = pictures->frame_capacity ? pictures->frame_capacity * 2 : 64;
            AVFrame **frames = realloc(pictures->frames, (size_t)capacity * sizeof(AVFrame *));
            if (frames == NULL) return AVERROR(ENOMEM);
            pictures->frames = frames;
            pictures->frame_capacity = capacity;
        }
        AVFrame *kept = av_frame_alloc();
        if (kept == NULL) return AVERROR(ENOMEM);
        av_frame_move_ref(kept, decoding->frame);
        decoding->packet_frames[packet] = pictures->frame_count;
        pictures->frames[pictures->frame_count++] = kept;
    }
}

static int keep_packet(Decoding *decoding, AVPacket *packet) {
    if (decoding->packet_count == decoding->packet_capacity) {
        int capacity = decoding->packet_capacity ? decoding->packet_capacity * 2 : 256;
        AVPacket **packets = realloc(decoding->packets, (size_t)capacity * sizeof(AVPacket *));
        if (packets == NULL) return AVERROR(ENOMEM);
        decoding->packets = packets;
        int *frames = realloc(decoding->packet_frames, (size_t)capacity * sizeof(int));
        if (frames == NULL) return AVERROR(ENOMEM);
        decoding->packet_frames = frames;
        decoding->packet_capacity = capacity;
    }
    decoding->packet_frames[decoding->packet_count] = -1;
    decoding->packets[decoding->packet_count++] = packet;
    return 0;
}

static bool has_hash_rule(enum AVCodecID codec) {
    return codec == AV_CODEC_ID_H264 || codec == AV_CODEC_ID_HEVC || codec == AV_CODEC_ID_MPEG2VIDEO
        || codec == AV_CODEC_ID_VP8 || codec == AV_CODEC_ID_VP9 || codec == AV_CODEC_ID_AV1;
}

// Decodes every packet of the video stream, keeping the packets and the frames; with
// `export_film_grain`, AV1 film grain is exported as side data rather than applied (libdav1d.c
// reads AV_CODEC_EXPORT_DATA_FILM_GRAIN into Dav1dSettings.apply_grain).
static bool decode_stream(const char *path, bool export_film_grain, Decoding *decoding, VATBReferencePictures *pictures,
    char *error, size_t size) {
    char message[AV_ERROR_MAX_STRING_SIZE];
    int result = avformat_open_input(&decoding->format, path, NULL, NULL);
    if (result >= 0) result = avformat_find_stream_info(decoding->format, NULL);
    if (result < 0) {
        set_error(error, size, "%s: %s", path, av_make_error_string(message, sizeof(message), result));
        return false;
    }
    int stream = av_find_best_stream(decoding->format, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (stream < 0) {
        set_error(error, size, "%s: no video stream", path);
        return false;
    }
    const AVCodecParameters *parameters = decoding->format->streams[stream]->codecpar;
    if (!has_hash_rule(parameters->codec_id)) {
        set_error(error, size, "%s: %s has no slice-data hash rule in the reference mode", path,
            avcodec_get_name(parameters->codec_id));
        return false;
    }
    const AVCodec *decoder = avcodec_find_decoder(parameters->codec_id);
    decoding->codec = decoder != NULL ? avcodec_alloc_context3(decoder) : NULL;
    decoding->frame = av_frame_alloc();
    if (decoding->codec == NULL || decoding->frame == NULL) {
        set_error(error, size, "%s: no decoder for %s", path, avcodec_get_name(parameters->codec_id));
        return false;
    }
    result = avcodec_parameters_to_context(decoding->codec, parameters);
    decoding->codec->thread_count = 1;
    decoding->codec->apply_cropping = 0; // the surface holds the coded picture
    if (export_film_grain) decoding->codec->export_side_data |= AV_CODEC_EXPORT_DATA_FILM_GRAIN;
    if (result >= 0) result = avcodec_open2(decoding->codec, decoder, NULL);
    while (result >= 0) {
        AVPacket *packet = av_packet_alloc();
        if (packet == NULL) {
            result = AVERROR(ENOMEM);
            break;
        }
        result = av_read_frame(decoding->format, packet);
        if (result < 0 || packet->stream_index != stream) {
            av_packet_free(&packet);
            if (result == AVERROR_EOF) break;
            if (result >= 0) continue;
            break;
        }
        packet->pts = decoding->packet_count;
        packet->dts = AV_NOPTS_VALUE;
        result = keep_packet(decoding, packet);
        if (result < 0) {
            av_packet_free(&packet);
            break;
        }
        // A packet the decoder refuses (damaged data) decodes to nothing, as in the ffmpeg CLI.
        (void)avcodec_send_packet(decoding->codec, packet);
        result = receive_frames(decoding, pictures);
    }
    if (result == AVERROR_EOF) result = 0;
    if (result >= 0 && avcodec_send_packet(decoding->codec, NULL) >= 0) result = receive_frames(decoding, pictures);
    if (result < 0) {
        set_error(error, size, "%s: %s", path, av_make_error_string(message, sizeof(message), result));
        return false;
    }
    return true;
}

// AV1 with film grain: decodes the stream again with the grain left out, into
// pictures->plain_frames, frame for frame (matched by the packet that started each frame).
static bool decode_without_film_grain(const char *path, const Decoding *decoding, VATBReferencePictures *pictures,
    char *error, size_t size) {
    Decoding plain_decoding = {0};
    VATBReferencePictures plain = {0};
    bool ok = decode_stream(path, true, &plain_decoding, &plain, error, size);
    if (ok) {
        pictures->plain_frames = calloc((size_t)pictures->frame_count, sizeof(AVFrame *));
        if (pictures->plain_frames == NULL) {
            set_error(error, size, "out of memory");
            ok = false;
        }
    }
    for (int i = 0; ok && i < plain.frame_count; i++) {
        int64_t packet = plain.frames[i]->pts;
        int frame = packet >= 0 && packet < decoding->packet_count ? decoding->packet_frames[packet] : -1;
        if (frame < 0 || pictures->plain_frames[frame] != NULL) continue;
        pictures->plain_frames[frame] = plain.frames[i];
        plain.frames[i] = NULL;
    }
    for (int i = 0; ok && i < pictures->frame_count; i++) {
        if (pictures->plain_frames[i] == NULL) {
            set_error(error, size, "%s: the decode without film grain has no picture for frame %d", path, i);
            ok = false;
        }
    }
    for (int i = 0; i < plain.frame_count; i++) av_frame_free(&plain.frames[i]);
    free(plain.frames);
    free_decoding(&plain_decoding);
    return ok;
}

// Maps every packet's slice-data hash(es) to the frame the packet started (see the file comment).
// `film_grain` says whether an AV1 sequence header has film_grain_params_present. False with a
// message in `error` on running out of memory.
static bool map_hashes(
    Decoding *decoding, VATBReferencePictures *pictures, bool *film_grain, char *error, size_t error_size) {
    enum AVCodecID codec = decoding->codec->codec_id;
    NALFormat format = NAL_ANNEX_B;
    int length_size = 4;
    const uint8_t *extradata = decoding->codec->extradata;
    int extradata_size = decoding->codec->extradata_size;
    if (extradata != NULL && extradata_size > 0 && extradata[0] == 1) {
        if (codec == AV_CODEC_ID_H264 && extradata_size >= 7) {
            format = NAL_LENGTH_PREFIXED;
            length_size = (extradata[4] & 3) + 1;
        } else if (codec == AV_CODEC_ID_HEVC && extradata_size >= 23) {
            format = NAL_LENGTH_PREFIXED;
            length_size = (extradata[21] & 3) + 1;
        }
    }
    Walk walk = {.pictures = pictures, .hash = FNV_OFFSET_BASIS, .frame = -1, .ok = true};
    AV1Walk av1 = {0};
    if (codec == AV_CODEC_ID_AV1 && extradata != NULL && extradata_size > 4) {
        // An av1C record (MP4, Matroska) carries the sequence header after its 4 bytes.
        bool record = (extradata[0] & 0x80) != 0;
        walk_av1_obus(&walk, &av1, extradata + (record ? 4 : 0), (size_t)extradata_size - (record ? 4 : 0));
    }
    for (int i = 0; i < decoding->packet_count && walk.ok; i++) {
        const AVPacket *packet = decoding->packets[i];
        int frame = decoding->packet_frames[i];
        bool continues = frame < 0 && walk.frame >= 0 && (codec == AV_CODEC_ID_H264 || codec == AV_CODEC_ID_HEVC);
        if (!continues) {
            walk.hash = FNV_OFFSET_BASIS;
            walk.has_bytes = false;
            walk.frame = frame;
        }
        switch (codec) {
        case AV_CODEC_ID_H264:
        case AV_CODEC_ID_HEVC:
            // A continued packet's first slice starts a picture: its hash so far is the first
            // field's, already registered; the walk goes on from it.
            walk_h2645(&walk, codec, format, length_size, packet);
            break;
        case AV_CODEC_ID_MPEG2VIDEO: walk_mpeg2(&walk, packet); break;
        case AV_CODEC_ID_VP8: walk_vp8(&walk, packet); break;
        case AV_CODEC_ID_VP9: walk_vp9(&walk, packet); break;
        case AV_CODEC_ID_AV1: walk_av1_obus(&walk, &av1, packet->data, (size_t)packet->size); break;
        default: break;
        }
        walk_picture_end(&walk, false);
    }
    *film_grain = av1.sequence.film_grain_params_present;
    free_av1_walk(&av1);
    if (!walk.ok) {
        set_error(error, error_size, "out of memory");
        return false;
    }
    finish_entries(pictures);
    return true;
}

// MARK: - Public

VATBReferencePictures *vatb_reference_pictures_open(const char *path, char *error, size_t error_size) {
    pthread_mutex_lock(&cache_lock);
    for (VATBReferencePictures *cached = cache; cached != NULL; cached = cached->next) {
        if (strcmp(cached->path, path) == 0) {
            cached->references += 1;
            pthread_mutex_unlock(&cache_lock);
            return cached;
        }
    }
    VATBReferencePictures *pictures = calloc(1, sizeof(*pictures));
    Decoding decoding = {0};
    bool ok = pictures != NULL && (pictures->path = strdup(path)) != NULL;
    if (!ok) set_error(error, error_size, "out of memory");
    ok = ok && decode_stream(path, false, &decoding, pictures, error, error_size);
    bool film_grain = false;
    if (ok && !map_hashes(&decoding, pictures, &film_grain, error, error_size)) ok = false;
    if (ok && film_grain) {
        ok = decode_without_film_grain(path, &decoding, pictures, error, error_size);
    }
    if (ok && pictures->frame_count == 0) {
        set_error(error, error_size, "%s: no picture could be decoded", path);
        ok = false;
    }
    free_decoding(&decoding);
    if (!ok) {
        free_pictures(pictures);
        pthread_mutex_unlock(&cache_lock);
        return NULL;
    }
    pictures->references = 1;
    pictures->next = cache;
    cache = pictures;
    pthread_mutex_unlock(&cache_lock);
    return pictures;
}

void vatb_reference_pictures_close(VATBReferencePictures *pictures) {
    if (pictures == NULL) return;
    pthread_mutex_lock(&cache_lock);
    pictures->references -= 1;
    if (pictures->references == 0) {
        for (VATBReferencePictures **link = &cache; *link != NULL; link = &(*link)->next) {
            if (*link == pictures) {
                *link = pictures->next;
                break;
            }
        }
        free_pictures(pictures);
    }
    pthread_mutex_unlock(&cache_lock);
}

int vatb_reference_pictures_from_environment(VATBReferencePictures **out) {
    *out = NULL;
    const char *path = getenv("VATB_REFERENCE_STREAM");
    if (path == NULL || *path == '\0') return 0;
    char error[512];
    *out = vatb_reference_pictures_open(path, error, sizeof(error));
    if (*out != NULL) return 0;
    fprintf(stderr, "vatb: VATB_REFERENCE_STREAM: %s\n", error);
    return -1;
}

// Copies a planar 4:2:0 frame (8-bit, or 10-bit in 16-bit words) into NV12 or P010 (10 bits in
// the high bits of each 16-bit word, as VA's P010 is).
static void copy_frame(const AVFrame *frame, bool ten_bit, const VATBPictureTarget *target) {
    unsigned int width = (unsigned int)frame->width < target->width ? (unsigned int)frame->width : target->width;
    unsigned int height = (unsigned int)frame->height < target->height ? (unsigned int)frame->height : target->height;
    for (unsigned int y = 0; y < height; y++) {
        const uint8_t *source = frame->data[0] + (ptrdiff_t)y * frame->linesize[0];
        uint8_t *row = target->data + (size_t)y * target->pitch;
        if (!ten_bit) {
            memcpy(row, source, width);
            continue;
        }
        for (unsigned int x = 0; x < width; x++) {
            uint16_t value = (uint16_t)(source[2 * x] | source[2 * x + 1] << 8) << 6;
            row[2 * x] = (uint8_t)value;
            row[2 * x + 1] = (uint8_t)(value >> 8);
        }
    }
    unsigned int chroma_width = (width + 1) / 2, chroma_height = (height + 1) / 2;
    for (unsigned int y = 0; y < chroma_height; y++) {
        const uint8_t *cb = frame->data[1] + (ptrdiff_t)y * frame->linesize[1];
        const uint8_t *cr = frame->data[2] + (ptrdiff_t)y * frame->linesize[2];
        uint8_t *row = target->data + target->chroma_offset + (size_t)y * target->pitch;
        for (unsigned int x = 0; x < chroma_width; x++) {
            if (!ten_bit) {
                row[2 * x] = cb[x];
                row[2 * x + 1] = cr[x];
                continue;
            }
            uint16_t u = (uint16_t)(cb[2 * x] | cb[2 * x + 1] << 8) << 6;
            uint16_t v = (uint16_t)(cr[2 * x] | cr[2 * x + 1] << 8) << 6;
            row[4 * x] = (uint8_t)u;
            row[4 * x + 1] = (uint8_t)(u >> 8);
            row[4 * x + 2] = (uint8_t)v;
            row[4 * x + 3] = (uint8_t)(v >> 8);
        }
    }
}

bool vatb_reference_pictures_fill(
    const VATBReferencePictures *pictures, uint64_t hash, bool film_grain, const VATBPictureTarget *target,
    VATBPictureDescription *description) {
    if (pictures == NULL || target == NULL) return false;
    size_t low = 0, high = pictures->entry_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (pictures->entries[middle].hash < hash) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    if (low == pictures->entry_count || pictures->entries[low].hash != hash || pictures->entries[low].ambiguous) {
        return false;
    }
    int index = pictures->entries[low].frame;
    const AVFrame *frame =
        !film_grain && pictures->plain_frames != NULL ? pictures->plain_frames[index] : pictures->frames[index];
    bool eight_bit = frame->format == AV_PIX_FMT_YUV420P || frame->format == AV_PIX_FMT_YUVJ420P;
    bool ten_bit = frame->format == AV_PIX_FMT_YUV420P10LE;
    if ((target->fourcc == VA_FOURCC_NV12 && !eight_bit) || (target->fourcc == VA_FOURCC_P010 && !ten_bit)
        || (!eight_bit && !ten_bit)) {
        return false;
    }
    copy_frame(frame, ten_bit, target);
    if (description != NULL) {
        description->chroma_location = (int)frame->chroma_location;
    }
    return true;
}
