/// Whether some render node of this machine decodes `codec` on the GPU —
/// `VTIsHardwareDecodeSupported`.
///
/// Looks at `VATOOLBOX_RENDER_NODE` when it is set, else at every render node; a node this process
/// cannot open, or whose VA driver does not load, does not count.
public func isHardwareDecodeSupported(_ codec: VideoCodecType) -> Bool {
    let paths = DecoderSelection.environment("VATOOLBOX_RENDER_NODE").map { [$0] } ?? RenderNode.all().map(\.path)
    return paths.contains { path in
        (try? VADevice.open(path: path).capabilities.decodes(codec)) ?? false
    }
}

/// The render node a session would decode `format` on, or why none can: the same choice, and the
/// same reasons, as ``DecompressionSession`` with hardware acceleration preferred.
///
/// Checks the profile, bit depth, chroma format and size against each driver's capabilities and
/// has the driver set up a decoder (`vaCreateConfig`, `vaCreateContext`), without decoding.
///
/// - Parameters:
///   - format: The stream.
///   - renderNodePath: A node to check alone; nil checks `VATOOLBOX_RENDER_NODE` or every node.
/// - Returns: The node, or ``VTError/couldNotFindVideoDecoder`` naming each node's problem.
public func hardwareDecodeSupport(
    for format: VideoFormatDescription, renderNodePath: String? = nil
) -> Result<RenderNode, VTError> {
    let path = renderNodePath ?? DecoderSelection.environment("VATOOLBOX_RENDER_NODE")
    return DecoderSelection.usableDevice(for: format, renderNodePath: path) { device, _ in device.renderNode }
}
