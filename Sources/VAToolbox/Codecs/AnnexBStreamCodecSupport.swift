/// A codec whose raw streams are Annex B byte streams (H.264, HEVC): what tells one of its raw
/// streams by its file name, or by the first NAL units of its bytes.
protocol AnnexBStreamCodecSupport: CodecSupport {
    /// The file name extensions of the codec's raw streams, lower case with the dot (`".264"`).
    var annexBFileExtensions: [String] { get }
    /// Whether a NAL unit (its header first, at least two bytes) is one a stream of this codec
    /// opens with: a parameter set or an access unit delimiter under the codec's header layout.
    func opensAnnexBStream(_ nalUnit: ArraySlice<UInt8>) -> Bool
}

/// Tells the codec of a raw Annex B stream, from its file name or its first bytes, by asking
/// each ``AnnexBStreamCodecSupport`` of the ``CodecRegistry``.
enum AnnexBStreamRecognition {
    /// The codecs whose raw streams are Annex B, in registry order.
    static var codecs: [any AnnexBStreamCodecSupport] {
        CodecRegistry.all.compactMap { $0 as? any AnnexBStreamCodecSupport }
    }

    /// The codec whose raw streams a file name's extension names (`clip.265`: HEVC); nil for a
    /// name no Annex B codec claims.
    static func codec(forFileName name: String) -> VideoCodecType? {
        let lower = name.lowercased()
        return codecs.first { $0.annexBFileExtensions.contains(where: lower.hasSuffix) }?.codecType
    }

    /// The codec of a raw Annex B stream: by its file name's extension first; otherwise by the
    /// first of its first 8 NAL units that exactly one codec opens a stream with; otherwise the
    /// registry's first Annex B codec (H.264).
    ///
    /// - Parameters:
    ///   - name: The file name, or nil (standard input).
    ///   - bytes: The stream's first bytes.
    static func codec(forFileName name: String?, bytes: [UInt8]) -> VideoCodecType {
        if let name, let codec = codec(forFileName: name) { return codec }
        let codecs = codecs
        for unit in AnnexB.split(bytes).prefix(8) where unit.count >= 2 {
            let claiming = codecs.filter { $0.opensAnnexBStream(unit) }
            if claiming.count == 1 { return claiming[0].codecType }
        }
        return codecs.first?.codecType ?? .h264
    }
}
