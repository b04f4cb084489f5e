// The H.264 fields of a NAL unit, in the codec's folder.
extension NALUnit {
    /// The H.264 type, or nil for an HEVC unit.
    public var h264Type: H264NALUnitType? { (header as? H264NALUnitHeader)?.type }

    /// H.264 `nal_ref_idc` (0 to 3); 0 for HEVC units.
    public var nalRefIdc: UInt8 { (header as? H264NALUnitHeader)?.nalRefIdc ?? 0 }
}
