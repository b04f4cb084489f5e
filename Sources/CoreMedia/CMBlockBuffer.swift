internal import VAToolbox

/// A run of bytes made of memory blocks — `CMBlockBuffer`.
///
/// Each piece is memory the caller lends (block allocator `kCFAllocatorNull`: never freed), memory
/// the buffer took over (`nil` or `kCFAllocatorDefault` with a memory block: freed with `free`, as
/// Core Media's default allocator does), memory it allocated itself (a `nil` memory block), or a
/// range of another block buffer. Decoding copies the bytes out when the frame is submitted, so
/// the memory need only live until `VTDecompressionSessionDecodeFrame` returns.
public final class CMBlockBuffer {
    /// One piece of the buffer.
    struct Piece {
        /// The first byte of the piece's block, nil while a block to allocate is not yet allocated.
        var block: UnsafeMutableRawPointer?
        /// The block's length.
        var blockLength: Int
        /// Where the piece's data starts in the block.
        var offset: Int
        /// The data's length.
        var length: Int
        /// Whether the buffer frees the block.
        var owned: Bool
        /// A buffer whose range this piece is (kept alive with it).
        var referenced: CMBlockBuffer?
    }

    var pieces: [Piece] = []

    init() {}

    deinit {
        for piece in pieces where piece.owned { free(piece.block) }
    }

    /// The data length.
    var dataLength: Int { pieces.reduce(0) { $0 + $1.length } }

    /// Allocates the blocks still to allocate.
    func assureMemory() -> OSStatus {
        for index in pieces.indices where pieces[index].block == nil {
            guard let block = malloc(max(1, pieces[index].blockLength)) else {
                return kCMBlockBufferBlockAllocationFailedErr
            }
            pieces[index].block = block
        }
        return kCMBlockBufferNoErr
    }

    /// Visits the bytes of `offset..<offset+length`, piece by piece.
    func visit(_ offset: Int, _ length: Int, _ body: (UnsafeMutableRawBufferPointer) -> Void) -> OSStatus {
        guard offset >= 0, length >= 0, offset + length <= dataLength else {
            return kCMBlockBufferBadOffsetParameterErr
        }
        guard assureMemory() == kCMBlockBufferNoErr else { return kCMBlockBufferBlockAllocationFailedErr }
        var skip = offset
        var left = length
        for piece in pieces where left > 0 {
            if skip >= piece.length {
                skip -= piece.length
                continue
            }
            guard let block = piece.block else { return kCMBlockBufferUnallocatedBlockErr }
            let count = min(left, piece.length - skip)
            body(UnsafeMutableRawBufferPointer(start: block + piece.offset + skip, count: count))
            left -= count
            skip = 0
        }
        return kCMBlockBufferNoErr
    }

    /// The bytes, copied.
    var bytes: [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(dataLength)
        _ = visit(0, dataLength) { result.append(contentsOf: $0) }
        return result
    }
}

/// Block buffer flags — `CMBlockBufferFlags`.
public typealias CMBlockBufferFlags = UInt32
/// Allocate memory blocks at once — `kCMBlockBufferAssureMemoryNowFlag`.
public let kCMBlockBufferAssureMemoryNowFlag: CMBlockBufferFlags = 1 << 0
/// Copy data instead of referencing it — `kCMBlockBufferAlwaysCopyDataFlag`.
public let kCMBlockBufferAlwaysCopyDataFlag: CMBlockBufferFlags = 1 << 1
/// Do not flatten references — `kCMBlockBufferDontOptimizeDepthFlag`.
public let kCMBlockBufferDontOptimizeDepthFlag: CMBlockBufferFlags = 1 << 2
/// Allow a reference to an empty buffer — `kCMBlockBufferPermitEmptyReferenceFlag`.
public let kCMBlockBufferPermitEmptyReferenceFlag: CMBlockBufferFlags = 1 << 3

/// `kCMBlockBufferNoErr` (0).
public let kCMBlockBufferNoErr: OSStatus = 0
/// `kCMBlockBufferStructureAllocationFailedErr` (-12700).
public let kCMBlockBufferStructureAllocationFailedErr: OSStatus = VTError.blockBufferStructureAllocationFailed.status
/// `kCMBlockBufferBlockAllocationFailedErr` (-12701).
public let kCMBlockBufferBlockAllocationFailedErr: OSStatus = VTError.blockBufferBlockAllocationFailed.status
/// `kCMBlockBufferBadCustomBlockSourceErr` (-12702).
public let kCMBlockBufferBadCustomBlockSourceErr: OSStatus = VTError.blockBufferBadCustomBlockSource.status
/// `kCMBlockBufferBadOffsetParameterErr` (-12703).
public let kCMBlockBufferBadOffsetParameterErr: OSStatus = VTError.blockBufferBadOffsetParameter.status
/// `kCMBlockBufferBadLengthParameterErr` (-12704).
public let kCMBlockBufferBadLengthParameterErr: OSStatus = VTError.blockBufferBadLengthParameter.status
/// `kCMBlockBufferBadPointerParameterErr` (-12705).
public let kCMBlockBufferBadPointerParameterErr: OSStatus = VTError.blockBufferBadPointerParameter.status
/// `kCMBlockBufferEmptyBBufErr` (-12706).
public let kCMBlockBufferEmptyBBufErr: OSStatus = VTError.blockBufferEmpty.status
/// `kCMBlockBufferUnallocatedBlockErr` (-12707).
public let kCMBlockBufferUnallocatedBlockErr: OSStatus = VTError.blockBufferUnallocatedBlock.status
/// `kCMBlockBufferInsufficientSpaceErr` (-12708).
public let kCMBlockBufferInsufficientSpaceErr: OSStatus = VTError.blockBufferInsufficientSpace.status

/// A custom block source — `CMBlockBufferCustomBlockSource`. Not supported: pass `nil` and
/// manage the memory yourself (or pass `kCFAllocatorNull` to lend it).
@available(
    *, unavailable,
    message: "custom block sources are not supported on Linux; pass nil, and lend the memory with kCFAllocatorNull"
)
public struct CMBlockBufferCustomBlockSource {}

/// Makes one piece from a memory block, or returns why not.
private func piece(
    _ memoryBlock: UnsafeMutableRawPointer?, _ blockLength: Int, _ blockAllocator: CFAllocator?, _ offsetToData: Int,
    _ dataLength: Int, _ flags: CMBlockBufferFlags
) -> (CMBlockBuffer.Piece?, OSStatus) {
    guard blockLength >= 0, dataLength >= 0 else { return (nil, kCMBlockBufferBadLengthParameterErr) }
    guard offsetToData >= 0, offsetToData + dataLength <= blockLength else {
        return (nil, kCMBlockBufferBadOffsetParameterErr)
    }
    let lends = blockAllocator?.kind == .null
    if memoryBlock == nil && lends { return (nil, kCMBlockBufferBadPointerParameterErr) }
    var piece = CMBlockBuffer.Piece(
        block: memoryBlock, blockLength: blockLength, offset: offsetToData, length: dataLength, owned: !lends,
        referenced: nil)
    if memoryBlock == nil, flags & kCMBlockBufferAssureMemoryNowFlag != 0 {
        guard let block = malloc(max(1, blockLength)) else { return (nil, kCMBlockBufferBlockAllocationFailedErr) }
        piece.block = block
    }
    return (piece, kCMBlockBufferNoErr)
}

/// A block buffer over one memory block — `CMBlockBufferCreateWithMemoryBlock`.
///
/// - Parameters:
///   - memoryBlock: The block, or nil to have the buffer allocate `blockLength` bytes (at once
///     with `kCMBlockBufferAssureMemoryNowFlag`, else when first written or read).
///   - blockAllocator: `kCFAllocatorNull` to lend the block (never freed); nil or
///     `kCFAllocatorDefault` to hand it over (freed with `free`).
///   - customBlockSource: Must be nil (custom block sources are not supported).
/// - Returns: `kCMBlockBufferNoErr`; `kCMBlockBufferBadOffsetParameterErr` or
///   `kCMBlockBufferBadLengthParameterErr` for a range outside the block;
///   `kCMBlockBufferBadPointerParameterErr` for a nil block lent with `kCFAllocatorNull`.
@discardableResult
public func CMBlockBufferCreateWithMemoryBlock(
    allocator structureAllocator: CFAllocator?, memoryBlock: UnsafeMutableRawPointer?, blockLength: Int,
    blockAllocator: CFAllocator?, customBlockSource: UnsafeRawPointer?, offsetToData: Int, dataLength: Int,
    flags: CMBlockBufferFlags, blockBufferOut: UnsafeMutablePointer<CMBlockBuffer?>
) -> OSStatus {
    guard customBlockSource == nil else { return kCMBlockBufferBadCustomBlockSourceErr }
    let (made, status) = piece(memoryBlock, blockLength, blockAllocator, offsetToData, dataLength, flags)
    guard let made else { return status }
    let buffer = CMBlockBuffer()
    buffer.pieces = [made]
    blockBufferOut.pointee = buffer
    return kCMBlockBufferNoErr
}

/// An empty block buffer to append to — `CMBlockBufferCreateEmpty`.
@discardableResult
public func CMBlockBufferCreateEmpty(
    allocator structureAllocator: CFAllocator?, capacity subBlockCapacity: UInt32, flags: CMBlockBufferFlags,
    blockBufferOut: UnsafeMutablePointer<CMBlockBuffer?>
) -> OSStatus {
    blockBufferOut.pointee = CMBlockBuffer()
    return kCMBlockBufferNoErr
}

/// Appends a memory block — `CMBlockBufferAppendMemoryBlock` (parameters as
/// ``CMBlockBufferCreateWithMemoryBlock(allocator:memoryBlock:blockLength:blockAllocator:customBlockSource:offsetToData:dataLength:flags:blockBufferOut:)``).
@discardableResult
public func CMBlockBufferAppendMemoryBlock(
    _ theBuffer: CMBlockBuffer, memoryBlock: UnsafeMutableRawPointer?, length blockLength: Int,
    blockAllocator: CFAllocator?, customBlockSource: UnsafeRawPointer?, offsetToData: Int, dataLength: Int,
    flags: CMBlockBufferFlags
) -> OSStatus {
    guard customBlockSource == nil else { return kCMBlockBufferBadCustomBlockSourceErr }
    let (made, status) = piece(memoryBlock, blockLength, blockAllocator, offsetToData, dataLength, flags)
    guard let made else { return status }
    theBuffer.pieces.append(made)
    return kCMBlockBufferNoErr
}

/// Appends a range of another block buffer, by reference — `CMBlockBufferAppendBufferReference`.
@discardableResult
public func CMBlockBufferAppendBufferReference(
    _ theBuffer: CMBlockBuffer, targetBBuf: CMBlockBuffer, offsetToData: Int, dataLength: Int,
    flags: CMBlockBufferFlags
) -> OSStatus {
    guard offsetToData >= 0, dataLength >= 0, offsetToData + dataLength <= targetBBuf.dataLength else {
        return kCMBlockBufferBadOffsetParameterErr
    }
    guard targetBBuf.assureMemory() == kCMBlockBufferNoErr else { return kCMBlockBufferBlockAllocationFailedErr }
    var skip = offsetToData
    var left = dataLength
    for piece in targetBBuf.pieces where left > 0 {
        if skip >= piece.length {
            skip -= piece.length
            continue
        }
        let count = min(left, piece.length - skip)
        theBuffer.pieces.append(
            CMBlockBuffer.Piece(
                block: piece.block, blockLength: piece.blockLength, offset: piece.offset + skip, length: count,
                owned: false, referenced: targetBBuf))
        left -= count
        skip = 0
    }
    return kCMBlockBufferNoErr
}

/// Copies bytes into the buffer — `CMBlockBufferReplaceDataBytes`.
///
/// - Returns: `kCMBlockBufferNoErr`, or `kCMBlockBufferBadOffsetParameterErr` for a range outside
///   the buffer's data.
@discardableResult
public func CMBlockBufferReplaceDataBytes(
    with sourceBytes: UnsafeRawPointer, blockBuffer destinationBuffer: CMBlockBuffer, offsetIntoDestination: Int,
    dataLength: Int
) -> OSStatus {
    var copied = 0
    return destinationBuffer.visit(offsetIntoDestination, dataLength) { target in
        target.copyMemory(from: UnsafeRawBufferPointer(start: sourceBytes + copied, count: target.count))
        copied += target.count
    }
}

/// Copies bytes out of the buffer — `CMBlockBufferCopyDataBytes`.
@discardableResult
public func CMBlockBufferCopyDataBytes(
    _ theSourceBuffer: CMBlockBuffer, atOffset offsetToData: Int, dataLength: Int, destination: UnsafeMutableRawPointer
) -> OSStatus {
    var copied = 0
    return theSourceBuffer.visit(offsetToData, dataLength) { source in
        (destination + copied).copyMemory(from: UnsafeRawPointer(source.baseAddress!), byteCount: source.count)
        copied += source.count
    }
}

/// The data length — `CMBlockBufferGetDataLength`.
public func CMBlockBufferGetDataLength(_ theBuffer: CMBlockBuffer) -> Int { theBuffer.dataLength }

/// Whether the buffer has no data — `CMBlockBufferIsEmpty`.
public func CMBlockBufferIsEmpty(_ theBuffer: CMBlockBuffer) -> Bool { theBuffer.dataLength == 0 }

/// Allocates blocks not yet allocated — `CMBlockBufferAssureBlockMemory`.
@discardableResult
public func CMBlockBufferAssureBlockMemory(_ theBuffer: CMBlockBuffer) -> OSStatus { theBuffer.assureMemory() }

/// A pointer to the data at an offset, with the contiguous length there and the total length —
/// `CMBlockBufferGetDataPointer`.
@discardableResult
public func CMBlockBufferGetDataPointer(
    _ theBuffer: CMBlockBuffer, atOffset offset: Int, lengthAtOffsetOut: UnsafeMutablePointer<Int>?,
    totalLengthOut: UnsafeMutablePointer<Int>?, dataPointerOut: UnsafeMutablePointer<UnsafeMutablePointer<Int8>?>?
) -> OSStatus {
    guard offset >= 0, offset < theBuffer.dataLength else { return kCMBlockBufferBadOffsetParameterErr }
    guard theBuffer.assureMemory() == kCMBlockBufferNoErr else { return kCMBlockBufferBlockAllocationFailedErr }
    totalLengthOut?.pointee = theBuffer.dataLength
    var skip = offset
    for piece in theBuffer.pieces {
        if skip >= piece.length {
            skip -= piece.length
            continue
        }
        guard let block = piece.block else { return kCMBlockBufferUnallocatedBlockErr }
        lengthAtOffsetOut?.pointee = piece.length - skip
        dataPointerOut?.pointee = (block + piece.offset + skip).assumingMemoryBound(to: Int8.self)
        return kCMBlockBufferNoErr
    }
    return kCMBlockBufferBadOffsetParameterErr
}

/// Whether a range lies in one piece — `CMBlockBufferIsRangeContiguous`.
public func CMBlockBufferIsRangeContiguous(_ theBuffer: CMBlockBuffer, atOffset offset: Int, length: Int) -> Bool {
    var contiguous = 0
    guard
        CMBlockBufferGetDataPointer(
            theBuffer, atOffset: offset, lengthAtOffsetOut: &contiguous, totalLengthOut: nil, dataPointerOut: nil)
            == kCMBlockBufferNoErr
    else { return false }
    return (length == 0 ? theBuffer.dataLength - offset : length) <= contiguous
}
