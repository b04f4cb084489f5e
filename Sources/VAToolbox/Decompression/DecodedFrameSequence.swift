import Synchronization

/// Decoded frames out of a sequence of samples — the Swift-concurrency front of
/// ``DecompressionSession``.
///
/// ```swift
/// let frames = DecompressionSession.frames(decoding: samples, formatDescription: format)
/// for try await frame in frames {
///     guard frame.status == nil, let image = frame.imageBuffer else { continue }
///     show(image, at: frame.presentationTimeStamp)
/// }
/// ```
///
/// Each element is one ``DecompressionOutput``, in presentation order, exactly one per sample.
/// Decoding runs on the session's own queue, never blocking the cooperative thread pool. The
/// next sample is decoded only while fewer than ``DecompressionSession/framesAheadDefault`` (or
/// the `framesAhead` given) decoded frames wait for the consumer, so a slow consumer holds memory
/// steady (frames the decoder holds back for reordering do not count: it cannot release them
/// without more input). When the consuming task
/// is cancelled, or stops iterating, decoding stops: the session is invalidated and no further
/// sample is read. The sequence can be iterated once.
public struct DecodedFrameSequence<Samples: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Samples.Element == SampleBuffer {
    /// One decoded frame's output.
    public typealias Element = DecompressionOutput
    /// Every failure is a ``VTError``; a failing sample sequence becomes
    /// ``VTError/sampleBufferDataFailed``.
    public typealias Failure = VTError

    let samples: Samples
    let formatDescription: VideoFormatDescription
    let decoderSpecification: DecoderSpecification
    let imageBufferAttributes: ImageBufferAttributes?
    let framesAhead: Int

    /// Starts decoding and returns the iterator over its outputs.
    public func makeAsyncIterator() -> Iterator {
        let (outputs, outputContinuation) = AsyncStream<Result<DecompressionOutput, VTError>>.makeStream()
        let (credits, creditContinuation) = AsyncStream<Void>.makeStream()
        let waiting = WaitingCount()
        let producer = Task { [samples, formatDescription, decoderSpecification, imageBufferAttributes, framesAhead] in
            await Self.produce(
                samples: samples, formatDescription: formatDescription, decoderSpecification: decoderSpecification,
                imageBufferAttributes: imageBufferAttributes, framesAhead: framesAhead, waiting: waiting,
                credits: credits, outputs: outputContinuation)
        }
        outputContinuation.onTermination = { _ in
            producer.cancel()
            creditContinuation.finish()
        }
        return Iterator(outputs: outputs.makeAsyncIterator(), credits: creditContinuation, waiting: waiting)
    }

    /// Decoded frames handed to the stream and not yet taken by the consumer.
    final class WaitingCount: Sendable {
        private let value = Atomic<Int>(0)
        var count: Int { value.load(ordering: .acquiring) }
        func add(_ delta: Int) { value.add(delta, ordering: .acquiringAndReleasing) }
    }

    /// The iterator: hands out outputs, and wakes the producer for each one taken.
    public struct Iterator: AsyncIteratorProtocol {
        var outputs: AsyncStream<Result<DecompressionOutput, VTError>>.Iterator
        let credits: AsyncStream<Void>.Continuation
        let waiting: WaitingCount

        /// The next output, nil at the end (or after cancellation).
        ///
        /// - Throws: The ``VTError`` that stopped decoding: a session that could not be made, a
        ///   sample the session refused, or a failing sample sequence.
        public mutating func next() async throws(VTError) -> DecompressionOutput? {
            guard let result = await outputs.next() else { return nil }
            if case .success = result { waiting.add(-1) }
            credits.yield()
            return try result.get()
        }
    }

    /// Reads samples, each after a credit, and decodes them. A sample whose description the
    /// session cannot accept (``DecompressionSession/canAcceptFormatDescription(_:)``: another
    /// codec, another NAL unit length size) ends that session, after it hands out every frame it
    /// holds, and starts a new one for the new description.
    private static func produce(
        samples: Samples, formatDescription: VideoFormatDescription, decoderSpecification: DecoderSpecification,
        imageBufferAttributes: ImageBufferAttributes?, framesAhead: Int, waiting: WaitingCount,
        credits: AsyncStream<Void>, outputs: AsyncStream<Result<DecompressionOutput, VTError>>.Continuation
    ) async {
        defer { outputs.finish() }
        func makeSession(_ format: VideoFormatDescription) -> DecompressionSession? {
            do {
                return try DecompressionSession(
                    formatDescription: format, decoderSpecification: decoderSpecification,
                    imageBufferAttributes: imageBufferAttributes
                ) { output in
                    waiting.add(1)
                    outputs.yield(.success(output))
                }
            } catch {
                outputs.yield(.failure(error))
                return nil
            }
        }
        guard var session = makeSession(formatDescription) else { return }
        defer { session.invalidate() }
        var format = formatDescription
        var creditIterator = credits.makeAsyncIterator()
        do {
            for try await sample in samples {
                while waiting.count >= framesAhead {
                    guard await creditIterator.next() != nil else { return }
                }
                guard !Task.isCancelled else { return }
                if sample.formatDescription != format {
                    format = sample.formatDescription
                    if !session.canAcceptFormatDescription(format) {
                        await session.finishOnQueue()
                        session.invalidate()
                        guard let next = makeSession(format) else { return }
                        session = next
                    }
                }
                if let error = await session.decodeOnQueue(sample) {
                    outputs.yield(.failure(error))
                    return
                }
            }
        } catch {
            outputs.yield(.failure(VTError.sampleBufferDataFailed.with("the sample sequence failed: \(error)")))
            return
        }
        guard !Task.isCancelled else { return }
        await session.finishOnQueue()
    }
}

extension DecompressionSession {
    /// How many frames ``frames(decoding:formatDescription:decoderSpecification:imageBufferAttributes:framesAhead:)``
    /// decodes ahead of its consumer by default.
    public static let framesAheadDefault = 8

    /// Decodes a sequence of samples into a sequence of outputs (see ``DecodedFrameSequence``).
    ///
    /// - Parameters:
    ///   - samples: The samples, in decode order; a change of description is followed in the
    ///     session when it can accept it (see ``canAcceptFormatDescription(_:)``), else in a new
    ///     session, after the old one has handed out its frames. A ``MediaFileReader``'s
    ///     ``MediaFileReader/samples`` reads a file lazily.
    ///   - formatDescription: The description of the first samples.
    ///   - decoderSpecification: GPU or CPU, threads, real-time mode.
    ///   - imageBufferAttributes: The output format and size; nil keeps the native format.
    ///   - framesAhead: How many frames may be decoded before the consumer takes them (at least 1).
    public static func frames<Samples: AsyncSequence & Sendable>(
        decoding samples: Samples, formatDescription: VideoFormatDescription,
        decoderSpecification: DecoderSpecification = DecoderSpecification(),
        imageBufferAttributes: ImageBufferAttributes? = nil, framesAhead: Int = framesAheadDefault
    ) -> DecodedFrameSequence<Samples> where Samples.Element == SampleBuffer {
        DecodedFrameSequence(
            samples: samples, formatDescription: formatDescription, decoderSpecification: decoderSpecification,
            imageBufferAttributes: imageBufferAttributes, framesAhead: max(1, framesAhead))
    }
}
