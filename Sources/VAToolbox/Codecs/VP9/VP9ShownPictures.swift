/// VP9: the frames of a superframe that are output (not hidden, or shown existing frames).
///
/// A sample is disposable when its one frame refreshes no reference slot and the next sample
/// starts with a key frame or an error-resilient frame. Such a frame still leaves state behind
/// outside the slots — its motion vectors, which the next frame's prediction reads unless that
/// frame is intra or error resilient (`UsePrevFrameMvs`, VP9 bitstream specification §7.2), its
/// segmentation map, loop filter deltas and probability contexts — but a key frame or an
/// error-resilient frame resets all of that before it decodes (`setup_past_independence`,
/// §7.2; libavcodec's vp9.c `decode_frame_header` does the same), so nothing later can tell
/// whether the frame was decoded. Hence the verdict waits for the next sample
/// (``isPreviousDisposable(given:)``); the last sample of a stream is never judged disposable.
/// libvpx's temporal layers with `error_resilient` make such frames (RTC, WebRTC's VP9).
struct VP9ShownPictures: ShownPictureCounting {
    /// Whether the last sample was one frame that refreshes no slot: disposable if the next
    /// sample resets what it left.
    private var lastRefreshesNoSlot = false
    /// Whether the last sample's last output frame is intra (key or intra only); nil when
    /// unknown (no header read).
    private var lastOutputIsIntra: Bool?
    /// Whether the frame in each reference slot is intra, for shown existing frames.
    private var slotIsIntra = [Bool?](repeating: nil, count: 8)

    mutating func shown(by sample: SampleBuffer) -> ShownPictures {
        guard let frames = try? VP9Superframe.frames(in: sample.data[...]) else {
            lastRefreshesNoSlot = false
            lastOutputIsIntra = nil
            return .frames(1)
        }
        let headers = frames.map { try? VP9UncompressedHeader($0) }
        lastOutputIsIntra = nil
        for header in headers {
            guard let header else {
                lastOutputIsIntra = nil
                continue
            }
            // A shown existing frame goes out as the frame in its slot, typed as it was decoded.
            let intra =
                header.showExistingFrame ? header.frameToShowMapIdx.flatMap { slotIsIntra[$0] } : header.frameIsIntra
            if header.isOutput { lastOutputIsIntra = intra }
            if !header.showExistingFrame {
                for slot in 0..<8 where header.refreshFrameFlags & (1 << slot) != 0 { slotIsIntra[slot] = intra }
            }
        }
        if headers.count == 1, let header = headers[0] {
            lastRefreshesNoSlot = !header.showExistingFrame && !header.frameIsIntra && header.refreshFrameFlags == 0
        } else {
            lastRefreshesNoSlot = false
        }
        return .frames(headers.count { header in header?.isOutput ?? true })
    }

    /// I for a key or intra-only frame, P for the others (libavcodec's vp9.c); a shown existing
    /// frame as the frame it shows.
    func pictureType(of sample: SampleBuffer) -> PictureType? {
        lastOutputIsIntra.map { $0 ? .intra : .predicted }
    }

    func isPreviousDisposable(given next: SampleBuffer) -> Bool? {
        guard lastRefreshesNoSlot else { return nil }
        guard let first = (try? VP9Superframe.frames(in: next.data[...]))?.first,
            let header = try? VP9UncompressedHeader(first), !header.showExistingFrame
        else { return false }
        return header.isKeyFrame || header.errorResilientMode
    }
}

extension VP9CodecSupport {
    var statesLevel: Bool { false }
    func makeShownPictureCounter() -> any ShownPictureCounting { VP9ShownPictures() }
}
