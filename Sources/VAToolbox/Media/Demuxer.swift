/// The reading state behind a ``MediaFileReader``: the libavformat input of one file, the track
/// read, and what turns its packets into samples (queue, Annex B parser, seek state, damage and
/// truncation records). A raw H.264/HEVC stream's samples come from an ``AnnexBStreamReader``
/// instead, as a ``SampleSource`` reads them: libavformat's input then only describes the track.
///
/// Not thread-safe: the reader keeps it in a `Mutex`, and every call runs under that lock.
final class Demuxer {
    /// The codec of the track read.
    let codecType: VideoCodecType
    /// The format of the first samples (a sample's own ``SampleBuffer/formatDescription`` is the
    /// one in force for it).
    private(set) var formatDescription: VideoFormatDescription
    /// The container's name as libavformat reports it, for example `"mov,mp4,m4a,3gp,3g2,mj2"`.
    let containerName: String
    /// The track's time scale: time stamps are counted in 1/`timescale` seconds (for a raw
    /// H.264/HEVC stream, the time scale of its first frame duration: 25 at 25 frames per second,
    /// 30000 at 30000/1001).
    private(set) var timescale: Int32
    /// The file's path, as given.
    let path: String
    /// Every video track of the file, in stream order.
    let videoTracks: [MediaTrack]
    /// The track read.
    let track: MediaTrack
    /// The file's start time (libavformat's `start_time`: the earliest presentation time of its
    /// streams), which the ffmpeg CLI subtracts from every time stamp and adds to a `-ss` time;
    /// zero when libavformat knows none.
    let startTime: MediaTime
    /// The damaged samples met so far, in order (the first 1000; ``damagedSampleCount`` counts
    /// them all).
    private(set) var damagedSamples: [DamagedSample] = []
    /// How many damaged samples the reader met so far.
    private(set) var damagedSampleCount = 0
    /// The number of the last damaged sample noted.
    private var lastDamagedNumber: Int?
    /// How the file ends before its container says it should; nil while nothing says so.
    private(set) var truncation: MediaFileTruncation?

    /// The most damaged samples ``damagedSamples`` keeps.
    static let damagedSampleLimit = 1000
    /// Reads that may fail in a row before the reader takes the track as ended.
    static let consecutiveReadFailureLimit = 16
    /// Packets held back while looking for in-band parameter sets, before giving up.
    static let heldPacketLimit = 600

    /// The libavformat input, reading only the track's stream.
    private let input: FormatInput
    /// The track's stream index.
    private let streamIndex: Int
    /// The unit of the track's packet time stamps (libavformat's stream time base).
    private let timeBase: FormatStream.Ratio
    private let support: any CodecSupport
    /// The container's parameters of the stream, for descriptions from new extradata.
    private let parameters: StreamParameters
    /// The description in force for the next sample.
    private var current: VideoFormatDescription
    /// For Annex B containers (MPEG-TS): the parser the packets go through, one access unit each.
    private var annexBParser: ElementaryStreamParser?
    /// For raw H.264/HEVC streams (libavformat's `h264` and `hevc` demuxers, whose packets have no
    /// time stamps): what cuts the file into access units and times them.
    private var rawStream: AnnexBStreamReader?
    /// The frame rate given for raw streams that state none (the `frameRate` of
    /// ``init(path:track:frameRate:)``); ``track`` has the rate in force.
    let assumedFrameRate: FrameRate?
    /// Samples read and not yet returned.
    private var queued: [SampleBuffer] = []
    private var queuedIndex = 0
    /// Packets of the track met (read or failed), the number of the next one.
    private var packetNumber = 0
    /// After ``seek(to:exactly:)``: samples presented before this time are not displayed.
    private var hideBefore: MediaTime?
    /// After ``seek(to:exactly:)``: the next sample resets the decoder.
    private var resetsDecoder = false
    private var ended = false

    /// Opens a file and finds its video track (see ``MediaFileReader/init(path:track:frameRate:)``).
    init(path: String, track: Int? = nil, frameRate: FrameRate? = nil) throws(VTError) {
        let requested = track
        let log = LibavLogCapture(.mediaFileReader, defaultLabel: path)
        // The input is released, closing the file, whenever a throw below ends the initialiser.
        // The raw demuxers' `framerate` is what `ffmpeg -framerate` sets: the rate libavformat
        // assumes (and reports) for a stream that states none.
        let input = try FormatInput(
            mediaFile: path, log: log, options: frameRate.map { ["framerate": $0.description] } ?? [:])
        assumedFrameRate = frameRate
        self.path = path
        containerName = input.formatName ?? "unknown"
        guard input.findStreamInfo(maximumPixels: Self.probePictureLimit) else {
            throw VTError.sampleBufferInvalidMediaFormat.with("\(path): libavformat could not read its streams")
                .quoting(log.explanation(since: 0))
        }
        let best = input.bestVideoStream()
        let streams = input.streams
        let fileDuration = input.duration
        let tracks = streams.filter { $0.mediaKind == .video }.map {
            MediaTrack($0, fileDuration: fileDuration, isDefault: $0.index == best)
        }
        videoTracks = tracks
        let chosen: MediaTrack
        if let requested {
            guard let found = tracks.first(where: { $0.index == requested }) else {
                let list = tracks.map { String($0.index) }.joined(separator: ", ")
                throw VTError.parameter.with(
                    "\(path) has no video track \(requested); its video tracks are \(list.isEmpty ? "none" : list)")
            }
            chosen = found
        } else {
            guard let best, let found = tracks.first(where: { $0.index == best }) else {
                throw VTError.sampleBufferInvalidMediaFormat.with("\(path) has no video track")
            }
            chosen = found
        }
        self.track = chosen
        guard let stream = streams.first(where: { $0.index == chosen.index }) else {
            throw VTError.sampleBufferInvalidMediaFormat.with("\(path) has no video track")
        }
        // Read only the chosen track.
        input.discardStreams(except: chosen.index)
        streamIndex = chosen.index
        timeBase = stream.timeBase
        timescale = timeBase.numerator == 1 && timeBase.denominator > 0 ? timeBase.denominator : 90000
        startTime = input.startTime.map { MediaTime(value: $0, timescale: 1_000_000) } ?? .zero
        guard let support = CodecRegistry.support(forFFmpegName: stream.codecName) else {
            throw VTError.couldNotFindVideoDecoder.with(
                "the video of \(path) is \(chosen.codecName); VAToolbox decodes \(CodecRegistry.names)")
        }
        self.support = support
        codecType = support.codecType
        parameters = StreamParameters(stream)
        self.input = input
        truncation = Self.truncation(of: stream, in: input, path: path, containerName: containerName)
        let missingParameterSets = support.inBandParameterSets?.lengthSizeOfIncompleteRecord(
            parameters.configurationRecord)
        let described =
            missingParameterSets == nil
            ? try support.formatDescription(container: parameters).map(parameters.addingContainerMetadata(to:)) : nil
        formatDescription = described ?? Self.placeholder
        current = formatDescription
        if let lengthSize = missingParameterSets {
            formatDescription = try describeFromInBandParameterSets(lengthSize: lengthSize)
        } else if described == nil && Self.rawStreamDemuxers.contains(containerName) {
            // A raw stream: read as standard input is, its own parameter sets describing it.
            let stream = try AnnexBStreamReader(path: path, codec: codecType, frameRate: frameRate)
            rawStream = stream
            formatDescription = stream.formatDescription
            timescale = stream.frameDuration.timescale
        } else if described == nil {
            // H.264/HEVC as Annex B in a container: the stream's own parameter sets describe it.
            annexBParser = ElementaryStreamParser(codec: codecType)
            // The first samples carry the first description; read until there is one.
            while queued.isEmpty {
                guard try readIntoQueue() else {
                    throw VTError.sampleBufferInvalidMediaFormat.with(
                        "\(path) has no decodable \(codecType.name) access unit")
                }
            }
            formatDescription = queued[0].formatDescription
        }
        current = formatDescription
    }

    /// The next sample in decode order, or nil at the end of the track (see
    /// ``MediaFileReader/nextSample()``).
    func nextSample() throws(VTError) -> SampleBuffer? {
        while queuedIndex == queued.count {
            queued.removeAll(keepingCapacity: true)
            queuedIndex = 0
            guard try readIntoQueue() else { return nil }
        }
        defer { queuedIndex += 1 }
        return queued[queuedIndex]
    }

    /// Reads every remaining sample.
    func readAllSamples() throws(VTError) -> [SampleBuffer] {
        var samples: [SampleBuffer] = []
        while let sample = try nextSample() { samples.append(sample) }
        return samples
    }

    /// Moves to the sync sample at or before `time` (see ``MediaFileReader/seek(to:exactly:)``).
    func seek(to time: MediaTime, exactly: Bool = true) throws(VTError) {
        guard time.isNumeric else { throw VTError.parameter.with("seek(to:) needs a numeric time") }
        guard time >= .zero || time >= startTime else {
            throw VTError.parameter.with(
                "cannot seek to \(time.seconds) s in \(path): the time is before the start of the track",
                hint: "seek to a time at or after \(max(startTime, .zero).seconds) s")
        }
        var ahead: ReadAhead
        if rawStream != nil {
            try seekInRawStream(to: time, exactly: exactly)
            ahead = try readAhead(past: time)
        } else {
            try seekInContainer(to: time, exactly: exactly)
            ahead = try readAhead(past: time)
            // libavformat's seek can leave nothing to read, or, in a file without an index
            // (MPEG-TS), land on the packet nearest the time whether it is a sync sample or not:
            // then the file is read from its start, as a raw stream is.
            var readNothing = false
            if case .pastTheEnd(lastEnd: nil) = ahead { readNothing = true }
            let landedOnSync = queuedIndex < queued.count && queued[queuedIndex].isSync
            if readNothing || !landedOnSync {
                try seekInRawStream(to: time, exactly: exactly)
                ahead = try readAhead(past: time)
            }
        }
        guard case .pastTheEnd(let lastEnd) = ahead else { return }
        // The reader stands at the end.
        queued.removeAll()
        queuedIndex = 0
        ended = true
        let last = lastEnd.map { " (its last sample ends at \($0.seconds) s)" } ?? ""
        throw VTError.sampleBufferSampleIndexOutOfRange.with(
            "cannot seek to \(time.seconds) s in \(path): the time is past the end of the track\(last)",
            hint: "seek to a time before the end of the track")
    }

    /// ``seek(to:exactly:)`` in a container: libavformat moves to the sync sample at or before
    /// `time` (`av_seek_frame` with `AVSEEK_FLAG_BACKWARD`).
    private func seekInContainer(to time: MediaTime, exactly: Bool) throws(VTError) {
        guard
            let target = Int64(
                exactly: (time.seconds * Double(timeBase.denominator) / Double(max(1, timeBase.numerator)))
                    .rounded(.down))
        else { throw VTError.parameter.with("seek(to:): \(time.seconds) s is past any time stamp the file can hold") }
        let status = input.seek(stream: streamIndex, toKeyFrameAtOrBefore: target)
        guard status >= 0 else {
            throw VTError.sampleBufferDataFailed.with(
                "cannot seek to \(time.seconds) s in \(path): \(FFmpegStatus.message(status))")
        }
        resetReading(fromStart: false, hidingBefore: exactly ? time : nil, resetsDecoder: true)
    }

    /// Forgets where reading stood, after libavformat moved: the samples queued, the end met, the
    /// Annex B parser's state, the damaged sample being noted. From then
    /// on the samples presented before `hidingBefore` are ``SampleAttachments/doNotDisplay``, and
    /// with `resetsDecoder` the next one queued resets the decoder.
    ///
    /// - Parameter fromStart: Whether libavformat went back to the start of the file: the
    ///   track's packets are then numbered again from 0.
    private func resetReading(fromStart: Bool, hidingBefore: MediaTime?, resetsDecoder: Bool) {
        queued.removeAll()
        queuedIndex = 0
        ended = false
        if fromStart { packetNumber = 0 }
        lastDamagedNumber = nil
        if annexBParser != nil { annexBParser = ElementaryStreamParser(codec: codecType) }
        hideBefore = hidingBefore
        self.resetsDecoder = resetsDecoder
    }

    /// What reading on after a move found.
    private enum ReadAhead {
        /// A queued sample is presented at or after the time, or lasts past it.
        case found
        /// The track ended first; `lastEnd` is when the last timed sample read ends (nil when
        /// none was read).
        case pastTheEnd(lastEnd: MediaTime?)
    }

    /// After a move: reads on (into the queue) until a sample is presented at or after `time`, or
    /// lasts past it.
    private func readAhead(past time: MediaTime) throws(VTError) -> ReadAhead {
        var index = queuedIndex
        var end: MediaTime?
        while true {
            while index < queued.count {
                let sample = queued[index]
                index += 1
                let start = sample.presentationTimeStamp
                guard start.isNumeric else { continue }
                let finish = sample.duration.isNumeric ? start + sample.duration : start
                if start >= time || finish > time { return .found }
                if end.map({ finish > $0 }) ?? true { end = finish }
            }
            guard try readIntoQueue() else { return .pastTheEnd(lastEnd: end) }
        }
    }

    /// ``seek(to:exactly:)`` in a raw stream, whose time stamps exist only as its samples are
    /// read in order (or in a container where libavformat's seek found nothing): reads from the
    /// start, keeping the samples from the last sync sample presented at or before `time`.
    private func seekInRawStream(to time: MediaTime, exactly: Bool) throws(VTError) {
        if rawStream != nil {
            // The stream is read again from its start, its time stamps given afresh.
            rawStream = try AnnexBStreamReader(path: path, codec: codecType, frameRate: assumedFrameRate)
        } else {
            let status = input.seekToStart(stream: streamIndex)
            guard status >= 0 else {
                throw VTError.sampleBufferDataFailed.with(
                    "cannot go back to the start of \(path): \(FFmpegStatus.message(status))")
            }
        }
        // The scan below marks the sync sample it keeps.
        resetReading(fromStart: true, hidingBefore: exactly ? time : nil, resetsDecoder: false)
        var kept: [SampleBuffer] = []
        scan: while true {
            while queuedIndex < queued.count {
                let sample = queued[queuedIndex]
                if sample.isSync {
                    if !kept.isEmpty && sample.presentationTimeStamp > time { break scan }
                    kept = [sample]
                } else if !kept.isEmpty {
                    kept.append(sample)
                }
                queuedIndex += 1
            }
            queued.removeAll(keepingCapacity: true)
            queuedIndex = 0
            guard try readIntoQueue() else { break }
        }
        if !kept.isEmpty { kept[0].attachments.insert(.resetDecoderBeforeDecoding) }
        queued = kept + queued[queuedIndex...]
        queuedIndex = 0
    }

    // MARK: - Reading

    /// Reads the next packet of the track into the queue (none, one or more samples); false at
    /// the end of the track.
    private func readIntoQueue() throws(VTError) -> Bool {
        guard !ended else { return false }
        if let rawStream {
            guard let sample = try rawStream.nextSample() else {
                ended = true
                return false
            }
            queue(sample, corrupt: false)
            return true
        }
        guard let packet = try readPacket() else {
            ended = true
            // The parser is changed where it is stored: a copy would share its buffer and copy it.
            if let samples = annexBParser?.finish() { queue(samples, corrupt: false) }
            return !queued.isEmpty
        }
        let number = packetNumber
        packetNumber += 1
        let timing = timing(of: packet)
        let corrupt = packet.isCorrupt
        let data = packet.data
        guard !data.isEmpty else {
            noteDamage(number: number, timing: timing, reason: "the sample is empty", skipped: true)
            return true
        }
        if corrupt {
            let reason: String
            if input.reachedEndOfFile {
                noteCutSample(at: packet.position)
                reason = "the file ends inside the sample: \(data.count) bytes of it are in the file (partial file)"
            } else {
                reason = "the container marks the sample corrupt"
            }
            noteDamage(number: number, timing: timing, reason: reason, skipped: false)
        }
        if var samples = annexBParser?.parse(data) {
            // One packet is one access unit: end it at the packet's end.
            samples += annexBParser?.finish() ?? []
            if samples.count == 1 {
                samples[0].timing = timing
                samples[0].attachments.formUnion(attachments(of: packet))
            }
            queue(samples, corrupt: corrupt)
            return true
        }
        if let record = packet.newExtradata { followNewExtradata(record) }
        var sample = sample(data, number: number, timing: timing, attachments: attachments(of: packet))
        sample.hdr10PlusPerFrameData = Self.hdr10PlusMessage(in: packet)
        queue(sample, corrupt: corrupt)
        return true
    }

    /// WebM's `BlockAddIDType` of an ITU-T T.35 message: how a VP9 track carries HDR10+
    /// (WebM's "HDR10+ in WebM", which libavformat 6.0's `matroskadec.c` reads and 5.1 passes on
    /// as the raw block additional).
    static let itutT35BlockAddID: UInt64 = 4

    /// The HDR10+ message of a packet's Matroska block additional, nil when it has none.
    private static func hdr10PlusMessage(in packet: FormatInput.Packet) -> [UInt8]? {
        guard let additional = packet.blockAdditional, additional.id == itutT35BlockAddID,
            HDR10Plus.isHDR10Plus(additional.data[...])
        else { return nil }
        return additional.data
    }

    /// Reads the next packet of the track; nil at the end. A failed read that libavformat can go
    /// on past (a sample past the end of a cut file) is noted as a skipped damaged sample; after
    /// ``consecutiveReadFailureLimit`` in a row the track is taken as ended.
    private func readPacket() throws(VTError) -> FormatInput.Packet? {
        var failures = 0
        while true {
            switch input.readPacket(ofStream: streamIndex) {
            case .packet(let packet):
                return packet
            case .endOfFile:
                return nil
            case .outOfMemory:
                throw VTError.allocationFailed.with("reading \(path)")
            case .failed(let status, let logged):
                failures += 1
                noteDamage(
                    number: packetNumber, timing: .invalid,
                    reason: VTError.sampleBufferDataFailed.with(
                        "reading the file failed: \(FFmpegStatus.message(status))"
                    ).quoting(logged).reason, skipped: true)
                packetNumber += 1
                if failures >= Self.consecutiveReadFailureLimit { return nil }
            }
        }
    }

    /// A packet's data as a sample of the current description: flagged damaged, with its bytes
    /// as they are, when its framing is wrong (the decoder meets it as the ffmpeg CLI's does).
    private func sample(
        _ data: [UInt8], number: Int, timing: SampleTimingInfo, attachments: SampleAttachments
    ) -> SampleBuffer {
        do throws(VTError) {
            return try SampleBuffer(data: data, formatDescription: current, timing: timing, attachments: attachments)
        } catch {
            noteDamage(number: number, timing: timing, reason: error.reason, skipped: false)
            var damaged = SampleBuffer(damagedData: data, formatDescription: current, timing: timing)
            damaged.attachments.formUnion(attachments)
            return damaged
        }
    }

    /// Queues samples, applying a pending seek's attachments and the corrupt flag.
    private func queue(_ samples: [SampleBuffer], corrupt: Bool) {
        for var sample in samples {
            if corrupt { sample.attachments.insert(.damaged) }
            if resetsDecoder {
                sample.attachments.insert(.resetDecoderBeforeDecoding)
                resetsDecoder = false
            }
            if let hideBefore, sample.presentationTimeStamp.isNumeric, sample.presentationTimeStamp < hideBefore {
                sample.attachments.insert(.doNotDisplay)
            }
            queued.append(sample)
        }
    }

    private func queue(_ sample: SampleBuffer, corrupt: Bool) { queue([sample], corrupt: corrupt) }

    /// A new sample description starts at this packet (libavformat's `AV_PKT_DATA_NEW_EXTRADATA`:
    /// an MP4 track with several `stsd` entries): the samples from here on carry a description
    /// made from `record`. A record that describes nothing leaves the current description in force.
    private func followNewExtradata(_ record: [UInt8]) {
        var changed = parameters
        changed.configurationRecord = record
        if let described = try? support.formatDescription(container: changed) {
            current = changed.addingContainerMetadata(to: described)
        }
    }

    // MARK: - Truncation

    /// What the file's top-level structure and the track's sample table say of its end (see
    /// ``MediaFileTruncation``): nil for a file that ends where they say it does, and for one whose
    /// size libavformat cannot tell (a pipe).
    ///
    /// A sample table that lists every sample of the track (MP4/MOV: as many index entries as the
    /// track has frames, each with its position and size) decides for the track, as `ffmpeg -map
    /// 0:v` meets it; without one, a top-level element that runs past the end of the file does
    /// (a Matroska Segment, a fragmented MP4's boxes).
    private static func truncation(
        of stream: FormatStream, in input: FormatInput, path: String, containerName: String
    ) -> MediaFileTruncation? {
        guard let fileSize = input.fileSize, fileSize > 0 else { return nil }
        let table = sampleTable(of: stream, in: input, fileSize: fileSize)
        let overrun = ContainerExtent.Layout(demuxerName: containerName).flatMap { layout in
            FileBytes(path: path).flatMap { file in
                ContainerExtent.overrun(layout, fileSize: fileSize) { file.read(at: $0, count: $1) }
            }
        }
        if let table {
            guard table.complete < table.count else { return nil }
        } else if overrun == nil {
            return nil
        }
        return MediaFileTruncation(
            fileSize: fileSize, expectedSize: overrun?.end ?? table?.end, element: overrun?.element,
            expectedSampleCount: table?.count, completeSampleCount: table?.complete,
            firstIncompleteSampleOffset: table?.firstCut)
    }

    /// The track's sample table as libavformat's index holds it (`avformat_index_get_entry`): how
    /// many samples it lists, how many lie wholly in the first `fileSize` bytes, where the first
    /// that does not starts, and where the last ends; nil when the index does not list every
    /// sample of the track (libavformat builds it as it reads, or from key frames only).
    private static func sampleTable(
        of stream: FormatStream, in input: FormatInput, fileSize: Int64
    ) -> (count: Int, complete: Int, firstCut: Int64?, end: Int64)? {
        let count = input.indexEntryCount(ofStream: stream.index)
        guard count > 0, stream.frameCount == Int64(count) else { return nil }
        var complete = 0
        var firstCut: Int64?
        var end: Int64 = 0
        for index in 0..<count {
            guard let entry = input.indexEntry(ofStream: stream.index, at: index) else { continue }
            let entryEnd = entry.position + Int64(entry.size)
            end = max(end, entryEnd)
            if entryEnd <= fileSize {
                complete += 1
            } else if firstCut == nil {
                firstCut = entry.position
            }
        }
        return (count, complete, firstCut, end)
    }

    /// Notes that the end of the file cut through the sample at `position` (a sample the
    /// container marks corrupt, read when the read met the end of the file): the file is
    /// truncated, if nothing said so when it was opened.
    private func noteCutSample(at position: Int64) {
        guard truncation == nil, let fileSize = input.fileSize else { return }
        truncation = MediaFileTruncation(
            fileSize: fileSize > 0 ? fileSize : input.filePosition ?? fileSize, expectedSize: nil, element: nil,
            expectedSampleCount: nil, completeSampleCount: nil,
            firstIncompleteSampleOffset: position >= 0 ? position : nil)
    }

    /// Notes a damaged sample. A sample found damaged twice (the container marks it corrupt, and
    /// its NAL units do not tile it) is one damaged sample, with both reasons.
    private func noteDamage(number: Int, timing: SampleTimingInfo, reason: String, skipped: Bool) {
        if number == lastDamagedNumber {
            guard damagedSampleCount == damagedSamples.count, let last = damagedSamples.last else { return }
            damagedSamples[damagedSamples.count - 1] = DamagedSample(
                number: number, decodeTimeStamp: last.decodeTimeStamp,
                presentationTimeStamp: last.presentationTimeStamp,
                reason: "\(last.reason); \(reason)", isSkipped: last.isSkipped && skipped)
            return
        }
        damagedSampleCount += 1
        lastDamagedNumber = number
        guard damagedSamples.count < Self.damagedSampleLimit else { return }
        damagedSamples.append(
            DamagedSample(
                number: number, decodeTimeStamp: timing.decodeTimeStamp,
                presentationTimeStamp: timing.presentationTimeStamp, reason: reason, isSkipped: skipped))
    }

    // MARK: - In-band parameter sets

    /// Reads packets until their parameter sets, with the record's, describe the stream; the
    /// packets read come out as the first samples.
    private func describeFromInBandParameterSets(lengthSize: Int) throws(VTError) -> VideoFormatDescription {
        guard let rules = support.inBandParameterSets else { return Self.placeholder }
        var held: [(data: [UInt8], number: Int, timing: SampleTimingInfo, attachments: SampleAttachments)] = []
        var found: [[UInt8]] = rules.parameterSets(inRecord: parameters.configurationRecord)
        var described: VideoFormatDescription?
        while described == nil {
            guard held.count < Self.heldPacketLimit, let packet = try readPacket() else {
                throw VTError.formatDescriptionInvalidParameter.with(
                    "the \(rules.recordName) record of \(path) lacks parameter sets, and "
                        + "the first \(held.count) samples carry none")
            }
            let data = packet.data
            guard !data.isEmpty else { continue }
            var attachments = attachments(of: packet)
            if packet.isCorrupt { attachments.insert(.damaged) }
            held.append((data, packetNumber, timing(of: packet), attachments))
            packetNumber += 1
            let units = ((try? AVCC.split(data[...], lengthSize: lengthSize)) ?? [])
                .compactMap { try? NALUnit($0, codec: codecType) }
            for unit in units where unit.isParameterSet && !found.contains(Array(unit.bytes)) {
                found.append(Array(unit.bytes))
            }
            described = rules.formatDescription(parameterSets: found, nalUnitHeaderLength: lengthSize)
        }
        guard let described = described.map(parameters.addingContainerMetadata(to:)) else { return Self.placeholder }
        current = described
        for packet in held {
            var made = sample(packet.data, number: packet.number, timing: packet.timing, attachments: [])
            made.attachments.formUnion(packet.attachments)
            queue(made, corrupt: false)
        }
        return described
    }

    // MARK: - Packets

    /// A packet's flags as sample attachments: not a key frame is `notSync`; a packet outside the
    /// track's edit list (libavformat's `AV_PKT_FLAG_DISCARD`: decoded for the pictures that refer
    /// to it, never shown) is `doNotDisplay`.
    private func attachments(of packet: FormatInput.Packet) -> SampleAttachments {
        var attachments: SampleAttachments = []
        if !packet.isKeyFrame { attachments.insert(.notSync) }
        if packet.isDiscarded { attachments.insert(.doNotDisplay) }
        return attachments
    }

    /// A packet's time stamps as sample timing in the track's time scale.
    private func timing(of packet: FormatInput.Packet) -> SampleTimingInfo {
        SampleTimingInfo(
            duration: time(packet.duration), presentationTimeStamp: time(packet.presentationTimeStamp),
            decodeTimeStamp: time(packet.decodeTimeStamp))
    }

    /// A time stamp in the stream's time base as a time; invalid when unknown.
    private func time(_ value: Int64?) -> MediaTime {
        guard let value else { return .invalid }
        if timeBase.numerator == 1 { return MediaTime(value: value, timescale: timeBase.denominator) }
        return MediaTime(value: value, timescale: timeBase.denominator).multiplied(by: timeBase.numerator)
    }

    /// A stand-in until the stream's own parameter sets describe it (never seen by callers).
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

extension Demuxer {
    /// libavformat's raw H.264/HEVC demuxers: their files are read by an ``AnnexBStreamReader``.
    fileprivate static let rawStreamDemuxers: Set<String> = ["h264", "hevc"]

    /// The largest picture libavcodec's probing decoders may allocate while libavformat probes the
    /// streams: the largest a session decodes by default (``PictureLimits``). A stream whose
    /// header declares 12288×12288 is refused by the session before it decodes, and must not cost
    /// the probe half a gigabyte either (libavformat decodes a VP9 key frame to learn its pixel
    /// format); the size the probe refused stays as the container stated it, so that the session
    /// names it in its error.
    fileprivate static var probePictureLimit: Int {
        VideoCodecType.decodable.map(PictureLimits.defaultMaximumPixels(for:)).max() ?? 8192 * 8192
    }
}
