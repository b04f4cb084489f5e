extension LibavcodecVersion {
    /// Whether this libavcodec has a fault a codec's support names: the predicate each fault is
    /// keyed on, where the evidence for its version range is written.
    func has(_ fault: LibavcodecFault) -> Bool {
        switch fault {
        case .vp8KeepsSurfacesOnLargerKeyFrames: keepsVP8SurfacesOnLargerKeyFrames
        case .av1KeepsSurfacesOnNewSequences: keepsAV1SurfacesOnNewSequences
        case .hevcMisdecodesProfilesBeyondRangeExtensions: misdecodesHEVCProfilesBeyondRangeExtensions
        }
    }
}
