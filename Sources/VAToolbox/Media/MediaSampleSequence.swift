import Dispatch

/// The samples of a media file's video track as a lazy, `Sendable` `AsyncSequence`, for
/// ``DecompressionSession/frames(decoding:formatDescription:decoderSpecification:imageBufferAttributes:framesAhead:)``:
///
/// ```swift
/// let reader = try MediaFileReader(path: path)
/// for try await frame in DecompressionSession.frames(
///     decoding: reader.samples, formatDescription: reader.formatDescription)
/// { … }
/// ```
///
/// Each iteration opens the file in a reader of its own and reads one sample per step, from the
/// start of the track, so nothing is read up front and the sequence can cross tasks (a
/// ``MediaFileReader`` cannot). Damaged samples come out flagged, as from
/// ``MediaFileReader/nextSample()``.
public struct MediaSampleSequence: AsyncSequence, Sendable {
    /// One sample, in decode order.
    public typealias Element = SampleBuffer
    /// Opening or reading the file fails with a ``VTError``.
    public typealias Failure = VTError

    /// The file.
    public let path: String
    /// The stream index of the track read.
    public let track: Int
    /// The frame rate assumed for a raw stream that states none (see
    /// ``MediaFileReader/init(path:track:frameRate:)``).
    public let frameRate: FrameRate?

    /// Starts reading.
    public func makeAsyncIterator() -> Iterator { Iterator(path: path, track: track, frameRate: frameRate) }

    /// Reads the samples one by one; opens the file at the first step. The reads run on a
    /// dispatch queue of the iterator's own, never blocking the cooperative thread pool.
    public struct Iterator: AsyncIteratorProtocol {
        let reading: Reading

        init(path: String, track: Int, frameRate: FrameRate?) {
            reading = Reading(path: path, track: track, frameRate: frameRate)
        }

        /// The next sample; nil at the end of the track.
        ///
        /// - Throws: What ``MediaFileReader/init(path:track:frameRate:)`` and
        ///   ``MediaFileReader/nextSample()`` throw.
        public mutating func next() async throws(VTError) -> SampleBuffer? {
            let reading = reading
            let result = await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<SampleBuffer?, VTError>, Never>) in
                reading.queue.async { continuation.resume(returning: reading.next()) }
            }
            return try result.get()
        }
    }

    /// One iteration's reader and the queue its reads run on.
    ///
    /// Unchecked `Sendable`: the reader is touched only by ``next()``, on `queue` (serial), and
    /// an iterator's `next()` calls do not overlap, so no two threads ever use it at once.
    final class Reading: @unchecked Sendable {
        let queue = DispatchQueue(label: "VAToolbox.MediaSampleSequence")
        private let path: String
        private let track: Int
        private let frameRate: FrameRate?
        private var reader: MediaFileReader?
        private var finished = false

        init(path: String, track: Int, frameRate: FrameRate?) {
            self.path = path
            self.track = track
            self.frameRate = frameRate
        }

        /// Reads the next sample (opening the file first); nil at the end, and after a failure.
        func next() -> Result<SampleBuffer?, VTError> {
            guard !finished else { return .success(nil) }
            do throws(VTError) {
                if reader == nil { reader = try MediaFileReader(path: path, track: track, frameRate: frameRate) }
                guard let sample = try reader?.nextSample() else {
                    finished = true
                    reader = nil
                    return .success(nil)
                }
                return .success(sample)
            } catch {
                finished = true
                reader = nil
                return .failure(error)
            }
        }
    }
}

extension MediaFileReader {
    /// The track's samples from its start, as a lazy `Sendable` `AsyncSequence` that reads the
    /// file in a reader of its own (see ``MediaSampleSequence``).
    public var samples: MediaSampleSequence {
        MediaSampleSequence(path: path, track: track.index, frameRate: assumedFrameRate)
    }
}
