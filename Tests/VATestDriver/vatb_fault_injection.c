// Fault injection at every entry point: see vatb_fault_injection.h and Docs/TestVADriver.md.
#include "vatb_fault_injection.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// The entry points that can fail, in the driver's spelling (`vaCreateSurfaces` reaches
// CreateSurfaces2, `vaSyncSurface2` reaches SyncSurface), with the status a real driver returns
// there when nothing else is asked: allocations fail with ALLOCATION_FAILED (iHD's
// DdiMedia_CreateSurfaces2, Mesa's vlVaCreateBuffer), a sync with HW_BUSY (iHD's
// DdiMedia_SyncSurface on an incomplete batch), the rest with OPERATION_FAILED.
static const struct {
    const char *name;
    VAStatus status;
} entries[] = {
    {"QueryConfigProfiles", VA_STATUS_ERROR_OPERATION_FAILED},
    {"QueryConfigEntrypoints", VA_STATUS_ERROR_OPERATION_FAILED},
    {"GetConfigAttributes", VA_STATUS_ERROR_OPERATION_FAILED},
    {"CreateConfig", VA_STATUS_ERROR_ALLOCATION_FAILED},
    {"QueryConfigAttributes", VA_STATUS_ERROR_OPERATION_FAILED},
    {"QuerySurfaceAttributes", VA_STATUS_ERROR_OPERATION_FAILED},
    {"CreateSurfaces2", VA_STATUS_ERROR_ALLOCATION_FAILED},
    {"CreateContext", VA_STATUS_ERROR_ALLOCATION_FAILED},
    {"CreateBuffer", VA_STATUS_ERROR_ALLOCATION_FAILED},
    {"BufferSetNumElements", VA_STATUS_ERROR_OPERATION_FAILED},
    {"MapBuffer", VA_STATUS_ERROR_ALLOCATION_FAILED},
    {"UnmapBuffer", VA_STATUS_ERROR_OPERATION_FAILED},
    {"BufferInfo", VA_STATUS_ERROR_OPERATION_FAILED},
    {"BeginPicture", VA_STATUS_ERROR_OPERATION_FAILED},
    {"RenderPicture", VA_STATUS_ERROR_OPERATION_FAILED},
    {"EndPicture", VA_STATUS_ERROR_OPERATION_FAILED},
    {"SyncSurface", VA_STATUS_ERROR_HW_BUSY},
    {"QuerySurfaceStatus", VA_STATUS_ERROR_OPERATION_FAILED},
    {"QueryImageFormats", VA_STATUS_ERROR_OPERATION_FAILED},
    {"CreateImage", VA_STATUS_ERROR_ALLOCATION_FAILED},
    {"DeriveImage", VA_STATUS_ERROR_ALLOCATION_FAILED},
    {"GetImage", VA_STATUS_ERROR_OPERATION_FAILED},
    {"PutImage", VA_STATUS_ERROR_OPERATION_FAILED},
    {"ExportSurfaceHandle", VA_STATUS_ERROR_OPERATION_FAILED},
    {"QueryVideoProcFilters", VA_STATUS_ERROR_OPERATION_FAILED},
    {"QueryVideoProcFilterCaps", VA_STATUS_ERROR_OPERATION_FAILED},
    {"QueryVideoProcPipelineCaps", VA_STATUS_ERROR_OPERATION_FAILED},
};
enum { ENTRY_COUNT = sizeof(entries) / sizeof(entries[0]) };

// The statuses VATB_FAIL_CALL takes by name (with or without "VA_STATUS_ERROR_").
static const struct {
    const char *name;
    VAStatus status;
} statuses[] = {
    {"OPERATION_FAILED", VA_STATUS_ERROR_OPERATION_FAILED},
    {"ALLOCATION_FAILED", VA_STATUS_ERROR_ALLOCATION_FAILED},
    {"INVALID_DISPLAY", VA_STATUS_ERROR_INVALID_DISPLAY},
    {"INVALID_CONFIG", VA_STATUS_ERROR_INVALID_CONFIG},
    {"INVALID_CONTEXT", VA_STATUS_ERROR_INVALID_CONTEXT},
    {"INVALID_SURFACE", VA_STATUS_ERROR_INVALID_SURFACE},
    {"INVALID_BUFFER", VA_STATUS_ERROR_INVALID_BUFFER},
    {"INVALID_IMAGE", VA_STATUS_ERROR_INVALID_IMAGE},
    {"MAX_NUM_EXCEEDED", VA_STATUS_ERROR_MAX_NUM_EXCEEDED},
    {"UNSUPPORTED_PROFILE", VA_STATUS_ERROR_UNSUPPORTED_PROFILE},
    {"UNSUPPORTED_ENTRYPOINT", VA_STATUS_ERROR_UNSUPPORTED_ENTRYPOINT},
    {"UNSUPPORTED_RT_FORMAT", VA_STATUS_ERROR_UNSUPPORTED_RT_FORMAT},
    {"UNSUPPORTED_BUFFERTYPE", VA_STATUS_ERROR_UNSUPPORTED_BUFFERTYPE},
    {"SURFACE_BUSY", VA_STATUS_ERROR_SURFACE_BUSY},
    {"INVALID_PARAMETER", VA_STATUS_ERROR_INVALID_PARAMETER},
    {"RESOLUTION_NOT_SUPPORTED", VA_STATUS_ERROR_RESOLUTION_NOT_SUPPORTED},
    {"UNIMPLEMENTED", VA_STATUS_ERROR_UNIMPLEMENTED},
    {"INVALID_IMAGE_FORMAT", VA_STATUS_ERROR_INVALID_IMAGE_FORMAT},
    {"DECODING_ERROR", VA_STATUS_ERROR_DECODING_ERROR},
    {"INVALID_VALUE", VA_STATUS_ERROR_INVALID_VALUE},
    {"HW_BUSY", VA_STATUS_ERROR_HW_BUSY},
    {"UNSUPPORTED_MEMORY_TYPE", VA_STATUS_ERROR_UNSUPPORTED_MEMORY_TYPE},
    {"NOT_ENOUGH_BUFFER", VA_STATUS_ERROR_NOT_ENOUGH_BUFFER},
    {"TIMEDOUT", VA_STATUS_ERROR_TIMEDOUT},
    {"UNKNOWN", VA_STATUS_ERROR_UNKNOWN},
};

static atomic_ulong calls[ENTRY_COUNT];

static struct {
    int entry; // -1: none
    unsigned long call;
    VAStatus status;
    bool use_default_status;
    bool random;
    uint64_t state;
    double probability;
    pthread_mutex_t lock;
    int hang_entry; // -1: none
    unsigned long hang_call;
    long hang_ms; // < 0: forever
} plan = {.entry = -1, .lock = PTHREAD_MUTEX_INITIALIZER, .hang_entry = -1};
static pthread_once_t parsed = PTHREAD_ONCE_INIT;

static int entry_index(const char *name, size_t length) {
    if (length > 2 && strncmp(name, "va", 2) == 0) {
        name += 2;
        length -= 2;
    }
    for (int i = 0; i < ENTRY_COUNT; i++) {
        if (strlen(entries[i].name) == length && strncmp(entries[i].name, name, length) == 0) return i;
    }
    return -1;
}

static bool status_named(const char *name, VAStatus *status) {
    if (strncmp(name, "VA_STATUS_ERROR_", 16) == 0) name += 16;
    for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
        if (strcmp(statuses[i].name, name) == 0) {
            *status = statuses[i].status;
            return true;
        }
    }
    return false;
}

static void parse(void) {
    const char *call = getenv("VATB_FAIL_CALL");
    if (call != NULL && *call != '\0') {
        const char *colon = strchr(call, ':');
        int entry = colon != NULL ? entry_index(call, (size_t)(colon - call)) : -1;
        char *end = NULL;
        unsigned long n = colon != NULL ? strtoul(colon + 1, &end, 10) : 0;
        VAStatus status = 0;
        bool named = end != NULL && *end == ':' && status_named(end + 1, &status);
        if (entry < 0 || n == 0 || (end != NULL && *end == ':' && !named)) {
            fprintf(stderr, "vatb: VATB_FAIL_CALL=%s is not ENTRY:N[:STATUS]; nothing is failed\n", call);
        } else {
            plan.entry = entry;
            plan.call = n;
            plan.status = named ? status : entries[entry].status;
        }
    }
    const char *hang = getenv("VATB_HANG");
    if (hang != NULL && *hang != '\0') {
        const char *colon = strchr(hang, ':');
        int entry = colon != NULL ? entry_index(hang, (size_t)(colon - hang)) : -1;
        char *end = NULL;
        unsigned long n = colon != NULL ? strtoul(colon + 1, &end, 10) : 0;
        long ms = -1;
        bool valid = entry >= 0 && n > 0 && end != NULL && (*end == '\0' || *end == ':');
        if (valid && *end == ':') {
            char *last = NULL;
            ms = strtol(end + 1, &last, 10);
            valid = last != end + 1 && *last == '\0' && ms >= 0;
        }
        if (!valid) {
            fprintf(stderr, "vatb: VATB_HANG=%s is not ENTRY:N[:MS]; nothing hangs\n", hang);
        } else {
            plan.hang_entry = entry;
            plan.hang_call = n;
            plan.hang_ms = ms;
        }
    }
    const char *random = getenv("VATB_FAIL_RANDOM");
    if (random != NULL && *random != '\0') {
        char *end = NULL;
        unsigned long long seed = strtoull(random, &end, 10);
        if (end != NULL && *end == ':') {
            plan.random = true;
            plan.state = seed * 2654435761ull + 0x9E3779B97F4A7C15ull;
            plan.probability = strtod(end + 1, NULL);
        } else {
            fprintf(stderr, "vatb: VATB_FAIL_RANDOM=%s is not SEED:P; nothing is failed\n", random);
        }
    }
}

// xorshift64*: a reproducible sequence for a seed (calls from several threads take turns).
static double next_uniform(void) {
    pthread_mutex_lock(&plan.lock);
    plan.state ^= plan.state >> 12;
    plan.state ^= plan.state << 25;
    plan.state ^= plan.state >> 27;
    uint64_t value = plan.state * 2685821657736338717ull;
    pthread_mutex_unlock(&plan.lock);
    return (double)(value >> 11) / (double)(1ull << 53);
}

// Blocks the calling thread as a hung GPU engine blocks a real driver's call: for `ms`
// milliseconds, or for ever when `ms` is negative. No lock is held (VATB_INJECT comes first).
static void hang_for(long ms, const char *entry, unsigned long n) {
    if (ms < 0) {
        fprintf(stderr, "vatb: hanging call %lu of %s for ever\n", n, entry);
        for (;;) sleep(3600);
    }
    fprintf(stderr, "vatb: hanging call %lu of %s for %ld ms\n", n, entry, ms);
    struct timespec left = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&left, &left) != 0) {
    }
}

bool vatb_inject(const char *entry, VAStatus *status) {
    pthread_once(&parsed, parse);
    int index = entry_index(entry, strlen(entry));
    if (index < 0) return false;
    unsigned long n = atomic_fetch_add(&calls[index], 1) + 1;
    if (plan.hang_entry == index && plan.hang_call == n) hang_for(plan.hang_ms, entry, n);
    if (plan.entry == index && plan.call == n) {
        *status = plan.status;
        fprintf(stderr, "vatb: failing call %lu of %s with status 0x%x\n", n, entry, (unsigned int)plan.status);
        return true;
    }
    if (plan.random && next_uniform() < plan.probability) {
        *status = entries[index].status;
        return true;
    }
    return false;
}

void vatb_report_calls(void) {
    fprintf(stderr, "vatb: calls");
    for (int i = 0; i < ENTRY_COUNT; i++) {
        unsigned long n = atomic_load(&calls[i]);
        if (n > 0) fprintf(stderr, " %s=%lu", entries[i].name, n);
    }
    fprintf(stderr, "\n");
}
