internal import CFFmpeg

/// A chain of libavfilter video filters between a `buffer` source and a `buffersink`: the graph
/// the `ffmpeg` CLI builds for `-vf FILTERS` (libavfilter inserts the format conversions the
/// filters need, as it does there).
///
/// Not thread-safe: one caller at a time.
final class FilterGraph {
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    /// The time base of the frames the graph gives (`av_buffersink_get_time_base`): a filter that
    /// makes a frame of each field halves the input's.
    let outputTimeBase: (numerator: Int32, denominator: Int32)

    /// Builds and configures the graph for frames of one size and layout.
    ///
    /// - Parameters:
    ///   - filters: The filters in libavfilter's syntax, as `-vf` takes them
    ///     (`"bwdif=mode=send_frame:parity=auto"`, `"zscale=t=linear,format=gbrpf32le"`).
    ///   - width: The frames' width.
    ///   - height: The frames' height.
    ///   - layout: The frames' sample layout.
    ///   - timeBase: The unit of the time stamps given to ``send(_:pts:)``.
    ///   - sampleAspectRatio: The frames' pixel aspect ratio (0:1 when unknown).
    /// - Throws: ``VTError/allocationFailed`` when memory runs out; ``VTError/parameter`` when
    ///   libavfilter lacks a filter or refuses its options or the frames.
    init(
        filters: String, width: Int, height: Int, layout: PixelLayout,
        timeBase: (numerator: Int32, denominator: Int32), sampleAspectRatio: (numerator: Int, denominator: Int)
    ) throws(VTError) {
        guard let graph = avfilter_graph_alloc() else {
            throw VTError.allocationFailed.with("allocating a libavfilter graph")
        }
        func fail(_ error: VTError) -> VTError {
            var owned: UnsafeMutablePointer<AVFilterGraph>? = graph
            avfilter_graph_free(&owned)
            return error
        }
        func create(_ name: String, _ label: String, _ options: String?) throws(VTError)
            -> UnsafeMutablePointer<AVFilterContext>
        {
            guard let definition = avfilter_get_by_name(name) else {
                throw fail(VTError.parameter.with("this libavfilter has no \(name) filter"))
            }
            var context: UnsafeMutablePointer<AVFilterContext>?
            let status = avfilter_graph_create_filter(&context, definition, label, options, nil, graph)
            guard status >= 0, let context else {
                throw fail(FFmpegStatus.error(status, "avfilter_graph_create_filter", "creating the \(name) filter"))
            }
            return context
        }
        let aspect =
            sampleAspectRatio.numerator > 0 && sampleAspectRatio.denominator > 0
            ? "\(sampleAspectRatio.numerator)/\(sampleAspectRatio.denominator)" : "0/1"
        let bufferArguments =
            "video_size=\(width)x\(height):pix_fmt=\(layout.rawValue):"
            + "time_base=\(timeBase.numerator)/\(timeBase.denominator):pixel_aspect=\(aspect)"
        let source = try create("buffer", "in", bufferArguments)
        let sink = try create("buffersink", "out", nil)
        try Self.parse(filters, into: graph, between: source, and: sink, failing: fail)
        let status = avfilter_graph_config(graph, nil)
        guard status >= 0 else {
            throw fail(
                FFmpegStatus.error(status, "avfilter_graph_config", "configuring \(filters) for \(width)x\(height)")
                    .replacingStatus(with: .parameter))
        }
        self.graph = graph
        self.source = source
        self.sink = sink
        let base = av_buffersink_get_time_base(sink)
        outputTimeBase = (base.num, base.den)
    }

    deinit { avfilter_graph_free(&graph) }

    /// Parses `filters` into `graph`, its input linked to `source`'s output and its output to
    /// `sink`'s input, as the `ffmpeg` CLI links a `-vf` chain.
    private static func parse(
        _ filters: String, into graph: UnsafeMutablePointer<AVFilterGraph>,
        between source: UnsafeMutablePointer<AVFilterContext>, and sink: UnsafeMutablePointer<AVFilterContext>,
        failing fail: (VTError) -> VTError
    ) throws(VTError) {
        // The chain's open input is "in" (fed by the source) and its open output "out" (into the
        // sink); avfilter_graph_parse_ptr frees both lists.
        var outputs = avfilter_inout_alloc()
        var inputs = avfilter_inout_alloc()
        guard let chainInput = outputs, let chainOutput = inputs else {
            avfilter_inout_free(&outputs)
            avfilter_inout_free(&inputs)
            throw fail(VTError.allocationFailed.with("allocating a libavfilter chain's ends"))
        }
        chainInput.pointee.name = av_strdup("in")
        chainInput.pointee.filter_ctx = source
        chainInput.pointee.pad_idx = 0
        chainInput.pointee.next = nil
        chainOutput.pointee.name = av_strdup("out")
        chainOutput.pointee.filter_ctx = sink
        chainOutput.pointee.pad_idx = 0
        chainOutput.pointee.next = nil
        let status = avfilter_graph_parse_ptr(graph, filters, &inputs, &outputs, nil)
        avfilter_inout_free(&outputs)
        avfilter_inout_free(&inputs)
        guard status >= 0 else {
            throw fail(
                FFmpegStatus.error(status, "avfilter_graph_parse_ptr", "reading the filters \(filters)")
                    .replacingStatus(with: .parameter))
        }
    }

    /// Gives the graph a new reference to `frame`'s buffers and properties (its interlacing and
    /// field order among them), time-stamped `pts` in the input time base.
    ///
    /// - Throws: ``VTError/allocationFailed`` when memory runs out; the mapped libavfilter status
    ///   when the graph refuses the frame.
    func send(_ frame: Frame, pts: Int64) throws(VTError) {
        // The graph takes the reference's buffers (av_buffersrc_add_frame_flags without
        // AV_BUFFERSRC_FLAG_KEEP_REF moves them) and leaves it empty, freed with it here.
        let reference = try FrameReference.allocate("allocating a frame for the filter")
        try FFmpegStatus.check(av_frame_ref(reference.pointer, frame.pointer), "av_frame_ref", "referencing a picture")
        reference.pointer.pointee.pts = pts
        try FFmpegStatus.check(
            av_buffersrc_add_frame_flags(source, reference.pointer, 0), "av_buffersrc_add_frame_flags",
            "filtering a picture")
    }

    /// Tells the graph that no frame follows, so that it gives out what it holds.
    func sendEnd() throws(VTError) {
        try FFmpegStatus.check(
            av_buffersrc_add_frame_flags(source, nil, 0), "av_buffersrc_add_frame_flags", "ending the filter's input")
    }

    /// The next filtered frame, its time stamp (``Frame/timeStamp``) in ``outputTimeBase``; nil
    /// when the graph needs more input or has given everything.
    func receive() throws(VTError) -> FrameReference? {
        let output = try FrameReference.allocate("allocating a filtered frame")
        let status = av_buffersink_get_frame(sink, output.pointer)
        if FFmpegStatus.isAgain(status) || FFmpegStatus.isEndOfFile(status) { return nil }
        try FFmpegStatus.check(status, "av_buffersink_get_frame", "receiving a filtered picture")
        return output
    }
}
