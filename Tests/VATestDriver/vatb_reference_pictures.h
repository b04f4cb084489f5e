#pragma once
// Real pixels for the test VA driver: the reference mode (Docs/TestVADriver.md, "Real pixels").
//
// Given the stream a client is about to decode (VATB_REFERENCE_STREAM), the driver decodes it once
// on the CPU with libavcodec and keeps every output picture under the hash of the slice data that
// makes it, the same FNV-1a 64 hash the stamp carries. At vaEndPicture the render target then gets
// the picture whose hash equals the one of the slice data it was given: what a GPU would have
// decoded, byte for byte.

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// The decoded pictures of one stream, by slice-data hash. Shared process-wide per path.
typedef struct VATBReferencePictures VATBReferencePictures;

/// Where a picture goes: an NV12 or P010 surface's memory (VA fourccs), luma then interleaved CbCr.
typedef struct VATBPictureTarget {
    uint8_t *data;
    uint32_t fourcc;
    unsigned int width, height;
    uint32_t pitch;
    uint32_t chroma_offset;
} VATBPictureTarget;

/// Decodes the stream at `path` (or takes the already decoded one of that path) and returns its
/// pictures, or NULL with a message in `error` when the file cannot be read or decoded, or its
/// codec has no hash rule here.
VATBReferencePictures *vatb_reference_pictures_open(const char *path, char *error, size_t error_size);

/// Releases what `vatb_reference_pictures_open` returned (NULL is ignored).
void vatb_reference_pictures_close(VATBReferencePictures *pictures);

/// The key of an AV1 picture: its tile-data hash mixed with its order_hint (see the AV1 walk in
/// vatb_reference_pictures.c); other codecs' pictures are keyed by their slice-data hash alone.
static inline uint64_t vatb_reference_av1_key(uint64_t tile_hash, unsigned int order_hint) {
    return (tile_hash ^ order_hint) * 0x100000001b3ull;
}

/// What the decoder says of a picture's samples that video processing checks: where chroma sits
/// (libavutil's `AVChromaLocation`).
typedef struct VATBPictureDescription {
    int chroma_location;
} VATBPictureDescription;

/// Copies the picture made by the slice data that hashes to `hash` (an AV1 picture's key: see
/// vatb_reference_av1_key) into `target`: the visible area of the picture as libavcodec decoded
/// it, before cropping; for AV1 with film grain, with the grain applied when `film_grain` (the
/// display surface) and without it otherwise (the render target, kept for reference). Returns
/// false, leaving `target` untouched, when no picture has that hash or its format does not fit
/// the target. `description`, when not NULL, gets what the decoder says of the picture's samples.
bool vatb_reference_pictures_fill(
    const VATBReferencePictures *pictures, uint64_t hash, bool film_grain, const VATBPictureTarget *target,
    VATBPictureDescription *description);

/// The driver's init hook: opens the pictures of `VATB_REFERENCE_STREAM` into `*out` (NULL when
/// the variable is unset or empty: stamp mode) and returns 0, or prints why it cannot to stderr
/// and returns -1 (the driver then fails vaInitialize rather than decode stamps silently).
int vatb_reference_pictures_from_environment(VATBReferencePictures **out);
