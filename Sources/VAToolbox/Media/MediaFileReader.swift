internal import CFFmpeg

/// Reads the video track of a media file — MP4/MOV, Matroska/WebM, MPEG-TS, IVF, AV1 OBU
/// streams, raw H.264/HEVC Annex B and MPEG-2 elementary streams — as a format description and
/// sample buffers, through libavformat. The `AVAssetReader` of this library, for every codec it
/// decodes.
///
/// Samples come in decode order with the container's time stamps (in the track's time scale)
/// and sync flags. Containers that carry length-prefixed samples with an `avcC`/`hvcC` record
/// (MP4, Matroska) are handed through as they are; containers that carry H.264/HEVC as Annex B
/// (MPEG-TS, raw streams) go through an ``ElementaryStreamParser``, which also follows parameter
/// set changes. AV1 temporal units, VP8/VP9 frames and MPEG-2 pictures come as libavformat
/// delimits them, described by the container's configuration record and codec parameters.
///
/// Not thread-safe: read from one thread (it is `Sendable`-unavailable).
public final class MediaFileReader {
    /// The codec of the video track.
    public let codecType: VideoCodecType
    /// The format of the first samples (a sample's own ``SampleBuffer/formatDescription`` is the
    /// one in force for it).
    public private(set) var formatDescription: VideoFormatDescription
    /// The container's name as libavformat reports it, for example `"mov,mp4,m4a,3gp,3g2,mj2"`.
    public let containerName: String
    /// The track's time scale: time stamps are counted in 1/`timescale` seconds.
    public let timescale: Int32

    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let packet: UnsafeMutablePointer<AVPacket>
    private let streamIndex: Int32
    private let timeBase: AVRational
    /// For Annex B containers: the parser the packets go through.
    private var annexBParser: ElementaryStreamParser?
    /// Samples parsed and not yet returned (Annex B containers).
    private var queued: [SampleBuffer] = []

    /// Opens a file and finds its video track.
    ///
    /// - Throws: ``VTError/sampleBufferDataFailed`` when the file cannot be opened or read (with
    ///   the system's reason); ``VTError/sampleBufferInvalidMediaFormat`` when it is not a
    ///   container libavformat knows or has no video track; ``VTError/couldNotFindVideoDecoder``
    ///   when the video is in a codec VAToolbox does not decode; ``VTError/formatDescriptionInvalidParameter``
    ///   when its decoder configuration is malformed.
    public init(path: String) throws(VTError) {
        guard let packet = av_packet_alloc() else { throw VTError.allocationFailed.with("allocating a packet") }
        self.packet = packet
        var context: UnsafeMutablePointer<AVFormatContext>?
        let status = avformat_open_input(&context, path, nil, nil)
        guard status >= 0, let context else {
            var failed = packet as UnsafeMutablePointer<AVPacket>?
            av_packet_free(&failed)
            let reason =
                status == CFFmpeg_AVERROR_INVALIDDATA()
                ? VTError.sampleBufferInvalidMediaFormat.with("\(path) is not a media file VAToolbox can read")
                : VTError.sampleBufferDataFailed.with("cannot open \(path): \(FFmpegStatus.message(status))")
            throw reason
        }
        self.context = context
        containerName = context.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
        // From here on, deinit closes the input if anything below throws.
        let probe = avformat_find_stream_info(context, nil)
        let index = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard probe >= 0, index >= 0, let stream = context.pointee.streams[Int(index)] else {
            streamIndex = -1
            timeBase = AVRational(num: 1, den: 1)
            timescale = 1
            codecType = .h264
            formatDescription = Self.placeholder
            throw VTError.sampleBufferInvalidMediaFormat.with("\(path) has no video track")
        }
        streamIndex = index
        timeBase = stream.pointee.time_base
        timescale = timeBase.num == 1 && timeBase.den > 0 ? timeBase.den : 90000
        let parameters = stream.pointee.codecpar.pointee
        guard let support = CodecRegistry.support(forLibavcodecID: parameters.codec_id) else {
            formatDescription = Self.placeholder
            codecType = .h264
            let name = avcodec_get_name(parameters.codec_id).map { String(cString: $0) } ?? "unknown"
            throw VTError.couldNotFindVideoDecoder.with(
                "the video of \(path) is \(name); VAToolbox decodes \(CodecRegistry.names)")
        }
        codecType = support.codecType
        let described: VideoFormatDescription?
        do throws(VTError) {
            described = try support.formatDescription(
                container: StreamParameters(parameters, containerAspectRatio: stream.pointee.sample_aspect_ratio))
        } catch {
            // A damaged configuration record: every stored property must be set before the
            // throw, or deinit never runs and the opened input (a descriptor) leaks.
            formatDescription = Self.placeholder
            throw error
        }
        if let described {
            formatDescription = described
        } else {
            // H.264/HEVC as Annex B: the stream's own parameter sets describe it.
            formatDescription = Self.placeholder
            annexBParser = ElementaryStreamParser(codec: codecType)
            // The first samples carry the first description; read until there is one.
            while queued.isEmpty {
                guard try readPacketIntoQueue() else {
                    throw VTError.sampleBufferInvalidMediaFormat.with(
                        "\(path) has no decodable \(codecType.name) access unit")
                }
            }
            formatDescription = queued[0].formatDescription
        }
    }

    deinit {
        av_packet_free_checked(packet)
        if context != nil { avformat_close_input(&context) }
    }

    /// The next sample in decode order, or nil at the end of the track.
    ///
    /// - Throws: ``VTError/sampleBufferDataFailed`` when reading fails;
    ///   ``VTError/sampleBufferInvalidSampleData`` for a packet whose length prefixes do not tile it.
    public func nextSample() throws(VTError) -> SampleBuffer? {
        if annexBParser != nil {
            while queued.isEmpty {
                guard try readPacketIntoQueue() else { return nil }
            }
            return queued.removeFirst()
        }
        guard try readPacket() else { return nil }
        defer { av_packet_unref(packet) }
        let data = Array(UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
        return try SampleBuffer(
            data: data, formatDescription: formatDescription, timing: timing(of: packet),
            attachments: attachments(of: packet))
    }

    /// Reads every remaining sample.
    public func readAllSamples() throws(VTError) -> [SampleBuffer] {
        var samples: [SampleBuffer] = []
        while let sample = try nextSample() { samples.append(sample) }
        return samples
    }

    /// Reads the next packet of the video track into `packet`; false at the end.
    private func readPacket() throws(VTError) -> Bool {
        guard let context else { return false }
        while true {
            let status = av_read_frame(context, packet)
            if FFmpegStatus.isEndOfFile(status) { return false }
            guard status >= 0 else {
                throw VTError.sampleBufferDataFailed.with("reading the file failed: \(FFmpegStatus.message(status))")
            }
            if packet.pointee.stream_index == streamIndex { return true }
            av_packet_unref(packet)
        }
    }

    /// Parses the next Annex B packet into samples; false at the end (after flushing the parser).
    private func readPacketIntoQueue() throws(VTError) -> Bool {
        guard var parser = annexBParser else { return false }
        defer { annexBParser = parser }
        guard try readPacket() else {
            queued += parser.finish()
            return !queued.isEmpty
        }
        defer { av_packet_unref(packet) }
        let timing = timing(of: packet)
        // One packet is one access unit: end it at the packet's end.
        var samples = parser.parse(UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
        samples += parser.finish()
        if samples.count == 1 {
            samples[0].timing = timing
            if packet.pointee.flags & AV_PKT_FLAG_DISCARD != 0 { samples[0].attachments.insert(.doNotDisplay) }
        }
        queued += samples
        return true
    }

    /// A packet's flags as sample attachments: not a key frame is `notSync`; a packet outside the
    /// track's edit list (libavformat's `AV_PKT_FLAG_DISCARD`: decoded for the pictures that refer
    /// to it, never shown) is `doNotDisplay`.
    private func attachments(of packet: UnsafeMutablePointer<AVPacket>) -> SampleAttachments {
        var attachments: SampleAttachments = []
        if packet.pointee.flags & AV_PKT_FLAG_KEY == 0 { attachments.insert(.notSync) }
        if packet.pointee.flags & AV_PKT_FLAG_DISCARD != 0 { attachments.insert(.doNotDisplay) }
        return attachments
    }

    /// A packet's time stamps as sample timing in the track's time scale.
    private func timing(of packet: UnsafeMutablePointer<AVPacket>) -> SampleTimingInfo {
        SampleTimingInfo(
            duration: time(packet.pointee.duration == 0 ? CFFmpeg_AV_NOPTS_VALUE() : packet.pointee.duration),
            presentationTimeStamp: time(packet.pointee.pts), decodeTimeStamp: time(packet.pointee.dts))
    }

    private func time(_ value: Int64) -> MediaTime {
        guard value != CFFmpeg_AV_NOPTS_VALUE() else { return .invalid }
        if timeBase.num == 1 { return MediaTime(value: value, timescale: timeBase.den) }
        return MediaTime(value: value, timescale: timeBase.den).multiplied(by: timeBase.num)
    }

    /// A stand-in stored before a failing initialiser throws (never seen by callers).
    private static var placeholder: VideoFormatDescription {
        VideoFormatDescription(
            codecType: .h264, parameterSets: [], nalUnitHeaderLength: 4,
            codedDimensions: VideoDimensions(width: 0, height: 0),
            cleanAperture: CleanAperture(left: 0, top: 0, width: 0, height: 0),
            stream: StreamProperties(
                profileName: "", profileIdc: 0, levelIdc: 0, highTier: false, chromaFormatIdc: 1, bitDepthLuma: 8,
                bitDepthChroma: 8, maxNumReorderFrames: 0, maxDecFrameBuffering: 1, mayBeInterlaced: false,
                frameDuration: nil),
            extensions: FormatDescriptionExtensions())
    }
}

/// `MediaFileReader` holds libavformat state for one reading thread.
@available(*, unavailable)
extension MediaFileReader: Sendable {}

private func av_packet_free_checked(_ packet: UnsafeMutablePointer<AVPacket>) {
    var pointer: UnsafeMutablePointer<AVPacket>? = packet
    av_packet_free(&pointer)
}
