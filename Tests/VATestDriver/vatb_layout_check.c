// A compile-time check that CFFmpeg's mirrors of AVVAAPIDeviceContext and AVVAAPIFramesContext
// (Sources/CFFmpeg/shim.h) have FFmpeg's layout. CFFmpeg cannot include
// libavutil/hwcontext_vaapi.h (a header included by two Clang modules hides its enum constants
// from Swift, Docs/Architecture.md), and Swift has no static assertion over C layouts; this C
// file, built with the test driver on every `swift build`, includes both and fails the build if
// they ever differ.
#include <stddef.h>

#include <libavutil/hwcontext_vaapi.h>

#include "../../Sources/CFFmpeg/shim.h"

_Static_assert(
    sizeof(CFFmpeg_VAAPIDeviceContext) == sizeof(AVVAAPIDeviceContext),
    "CFFmpeg_VAAPIDeviceContext must be as large as FFmpeg's AVVAAPIDeviceContext");
_Static_assert(
    offsetof(CFFmpeg_VAAPIDeviceContext, display) == offsetof(AVVAAPIDeviceContext, display),
    "CFFmpeg_VAAPIDeviceContext.display must sit where FFmpeg's does");
_Static_assert(
    offsetof(CFFmpeg_VAAPIDeviceContext, driver_quirks) == offsetof(AVVAAPIDeviceContext, driver_quirks),
    "CFFmpeg_VAAPIDeviceContext.driver_quirks must sit where FFmpeg's does");
_Static_assert(
    sizeof(CFFmpeg_VAAPIFramesContext) == sizeof(AVVAAPIFramesContext),
    "CFFmpeg_VAAPIFramesContext must be as large as FFmpeg's AVVAAPIFramesContext");
_Static_assert(
    offsetof(CFFmpeg_VAAPIFramesContext, surface_ids) == offsetof(AVVAAPIFramesContext, surface_ids),
    "CFFmpeg_VAAPIFramesContext.surface_ids must sit where FFmpeg's does");
_Static_assert(
    offsetof(CFFmpeg_VAAPIFramesContext, nb_surfaces) == offsetof(AVVAAPIFramesContext, nb_surfaces),
    "CFFmpeg_VAAPIFramesContext.nb_surfaces must sit where FFmpeg's does");
