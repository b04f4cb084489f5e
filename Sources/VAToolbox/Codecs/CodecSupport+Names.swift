internal import CFFmpeg

extension CodecSupport {
    /// libavcodec's name of a profile of this codec (`avcodec_profile_name`), or the number.
    func libavcodecProfileName(_ profile: Int?) -> String {
        guard let profile else { return "unknown" }
        return avcodec_profile_name(libavcodecID, Int32(profile)).map { String(cString: $0) } ?? "\(profile)"
    }
}
