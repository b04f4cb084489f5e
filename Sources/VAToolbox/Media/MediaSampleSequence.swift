import Dispatch

/// The samples of a media file's video track as a lazy, `Sendable` `AsyncSequence`, read from
/// where its ``MediaFileReader`` stands, for
/// ``DecompressionSession/frames(decoding:formatDescription:decoderSpecification:imageBufferAttributes:framesAhead:)``:
///
/// ```swift
/// let reader = try MediaFileReader(path: path)
/// try reader.seek(to: MediaTime(seconds: 10, preferredTimescale: 1000))
/// for try await frame in DecompressionSession.frames(
///     decoding: reader.samples, formatDescription: reader.formatDescription)
/// { … }
/// ```
///
/// The sequence reads the reader's own samples, one per step: after ``MediaFileReader/seek(to:exactly:)``
/// the first is the sync sample the seek moved to (with the seek's attachments), after
/// ``MediaFileReader/nextSample()`` calls the sample after the last one they returned. Reading
/// moves the reader on, so each sample comes out once: a second iteration goes on where the first
/// stopped, and after the end of the track it ends at once (seek to read again). Nothing is read
/// up front, and the sequence, like the reader, can cross tasks. Damaged samples come out flagged,
/// as from ``MediaFileReader/nextSample()``.
public struct MediaSampleSequence: AsyncSequence, Sendable {
    /// One sample, in decode order.
    public typealias Element = SampleBuffer
    /// Reading the file fails with a ``VTError``.
    public typealias Failure = VTError

    /// The reader whose samples the sequence reads.
    public let reader: MediaFileReader

    /// The file.
    public var path: String { reader.path }
    /// The stream index of the track read.
    public var track: Int { reader.track.index }
    /// The frame rate assumed for a raw stream that states none (see
    /// ``MediaFileReader/init(path:track:frameRate:)``).
    public var frameRate: FrameRate? { reader.assumedFrameRate }

    /// Starts reading, from where the reader stands when the first sample is asked for.
    public func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

    /// Reads the samples one by one. The reads run on a dispatch queue of the iterator's own,
    /// never blocking the cooperative thread pool.
    public struct Iterator: AsyncIteratorProtocol {
        let reader: MediaFileReader
        let queue = DispatchQueue(label: "VAToolbox.MediaSampleSequence")
        /// Whether the iteration ended (the track ended, or a read failed).
        private var finished = false

        init(reader: MediaFileReader) { self.reader = reader }

        /// The next sample; nil at the end of the track, and after a failure.
        ///
        /// - Throws: What ``MediaFileReader/nextSample()`` throws.
        public mutating func next() async throws(VTError) -> SampleBuffer? {
            guard !finished else { return nil }
            let reader = reader
            let result = await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<SampleBuffer?, VTError>, Never>) in
                queue.async {
                    continuation.resume(
                        returning: Result { () throws(VTError) -> SampleBuffer? in try reader.nextSample() })
                }
            }
            if case .success(.some) = result {} else { finished = true }
            return try result.get()
        }
    }
}

extension MediaFileReader {
    /// The track's samples from where the reader stands (its first sample, or the sync sample a
    /// ``seek(to:exactly:)`` moved to), as a lazy `Sendable` `AsyncSequence` that reads this
    /// reader off the cooperative thread pool (see ``MediaSampleSequence``).
    public var samples: MediaSampleSequence { MediaSampleSequence(reader: self) }
}
