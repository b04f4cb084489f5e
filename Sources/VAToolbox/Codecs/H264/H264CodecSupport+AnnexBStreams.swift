extension H264CodecSupport: AnnexBStreamCodecSupport {
    /// The extensions ffmpeg's `h264` demuxer claims, and the JVT conformance suite's.
    var annexBFileExtensions: [String] { [".264", ".h264", ".avc", ".jsv", ".26l", ".jvt"] }

    /// A sequence or picture parameter set, or an access unit delimiter (`nal_unit_type` 7, 8, 9
    /// in the low 5 bits of the one-byte header, 7.3.1).
    func opensAnnexBStream(_ nalUnit: ArraySlice<UInt8>) -> Bool {
        guard let first = nalUnit.first else { return false }
        let type = H264NALUnitType(rawValue: first)
        return type == .sequenceParameterSet || type == .pictureParameterSet || type == .accessUnitDelimiter
    }
}
