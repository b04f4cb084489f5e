#pragma once
// The DRM node shim: a `drmGetNodeTypeFromFd` that calls /dev/null a render node, so that libva's
// `vaGetDisplayDRM` accepts it and the test VA driver can run without /dev/dri.
// See Docs/TestVADriver.md.

/// Returns 1. Calling it from Swift keeps the shim's object file in the test executable.
int vatb_drm_shim_installed(void);
