#pragma once
// libva and its DRM back end for Swift.
#include <va/va.h>
#include <va/va_drm.h>
#include <va/va_drmcommon.h>

/// `VA_STATUS_SUCCESS` as a typed constant.
static const VAStatus CVAAPI_STATUS_SUCCESS = VA_STATUS_SUCCESS;
/// `VA_INVALID_ID`: the id of no surface, buffer, context or config.
static const VAGenericID CVAAPI_INVALID_ID = VA_INVALID_ID;
/// `VA_MAJOR_VERSION` of the headers the package is built against.
static const int CVAAPI_MAJOR_VERSION = VA_MAJOR_VERSION;
/// `VA_MINOR_VERSION` of the headers.
static const int CVAAPI_MINOR_VERSION = VA_MINOR_VERSION;
/// `VA_MICRO_VERSION` of the headers.
static const int CVAAPI_MICRO_VERSION = VA_MICRO_VERSION;
