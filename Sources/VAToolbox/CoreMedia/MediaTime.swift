/// A rational time: a 64-bit count of ticks on a 32-bit timescale, or one of four non-numeric times.
///
/// A numeric time is `value / timescale` seconds. The flags can instead mark the time invalid,
/// positive or negative infinity, or indefinite (the duration of a live stream, say); those times
/// ignore `value`, `timescale` and `epoch`. The epoch tells apart equal timestamps on different
/// timelines, for example two passes through a loop.
///
/// Equality and ordering are those of `CMTimeCompare`: exact rational comparison, so `1/2` equals
/// `2/4`, with larger epochs after smaller ones and the non-numeric times placed as
/// `-infinity < numeric < indefinite < +infinity < invalid`. The `hasBeenRounded` flag takes no
/// part in either. Arithmetic never traps: what does not fit becomes a rounded time, an infinity
/// or an invalid time, as the CoreMedia function each operation corresponds to documents.
///
/// A time whose `valid` flag is set but whose timescale is not positive, or which carries more
/// than one of the infinity and indefinite flags, is treated as invalid everywhere.
///
/// Corresponds to `CMTime`.
public struct MediaTime: Sendable {
    /// The numerator: the number of `timescale` ticks.
    ///
    /// Meaningful only for a numeric time. Corresponds to `CMTime.value` (`CMTimeValue`).
    public var value: Int64

    /// The denominator: ticks per second.
    ///
    /// A numeric time needs a positive timescale. Corresponds to `CMTime.timescale`
    /// (`CMTimeScale`).
    public var timescale: Int32

    /// Whether the time is valid, numeric, infinite or indefinite, and whether it was rounded.
    ///
    /// Corresponds to `CMTime.flags` (`CMTimeFlags`).
    public var flags: Flags

    /// The timeline the time belongs to; larger epochs come after smaller ones.
    ///
    /// Usually zero. Times in epoch zero are durations, which may be added to a time in any
    /// epoch. Corresponds to `CMTime.epoch` (`CMTimeEpoch`).
    public var epoch: Int64

    /// Creates a time from all four fields, exactly as given.
    ///
    /// No field is checked; a combination that makes no sense is treated as invalid by every
    /// operation (see the type's discussion). Prefer ``init(value:timescale:)`` for numeric times.
    ///
    /// Corresponds to `CMTime(value:timescale:flags:epoch:)`.
    ///
    /// - Parameters:
    ///   - value: The number of ticks.
    ///   - timescale: Ticks per second.
    ///   - flags: The flags, `valid` included for any time that is not invalid.
    ///   - epoch: The timeline.
    public init(value: Int64, timescale: Int32, flags: Flags, epoch: Int64) {
        self.value = value
        self.timescale = timescale
        self.flags = flags
        self.epoch = epoch
    }

    /// Creates the numeric time `value / timescale` seconds in epoch zero.
    ///
    /// The timescale must be positive: for zero or a negative timescale the result is
    /// ``invalid``.
    ///
    /// Corresponds to `CMTimeMake`.
    ///
    /// - Parameters:
    ///   - value: The number of ticks.
    ///   - timescale: Ticks per second, greater than zero.
    public init(value: Int64, timescale: Int32) {
        self.init(value: value, timescale: timescale, epoch: 0)
    }

    /// Creates the numeric time `value / timescale` seconds in the given epoch.
    ///
    /// The timescale must be positive: for zero or a negative timescale the result is
    /// ``invalid``.
    ///
    /// Corresponds to `CMTimeMakeWithEpoch`.
    ///
    /// - Parameters:
    ///   - value: The number of ticks.
    ///   - timescale: Ticks per second, greater than zero.
    ///   - epoch: The timeline.
    public init(value: Int64, timescale: Int32, epoch: Int64) {
        if timescale > 0 {
            self.init(value: value, timescale: timescale, flags: .valid, epoch: epoch)
        } else {
            self = .invalid
        }
    }

    /// Creates the time nearest to a number of seconds, on a preferred timescale.
    ///
    /// The value is `seconds × preferredTimescale`, computed exactly from the binary value of
    /// `seconds` and rounded half away from zero. If that overflows 64 bits, the timescale is
    /// halved until it fits or reaches 1; if it still overflows, the result is an infinity of
    /// the sign of `seconds`. As CoreMedia documents, `hasBeenRounded` is set when ``seconds``
    /// of the result differs from `seconds` (so 0.1 s at timescale 10 is `1/10`, not rounded).
    /// NaN gives ``invalid``, ±infinity give ``positiveInfinity`` and ``negativeInfinity``,
    /// and a timescale that is not positive gives ``invalid``. The epoch is zero.
    ///
    /// Corresponds to `CMTimeMakeWithSeconds`.
    ///
    /// - Parameters:
    ///   - seconds: The time in seconds.
    ///   - preferredTimescale: The timescale to use if the value fits, greater than zero.
    public init(seconds: Double, preferredTimescale: Int32) {
        guard preferredTimescale > 0, !seconds.isNaN else {
            self = .invalid
            return
        }
        guard seconds.isFinite else {
            self = seconds < 0 ? .negativeInfinity : .positiveInfinity
            return
        }
        let negative = seconds < 0
        guard let ratio = ExactRatio(magnitude: 1, times: seconds.magnitude, over: 1) else {
            self = negative ? .negativeInfinity : .positiveInfinity
            return
        }
        var time = MediaTime.fitting(
            ratio, negative: negative, preferredTimescale: preferredTimescale, epoch: 0, inheritsRounding: false)
        if time.isNumeric {
            time.flags = time.seconds == seconds ? .valid : [.valid, .hasBeenRounded]
        }
        self = time
    }
}

// MARK: - Flags and rounding methods

extension MediaTime {
    /// The flag bits of a time, with CoreMedia's bit values.
    ///
    /// `valid` must be set for any time that is not invalid. At most one of `positiveInfinity`,
    /// `negativeInfinity` and `indefinite` may be set; with one of them the time is not numeric.
    ///
    /// Corresponds to `CMTimeFlags`.
    public struct Flags: OptionSet, Sendable, Hashable, CustomStringConvertible {
        /// The flag bits.
        public let rawValue: UInt32

        /// Creates flags from their bits.
        ///
        /// - Parameter rawValue: The bits, as in `CMTimeFlags`.
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        /// The time is valid; without this flag it is invalid whatever else is set.
        ///
        /// The corresponding CoreMedia constant is `kCMTimeFlags_Valid` (`1 << 0`).
        public static let valid = Flags(rawValue: 1 << 0)

        /// The value was rounded, or derived from a rounded time.
        ///
        /// The corresponding CoreMedia constant is `kCMTimeFlags_HasBeenRounded` (`1 << 1`).
        public static let hasBeenRounded = Flags(rawValue: 1 << 1)

        /// The time is +infinity; value, timescale and epoch are ignored.
        ///
        /// The corresponding CoreMedia constant is `kCMTimeFlags_PositiveInfinity` (`1 << 2`).
        public static let positiveInfinity = Flags(rawValue: 1 << 2)

        /// The time is -infinity; value, timescale and epoch are ignored.
        ///
        /// The corresponding CoreMedia constant is `kCMTimeFlags_NegativeInfinity` (`1 << 3`).
        public static let negativeInfinity = Flags(rawValue: 1 << 3)

        /// The time is unknown, such as the duration of a live broadcast; value, timescale and
        /// epoch are ignored.
        ///
        /// The corresponding CoreMedia constant is `kCMTimeFlags_Indefinite` (`1 << 4`).
        public static let indefinite = Flags(rawValue: 1 << 4)

        /// The flags that give a time an implied, non-numeric value.
        ///
        /// The corresponding CoreMedia constant is `kCMTimeFlags_ImpliedValueFlagsMask`.
        public static let impliedValueFlagsMask: Flags = [.positiveInfinity, .negativeInfinity, .indefinite]

        /// The flags by name: `[.valid, .hasBeenRounded]`; `[]` for an invalid time.
        public var description: String {
            describe(names: [
                (.valid, "valid"), (.hasBeenRounded, "hasBeenRounded"), (.positiveInfinity, "positiveInfinity"),
                (.negativeInfinity, "negativeInfinity"), (.indefinite, "indefinite"),
            ])
        }
    }

    /// How to round a value that cannot be represented exactly on the requested timescale.
    ///
    /// The raw values are CoreMedia's.
    ///
    /// Corresponds to `CMTimeRoundingMethod`.
    public enum RoundingMethod: UInt32, Sendable, Hashable, CaseIterable {
        /// Rounds to the nearest value, ties away from zero; the default.
        ///
        /// Corresponds to `kCMTimeRoundingMethod_RoundHalfAwayFromZero` and
        /// `kCMTimeRoundingMethod_Default`.
        case roundHalfAwayFromZero = 1

        /// Truncates toward zero.
        ///
        /// Corresponds to `kCMTimeRoundingMethod_RoundTowardZero`.
        case roundTowardZero = 2

        /// Rounds any nonzero fraction away from zero.
        ///
        /// Corresponds to `kCMTimeRoundingMethod_RoundAwayFromZero`.
        case roundAwayFromZero = 3

        /// Rounds toward zero when converting to a smaller timescale and away from zero when
        /// converting to a larger one, and never rounds a negative time up to zero.
        ///
        /// A negative time that would round to zero becomes `-1 / newTimescale` instead, so a
        /// time before zero stays before zero. With equal timescales nothing is rounded.
        ///
        /// Corresponds to `kCMTimeRoundingMethod_QuickTime`.
        case quickTime = 4

        /// Rounds any nonzero fraction toward +infinity (ceiling).
        ///
        /// Corresponds to `kCMTimeRoundingMethod_RoundTowardPositiveInfinity`.
        case roundTowardPositiveInfinity = 5

        /// Rounds any nonzero fraction toward -infinity (floor).
        ///
        /// Corresponds to `kCMTimeRoundingMethod_RoundTowardNegativeInfinity`.
        case roundTowardNegativeInfinity = 6
    }
}

// MARK: - Constants and classification

extension MediaTime {
    /// The invalid time, with every field zero.
    ///
    /// Many other times are invalid too; test with ``isValid`` rather than comparing fields.
    ///
    /// Corresponds to `kCMTimeInvalid`.
    public static let invalid = MediaTime(value: 0, timescale: 0, flags: [], epoch: 0)

    /// Zero seconds, as `0/1`.
    ///
    /// Corresponds to `kCMTimeZero`.
    public static let zero = MediaTime(value: 0, timescale: 1, flags: .valid, epoch: 0)

    /// +infinity: greater than every numeric and indefinite time.
    ///
    /// Corresponds to `kCMTimePositiveInfinity`.
    public static let positiveInfinity = MediaTime(
        value: 0, timescale: 0, flags: [.valid, .positiveInfinity], epoch: 0)

    /// -infinity: less than every other time.
    ///
    /// Corresponds to `kCMTimeNegativeInfinity`.
    public static let negativeInfinity = MediaTime(
        value: 0, timescale: 0, flags: [.valid, .negativeInfinity], epoch: 0)

    /// An unknown time, such as the duration of a live broadcast.
    ///
    /// Corresponds to `kCMTimeIndefinite`.
    public static let indefinite = MediaTime(value: 0, timescale: 0, flags: [.valid, .indefinite], epoch: 0)

    /// What a time denotes, after the flags and timescale have been checked; declared in
    /// `CMTimeCompare`'s order.
    enum Kind: Int, Comparable {
        /// -infinity.
        case negativeInfinity
        /// A number of seconds: `valid` set, no implied-value flag, positive timescale.
        case numeric
        /// Indefinite.
        case indefinite
        /// +infinity.
        case positiveInfinity
        /// Invalid, including malformed times.
        case invalid

        static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// What this time denotes; malformed times are `.invalid`.
    var kind: Kind {
        guard flags.contains(.valid) else { return .invalid }
        switch flags.intersection(.impliedValueFlagsMask) {
        case []: return timescale > 0 ? .numeric : .invalid
        case .positiveInfinity: return .positiveInfinity
        case .negativeInfinity: return .negativeInfinity
        case .indefinite: return .indefinite
        default: return .invalid
        }
    }

    /// Whether the time is valid: numeric, infinite or indefinite.
    ///
    /// Unlike the CoreMedia macro, a time with the `valid` flag but a timescale that is not
    /// positive, or with conflicting implied-value flags, is not valid.
    ///
    /// Corresponds to `CMTIME_IS_VALID` (and `CMTIME_IS_INVALID` negated).
    public var isValid: Bool { kind != .invalid }

    /// Whether the time is a number of seconds: valid, finite and not indefinite.
    ///
    /// Corresponds to `CMTIME_IS_NUMERIC`.
    public var isNumeric: Bool { kind == .numeric }

    /// Whether the time is indefinite.
    ///
    /// Corresponds to `CMTIME_IS_INDEFINITE`.
    public var isIndefinite: Bool { kind == .indefinite }

    /// Whether the time is +infinity.
    ///
    /// Corresponds to `CMTIME_IS_POSITIVE_INFINITY`.
    public var isPositiveInfinity: Bool { kind == .positiveInfinity }

    /// Whether the time is -infinity.
    ///
    /// Corresponds to `CMTIME_IS_NEGATIVE_INFINITY`.
    public var isNegativeInfinity: Bool { kind == .negativeInfinity }

    /// Whether the time is numeric and was rounded, or derived from a rounded time.
    ///
    /// Corresponds to `CMTIME_HAS_BEEN_ROUNDED`.
    public var hasBeenRounded: Bool { kind == .numeric && flags.contains(.hasBeenRounded) }

    /// The time in seconds, as `Double(value) / Double(timescale)`.
    ///
    /// NaN for an invalid or indefinite time, `+.infinity` and `-.infinity` for the
    /// infinities. The epoch is ignored.
    ///
    /// Corresponds to `CMTimeGetSeconds`.
    public var seconds: Double {
        switch kind {
        case .numeric: Double(value) / Double(timescale)
        case .positiveInfinity: .infinity
        case .negativeInfinity: -.infinity
        case .indefinite, .invalid: .nan
        }
    }
}

// MARK: - Comparison

extension MediaTime: Comparable, Hashable {
    /// Orders two times as `CMTimeCompare` does: -1, 0 or 1.
    ///
    /// Non-numeric times order as `-infinity < numeric < indefinite < +infinity < invalid`,
    /// each equal to itself; numeric times order by epoch, then by exact rational value.
    static func compare(_ lhs: MediaTime, _ rhs: MediaTime) -> Int {
        let lhsKind = lhs.kind
        let rhsKind = rhs.kind
        if lhsKind != rhsKind { return lhsKind < rhsKind ? -1 : 1 }
        guard lhsKind == .numeric else { return 0 }
        if lhs.epoch != rhs.epoch { return lhs.epoch < rhs.epoch ? -1 : 1 }
        // |value| ≤ 2^63 and timescale < 2^31, so each product is below 2^94.
        let left = Int128(lhs.value) * Int128(rhs.timescale)
        let right = Int128(rhs.value) * Int128(lhs.timescale)
        return left < right ? -1 : (left == right ? 0 : 1)
    }

    /// Whether two times denote the same instant: `CMTimeCompare` returns 0.
    ///
    /// `1/2 == 2/4`; all invalid times are equal, as are all +infinities, all -infinities and
    /// all indefinite times. Numeric times in different epochs are never equal. The
    /// `hasBeenRounded` flag is ignored.
    ///
    /// Corresponds to `CMTimeCompare(lhs, rhs) == 0`.
    ///
    /// - Parameters:
    ///   - lhs: A time.
    ///   - rhs: Another time.
    public static func == (lhs: MediaTime, rhs: MediaTime) -> Bool { compare(lhs, rhs) == 0 }

    /// Whether `lhs` comes before `rhs` in `CMTimeCompare`'s order.
    ///
    /// Numeric times compare by epoch, then exactly by value; the non-numeric ones order as
    /// `-infinity < numeric < indefinite < +infinity < invalid`.
    ///
    /// Corresponds to `CMTimeCompare(lhs, rhs) < 0`.
    ///
    /// - Parameters:
    ///   - lhs: A time.
    ///   - rhs: Another time.
    public static func < (lhs: MediaTime, rhs: MediaTime) -> Bool { compare(lhs, rhs) < 0 }

    /// Hashes the time consistently with `==`: by kind, and for a numeric time by epoch and the
    /// reduced fraction.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        let kind = self.kind
        hasher.combine(kind.rawValue)
        guard kind == .numeric else { return }
        let magnitude = value.magnitude
        let divisor = greatestCommonDivisor(magnitude, UInt64(timescale))
        hasher.combine(epoch)
        hasher.combine(value < 0)
        hasher.combine(magnitude / divisor)
        hasher.combine(UInt64(timescale) / divisor)
    }

    /// The lesser of two times in `CMTimeCompare`'s order; `lhs` if they are equal.
    ///
    /// Corresponds to `CMTimeMinimum`.
    ///
    /// - Parameters:
    ///   - lhs: A time.
    ///   - rhs: Another time.
    public static func min(_ lhs: MediaTime, _ rhs: MediaTime) -> MediaTime { rhs < lhs ? rhs : lhs }

    /// The greater of two times in `CMTimeCompare`'s order; `lhs` if they are equal.
    ///
    /// Corresponds to `CMTimeMaximum`.
    ///
    /// - Parameters:
    ///   - lhs: A time.
    ///   - rhs: Another time.
    public static func max(_ lhs: MediaTime, _ rhs: MediaTime) -> MediaTime { lhs < rhs ? rhs : lhs }
}

// MARK: - Arithmetic

extension MediaTime {
    /// Adds two times.
    ///
    /// The result's timescale is the operands' common timescale, or else their least common
    /// multiple, or `Int32.max` (`kCMTimeMaxTimescale`) when that multiple does not fit, with
    /// the value rounded half away from zero. If the value overflows, the timescale is halved
    /// until it fits or reaches 1, and past that the result is an infinity of the sum's sign.
    /// `hasBeenRounded` is set when anything was rounded or either operand was rounded.
    ///
    /// An invalid operand gives an invalid result. Otherwise an infinity wins
    /// (`+inf + -inf` is invalid), then indefinite. Numeric operands in different nonzero
    /// epochs give an invalid result; in the same epoch the result is in epoch zero (a
    /// duration); a duration (epoch zero) added to a time keeps that time's epoch.
    ///
    /// Corresponds to `CMTimeAdd`.
    ///
    /// - Parameters:
    ///   - lhs: A time.
    ///   - rhs: Another time.
    /// - Returns: `lhs + rhs`.
    public static func + (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        sum(lhs, rhs, subtracting: false)
    }

    /// Subtracts one time from another.
    ///
    /// Follows the rules of `+` for timescales, rounding, overflow and epochs.
    /// `+inf - +inf` and `-inf - -inf` are invalid; `+inf - -inf` is +infinity and
    /// `-inf - +inf` is -infinity; a finite time minus +infinity is -infinity.
    ///
    /// Corresponds to `CMTimeSubtract`.
    ///
    /// - Parameters:
    ///   - lhs: The minuend.
    ///   - rhs: The subtrahend.
    /// - Returns: `lhs - rhs`.
    public static func - (lhs: MediaTime, rhs: MediaTime) -> MediaTime {
        sum(lhs, rhs, subtracting: true)
    }

    /// Adds a time to this one in place.
    ///
    /// Corresponds to `CMTimeAdd`.
    ///
    /// - Parameters:
    ///   - lhs: The time to change.
    ///   - rhs: The time to add.
    public static func += (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs + rhs }

    /// Subtracts a time from this one in place.
    ///
    /// Corresponds to `CMTimeSubtract`.
    ///
    /// - Parameters:
    ///   - lhs: The time to change.
    ///   - rhs: The time to subtract.
    public static func -= (lhs: inout MediaTime, rhs: MediaTime) { lhs = lhs - rhs }

    /// Multiplies the time by an integer.
    ///
    /// The result keeps the timescale and epoch. If the value overflows, the timescale is
    /// halved until it fits or reaches 1 (rounding half away from zero), and past that the
    /// result is an infinity of the product's sign. An infinity keeps or flips its sign with
    /// the multiplier's; infinity times zero is invalid. Indefinite stays indefinite and
    /// invalid stays invalid.
    ///
    /// Corresponds to `CMTimeMultiply`.
    ///
    /// - Parameter multiplier: The integer factor.
    /// - Returns: `self × multiplier`.
    public func multiplied(by multiplier: Int32) -> MediaTime {
        switch kind {
        case .invalid: return .invalid
        case .indefinite: return .indefinite
        case .positiveInfinity, .negativeInfinity:
            return MediaTime.infinity(times: kind, multiplierSign: Int(multiplier.signum()))
        case .numeric:
            let product = Int128(value) * Int128(multiplier)
            return MediaTime.fitting(
                ExactRatio(numerator: product.magnitude, denominator: UInt64(timescale)),
                negative: product < 0, preferredTimescale: timescale, epoch: epoch,
                inheritsRounding: flags.contains(.hasBeenRounded))
        }
    }

    /// Multiplies the time by a floating-point factor.
    ///
    /// The timescale starts as the time's own, doubled until it is at least 65 536; the value
    /// is the exact product of the time and the binary value of `multiplier`, rounded half away
    /// from zero. Since most decimal fractions are inexact in binary, multiplying by 0.1
    /// usually sets `hasBeenRounded`. On overflow the timescale is halved until the value fits
    /// or the timescale reaches 1, and past that the result is an infinity. The epoch is kept.
    ///
    /// A NaN multiplier or an invalid time gives an invalid result; indefinite stays
    /// indefinite; an infinite factor on either side gives an infinity of the product's sign,
    /// except that zero times infinity is invalid.
    ///
    /// Corresponds to `CMTimeMultiplyByFloat64`.
    ///
    /// - Parameter multiplier: The factor.
    /// - Returns: `self × multiplier`.
    public func multiplied(byFloat64 multiplier: Double) -> MediaTime {
        let kind = self.kind
        guard kind != .invalid, !multiplier.isNaN else { return .invalid }
        if kind == .indefinite { return .indefinite }
        let multiplierSign = multiplier == 0 ? 0 : (multiplier < 0 ? -1 : 1)
        if kind != .numeric {
            return MediaTime.infinity(times: kind, multiplierSign: multiplierSign)
        }
        let inherited = flags.contains(.hasBeenRounded)
        if multiplier.isInfinite {
            return MediaTime.infinity(
                times: value.signum() == 0 ? .invalid : .positiveInfinity,
                multiplierSign: Int(value.signum()) * multiplierSign)
        }
        var startTimescale = timescale
        while startTimescale < 65_536 { startTimescale *= 2 }  // stays below 2^17
        let negative = (value < 0) != (multiplier < 0)
        guard let ratio = ExactRatio(magnitude: value.magnitude, times: multiplier.magnitude, over: timescale)
        else {
            return negative ? .negativeInfinity : .positiveInfinity
        }
        return MediaTime.fitting(
            ratio, negative: negative, preferredTimescale: startTimescale, epoch: epoch, inheritsRounding: inherited)
    }

    /// Multiplies the time by `multiplier / divisor`, exactly when a time can hold the result.
    ///
    /// The exact result is sought first at the timescale `timescale × divisor'` (after
    /// cancelling the ratio's common factors: `1/3 × 3/1` is `3/3`), then at the timescale of
    /// the fully reduced fraction. If neither fits, the value is rounded half away from zero at
    /// the largest timescale, `Int32.max`, halved while the value overflows, and past timescale
    /// 1 the result is an infinity; `hasBeenRounded` is then set. The epoch is kept.
    ///
    /// A zero divisor gives an infinity of the sign of `self × multiplier`, or an invalid time
    /// when that product is zero. An invalid time stays invalid, indefinite stays indefinite,
    /// and an infinity takes the sign of the ratio (invalid when the multiplier or the divisor
    /// is zero).
    ///
    /// Corresponds to `CMTimeMultiplyByRatio`.
    ///
    /// - Parameters:
    ///   - multiplier: The numerator of the ratio.
    ///   - divisor: The denominator of the ratio.
    /// - Returns: `self × multiplier / divisor`.
    public func multiplied(byRatio multiplier: Int32, _ divisor: Int32) -> MediaTime {
        let kind = self.kind
        switch kind {
        case .invalid: return .invalid
        case .indefinite: return .indefinite
        case .positiveInfinity, .negativeInfinity:
            let ratioSign = divisor == 0 ? 0 : Int(multiplier.signum()) * Int(divisor.signum())
            return MediaTime.infinity(times: kind, multiplierSign: ratioSign)
        case .numeric:
            break
        }
        let inherited = flags.contains(.hasBeenRounded)
        let productSign = Int(value.signum()) * Int(multiplier.signum())
        guard divisor != 0 else {
            return MediaTime.infinity(
                times: productSign == 0 ? .invalid : .positiveInfinity,
                multiplierSign: productSign)
        }
        let negative = productSign * Int(divisor.signum()) < 0
        let common = greatestCommonDivisor(UInt64(multiplier.magnitude), UInt64(divisor.magnitude))
        let reducedMultiplier = UInt64(multiplier.magnitude) / common
        let reducedDivisor = UInt64(divisor.magnitude) / common
        let magnitude = UInt128(value.magnitude) * UInt128(reducedMultiplier)  // below 2^95
        let denominator = UInt64(timescale) * reducedDivisor  // below 2^62
        let flags: Flags = inherited ? [.valid, .hasBeenRounded] : .valid
        // Exact at the timescale the ratio's divisor gives, as CoreMedia answers.
        if let scale = Int32(exactly: denominator), let value = signedValue(magnitude, negative: negative) {
            return MediaTime(value: value, timescale: scale, flags: flags, epoch: epoch)
        }
        // Exact as the reduced fraction.
        let fractionDivisor = greatestCommonDivisor(magnitude, UInt128(denominator))
        if let scale = Int32(exactly: UInt128(denominator) / fractionDivisor),
            let value = signedValue(magnitude / fractionDivisor, negative: negative)
        {
            return MediaTime(value: value, timescale: scale, flags: flags, epoch: epoch)
        }
        return MediaTime.fitting(
            ExactRatio(numerator: magnitude, denominator: denominator), negative: negative,
            preferredTimescale: .max, epoch: epoch, inheritsRounding: inherited)
    }

    /// The time with a negative value made positive, and -infinity made +infinity.
    ///
    /// Other times are returned unchanged. Negating the value `Int64.min` overflows, so that
    /// time's timescale is halved (rounding half away from zero), and at timescale 1 the result
    /// is +infinity.
    ///
    /// Corresponds to `CMTimeAbsoluteValue`.
    public var absolute: MediaTime {
        switch kind {
        case .invalid: return .invalid
        case .indefinite: return .indefinite
        case .positiveInfinity, .negativeInfinity: return .positiveInfinity
        case .numeric:
            guard value < 0 else { return self }
            return MediaTime.fitting(
                ExactRatio(numerator: UInt128(value.magnitude), denominator: UInt64(timescale)), negative: false,
                preferredTimescale: timescale, epoch: epoch, inheritsRounding: flags.contains(.hasBeenRounded))
        }
    }

    /// The same time on another timescale, rounded as requested.
    ///
    /// `hasBeenRounded` is set when the new value is not exact, or when this time was already
    /// rounded. The epoch is kept. A non-numeric time gives the same non-numeric time; a new
    /// timescale that is not positive gives ``invalid``. A value that does not fit in 64 bits
    /// on the new timescale gives an infinity of the time's sign (CoreMedia does not document
    /// this case).
    ///
    /// Corresponds to `CMTimeConvertScale`.
    ///
    /// - Parameters:
    ///   - newTimescale: The timescale of the result, greater than zero.
    ///   - method: How to round an inexact value; see ``RoundingMethod``.
    /// - Returns: The converted time.
    public func convertScale(_ newTimescale: Int32, method: RoundingMethod = .roundHalfAwayFromZero) -> MediaTime {
        switch kind {
        case .invalid: return .invalid
        case .indefinite: return .indefinite
        case .positiveInfinity: return .positiveInfinity
        case .negativeInfinity: return .negativeInfinity
        case .numeric: break
        }
        guard newTimescale > 0 else { return .invalid }
        let negative = value < 0
        let resolved: RoundingMethod
        if method == .quickTime {
            resolved = newTimescale < timescale ? .roundTowardZero : .roundAwayFromZero
        } else {
            resolved = method
        }
        let ratio = ExactRatio(numerator: UInt128(value.magnitude), denominator: UInt64(timescale))
        guard let (scaled, exact) = ratio.scaled(by: newTimescale, negative: negative, method: resolved) else {
            return negative ? .negativeInfinity : .positiveInfinity
        }
        var magnitude = scaled
        if method == .quickTime, negative, magnitude == 0, !exact {
            magnitude = 1
        }
        guard let newValue = signedValue(magnitude, negative: negative) else {
            return negative ? .negativeInfinity : .positiveInfinity
        }
        let rounded = !exact || flags.contains(.hasBeenRounded)
        return MediaTime(
            value: newValue, timescale: newTimescale, flags: rounded ? [.valid, .hasBeenRounded] : .valid,
            epoch: epoch)
    }
}

// MARK: - Description

extension MediaTime: CustomStringConvertible {
    /// A short description in the style of `CMTimeCopyDescription`.
    ///
    /// A numeric time reads `{1001/30000 = 0.033}`: value, timescale and the seconds rounded
    /// exactly to three decimals, followed by `, rounded` when `hasBeenRounded` is set and
    /// `, epoch = N` for a nonzero epoch. The others read `INVALID`, `+INFINITY`, `-INFINITY`
    /// and `INDEFINITE`.
    ///
    /// Corresponds to `CMTimeCopyDescription`.
    public var description: String {
        switch kind {
        case .invalid: return "INVALID"
        case .positiveInfinity: return "+INFINITY"
        case .negativeInfinity: return "-INFINITY"
        case .indefinite: return "INDEFINITE"
        case .numeric: break
        }
        let ratio = ExactRatio(numerator: UInt128(value.magnitude), denominator: UInt64(timescale))
        // |value| × 1000 / timescale < 2^73: it always fits.
        let milliseconds = ratio.scaled(by: 1000, negative: false, method: .roundHalfAwayFromZero)?.magnitude ?? 0
        let fraction = String(milliseconds % 1000)
        let padding = String(repeating: "0", count: 3 - fraction.count)
        var text = "{\(value)/\(timescale) = \(value < 0 ? "-" : "")\(milliseconds / 1000).\(padding)\(fraction)"
        if flags.contains(.hasBeenRounded) { text += ", rounded" }
        if epoch != 0 { text += ", epoch = \(epoch)" }
        return text + "}"
    }
}

// MARK: - Exact arithmetic

extension MediaTime {
    /// The numeric time nearest to `±ratio` seconds, rounded half away from zero, at
    /// `preferredTimescale` or at the first halving of it where the value fits in 64 bits;
    /// an infinity when it does not fit even at timescale 1.
    ///
    /// This is CoreMedia's overflow rule for `CMTimeAdd`, `CMTimeMultiply` and their kin.
    private static func fitting(
        _ ratio: ExactRatio, negative: Bool, preferredTimescale: Int32, epoch: Int64, inheritsRounding: Bool
    ) -> MediaTime {
        var scale = preferredTimescale
        while scale > 0 {
            if let (magnitude, exact) = ratio.scaled(by: scale, negative: negative, method: .roundHalfAwayFromZero),
                let value = signedValue(magnitude, negative: negative)
            {
                let rounded = !exact || inheritsRounding
                return MediaTime(
                    value: value, timescale: scale, flags: rounded ? [.valid, .hasBeenRounded] : .valid, epoch: epoch)
            }
            scale /= 2
        }
        return negative ? .negativeInfinity : .positiveInfinity
    }

    /// `CMTimeAdd` and `CMTimeSubtract`.
    private static func sum(_ lhs: MediaTime, _ rhs: MediaTime, subtracting: Bool) -> MediaTime {
        let lhsKind = lhs.kind
        var rhsKind = rhs.kind
        if lhsKind == .invalid || rhsKind == .invalid { return .invalid }
        if subtracting {
            if rhsKind == .positiveInfinity {
                rhsKind = .negativeInfinity
            } else if rhsKind == .negativeInfinity {
                rhsKind = .positiveInfinity
            }
        }
        switch (lhsKind, rhsKind) {
        case (.positiveInfinity, .negativeInfinity), (.negativeInfinity, .positiveInfinity): return .invalid
        case (.positiveInfinity, _), (_, .positiveInfinity): return .positiveInfinity
        case (.negativeInfinity, _), (_, .negativeInfinity): return .negativeInfinity
        default: break
        }
        if lhsKind == .indefinite || rhsKind == .indefinite { return .indefinite }

        let epoch: Int64
        if lhs.epoch == rhs.epoch {
            epoch = 0
        } else if lhs.epoch == 0 || rhs.epoch == 0 {
            epoch = lhs.epoch == 0 ? rhs.epoch : lhs.epoch
        } else {
            return .invalid
        }

        let scale: Int32
        if lhs.timescale == rhs.timescale {
            scale = lhs.timescale
        } else {
            let common = greatestCommonDivisor(UInt64(lhs.timescale), UInt64(rhs.timescale))
            scale = Int32(exactly: UInt64(lhs.timescale) / common * UInt64(rhs.timescale)) ?? .max
        }
        // Exact sum (lhs.value × rhs.timescale ± rhs.value × lhs.timescale) / (lhs.timescale × rhs.timescale):
        // each product is below 2^94 in magnitude, so the numerator is below 2^95.
        let left = Int128(lhs.value) * Int128(rhs.timescale)
        let right = Int128(rhs.value) * Int128(lhs.timescale)
        let numerator = subtracting ? left - right : left + right
        return fitting(
            ExactRatio(numerator: numerator.magnitude, denominator: UInt64(lhs.timescale) * UInt64(rhs.timescale)),
            negative: numerator < 0, preferredTimescale: scale, epoch: epoch,
            inheritsRounding: lhs.flags.contains(.hasBeenRounded) || rhs.flags.contains(.hasBeenRounded))
    }

    /// An infinity scaled by a factor of sign `multiplierSign`; `kind` is `.positiveInfinity`,
    /// `.negativeInfinity`, or `.invalid` to force an invalid result. Zero gives invalid.
    private static func infinity(times kind: Kind, multiplierSign: Int) -> MediaTime {
        guard kind != .invalid, multiplierSign != 0 else { return .invalid }
        let positive = (kind == .positiveInfinity) == (multiplierSign > 0)
        return positive ? .positiveInfinity : .negativeInfinity
    }
}
