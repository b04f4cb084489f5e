#pragma once
// libdrm for Swift: device enumeration and node types.
#include <stdint.h>
#include <xf86drm.h>
#include <drm_fourcc.h>

/// `DRM_FORMAT_NV12`: 2-plane YCbCr 4:2:0, 8 bits.
static const uint32_t CDRM_FORMAT_NV12 = DRM_FORMAT_NV12;
/// `DRM_FORMAT_P010`: 2-plane YCbCr 4:2:0, 10 bits in the high bits of 16-bit words.
static const uint32_t CDRM_FORMAT_P010 = DRM_FORMAT_P010;
/// `DRM_FORMAT_R8`: one 8-bit channel (a luma or a chroma plane on its own).
static const uint32_t CDRM_FORMAT_R8 = DRM_FORMAT_R8;
/// `DRM_FORMAT_GR88`: two 8-bit channels (an interleaved CbCr plane).
static const uint32_t CDRM_FORMAT_GR88 = DRM_FORMAT_GR88;
/// `DRM_FORMAT_MOD_INVALID`: no modifier known.
static const uint64_t CDRM_FORMAT_MOD_INVALID = DRM_FORMAT_MOD_INVALID;
/// `DRM_FORMAT_MOD_LINEAR`: a linear (untiled) layout.
static const uint64_t CDRM_FORMAT_MOD_LINEAR = DRM_FORMAT_MOD_LINEAR;
