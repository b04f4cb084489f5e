// The DRM node shim. libva 2.17's vaGetDisplayDRM accepts only an fd that libdrm's
// drmGetNodeTypeFromFd calls a render node; machines without a GPU have none. This definition
// wins over libdrm's when it is in the executable's dynamic symbol table (a SwiftPM test binary)
// or preloaded (LD_PRELOAD=libvatbdrmshim.so): for /dev/null it answers DRM_NODE_RENDER, for
// every other fd it forwards to the next definition, libdrm's.
#define _GNU_SOURCE 1

#include "vatb_drm_shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

// libdrm's xf86drm.h: DRM_NODE_PRIMARY 0, DRM_NODE_CONTROL 1, DRM_NODE_RENDER 2.
#define VATB_DRM_NODE_RENDER 2

int drmGetNodeTypeFromFd(int fd);

int vatb_drm_shim_installed(void) { return 1; }

int drmGetNodeTypeFromFd(int fd) {
    struct stat info;
    if (fstat(fd, &info) == 0 && S_ISCHR(info.st_mode) && major(info.st_rdev) == 1 && minor(info.st_rdev) == 3) {
        return VATB_DRM_NODE_RENDER;
    }
    void *symbol = dlsym(RTLD_NEXT, "drmGetNodeTypeFromFd");
    if (symbol == NULL) {
        errno = ENOSYS;
        return -1;
    }
    int (*next)(int);
    memcpy(&next, &symbol, sizeof(next)); // POSIX: a data pointer from dlsym holds a function's address
    return next(fd);
}
