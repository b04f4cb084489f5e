// The rest of CMBlockBuffer.h that readers of sample data use: buffers over ranges of others,
// contiguous copies, reading a range through a temporary block, and filling.

/// A block buffer over a range of another, by reference — `CMBlockBufferCreateWithBufferReference`.
///
/// - Returns: `kCMBlockBufferNoErr`, or `kCMBlockBufferBadOffsetParameterErr` for a range outside
///   the referenced buffer's data.
@discardableResult
public func CMBlockBufferCreateWithBufferReference(
    allocator structureAllocator: CFAllocator?, referenceBuffer bufferReference: CMBlockBuffer, offsetToData: Int,
    dataLength: Int, flags: CMBlockBufferFlags, blockBufferOut: UnsafeMutablePointer<CMBlockBuffer?>
) -> OSStatus {
    let buffer = CMBlockBuffer()
    let status = CMBlockBufferAppendBufferReference(
        buffer, targetBBuf: bufferReference, offsetToData: offsetToData, dataLength: dataLength, flags: flags)
    guard status == kCMBlockBufferNoErr else { return status }
    blockBufferOut.pointee = buffer
    return kCMBlockBufferNoErr
}

/// A block buffer whose data, a range of `sourceBuffer` (to its end when `dataLength` is 0), is
/// one contiguous block: a reference when the range is contiguous already (unless
/// `kCMBlockBufferAlwaysCopyDataFlag`), else a copy — `CMBlockBufferCreateContiguous`.
///
/// - Parameter customBlockSource: Must be nil (custom block sources are not supported).
/// - Returns: `kCMBlockBufferNoErr`; `kCMBlockBufferBadOffsetParameterErr` for a range outside the
///   source's data; `kCMBlockBufferBlockAllocationFailedErr` when memory runs out.
@discardableResult
public func CMBlockBufferCreateContiguous(
    allocator structureAllocator: CFAllocator?, sourceBuffer: CMBlockBuffer, blockAllocator: CFAllocator?,
    customBlockSource: UnsafeRawPointer?, offsetToData: Int, dataLength: Int, flags: CMBlockBufferFlags,
    blockBufferOut: UnsafeMutablePointer<CMBlockBuffer?>
) -> OSStatus {
    guard customBlockSource == nil else { return kCMBlockBufferBadCustomBlockSourceErr }
    let length = dataLength == 0 ? sourceBuffer.dataLength - offsetToData : dataLength
    guard offsetToData >= 0, length >= 0, offsetToData + length <= sourceBuffer.dataLength else {
        return kCMBlockBufferBadOffsetParameterErr
    }
    if flags & kCMBlockBufferAlwaysCopyDataFlag == 0,
        CMBlockBufferIsRangeContiguous(sourceBuffer, atOffset: offsetToData, length: length)
    {
        return CMBlockBufferCreateWithBufferReference(
            allocator: structureAllocator, referenceBuffer: sourceBuffer, offsetToData: offsetToData,
            dataLength: length, flags: flags, blockBufferOut: blockBufferOut)
    }
    guard let block = malloc(max(1, length)) else { return kCMBlockBufferBlockAllocationFailedErr }
    let status = CMBlockBufferCopyDataBytes(
        sourceBuffer, atOffset: offsetToData, dataLength: length, destination: block)
    guard status == kCMBlockBufferNoErr else {
        free(block)
        return status
    }
    let buffer = CMBlockBuffer()
    buffer.pieces = [
        CMBlockBuffer.Piece(block: block, blockLength: length, offset: 0, length: length, owned: true, referenced: nil)
    ]
    blockBufferOut.pointee = buffer
    return kCMBlockBufferNoErr
}

/// A pointer to `length` bytes at `offset`: into the buffer when they are contiguous there, else
/// into `temporaryBlock`, where they are copied — `CMBlockBufferAccessDataBytes`.
///
/// - Returns: `kCMBlockBufferNoErr`, or `kCMBlockBufferBadOffsetParameterErr` for a range outside
///   the buffer's data.
@discardableResult
public func CMBlockBufferAccessDataBytes(
    _ theBuffer: CMBlockBuffer, atOffset offset: Int, length: Int, temporaryBlock: UnsafeMutableRawPointer,
    returnedPointerOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
) -> OSStatus {
    guard offset >= 0, length >= 0, offset + length <= theBuffer.dataLength else {
        return kCMBlockBufferBadOffsetParameterErr
    }
    var contiguous = 0
    var pointer: UnsafeMutablePointer<CChar>?
    if length > 0,
        CMBlockBufferGetDataPointer(
            theBuffer, atOffset: offset, lengthAtOffsetOut: &contiguous, totalLengthOut: nil, dataPointerOut: &pointer)
            == kCMBlockBufferNoErr, contiguous >= length
    {
        returnedPointerOut.pointee = pointer
        return kCMBlockBufferNoErr
    }
    let status = CMBlockBufferCopyDataBytes(
        theBuffer, atOffset: offset, dataLength: length, destination: temporaryBlock)
    guard status == kCMBlockBufferNoErr else { return status }
    returnedPointerOut.pointee = temporaryBlock.assumingMemoryBound(to: CChar.self)
    return kCMBlockBufferNoErr
}

/// Sets `dataLength` bytes from `offsetIntoDestination` to `fillByte` — `CMBlockBufferFillDataBytes`.
///
/// - Returns: `kCMBlockBufferNoErr`, or `kCMBlockBufferBadOffsetParameterErr` for a range outside
///   the buffer's data.
@discardableResult
public func CMBlockBufferFillDataBytes(
    with fillByte: CChar, blockBuffer destinationBuffer: CMBlockBuffer, offsetIntoDestination: Int, dataLength: Int
) -> OSStatus {
    destinationBuffer.visit(offsetIntoDestination, dataLength) { target in
        target.initializeMemory(as: CChar.self, repeating: fillByte)
    }
}
