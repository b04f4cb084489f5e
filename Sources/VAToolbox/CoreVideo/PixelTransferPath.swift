/// Where a session or a ``PixelTransferSession`` converted its last picture.
public enum PixelTransferPath: Sendable, Equatable, CustomStringConvertible {
    /// On the GPU, through the driver's video processing (VA-API `VAEntrypointVideoProc`): the
    /// converted picture is a GPU surface too, read back only when it is locked.
    case gpu
    /// On the CPU with libswscale. `reason` says why a GPU surface was not converted on the GPU;
    /// nil for a picture in CPU memory.
    case cpu(reason: String?)

    /// `"on the GPU (VA-API video processing)"` or `"libswscale on the CPU — reason"`.
    public var description: String {
        switch self {
        case .gpu: "on the GPU (VA-API video processing)"
        case .cpu(let reason?): "libswscale on the CPU — \(reason)"
        case .cpu(nil): "libswscale on the CPU"
        }
    }
}
