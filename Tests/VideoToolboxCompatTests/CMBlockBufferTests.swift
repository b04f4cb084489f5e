import Foundation
import Testing
import VideoToolbox

/// CMBlockBuffer.h as sample readers call it: buffers over other buffers' ranges, contiguous
/// copies, reading through a temporary block, filling.
@Suite struct CMBlockBufferTests {
    /// A buffer of two pieces, bytes 0…7 then 100…103: not contiguous across offset 8.
    static func twoPieces() throws -> CMBlockBuffer {
        var made: CMBlockBuffer?
        #expect(
            CMBlockBufferCreateEmpty(allocator: nil, capacity: 2, flags: 0, blockBufferOut: &made)
                == kCMBlockBufferNoErr)
        let buffer = try #require(made)
        for bytes in [Array(0..<8), Array(100..<104)] as [[UInt8]] {
            let block = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 1)
            block.copyMemory(from: bytes, byteCount: bytes.count)
            #expect(
                CMBlockBufferAppendMemoryBlock(
                    buffer, memoryBlock: block, length: bytes.count, blockAllocator: kCFAllocatorDefault,
                    customBlockSource: nil, offsetToData: 0, dataLength: bytes.count, flags: 0) == kCMBlockBufferNoErr)
        }
        return buffer
    }

    static func bytes(_ buffer: CMBlockBuffer) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: CMBlockBufferGetDataLength(buffer))
        CMBlockBufferCopyDataBytes(buffer, atOffset: 0, dataLength: bytes.count, destination: &bytes)
        return bytes
    }

    @Test func referencesAndContiguousCopies() throws {
        let source = try Self.twoPieces()
        #expect(!CMBlockBufferIsEmpty(source) && CMBlockBufferAssureBlockMemory(source) == kCMBlockBufferNoErr)
        var made: CMBlockBuffer?
        #expect(
            CMBlockBufferCreateWithBufferReference(
                allocator: nil, referenceBuffer: source, offsetToData: 6, dataLength: 4, flags: 0, blockBufferOut: &made
            )
                == kCMBlockBufferNoErr)
        let reference = try #require(made)
        #expect(Self.bytes(reference) == [6, 7, 100, 101])
        #expect(!CMBlockBufferIsRangeContiguous(reference, atOffset: 0, length: 4))

        #expect(
            CMBlockBufferCreateContiguous(
                allocator: nil, sourceBuffer: reference, blockAllocator: nil, customBlockSource: nil, offsetToData: 0,
                dataLength: 0, flags: 0, blockBufferOut: &made) == kCMBlockBufferNoErr)
        let contiguous = try #require(made)
        #expect(Self.bytes(contiguous) == [6, 7, 100, 101])
        #expect(CMBlockBufferIsRangeContiguous(contiguous, atOffset: 0, length: 4))
        var length = 0
        var total = 0
        var pointer: UnsafeMutablePointer<CChar>?
        #expect(
            CMBlockBufferGetDataPointer(
                contiguous, atOffset: 0, lengthAtOffsetOut: &length, totalLengthOut: &total, dataPointerOut: &pointer)
                == kCMBlockBufferNoErr)
        #expect(length == 4 && total == 4 && pointer?[2] == 100)

        #expect(
            CMBlockBufferCreateWithBufferReference(
                allocator: nil, referenceBuffer: source, offsetToData: 10, dataLength: 4, flags: 0,
                blockBufferOut: &made)
                == kCMBlockBufferBadOffsetParameterErr)
    }

    /// A contiguous range is read in place; one across pieces is copied into the temporary block.
    @Test func accessDataBytesUsesTheTemporaryBlockOnlyWhenItMust() throws {
        let source = try Self.twoPieces()
        var temporary = [CChar](repeating: 0, count: 8)
        try temporary.withUnsafeMutableBytes { block in
            let base = try #require(block.baseAddress)
            var returned: UnsafeMutablePointer<CChar>?
            #expect(
                CMBlockBufferAccessDataBytes(
                    source, atOffset: 2, length: 3, temporaryBlock: base, returnedPointerOut: &returned)
                    == kCMBlockBufferNoErr)
            #expect(returned.map { UnsafeMutableRawPointer($0) } != base, "contiguous: a pointer into the buffer")
            #expect(returned?[0] == 2)
            #expect(
                CMBlockBufferAccessDataBytes(
                    source, atOffset: 7, length: 2, temporaryBlock: base, returnedPointerOut: &returned)
                    == kCMBlockBufferNoErr)
            #expect(returned.map { UnsafeMutableRawPointer($0) } == base, "across pieces: the temporary block")
            #expect(block[0] == 7 && block[1] == 100)
        }
    }

    @Test func fillDataBytesFillsARangeAcrossPieces() throws {
        let source = try Self.twoPieces()
        #expect(
            CMBlockBufferFillDataBytes(with: 0x55, blockBuffer: source, offsetIntoDestination: 6, dataLength: 3) == 0)
        #expect(Self.bytes(source) == [0, 1, 2, 3, 4, 5, 0x55, 0x55, 0x55, 101, 102, 103])
        #expect(
            CMBlockBufferFillDataBytes(with: 0, blockBuffer: source, offsetIntoDestination: 10, dataLength: 3)
                == kCMBlockBufferBadOffsetParameterErr)
    }

    /// A nil memory block with `kCMBlockBufferAssureMemoryNowFlag` is allocated at once.
    @Test func assureMemoryNowAllocatesTheBlock() throws {
        var made: CMBlockBuffer?
        #expect(
            CMBlockBufferCreateWithMemoryBlock(
                allocator: nil, memoryBlock: nil, blockLength: 32, blockAllocator: nil, customBlockSource: nil,
                offsetToData: 8, dataLength: 16, flags: kCMBlockBufferAssureMemoryNowFlag, blockBufferOut: &made)
                == kCMBlockBufferNoErr)
        let buffer = try #require(made)
        var length = 0
        var pointer: UnsafeMutablePointer<CChar>?
        #expect(
            CMBlockBufferGetDataPointer(
                buffer, atOffset: 0, lengthAtOffsetOut: &length, totalLengthOut: nil, dataPointerOut: &pointer)
                == kCMBlockBufferNoErr)
        #expect(pointer != nil && length == 16)
    }
}
