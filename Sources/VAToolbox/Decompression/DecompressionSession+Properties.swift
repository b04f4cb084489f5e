extension DecompressionSession {
    /// Sets a property of the live session — `VTSessionSetProperty`.
    ///
    /// As in VideoToolbox, `nil` restores the default (for ``DecompressionPropertyKey/realTime``
    /// that is `true`, as Apple documents). What may change, and when:
    ///
    /// | Key | Value | When it takes effect |
    /// | --- | --- | --- |
    /// | ``DecompressionPropertyKey/realTime`` | `Bool` | Any time. Before the first frame at once; later at the next ``finishDelayedFrames()`` or ``waitForAsynchronousFrames()`` (libavcodec fixes its threads while it holds pictures). `true` is the low-delay mode: slice threads only, and a stream without reordering comes out of a synchronous ``decodeFrame(_:flags:frameRefcon:)`` before it returns. |
    /// | ``DecompressionPropertyKey/threadCount`` | `Int` ≥ 0 (0: one per core) | As `realTime`. |
    /// | ``DecompressionPropertyKey/maximizePowerEfficiency`` | `Bool` | As `realTime`; `true` decodes on one thread (unless ``DecompressionPropertyKey/threadCount`` names more). |
    /// | ``DecompressionPropertyKey/outputPoolRequestedMinimumBufferCount`` | `Int` ≥ 0 | Any time: converted output comes from a new pool from the next picture on, as Apple documents. |
    /// | ``DecompressionPropertyKey/fieldMode`` | a ``FieldMode`` `String` | Any time: from the next picture handed out. |
    /// | ``DecompressionPropertyKey/deinterlaceMode`` | ``DeinterlaceMode/verticalFilter`` | Any time; ``DeinterlaceMode/temporal`` applies to frames decoded with ``DecodeFrameFlags/enableTemporalProcessing``. |
    ///
    /// On the GPU the thread settings are kept and read back, and change nothing: the GPU
    /// decodes each picture as it comes, through one libavcodec thread. The destination image
    /// buffer attributes change with ``setImageBufferAttributes(_:)`` (Apple has no key for them).
    ///
    /// - Parameters:
    ///   - key: The property.
    ///   - value: Its new value, of the type the key takes (`Bool`, an integer, or a `String`); nil
    ///     for the default.
    /// - Throws: ``VTError/propertyReadOnly`` for a key that can only be read;
    ///   ``VTError/propertyNotSupported`` for a key the session does not implement (see
    ///   ``DecompressionPropertyKey/access``);
    ///   ``VTError/parameter`` for a value of the wrong type or out of range;
    ///   ``VTError/invalidSession`` after ``invalidate()``; what opening the decoder throws when
    ///   a thread setting applies at once and libavcodec refuses it.
    public func setProperty(_ key: DecompressionPropertyKey, to value: (any Sendable)?) throws(VTError) {
        try checkValid()
        switch key.access {
        case .notSupported:
            throw VTError.propertyNotSupported.with("\(key) is not a property VAToolbox implements")
        case .readOnly:
            throw VTError.propertyReadOnly.with("\(key) can be read but not set")
        case .readWrite:
            break
        }
        switch key {
        case .realTime:
            let on = try Self.bool(value, for: key) ?? true
            try changeSettings { $0.specification.realTime = on }
        case .maximizePowerEfficiency:
            let on = try Self.bool(value, for: key) ?? false
            try changeSettings { $0.maximizePowerEfficiency = on }
        case .threadCount:
            let count = try Self.count(value, for: key) ?? 0
            try changeSettings { $0.specification.threadCount = count }
        case .outputPoolRequestedMinimumBufferCount:
            let count = try Self.count(value, for: key) ?? 0
            onQueueSync { decoder.setMinimumBufferCount(count) }
            state.withLock { $0.outputPoolMinimumBufferCount = count }
        case .propagatePerFrameHDRDisplayMetadata:
            let on = try Self.bool(value, for: key) ?? false
            state.withLock { $0.propagatesPerFrameHDRDisplayMetadata = on }
        case .fieldMode:
            let mode = try Self.string(value, for: key) ?? FieldMode.bothFields
            guard FieldMode.all.contains(mode) else {
                throw VTError.parameter.with("\(mode) is not a field mode (\(FieldMode.all.joined(separator: ", ")))")
            }
            let deinterlaceMode = state.withLock { state in
                state.fieldMode = mode
                return state.deinterlaceMode
            }
            onQueueSync { decoder.setFieldFilter(FieldModeFilter.forMode(mode, deinterlaceMode: deinterlaceMode)) }
        case .deinterlaceMode:
            let mode = try Self.string(value, for: key) ?? DeinterlaceMode.verticalFilter
            guard mode == DeinterlaceMode.verticalFilter || mode == DeinterlaceMode.temporal else {
                throw VTError.parameter.with("\(mode) is not a deinterlace mode (VerticalFilter, Temporal)")
            }
            let fieldMode = state.withLock { state in
                state.deinterlaceMode = mode
                return state.fieldMode
            }
            onQueueSync { decoder.setFieldFilter(FieldModeFilter.forMode(fieldMode, deinterlaceMode: mode)) }
        default:
            throw VTError.propertyNotSupported.with("\(key) is not a property VAToolbox implements")
        }
    }

    /// Reads a property of the session — `VTSessionCopyProperty`.
    ///
    /// The values, by key: ``DecompressionPropertyKey/realTime``,
    /// ``DecompressionPropertyKey/maximizePowerEfficiency``,
    /// ``DecompressionPropertyKey/usingHardwareAcceleratedVideoDecoder`` and
    /// ``DecompressionPropertyKey/pixelBufferPoolIsShared`` a `Bool`;
    /// ``DecompressionPropertyKey/threadCount`` the threads the decoder runs (an `Int`: the
    /// count libavcodec chose when none was asked for; 1 on the GPU);
    /// ``DecompressionPropertyKey/numberOfFramesBeingDecoded`` and
    /// ``DecompressionPropertyKey/outputPoolRequestedMinimumBufferCount`` an `Int`;
    /// the minimum and maximum output time stamps a ``MediaTime``;
    /// ``DecompressionPropertyKey/fieldMode`` and ``DecompressionPropertyKey/deinterlaceMode`` a
    /// `String`; ``DecompressionPropertyKey/pixelBufferPool``
    /// a ``PixelBufferPool`` or nil; ``DecompressionPropertyKey/usingGPURegistryID`` nil.
    ///
    /// - Throws: ``VTError/propertyNotSupported`` for a key the session does not implement;
    ///   ``VTError/invalidSession`` after ``invalidate()``.
    public func property(_ key: DecompressionPropertyKey) throws(VTError) -> (any Sendable)? {
        try checkValid()
        guard key.access != .notSupported else {
            throw VTError.propertyNotSupported.with("\(key) is not a property VAToolbox implements")
        }
        return state.withLock { (state: inout SessionState) -> (any Sendable)? in
            switch key {
            case .realTime: state.specification.realTime
            case .maximizePowerEfficiency: state.maximizePowerEfficiency
            case .propagatePerFrameHDRDisplayMetadata: state.propagatesPerFrameHDRDisplayMetadata
            case .threadCount: state.decodingThreads
            case .outputPoolRequestedMinimumBufferCount: state.outputPoolMinimumBufferCount
            case .fieldMode: state.fieldMode
            case .deinterlaceMode: state.deinterlaceMode
            case .pixelBufferPool: state.pool
            case .pixelBufferPoolIsShared: false
            case .numberOfFramesBeingDecoded: state.pending.count
            case .minOutputPresentationTimeStampOfFramesBeingDecoded:
                state.pending.values.map(\.timing.presentationTimeStamp).min() ?? MediaTime.invalid
            case .maxOutputPresentationTimeStampOfFramesBeingDecoded:
                state.pending.values.map(\.timing.presentationTimeStamp).max() ?? MediaTime.invalid
            case .usingHardwareAcceleratedVideoDecoder: state.hardware != nil
            default: nil  // usingGPURegistryID
            }
        }
    }

    // MARK: - Typed accessors

    /// Whether the session decodes for real-time playback, in low delay
    /// (`kVTDecompressionPropertyKey_RealTime`). See ``setProperty(_:to:)`` for when a change
    /// takes effect; setting it after ``invalidate()`` does nothing.
    public var realTime: Bool {
        get { state.withLock { $0.specification.realTime } }
        set { try? setProperty(.realTime, to: newValue) }
    }

    /// The decoding threads asked for, 0 for one per core (`kVTDecompressionPropertyKey_ThreadCount`,
    /// as set; ``property(_:)`` reads the count in use). See ``setProperty(_:to:)`` for when a
    /// change takes effect; setting it after ``invalidate()`` does nothing.
    public var threadCount: Int {
        get { state.withLock { $0.specification.threadCount } }
        set { try? setProperty(.threadCount, to: max(0, newValue)) }
    }

    /// Whether the session decodes with as little power as it can, on one thread
    /// (`kVTDecompressionPropertyKey_MaximizePowerEfficiency`). See ``setProperty(_:to:)`` for
    /// when a change takes effect; setting it after ``invalidate()`` does nothing.
    public var maximizePowerEfficiency: Bool {
        get { state.withLock { $0.maximizePowerEfficiency } }
        set { try? setProperty(.maximizePowerEfficiency, to: newValue) }
    }

    /// Whether each frame's HDR10+ dynamic metadata comes with it
    /// (``DecompressionOutput/hdr10PlusPerFrameData``;
    /// `kVTDecompressionPropertyKey_PropagatePerFrameHDRDisplayMetadata`); off by default. It
    /// applies to the frames decoded after it is set; setting it after ``invalidate()`` does
    /// nothing.
    public var propagatesPerFrameHDRDisplayMetadata: Bool {
        get { state.withLock { $0.propagatesPerFrameHDRDisplayMetadata } }
        set { try? setProperty(.propagatePerFrameHDRDisplayMetadata, to: newValue) }
    }

    /// The buffers the output pool keeps (`kVTDecompressionPropertyKey_OutputPoolRequestedMinimumBufferCount`);
    /// a change gives converted output a new pool from the next picture on. Setting it after
    /// ``invalidate()`` does nothing.
    public var outputPoolRequestedMinimumBufferCount: Int {
        get { state.withLock { $0.outputPoolMinimumBufferCount } }
        set { try? setProperty(.outputPoolRequestedMinimumBufferCount, to: max(0, newValue)) }
    }

    /// The image buffer attributes the output follows (`destinationImageBufferAttributes`); nil
    /// for the decoder's native pictures.
    public var imageBufferAttributes: ImageBufferAttributes? { state.withLock { $0.imageBufferAttributes } }

    /// Changes the destination image buffer attributes before the first frame.
    ///
    /// VideoToolbox takes them only at creation; this lets an application that learns what it
    /// wants after creating the session set them before it decodes. The GPU's surface pool keeps
    /// the size it was created with.
    ///
    /// - Parameter attributes: The new attributes; nil for the decoder's native pictures.
    /// - Throws: ``VTError/propertyReadOnly`` once a frame has been decoded;
    ///   ``VTError/parameter`` for attributes the session cannot produce (as at creation);
    ///   ``VTError/invalidSession`` after ``invalidate()``.
    public func setImageBufferAttributes(_ attributes: ImageBufferAttributes?) throws(VTError) {
        try checkValid()
        try Self.check(attributes)
        try state.withLock { (state: inout SessionState) throws(VTError) in
            guard state.nextToken == 0 else {
                throw VTError.propertyReadOnly.with(
                    "the image buffer attributes can only change before the first frame",
                    hint: "create a new session for other attributes")
            }
            state.imageBufferAttributes = attributes
            if let count = attributes?.minimumBufferCount { state.outputPoolMinimumBufferCount = count }
        }
        let job = transferJob(for: attributes)
        onQueueSync { decoder.setTransfer(job) }
    }

    // MARK: - Helpers

    /// Changes the decoder settings and hands them to the decoder: at once before the first
    /// frame, else from its next drain.
    private func changeSettings(_ change: (inout SessionState) -> Void) throws(VTError) {
        let settings = state.withLock { state -> DecoderSettings in
            change(&state)
            return DecoderSettings(
                specification: state.specification, maximizePowerEfficiency: state.maximizePowerEfficiency)
        }
        var failure: VTError?
        onQueueSync { failure = decoder.adopt(settings) }
        if let failure { throw failure }
    }

    private static func bool(_ value: (any Sendable)?, for key: DecompressionPropertyKey) throws(VTError) -> Bool? {
        guard let value else { return nil }
        guard let bool = value as? Bool else {
            throw VTError.parameter.with("\(key) takes a Bool, not \(type(of: value))")
        }
        return bool
    }

    private static func string(_ value: (any Sendable)?, for key: DecompressionPropertyKey) throws(VTError) -> String? {
        guard let value else { return nil }
        guard let string = value as? String else {
            throw VTError.parameter.with("\(key) takes a String, not \(type(of: value))")
        }
        return string
    }

    private static func count(_ value: (any Sendable)?, for key: DecompressionPropertyKey) throws(VTError) -> Int? {
        guard let value else { return nil }
        guard let integer = value as? any BinaryInteger, let count = Int(exactly: integer), (0...1024).contains(count)
        else {
            throw VTError.parameter.with("\(key) takes an integer from 0 to 1024, not \(value)")
        }
        return count
    }
}

/// The settings the session's decoder runs with, changeable on a live session.
struct DecoderSettings: Sendable {
    /// The specification, with the current real-time mode and thread count.
    var specification: DecoderSpecification
    /// `kVTDecompressionPropertyKey_MaximizePowerEfficiency`.
    var maximizePowerEfficiency = false

    /// The specification a software decoder opens with: one thread when power efficiency is
    /// asked for and no count is.
    var effectiveSpecification: DecoderSpecification {
        var effective = specification
        if maximizePowerEfficiency && effective.threadCount == 0 { effective.threadCount = 1 }
        return effective
    }
}
