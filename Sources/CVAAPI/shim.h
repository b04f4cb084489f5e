#pragma once
// libva and its DRM back end for Swift.
#include <va/va.h>
#include <va/va_drm.h>
#include <va/va_drmcommon.h>

/// `VA_STATUS_SUCCESS` as a typed constant.
static const VAStatus CVAAPI_STATUS_SUCCESS = VA_STATUS_SUCCESS;
/// `VA_INVALID_ID`: the id of no surface, buffer, context or config.
static const VAGenericID CVAAPI_INVALID_ID = VA_INVALID_ID;
