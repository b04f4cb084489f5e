#pragma once
// The VAToolbox test VA driver (libvatbtest_drv_video.so): a libva back end without a GPU that
// "decodes" by stamping each picture's identity into its surface. See Docs/TestVADriver.md.

/// Process-wide counts of what the driver's clients created and have not destroyed.
///
/// `drivers` is driver inits minus terminates. `configs` … `images` go up on each create call and
/// down only on the matching explicit destroy call (vaDestroyConfig/Context/Surfaces/Buffer/Image),
/// never when vaTerminate frees leftovers, so a caller that leaks objects and relies on terminate
/// shows up as a count that stays raised. `end_pictures` and `failed_end_pictures` count
/// vaEndPicture calls that succeeded and that failed; `syncs` counts vaSyncSurface calls.
typedef struct VATBLiveObjects {
    long drivers, configs, contexts, surfaces, buffers, images;
    long end_pictures, failed_end_pictures, syncs;
} VATBLiveObjects;

/// Copies the process-wide totals (all driver instances) into `out`.
void vatb_test_driver_live_objects(VATBLiveObjects *out);
