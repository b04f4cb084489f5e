/// A libavfilter filter chain over pixel buffers (``FilterGraph``): one graph per picture size
/// and layout, remade when they change, after the old one gave out what it held. The
/// ``Deinterlacer``, a session's field mode and HDR tone mapping run on it.
///
/// Not thread-safe: one caller at a time.
final class PictureFilterChain {
    /// A filtered picture and its time.
    struct Picture {
        let image: PixelBuffer
        let time: MediaTime
    }

    /// The filters and their options, in libavfilter's syntax.
    let filters: String
    /// Whether the filter's pictures are progressive (a deinterlacer's), whatever the filter says.
    let makesProgressivePictures: Bool
    /// The range of the filter's pictures when the filters set it; nil: the input's.
    let outputFullRange: Bool?
    private var graph: FilterGraph?
    private var key: Key?
    private var timescale: Int32 = 1
    private var fullRange = false
    /// Pictures sent since the graph was made: the time stamp of one without a numeric time.
    private var count: Int64 = 0

    private struct Key: Equatable {
        var width: Int
        var height: Int
        var layout: PixelLayout
    }

    init(filters: String, makesProgressivePictures: Bool, outputFullRange: Bool? = nil) {
        self.filters = filters
        self.makesProgressivePictures = makesProgressivePictures
        self.outputFullRange = outputFullRange
    }

    /// Filters one picture (a GPU surface is read back first).
    ///
    /// - Parameters:
    ///   - image: The picture.
    ///   - time: Its time; pictures without a numeric time are numbered 0, 1, 2 … in a time scale of 1.
    /// - Returns: The pictures that became ready, those of a previous size first.
    func send(_ image: PixelBuffer, time: MediaTime) throws(VTError) -> [Picture] {
        try image.withFrame { (frame: Frame) throws(VTError) -> [Picture] in
            var pictures: [Picture] = []
            let key = Key(width: frame.width, height: frame.height, layout: frame.layout)
            if self.key != key {
                pictures += try finish()
                timescale = time.isNumeric ? time.timescale : 1
                graph = try FilterGraph(
                    filters: filters, width: key.width, height: key.height, layout: key.layout,
                    timeBase: (1, timescale), sampleAspectRatio: frame.sampleAspectRatio)
                self.key = key
                fullRange = outputFullRange ?? frame.isFullRange
            }
            let pts = time.isNumeric ? time.convertScale(timescale).value : count
            count += 1
            try graph?.send(frame, pts: pts)
            return pictures + (try receiveAll())
        }
    }

    /// Gives out the pictures the filter still holds; the next picture starts a new graph.
    func finish() throws(VTError) -> [Picture] {
        guard let graph else { return [] }
        try graph.sendEnd()
        let pictures = try receiveAll()
        self.graph = nil
        key = nil
        count = 0
        return pictures
    }

    private func receiveAll() throws(VTError) -> [Picture] {
        guard let graph else { return [] }
        var pictures: [Picture] = []
        while let frame = try graph.receive() {
            let lent = frame.frame
            if makesProgressivePictures { lent.markProgressive() }
            let pts = lent.timeStamp
            guard let format = PixelFormat.from(ffmpeg: lent.layout, fullRange: fullRange) else {
                throw VTError.pixelTransferNotSupported.with(
                    "\(filters) made pixel format \(lent.layout.name ?? "\(lent.layout.rawValue)"), "
                        + "which VAToolbox cannot hand out")
            }
            let base = graph.outputTimeBase
            let time = MediaTime(value: pts * Int64(base.numerator), timescale: base.denominator)
            pictures.append(Picture(image: PixelBuffer(taking: frame, pixelFormat: format), time: time))
        }
        return pictures
    }
}
