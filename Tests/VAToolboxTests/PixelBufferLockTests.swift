import Foundation
import Synchronization
import Testing

@testable import VAToolbox

/// `lockBaseAddress` / `unlockBaseAddress` as a balanced pair, against the wording of Apple's
/// documentation for `CVPixelBufferLockBaseAddress`, `CVPixelBufferUnlockBaseAddress` and
/// `CVPixelBufferLockFlags.readOnly`, with the pixels checked against `ffmpeg -f framemd5`.
@Suite struct PixelBufferLockTests {
    /// A live CPU session on a fixture's samples, collecting its pictures in output order, and
    /// the fixture's oracle.
    final class Decoding: Sendable {
        let session: DecompressionSession
        let samples: [SampleBuffer]
        let oracle: FrameMD5Oracle
        private let images = Pictures()

        /// The pictures the handler collects.
        final class Pictures: Sendable {
            let list = Mutex<[PixelBuffer]>([])
        }

        init(_ name: String) throws {
            let stream = try #require(StreamFile.validFixtures.first { $0.name == name })
            samples = ElementaryStreamParser.samples(in: try stream.bytes(), codec: stream.codec)
            oracle = try FrameMD5Oracle(contentsOf: TestData.fixtures.appendingPathComponent(name + ".framemd5"))
            let images = self.images
            // The decoder's own planar pictures (shared with it, as the tests below need), which
            // are what ffmpeg's framemd5 hashes.
            session = try DecompressionSession(
                formatDescription: samples[0].formatDescription,
                decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 1),
                imageBufferAttributes: ImageBufferAttributes(
                    pixelFormat: DecompressionSession.planarPixelFormat(for: samples[0].formatDescription))
            ) { output in
                if let image = output.imageBuffer { images.list.withLock { $0.append(image) } }
            }
        }

        /// Decodes samples `range`.
        func feed(_ range: Range<Int>) throws {
            try decode(Array(samples[range]), with: session, then: [])
        }

        /// Decodes every sample left after `start`, finishes and ends the session.
        func finish(from start: Int) throws {
            try feed(start..<samples.count)
            try session.finishDelayedFrames()
            session.invalidate()
        }

        var pictures: [PixelBuffer] { images.list.withLock { $0 } }
    }

    /// Every picture of a fixture, decoded to the end, and its oracle.
    static func pictures(_ name: String) throws -> (images: [PixelBuffer], oracle: FrameMD5Oracle) {
        let decoding = try Decoding(name)
        try decoding.finish(from: 0)
        return (decoding.pictures, decoding.oracle)
    }

    /// The MD5 of planes, rows without padding (what `ffmpeg -f framemd5` hashes).
    static func md5(_ planes: [PixelBuffer.Plane]) -> String {
        var digest = MD5()
        for plane in planes {
            for row in 0..<plane.height { digest.update(plane.row(row)) }
        }
        return digest.finish()
    }

    /// "You must call the CVPixelBufferLockBaseAddress(_:_:) function before accessing pixel data
    /// with the CPU, and call the CVPixelBufferUnlockBaseAddress(_:_:) function afterward."
    @Test func planesAreLentFromLockToUnlockAndEqualFFmpeg() throws {
        let (images, oracle) = try Self.pictures("h264-main-cabac.264")
        let image = try #require(images.first)
        #expect(image.lockedPlanes == nil, "no planes before the lock")
        #expect(!image.isBaseAddressLocked)
        try image.lockBaseAddress(.readOnly)
        let planes = try #require(image.lockedPlanes)
        #expect(planes.count == image.planeCount)
        #expect(Self.md5(planes) == oracle.frames.first?.md5)
        #expect(image.isBaseAddressLocked)
        try image.unlockBaseAddress(.readOnly)
        #expect(image.lockedPlanes == nil, "no planes after the last unlock")
        #expect(image.copiedByteCount == 0, "a read-only lock of a CPU picture copies nothing")
    }

    /// Locks nest: every lock needs its unlock, and the planes stay lent until the last one.
    @Test func locksNestAndTheLastUnlockEndsThem() throws {
        let image = try #require(try Self.pictures("h264-baseline-cavlc.264").images.first)
        try image.lockBaseAddress(.readOnly)
        try image.lockBaseAddress(.readOnly)
        let first = try #require(image.lockedPlanes).map(\.baseAddress)
        try image.unlockBaseAddress(.readOnly)
        #expect(image.lockedPlanes?.map(\.baseAddress) == first, "one lock is still held")
        try image.unlockBaseAddress(.readOnly)
        #expect(image.lockedPlanes == nil)
    }

    /// An unlock without a lock is misuse: Core Video's `kCVReturnError`, never a crash.
    @Test func unlockWithoutLockIsKCVReturnError() throws {
        let image = try #require(try Self.pictures("h264-baseline-cavlc.264").images.first)
        #expect(throws: VTError.pixelBufferError) { try image.unlockBaseAddress(.readOnly) }
        #expect(throws: VTError.pixelBufferError) { try image.unlockBaseAddress() }
        do {
            try image.unlockBaseAddress()
            Issue.record("an unlock without a lock succeeded")
        } catch {
            #expect(error.status == -6660)
            #expect(error.name == "kCVReturnError")
        }
    }

    /// "If you pass this flag to the CVPixelBufferLockBaseAddress(_:_:) function, you must also
    /// pass it to the CVPixelBufferUnlockBaseAddress(_:_:) function." and, for the unlock's flags:
    /// "Pass readOnly if you locked the buffer for reading only, or pass no flags if you locked it
    /// for both reading and writing."
    @Test func unlockFlagsMustBeTheLocks() throws {
        let image = try #require(try Self.pictures("h264-baseline-cavlc.264").images.first)
        try image.lockBaseAddress(.readOnly)
        #expect(throws: VTError.pixelBufferInvalidArgument) { try image.unlockBaseAddress() }
        #expect(image.isBaseAddressLocked, "a refused unlock leaves the lock held")
        try image.unlockBaseAddress(.readOnly)

        try image.lockBaseAddress()
        #expect(throws: VTError.pixelBufferInvalidArgument) { try image.unlockBaseAddress(.readOnly) }
        try image.unlockBaseAddress()
        #expect(!image.isBaseAddressLocked)
    }

    /// `readOnly`: "Set this flag if you don't plan to modify buffer data while holding the lock."
    /// Without it the lock is for writing: a picture that shares the decoder's memory (here the IDR
    /// picture the next P pictures refer to) gets memory of its own first, so that the writes
    /// reach this buffer and never the reference picture.
    /// `kVTDecodeInfo_ImageBufferModifiable` says whether a read-write lock taken at hand-out
    /// needs a copy: not set on the decoder's own planar pictures (shared with it: the lock
    /// copies), set on pictures converted into the session's pool (its own memory: no copy).
    @Test(arguments: [false, true])
    func imageBufferModifiableSaysWhetherALockCopies(converted: Bool) throws {
        let samples = try TestData.samples("h264-baseline-cavlc.264")
        let format = samples[0].formatDescription
        let seen = Mutex<[(modifiable: Bool, copied: Bool)]>([])
        let session = try DecompressionSession(
            formatDescription: format,
            decoderSpecification: DecoderSpecification(hardwareAcceleration: .disabled, threadCount: 1),
            imageBufferAttributes: ImageBufferAttributes(
                pixelFormat: converted ? .bgra : DecompressionSession.planarPixelFormat(for: format))
        ) { output in
            guard let image = output.imageBuffer else { return }
            let before = image.copiedByteCount
            let locked = (try? image.lockBaseAddress()) != nil
            if locked { try? image.unlockBaseAddress() }
            seen.withLock {
                $0.append((output.infoFlags.contains(.imageBufferModifiable), image.copiedByteCount != before))
            }
        }
        try decode(Array(samples.prefix(6)), with: session)
        let results = seen.withLock { $0 }
        #expect(results.count == 6)
        for result in results {
            #expect(result.modifiable == converted)
            #expect(result.copied == !result.modifiable, "the flag says whether the lock copies")
        }
    }

    @Test func aReadWriteLockCopiesSharedMemoryAndTheWritesStayInTheBuffer() throws {
        let decoding = try Decoding("h264-baseline-cavlc.264")
        try decoding.feed(0..<1)
        let image = try #require(decoding.pictures.first)
        try image.lockBaseAddress()
        #expect(image.copiedByteCount == image.rawVideoByteCount, "the decoder's frame was copied once")
        let planes = try #require(image.lockedPlanes)
        #expect(Self.md5(planes) == decoding.oracle.frames.first?.md5, "the copy holds the same picture")
        for row in 0..<planes[0].height {
            memset(planes[0].baseAddress + row * planes[0].bytesPerRow, 0, planes[0].width)
        }
        try image.unlockBaseAddress()
        #expect(image.md5 != decoding.oracle.frames.first?.md5, "the writes are in the buffer")
        try decoding.finish(from: 1)
        let pictures = decoding.pictures
        #expect(pictures.count == decoding.oracle.frames.count)
        for (index, picture) in pictures.enumerated().dropFirst() {
            #expect(picture.md5 == decoding.oracle.frames[index].md5, "picture \(index) predicted from the IDR")
        }
    }

    /// A read-write lock cannot move the memory that read-only locks lend: Core Video's error,
    /// the read-only lock left as it was; after its unlock the read-write lock works.
    @Test func aReadWriteLockUnderAReadOnlyLockOfSharedMemoryIsRefused() throws {
        let decoding = try Decoding("h264-baseline-cavlc.264")
        try decoding.feed(0..<1)
        let image = try #require(decoding.pictures.first)
        try image.lockBaseAddress(.readOnly)
        let lent = try #require(image.lockedPlanes).map(\.baseAddress)
        #expect(throws: VTError.pixelBufferError) { try image.lockBaseAddress() }
        #expect(throws: VTError.pixelBufferError) { try image.withLockedPlanesForWriting { _ in } }
        #expect(image.lockedPlanes?.map(\.baseAddress) == lent)
        try image.unlockBaseAddress(.readOnly)
        try image.lockBaseAddress()
        #expect(image.lockedPlanes?.map(\.baseAddress) != lent, "the read-write lock has memory of its own")
        try image.unlockBaseAddress()
        try decoding.finish(from: 1)
    }

    /// The scoped form is kept and agrees with the pair.
    @Test func theScopedLockSeesWhatThePairLends() throws {
        let (images, oracle) = try Self.pictures("h264-high-bpyramid.264")
        #expect(images.count == oracle.frames.count)
        for (index, image) in images.enumerated() {
            try image.lockBaseAddress(.readOnly)
            let paired = Self.md5(try #require(image.lockedPlanes))
            let scoped = image.withLockedPlanes { Self.md5($0) }
            try image.unlockBaseAddress(.readOnly)
            #expect(paired == scoped)
            #expect(paired == oracle.frames[index].md5)
        }
    }

    /// A buffer from a pool is its own memory: a read-write lock copies nothing.
    @Test func aPoolBufferIsWritableWithoutACopy() throws {
        let pool = try PixelBufferPool(pixelFormat: .nv12VideoRange, width: 64, height: 48)
        let buffer = try pool.makePixelBuffer()
        try buffer.lockBaseAddress()
        let planes = try #require(buffer.lockedPlanes)
        #expect(planes.count == 2)
        #expect(planes.map(\.height) == [48, 24])
        try buffer.lockBaseAddress(.readOnly)
        try buffer.unlockBaseAddress(.readOnly)
        try buffer.unlockBaseAddress()
        #expect(buffer.copiedByteCount == 0)
    }
}

extension VATestDriverTests.HardwareSessions {
    /// A GPU surface is read back on the first lock (at most one image in the driver) and the
    /// read-back released on the last unlock, with the driver's stamp of the picture in between.
    /// The back end keeps one image per surface format for reuse (Docs/Hardware.md), so a lock
    /// cycle after the first adds no image: locks never accumulate driver objects.
    @Test(.enabled(if: TestVADriver.isBuilt)) func pairLockMapsASurfaceAndTheLastUnlockUnmapsIt() throws {
        let fixture = try Self.fixture("h264-main-cabac.264")
        let samples = try TestData.samples(fixture.name, frameDuration: Self.frameDuration)
        let outputs = Outputs()
        let session = try Self.session(samples[0].formatDescription, outputs: outputs)
        for sample in samples.prefix(4) { try session.decodeFrame(sample) }
        try session.finishDelayedFrames()
        let image = try #require(outputs.all.compactMap(\.imageBuffer).first)
        #expect(image.isGPUSurface)
        let imagesBefore = try TestVADriver.liveObjects().images
        #expect(image.lockedPlanes == nil, "an unlocked surface lends no planes")
        try image.lockBaseAddress(.readOnly)
        let imagesLocked = try TestVADriver.liveObjects().images
        try image.lockBaseAddress(.readOnly)
        #expect(imagesLocked <= imagesBefore + 1, "one read-back for the first lock")
        #expect(try TestVADriver.liveObjects().images == imagesLocked, "none more for the second")
        let planes = try #require(image.lockedPlanes)
        #expect(DriverStamp(planes[0].row(0)) == Self.stamp(image))
        try image.unlockBaseAddress(.readOnly)
        #expect(image.lockedPlanes != nil, "planes stay lent until the last unlock")
        try image.unlockBaseAddress(.readOnly)
        #expect(image.lockedPlanes == nil, "the last unlock released the read-back")
        #expect(try TestVADriver.liveObjects().images <= imagesLocked)
        for _ in 0..<3 {
            try image.lockBaseAddress(.readOnly)
            #expect(image.lockedPlanes.map { DriverStamp($0[0].row(0)) } == Self.stamp(image))
            try image.unlockBaseAddress(.readOnly)
        }
        #expect(try TestVADriver.liveObjects().images <= imagesLocked, "lock cycles add no driver image")
        #expect(image.isGPUSurface, "a read-only lock leaves the picture on the GPU")
        session.invalidate()
    }
}
