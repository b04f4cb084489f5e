#if canImport(Glibc)
    import Glibc
#endif

/// Where VAToolbox steps in when libva loads a driver: the driver for Intel's `xe` kernel
/// driver, the nvidia driver's back end, and the hint when no driver loads.
enum DriverLoading {
    /// The VA driver to load instead of libva's own choice, or nil to leave it to libva.
    ///
    /// libva before 2.21 maps the `i915` kernel driver to iHD (then i965) but does not know
    /// Intel's newer `xe` kernel driver, so on such a machine it finds no driver; its render
    /// nodes are decoded by iHD. `LIBVA_DRIVER_NAME` set by the caller always wins.
    static func driverName(kernelDriver: String?, libvaDriverName: String?) -> String? {
        guard libvaDriverName?.isEmpty ?? true else { return nil }
        return kernelDriver == "xe" ? "iHD" : nil
    }

    /// Whether the node will be decoded by nvidia-vaapi-driver: the proprietary kernel driver
    /// (`nvidia-drm`), or the caller named the VA driver `nvidia`.
    static func isNVIDIA(kernelDriver: String?, libvaDriverName: String?) -> Bool {
        if let libvaDriverName, !libvaDriverName.isEmpty { return libvaDriverName == "nvidia" }
        return kernelDriver == "nvidia-drm" || kernelDriver == "nvidia"
    }

    /// Whether a vendor string is nvidia-vaapi-driver's on its EGL back end
    /// (`"VA-API NVDEC driver [egl backend]"`, set in its `__vaDriverInit`).
    static func isNVIDIAEGLBackend(vendor: String) -> Bool {
        vendor.hasPrefix("VA-API NVDEC driver") && vendor.contains("[egl backend]")
    }

    /// Sets `NVD_BACKEND=direct` unless the caller set it. nvidia-vaapi-driver reads it when it
    /// loads; its EGL back end does not work on current NVIDIA drivers (its README asks for the
    /// direct one). The process environment is shared: `setenv` here runs while a device is
    /// being opened, under the lock that serialises opening devices, and never overwrites.
    static func defaultNVIDIABackend() {
        setenv("NVD_BACKEND", "direct", 0)
    }

    /// What to install when no VA driver loads for a node.
    static func installHint(kernelDriver: String?) -> String {
        if kernelDriver == "xe" {
            return "this GPU runs Intel's xe kernel driver: it needs intel-media-va-driver (iHD) and libva 2.21 or "
                + "later, which maps xe to iHD (VAToolbox asks for iHD itself); LIBVA_DRIVER_NAME=iHD selects it"
        }
        return "install the driver for the GPU: intel-media-va-driver (Intel Broadwell and newer), "
            + "i965-va-driver (older Intel), mesa-va-drivers (AMD) or nvidia-vaapi-driver (NVIDIA); "
            + "LIBVA_DRIVER_NAME selects one"
    }
}
