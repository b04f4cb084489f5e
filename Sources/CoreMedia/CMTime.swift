public import VAToolbox

// CMTime (CMTime.h) over `MediaTime`: the type, its constants and its C functions.

/// A rational time — `CMTime` (``MediaTime``).
public typealias CMTime = MediaTime
/// The numerator of a time — `CMTimeValue`.
public typealias CMTimeValue = Int64
/// The denominator of a time, units per second — `CMTimeScale`.
public typealias CMTimeScale = Int32
/// The epoch of a time — `CMTimeEpoch`.
public typealias CMTimeEpoch = Int64
/// The flags of a time — `CMTimeFlags`.
public typealias CMTimeFlags = MediaTime.Flags
/// How a time is rounded — `CMTimeRoundingMethod`.
public typealias CMTimeRoundingMethod = MediaTime.RoundingMethod

/// Zero — `kCMTimeZero`.
public let kCMTimeZero = CMTime.zero
/// The invalid time — `kCMTimeInvalid`.
public let kCMTimeInvalid = CMTime.invalid
/// The indefinite time — `kCMTimeIndefinite`.
public let kCMTimeIndefinite = CMTime.indefinite
/// +∞ — `kCMTimePositiveInfinity`.
public let kCMTimePositiveInfinity = CMTime.positiveInfinity
/// −∞ — `kCMTimeNegativeInfinity`.
public let kCMTimeNegativeInfinity = CMTime.negativeInfinity
/// The largest timescale — `kCMTimeMaxTimescale`.
public let kCMTimeMaxTimescale: CMTimeScale = 0x7fff_ffff

/// `value / timescale` seconds — `CMTimeMake`.
public func CMTimeMake(value: Int64, timescale: Int32) -> CMTime { CMTime(value: value, timescale: timescale) }
/// `value / timescale` seconds in an epoch — `CMTimeMakeWithEpoch`.
public func CMTimeMakeWithEpoch(value: Int64, timescale: Int32, epoch: Int64) -> CMTime {
    CMTime(value: value, timescale: timescale, epoch: epoch)
}
/// Seconds as a time of the preferred timescale — `CMTimeMakeWithSeconds`.
public func CMTimeMakeWithSeconds(_ seconds: Float64, preferredTimescale: Int32) -> CMTime {
    CMTime(seconds: seconds, preferredTimescale: preferredTimescale)
}
/// The time in seconds — `CMTimeGetSeconds`.
public func CMTimeGetSeconds(_ time: CMTime) -> Float64 { time.seconds }
/// The sum — `CMTimeAdd`.
public func CMTimeAdd(_ lhs: CMTime, _ rhs: CMTime) -> CMTime { lhs + rhs }
/// The difference — `CMTimeSubtract`.
public func CMTimeSubtract(_ lhs: CMTime, _ rhs: CMTime) -> CMTime { lhs - rhs }
/// −1, 0 or 1 as `time1` is less than, equal to or greater than `time2` — `CMTimeCompare`.
public func CMTimeCompare(_ time1: CMTime, _ time2: CMTime) -> Int32 {
    time1 < time2 ? -1 : (time1 == time2 ? 0 : 1)
}
/// The time times an integer — `CMTimeMultiply`.
public func CMTimeMultiply(_ time: CMTime, multiplier: Int32) -> CMTime { time.multiplied(by: multiplier) }
/// The time times a float — `CMTimeMultiplyByFloat64`.
public func CMTimeMultiplyByFloat64(_ time: CMTime, multiplier: Float64) -> CMTime {
    time.multiplied(byFloat64: multiplier)
}
/// The time times a ratio — `CMTimeMultiplyByRatio`.
public func CMTimeMultiplyByRatio(_ time: CMTime, multiplier: Int32, divisor: Int32) -> CMTime {
    time.multiplied(byRatio: multiplier, divisor)
}
/// The time in another timescale — `CMTimeConvertScale`.
public func CMTimeConvertScale(_ time: CMTime, timescale newTimescale: Int32, method: CMTimeRoundingMethod) -> CMTime {
    time.convertScale(newTimescale, method: method)
}
/// The absolute value — `CMTimeAbsoluteValue`.
public func CMTimeAbsoluteValue(_ time: CMTime) -> CMTime { time.absolute }
/// The lesser time — `CMTimeMinimum`.
public func CMTimeMinimum(_ time1: CMTime, _ time2: CMTime) -> CMTime { CMTime.min(time1, time2) }
/// The greater time — `CMTimeMaximum`.
public func CMTimeMaximum(_ time1: CMTime, _ time2: CMTime) -> CMTime { CMTime.max(time1, time2) }

extension MediaTime.RoundingMethod {
    /// The default rounding, half away from zero — `CMTimeRoundingMethod.default`.
    public static var `default`: Self { .roundHalfAwayFromZero }
}

/// The time as a dictionary of `value`, `timescale`, `flags` and `epoch` numbers —
/// `CMTimeCopyAsDictionary`.
public func CMTimeCopyAsDictionary(_ time: CMTime, allocator: CFAllocator?) -> CFDictionary? {
    let dictionary = NSMutableDictionary()
    dictionary["value"] = NSNumber(value: time.value)
    dictionary["timescale"] = NSNumber(value: time.timescale)
    dictionary["flags"] = NSNumber(value: time.flags.rawValue)
    dictionary["epoch"] = NSNumber(value: time.epoch)
    return dictionary
}

/// The time a `CMTimeCopyAsDictionary` dictionary holds, or invalid — `CMTimeMakeFromDictionary`.
public func CMTimeMakeFromDictionary(_ dictionaryRepresentation: CFDictionary?) -> CMTime {
    guard let dictionary = dictionaryRepresentation,
        let value = (dictionary["value"] as? NSNumber)?.int64Value,
        let timescale = (dictionary["timescale"] as? NSNumber)?.int32Value,
        let flags = (dictionary["flags"] as? NSNumber)?.uint32Value
    else { return .invalid }
    let epoch = (dictionary["epoch"] as? NSNumber)?.int64Value ?? 0
    return CMTime(value: value, timescale: timescale, flags: CMTimeFlags(rawValue: flags), epoch: epoch)
}

// MARK: - The CMTime.h macros, under the names Apple's Swift overlay gives them

/// Whether the time is valid (numeric or not) — `CMTIME_IS_VALID`.
public func CMTIME_IS_VALID(_ time: CMTime) -> Bool { time.isValid }
/// Whether the time is invalid — `CMTIME_IS_INVALID`.
public func CMTIME_IS_INVALID(_ time: CMTime) -> Bool { !time.isValid }
/// Whether the time is +∞ — `CMTIME_IS_POSITIVE_INFINITY` (`CMTIME_IS_POSITIVEINFINITY` in Swift).
public func CMTIME_IS_POSITIVEINFINITY(_ time: CMTime) -> Bool { time.isPositiveInfinity }
/// Whether the time is −∞ — `CMTIME_IS_NEGATIVE_INFINITY` (`CMTIME_IS_NEGATIVEINFINITY` in Swift).
public func CMTIME_IS_NEGATIVEINFINITY(_ time: CMTime) -> Bool { time.isNegativeInfinity }
/// Whether the time is indefinite — `CMTIME_IS_INDEFINITE`.
public func CMTIME_IS_INDEFINITE(_ time: CMTime) -> Bool { time.isIndefinite }
/// Whether the time is a number of seconds (valid, not infinite, not indefinite) —
/// `CMTIME_IS_NUMERIC`.
public func CMTIME_IS_NUMERIC(_ time: CMTime) -> Bool { time.isNumeric }
/// Whether a numeric time has been rounded — `CMTIME_HAS_BEEN_ROUNDED`.
public func CMTIME_HAS_BEEN_ROUNDED(_ time: CMTime) -> Bool { time.hasBeenRounded }

/// The C spelling of ``CMTIME_IS_POSITIVEINFINITY(_:)``, which Swift does not import on Apple's
/// platforms either.
@available(*, unavailable, renamed: "CMTIME_IS_POSITIVEINFINITY")
public func CMTIME_IS_POSITIVE_INFINITY(_ time: CMTime) -> Bool { time.isPositiveInfinity }
/// The C spelling of ``CMTIME_IS_NEGATIVEINFINITY(_:)``, which Swift does not import on Apple's
/// platforms either.
@available(*, unavailable, renamed: "CMTIME_IS_NEGATIVEINFINITY")
public func CMTIME_IS_NEGATIVE_INFINITY(_ time: CMTime) -> Bool { time.isNegativeInfinity }

// MARK: - Descriptions

/// The time as Core Media describes it: `{1001/30000 = 0.033}` for a number of seconds,
/// `{INVALID}`, `{+INFINITY}`, `{-INFINITY}` or `{INDEFINITE}` otherwise —
/// `CMTimeCopyDescription`.
public func CMTimeCopyDescription(allocator: CFAllocator?, time: CMTime) -> CFString? {
    NSString(string: time.isNumeric ? time.description : "{\(time.description)}")
}

/// Writes the time's description (``CMTimeCopyDescription(allocator:time:)``) and a newline to
/// standard error — `CMTimeShow`.
public func CMTimeShow(_ time: CMTime) {
    let text = String(describing: CMTimeCopyDescription(allocator: nil, time: time) ?? "") + "\n"
    FileHandle.standardError.write(Data(text.utf8))
}

// MARK: - Dictionary keys

// `nonisolated(unsafe)`: Foundation on Linux does not mark `NSString` `Sendable`, but these are
// immutable constants, never mutated after their one initialisation.

/// The value in a `CMTimeCopyAsDictionary` dictionary — `kCMTimeValueKey`.
nonisolated(unsafe) public let kCMTimeValueKey: CFString = "value"
/// The timescale in a `CMTimeCopyAsDictionary` dictionary — `kCMTimeScaleKey`.
nonisolated(unsafe) public let kCMTimeScaleKey: CFString = "timescale"
/// The epoch in a `CMTimeCopyAsDictionary` dictionary — `kCMTimeEpochKey`.
nonisolated(unsafe) public let kCMTimeEpochKey: CFString = "epoch"
/// The flags in a `CMTimeCopyAsDictionary` dictionary — `kCMTimeFlagsKey`.
nonisolated(unsafe) public let kCMTimeFlagsKey: CFString = "flags"
