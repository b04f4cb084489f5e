/// ``Deinterlacer``'s GPU path: interlaced GPU surfaces deinterlaced on their GPU by the
/// driver's motion-adaptive deinterlacer (`VAProcDeinterlacingMotionAdaptive`, through
/// ``SurfaceProcessing``), given the pictures before and after each as references, as many as
/// the driver takes (Mesa: two before, one after) and there are (fewer at a sequence's ends).
///
/// It keeps the pictures it needs: each picture is deinterlaced once the pictures after it the
/// driver takes have come (or at ``finish()``), so output lags input as the CPU filters' does.
/// The times are the CPU filters' (libavfilter's `yadif`/`bwdif`): in a time scale twice the
/// first picture's, the second field of a picture half way to the next picture, or half a
/// picture's step after the last one.
///
/// When the driver refuses or fails a picture, or a picture is not a GPU surface of the same
/// size and format, it stops and hands the pictures not yet deinterlaced (and the one before
/// them) back to the ``Deinterlacer``, which runs them through its CPU filter from then on
/// (``Handover``).
///
/// Not thread-safe: the ``Deinterlacer`` calls it under its lock.
final class GPUTemporalDeinterlacing {
    /// A picture held, with its time (the ``Deinterlacer`` numbers pictures without a numeric
    /// time) in the sequence's time scale.
    struct Picture {
        let image: PixelBuffer
        let time: MediaTime
    }

    /// What the CPU filter takes over when the GPU stops: the pictures not yet deinterlaced, in
    /// order, and the picture before the first of them (nil at a sequence's start), which the
    /// CPU filter needs as its previous picture but must not put out again.
    struct Handover: Error {
        let reason: String
        let before: Picture?
        let pending: [Picture]
    }

    private let secondFields: Bool
    private let interlacedOnly: Bool
    private var processor: (any SurfaceProcessing)?
    private var references: TemporalDeinterlacingReferences?
    /// Pictures held: up to `references.past` already deinterlaced, then those waiting.
    private var window: [Picture] = []
    /// The index in `window` of the first picture not yet deinterlaced.
    private var nextIndex = 0
    private var key: Key?
    /// The time scale of the sequence: the first picture's.
    private var timescale: Int32 = 1

    private struct Key: Equatable {
        var width: Int
        var height: Int
        var pixelFormat: PixelFormat
    }

    /// - Parameters:
    ///   - secondFields: Each picture's second field too, after its first (a picture per
    ///     field); else its first field only.
    ///   - interlacedOnly: A progressive picture goes out as it is, once (libavfilter's
    ///     `deint=interlaced`); else every picture is deinterlaced.
    init(secondFields: Bool, interlacedOnly: Bool = false) {
        self.secondFields = secondFields
        self.interlacedOnly = interlacedOnly
    }

    /// Whether a sequence is under way (pictures are held).
    var isEmpty: Bool { window.isEmpty }

    /// Takes the next picture (a GPU surface) with its numeric time and gives the pictures that
    /// became ready.
    ///
    /// - Throws: The ``Handover`` when the GPU does not deinterlace it or an earlier picture:
    ///   the driver refused or failed, or this picture changes size or format mid-sequence while
    ///   pictures are held (the sequence ends first, its last pictures on the GPU).
    func send(_ image: PixelBuffer, time: MediaTime) throws(Handover) -> [Deinterlacer.Output] {
        var outputs: [Deinterlacer.Output] = []
        let key = Key(width: image.width, height: image.height, pixelFormat: image.pixelFormat)
        if let current = self.key, current != key {
            do throws(Handover) {
                outputs = try finish()
            } catch {
                throw Handover(
                    reason: error.reason, before: error.before,
                    pending: error.pending + [Picture(image: image, time: time)])
            }
        }
        if self.key == nil {
            self.key = key
            // Output times are in twice the time scale: it must fit.
            timescale = min(time.timescale, Int32.max / 2)
        }
        window.append(Picture(image: image, time: time.convertScale(timescale)))
        let references = try references(for: image)
        while nextIndex + references.future < window.count {
            outputs += try deinterlaceNext(references)
        }
        return outputs
    }

    /// Deinterlaces the pictures still held (the last ones, with the pictures after them there
    /// are) and starts over.
    ///
    /// - Throws: The ``Handover`` when the GPU does not deinterlace one.
    func finish() throws(Handover) -> [Deinterlacer.Output] {
        var outputs: [Deinterlacer.Output] = []
        if let references, !window.isEmpty {
            while nextIndex < window.count { outputs += try deinterlaceNext(references) }
        }
        window.removeAll()
        nextIndex = 0
        key = nil
        return outputs
    }

    /// Stops, handing back what is held (a picture that is not a GPU surface came, or the GPU
    /// refused or failed one).
    func handOver(because reason: String) -> Handover {
        defer {
            window.removeAll()
            nextIndex = 0
            key = nil
        }
        return Handover(
            reason: reason, before: nextIndex > 0 ? window[nextIndex - 1] : nil,
            pending: Array(window[nextIndex...]))
    }

    /// The references the driver takes, asked at the first picture.
    private func references(for image: PixelBuffer) throws(Handover) -> TemporalDeinterlacingReferences {
        if let references { return references }
        guard let device = image.surfaceDevice else { throw handOver(because: "the picture is not a GPU surface") }
        let processor = self.processor ?? device.makeProcessor()
        self.processor = processor
        switch processor.temporalDeinterlacingReferences(for: image) {
        case .success(let references):
            self.references = references
            return references
        case .failure(let refusal):
            throw handOver(because: refusal.reason)
        }
    }

    /// The picture at `nextIndex` deinterlaced (one or both fields), then the window trimmed to
    /// the past pictures the driver takes.
    private func deinterlaceNext(_ references: TemporalDeinterlacingReferences) throws(Handover)
        -> [Deinterlacer.Output]
    {
        guard let processor else { throw handOver(because: "no GPU deinterlacer") }
        let index = nextIndex
        let current = window[index]
        let past = window[max(0, index - references.past)..<index].reversed().map(\.image)
        let future = window[(index + 1)..<min(window.count, index + 1 + references.future)].map(\.image)
        var outputs: [Deinterlacer.Output] = []
        let passesThrough = interlacedOnly && current.image.attachments.fieldCount != 2
        if passesThrough {
            outputs.append(
                Deinterlacer.Output(image: current.image, presentationTimeStamp: fieldTime(index, second: false)))
        }
        for secondField in passesThrough ? [] : secondFields ? [false, true] : [false] {
            switch processor.deinterlaceTemporally(current.image, secondField: secondField, past: past, future: future)
            {
            case .success(let picture):
                outputs.append(
                    Deinterlacer.Output(image: picture, presentationTimeStamp: fieldTime(index, second: secondField)))
            case .failure(let refusal):
                throw handOver(because: refusal.reason)
            }
        }
        nextIndex += 1
        // The previous picture stays too: the second field's time at the end and a handover
        // need it.
        let surplus = nextIndex - max(references.past, 1)
        if surplus > 0 {
            window.removeFirst(surplus)
            nextIndex -= surplus
        }
        return outputs
    }

    /// When the field of the picture at `index` is shown, as libavfilter's `yadif`/`bwdif` time
    /// it: twice the picture's time in a time scale twice the sequence's; for its second field
    /// the sum of its time and the next picture's (at the end, of one a picture's step later).
    private func fieldTime(_ index: Int, second: Bool) -> MediaTime {
        // Wrapping arithmetic: a hostile stream's absurd times give absurd times, never a trap.
        let time = window[index].time.value
        guard second else { return MediaTime(value: 2 &* time, timescale: 2 * timescale) }
        let next: Int64
        if index + 1 < window.count {
            next = window[index + 1].time.value
        } else {
            let previous = index > 0 ? window[index - 1].time.value : time
            next = (2 &* time) &- previous
        }
        return MediaTime(value: time &+ next, timescale: 2 * timescale)
    }
}
