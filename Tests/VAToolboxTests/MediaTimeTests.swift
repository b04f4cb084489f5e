import Testing

@testable import VAToolbox

/// The numeric time `value/timescale`, for short tables.
private func time(_ value: Int64, _ timescale: Int32, epoch: Int64 = 0) -> MediaTime {
    MediaTime(value: value, timescale: timescale, epoch: epoch)
}

/// Whether a time has exactly this value and timescale and is numeric: stricter than `==`,
/// which compares rationally.
private func hasFields(_ time: MediaTime, _ value: Int64, _ timescale: Int32, rounded: Bool) -> Bool {
    time.isNumeric && time.value == value && time.timescale == timescale && time.hasBeenRounded == rounded
}

@Suite("MediaTime")
struct MediaTimeTests {
    // MARK: Constants and construction

    @Test func flagBitsMatchCoreMedia() {
        #expect(MediaTime.Flags.valid.rawValue == 1)  // kCMTimeFlags_Valid
        #expect(MediaTime.Flags.hasBeenRounded.rawValue == 2)  // kCMTimeFlags_HasBeenRounded
        #expect(MediaTime.Flags.positiveInfinity.rawValue == 4)  // kCMTimeFlags_PositiveInfinity
        #expect(MediaTime.Flags.negativeInfinity.rawValue == 8)  // kCMTimeFlags_NegativeInfinity
        #expect(MediaTime.Flags.indefinite.rawValue == 16)  // kCMTimeFlags_Indefinite
        #expect(MediaTime.Flags.impliedValueFlagsMask.rawValue == 28)  // kCMTimeFlags_ImpliedValueFlagsMask
    }

    @Test func roundingMethodRawValuesMatchCoreMedia() {
        let raw = MediaTime.RoundingMethod.allCases.map(\.rawValue)
        #expect(raw == [1, 2, 3, 4, 5, 6])
        #expect(MediaTime.RoundingMethod.quickTime.rawValue == 4)  // kCMTimeRoundingMethod_QuickTime
    }

    @Test func constantsHaveCoreMediaFields() {
        // kCMTimeInvalid {0, 0, 0, 0}, kCMTimeZero {0, 1, 1, 0}, kCMTimePositiveInfinity {0, 0, 5, 0},
        // kCMTimeNegativeInfinity {0, 0, 9, 0}, kCMTimeIndefinite {0, 0, 17, 0}.
        let expected: [(MediaTime, Int64, Int32, UInt32)] = [
            (.invalid, 0, 0, 0), (.zero, 0, 1, 1), (.positiveInfinity, 0, 0, 5),
            (.negativeInfinity, 0, 0, 9), (.indefinite, 0, 0, 17),
        ]
        for (constant, value, timescale, flags) in expected {
            #expect(constant.value == value && constant.timescale == timescale)
            #expect(constant.flags.rawValue == flags && constant.epoch == 0)
        }
    }

    @Test func classification() {
        #expect(!MediaTime.invalid.isValid && !MediaTime.invalid.isNumeric)
        #expect(MediaTime.zero.isValid && MediaTime.zero.isNumeric)
        #expect(MediaTime.positiveInfinity.isPositiveInfinity && !MediaTime.positiveInfinity.isNumeric)
        #expect(MediaTime.negativeInfinity.isNegativeInfinity && MediaTime.negativeInfinity.isValid)
        #expect(MediaTime.indefinite.isIndefinite && !MediaTime.indefinite.isNumeric)
        #expect(!MediaTime.positiveInfinity.isNegativeInfinity && !MediaTime.indefinite.isPositiveInfinity)
    }

    @Test(arguments: [Int32(0), -1, .min])
    func nonPositiveTimescaleIsInvalid(timescale: Int32) {
        #expect(!MediaTime(value: 1, timescale: timescale).isValid)
        #expect(!MediaTime(value: 1, timescale: timescale, epoch: 3).isValid)
        #expect(!MediaTime(seconds: 1, preferredTimescale: timescale).isValid)
        // A hand-made time with the valid flag but no usable timescale is invalid too.
        #expect(!MediaTime(value: 1, timescale: timescale, flags: .valid, epoch: 0).isValid)
    }

    @Test func conflictingImpliedFlagsAreInvalid() {
        let both = MediaTime(value: 0, timescale: 1, flags: [.valid, .positiveInfinity, .negativeInfinity], epoch: 0)
        #expect(!both.isValid && !both.isPositiveInfinity && !both.isNegativeInfinity)
        let noValid = MediaTime(value: 0, timescale: 1, flags: [.positiveInfinity], epoch: 0)
        #expect(!noValid.isValid && !noValid.isPositiveInfinity)
    }

    @Test func seconds() {
        #expect(time(1001, 30000).seconds == 1001.0 / 30000.0)
        #expect(time(-3, 2).seconds == -1.5)
        #expect(MediaTime.invalid.seconds.isNaN)
        #expect(MediaTime.indefinite.seconds.isNaN)
        #expect(MediaTime.positiveInfinity.seconds == .infinity)
        #expect(MediaTime.negativeInfinity.seconds == -.infinity)
        #expect(time(5, 1, epoch: 9).seconds == 5)  // the epoch is ignored
    }

    // MARK: Seconds

    @Test func secondsExactlyRepresentable() {
        #expect(hasFields(MediaTime(seconds: 1.5, preferredTimescale: 600), 900, 600, rounded: false))
        #expect(hasFields(MediaTime(seconds: -2.25, preferredTimescale: 4), -9, 4, rounded: false))
        #expect(hasFields(MediaTime(seconds: 0, preferredTimescale: 90000), 0, 90000, rounded: false))
        #expect(hasFields(MediaTime(seconds: -0.0, preferredTimescale: 7), 0, 7, rounded: false))
    }

    @Test func secondsRoundedFlagFollowsTheRoundTrip() {
        // 0.1 s at timescale 10 is 1/10, and 1.0/10.0 == 0.1: not rounded, as CoreMedia documents.
        #expect(hasFields(MediaTime(seconds: 0.1, preferredTimescale: 10), 1, 10, rounded: false))
        // 0.3333 × 600 = 199.98 → 200, and 200/600 ≠ 0.3333.
        #expect(hasFields(MediaTime(seconds: 0.3333, preferredTimescale: 600), 200, 600, rounded: true))
        // 2.5 at timescale 1 rounds half away from zero, both ways.
        #expect(hasFields(MediaTime(seconds: 2.5, preferredTimescale: 1), 3, 1, rounded: true))
        #expect(hasFields(MediaTime(seconds: -2.5, preferredTimescale: 1), -3, 1, rounded: true))
    }

    @Test func secondsSpecialValues() {
        #expect(!MediaTime(seconds: .nan, preferredTimescale: 600).isValid)
        #expect(MediaTime(seconds: .infinity, preferredTimescale: 600).isPositiveInfinity)
        #expect(MediaTime(seconds: -.infinity, preferredTimescale: 600).isNegativeInfinity)
        #expect(MediaTime(seconds: 1e300, preferredTimescale: 600).isPositiveInfinity)
        #expect(MediaTime(seconds: -1e300, preferredTimescale: 1).isNegativeInfinity)
        #expect(MediaTime(seconds: .greatestFiniteMagnitude, preferredTimescale: .max).isPositiveInfinity)
        // 2^63 s does not fit even at timescale 1; 2^62 s does.
        #expect(MediaTime(seconds: 0x1p63, preferredTimescale: 1).isPositiveInfinity)
        #expect(hasFields(MediaTime(seconds: 0x1p62, preferredTimescale: 1), 1 << 62, 1, rounded: false))
        #expect(hasFields(MediaTime(seconds: -0x1p63, preferredTimescale: 1), .min, 1, rounded: false))
        // The smallest subnormal rounds to zero.
        #expect(hasFields(MediaTime(seconds: .leastNonzeroMagnitude, preferredTimescale: .max), 0, .max, rounded: true))
    }

    @Test func secondsHalveTheTimescaleOnOverflow() {
        // 1e10 × 2147483647 and 1e10 × 1073741823 exceed Int64.max (≈ 9.22e18); 1e10 × 536870911 fits.
        let time = MediaTime(seconds: 1e10, preferredTimescale: .max)
        #expect(hasFields(time, 5_368_709_110_000_000_000, 536_870_911, rounded: false))
    }

    @Test(arguments: [0.0, 1.0, -1.0, 0.5, 1.0 / 3.0, 1001.0 / 30000.0, 123_456.789, -98_765.4321, 1e-9])
    func secondsRoundTrip(seconds: Double) {
        for timescale: Int32 in [1, 600, 1000, 90000, 1_000_000_000, .max] {
            let time = MediaTime(seconds: seconds, preferredTimescale: timescale)
            #expect(time.isNumeric && time.timescale == timescale)
            // Within half a tick, plus a little for the floating-point division.
            let tolerance = 0.5 / Double(timescale) + 1e-15 * Swift.max(1, seconds.magnitude)
            #expect((time.seconds - seconds).magnitude <= tolerance)
            #expect(time.hasBeenRounded == (time.seconds != seconds))
        }
    }

    // MARK: Equality and ordering

    @Test(arguments: [
        (time(1, 2), time(2, 4)),
        (time(1001, 30000), time(3003, 90000)),
        (time(0, 1), time(0, .max)),
        (time(-5, 10), time(-1, 2)),
        (time(.max, .max), time(.max, .max)),
        (time(Int64(Int32.max), .max), time(1, 1)),
        (MediaTime.invalid, MediaTime(value: 7, timescale: 3, flags: [], epoch: 2)),
        (MediaTime.invalid, MediaTime(value: 7, timescale: 0, flags: .valid, epoch: 0)),
        (MediaTime.positiveInfinity, MediaTime(value: 9, timescale: 9, flags: [.valid, .positiveInfinity], epoch: 9)),
        (MediaTime.indefinite, MediaTime(value: -1, timescale: 1, flags: [.valid, .indefinite], epoch: 1)),
        (time(1, 3), MediaTime(value: 2, timescale: 6, flags: [.valid, .hasBeenRounded], epoch: 0)),
    ])
    func equalTimes(lhs: MediaTime, rhs: MediaTime) {
        #expect(lhs == rhs)
        #expect(!(lhs < rhs) && !(rhs < lhs))
        #expect(lhs.hashValue == rhs.hashValue)
    }

    @Test func setDeduplicatesByRationalValue() {
        let times: Set<MediaTime> = [time(1, 2), time(2, 4), time(500, 1000), time(1, 3), time(1, 2, epoch: 1)]
        #expect(times.count == 3)
    }

    @Test(arguments: [
        (time(1, 3), time(1, 2)),
        (time(-1, 2), time(-1, 3)),
        (time(.max, .max), time(.max, .max - 1)),
        (time(.min, 1), time(.max, 1)),
        (time(.min, 1), time(.min, 2)),
        (time(.max, 2), time(.max, 1)),
        (time(4_294_967_293, .max), time(2, 1)),  // 2 - 1/(2^31 - 1)
        (time(2, 1), time(4_294_967_295, .max)),  // 2 + 1/(2^31 - 1)
        (time(.max, 1, epoch: 0), time(.min, 1, epoch: 1)),  // the epoch decides first
        (time(0, 1, epoch: -1), time(0, 1, epoch: 0)),
    ])
    func orderedTimes(smaller: MediaTime, larger: MediaTime) {
        #expect(smaller < larger)
        #expect(!(larger < smaller))
        #expect(smaller != larger)
        #expect(MediaTime.min(smaller, larger) == smaller && MediaTime.max(larger, smaller) == larger)
    }

    @Test func specialValuesSortAsCMTimeCompareDocuments() {
        // -infinity < all finite values < indefinite < +infinity < invalid
        let expected: [MediaTime] = [
            .negativeInfinity, time(.min, 1), time(-1, 1), .zero, time(1, 1), time(.max, 1),
            time(-5, 1, epoch: 1), .indefinite, .positiveInfinity, .invalid,
        ]
        let shuffled = [
            expected[8], expected[2], expected[9], expected[0], expected[6], expected[4], expected[7],
            expected[1], expected[5], expected[3],
        ]
        let sorted = shuffled.sorted()
        #expect(sorted.count == expected.count)
        for (actual, wanted) in zip(sorted, expected) {
            #expect(actual == wanted, "\(actual) should be \(wanted)")
        }
        #expect(MediaTime.invalid == MediaTime.invalid && !(MediaTime.invalid < MediaTime.invalid))
        #expect(MediaTime.indefinite > time(.max, 1, epoch: .max))
        #expect(MediaTime.negativeInfinity < time(.min, 1, epoch: .min))
    }

    @Test func minAndMaxReturnTheFirstOperandOnTies() {
        let a = time(1, 2)
        let b = time(2, 4)
        #expect(MediaTime.min(a, b).timescale == 2)
        #expect(MediaTime.max(a, b).timescale == 2)
        #expect(MediaTime.min(.invalid, .negativeInfinity).isNegativeInfinity)
        #expect(!MediaTime.max(.invalid, .positiveInfinity).isValid)
    }

    // MARK: Addition and subtraction

    @Test func additionWithCoprimeTimescalesUsesTheLeastCommonMultiple() {
        #expect(hasFields(time(1, 3) + time(1, 5), 8, 15, rounded: false))
        #expect(hasFields(time(1001, 30000) + time(1, 90000), 3004, 90000, rounded: false))
        #expect(hasFields(time(1, 600) + time(2, 600), 3, 600, rounded: false))
        #expect(hasFields(time(1, 6) + time(1, 4), 5, 12, rounded: false))
        #expect(hasFields(time(1, 3) - time(1, 5), 2, 15, rounded: false))
        #expect(hasFields(time(1, 5) - time(1, 3), -2, 15, rounded: false))
    }

    @Test func additionFallsBackToTheMaximumTimescaleWhenTheLeastCommonMultipleOverflows() {
        // lcm(3, 2^31 - 1) = 3 × (2^31 - 1) does not fit; at timescale 2^31 - 1:
        // 1/3 = 715827882.333… ticks (2147483647 = 3 × 715827882 + 1), 1/(2^31 - 1) = 1 tick.
        #expect(hasFields(time(1, 3) + time(1, .max), 715_827_883, .max, rounded: true))
        #expect(hasFields(time(1, 3) - time(1, .max), 715_827_881, .max, rounded: true))
        // When the value happens to be exact at the maximum timescale nothing is rounded:
        // 3/3 + 0/(2^31 - 1) = 1 s = 2147483647 ticks.
        #expect(hasFields(time(3, 3) + time(0, .max), Int64(Int32.max), .max, rounded: false))
    }

    @Test func additionHalvesTheTimescaleWhenTheValueOverflows() {
        // (2^63 - 1)/2 + (2^63 - 1)/2 = 2^63 - 1 s: 2^64 - 2 ticks overflow at timescale 2, fit at 1.
        #expect(hasFields(time(.max, 2) + time(.max, 2), .max, 1, rounded: false))
        // (2^64 - 2)/3 = 6148914691236517204.67 s: too big for timescale 3, rounded at timescale 1.
        #expect(hasFields(time(.max, 3) + time(.max, 3), 6_148_914_691_236_517_205, 1, rounded: true))
    }

    @Test func valueOverflowBecomesInfinity() {
        #expect((time(.max, 1) + time(1, 1)).isPositiveInfinity)
        #expect((time(.min, 1) + time(-1, 1)).isNegativeInfinity)
        #expect((time(.min, 1) - time(1, 1)).isNegativeInfinity)
        #expect((time(.max, 1) - time(.min, 1)).isPositiveInfinity)
        #expect(hasFields(time(.min, 1) + time(0, 1), .min, 1, rounded: false))
        #expect(hasFields(time(.max, 1) + time(.min, 1), -1, 1, rounded: false))
    }

    @Test func additionOfNonNumericTimes() {
        let one = time(1, 1)
        #expect(!(MediaTime.invalid + one).isValid)
        #expect(!(one + .invalid).isValid)
        #expect(!(MediaTime.invalid + .positiveInfinity).isValid)
        #expect((MediaTime.positiveInfinity + one).isPositiveInfinity)
        #expect((one + .negativeInfinity).isNegativeInfinity)
        #expect((MediaTime.positiveInfinity + .positiveInfinity).isPositiveInfinity)
        #expect((MediaTime.negativeInfinity + .negativeInfinity).isNegativeInfinity)
        #expect(!(MediaTime.positiveInfinity + .negativeInfinity).isValid)
        #expect(!(MediaTime.negativeInfinity + .positiveInfinity).isValid)
        #expect((MediaTime.indefinite + one).isIndefinite)
        #expect((MediaTime.indefinite + .indefinite).isIndefinite)
        #expect((MediaTime.indefinite + .positiveInfinity).isPositiveInfinity)
    }

    @Test func subtractionOfNonNumericTimes() {
        let one = time(1, 1)
        #expect(!(MediaTime.positiveInfinity - .positiveInfinity).isValid)
        #expect(!(MediaTime.negativeInfinity - .negativeInfinity).isValid)
        #expect((MediaTime.positiveInfinity - .negativeInfinity).isPositiveInfinity)
        #expect((MediaTime.negativeInfinity - .positiveInfinity).isNegativeInfinity)
        #expect((one - .positiveInfinity).isNegativeInfinity)
        #expect((one - .negativeInfinity).isPositiveInfinity)
        #expect((MediaTime.positiveInfinity - one).isPositiveInfinity)
        #expect((one - .indefinite).isIndefinite)
        #expect(!(one - .invalid).isValid)
    }

    @Test func additionEpochs() {
        // Different nonzero epochs cannot be combined.
        #expect(!(time(1, 1, epoch: 1) + time(1, 1, epoch: 2)).isValid)
        // A duration (epoch 0) moves a time within its epoch.
        #expect((time(1, 1, epoch: 3) + time(1, 1)).epoch == 3)
        #expect((time(1, 1) + time(1, 1, epoch: 3)).epoch == 3)
        #expect((time(5, 1, epoch: 3) - time(1, 1)).epoch == 3)
        // Two times in the same nonzero epoch give a duration, in epoch 0.
        let difference = time(5, 1, epoch: 3) - time(2, 1, epoch: 3)
        #expect(hasFields(difference, 3, 1, rounded: false) && difference.epoch == 0)
    }

    @Test func roundingFlagPropagates() {
        let rounded = MediaTime(value: 1, timescale: 3, flags: [.valid, .hasBeenRounded], epoch: 0)
        #expect((rounded + time(1, 3)).hasBeenRounded)
        #expect((time(1, 3) - rounded).hasBeenRounded)
        #expect(rounded.multiplied(by: 2).hasBeenRounded)
        #expect(rounded.multiplied(byRatio: 1, 1).hasBeenRounded)
        #expect(rounded.convertScale(6).hasBeenRounded)
        #expect(!(time(1, 3) + time(1, 3)).hasBeenRounded)
    }

    @Test func compoundAssignment() {
        var t = time(1, 3)
        t += time(1, 5)
        #expect(hasFields(t, 8, 15, rounded: false))
        t -= time(8, 15)
        #expect(t == .zero)
    }

    // MARK: Multiplication

    @Test func multiplyByInteger() {
        #expect(hasFields(time(1001, 30000).multiplied(by: 3), 3003, 30000, rounded: false))
        #expect(hasFields(time(-7, 2).multiplied(by: -2), 14, 2, rounded: false))
        #expect(hasFields(time(5, 7).multiplied(by: 0), 0, 7, rounded: false))
        #expect(hasFields(time(.min, 1).multiplied(by: 1), .min, 1, rounded: false))
        // (2^63 - 1) × 2 / 2 ticks overflow at timescale 2 and are exact at timescale 1.
        #expect(hasFields(time(.max, 2).multiplied(by: 2), .max, 1, rounded: false))
        // 3 × (2^63 - 1)/4 = 6917529027641081855.25 s at timescale 1.
        #expect(hasFields(time(.max, 4).multiplied(by: 3), 6_917_529_027_641_081_855, 1, rounded: true))
        #expect(time(.max, 1).multiplied(by: 2).isPositiveInfinity)
        #expect(time(.min, 1).multiplied(by: -1).isPositiveInfinity)
        #expect(time(.max, 1).multiplied(by: .min).isNegativeInfinity)
    }

    @Test func multiplyNonNumericByInteger() {
        #expect(MediaTime.positiveInfinity.multiplied(by: 3).isPositiveInfinity)
        #expect(MediaTime.positiveInfinity.multiplied(by: -3).isNegativeInfinity)
        #expect(MediaTime.negativeInfinity.multiplied(by: -1).isPositiveInfinity)
        #expect(!MediaTime.positiveInfinity.multiplied(by: 0).isValid)
        #expect(MediaTime.indefinite.multiplied(by: 0).isIndefinite)
        #expect(!MediaTime.invalid.multiplied(by: 2).isValid)
    }

    @Test func multiplyByDouble() {
        // The timescale doubles from 30000 to 120000 (≥ 65536), where 2/30000 s is 8 ticks.
        #expect(hasFields(time(1, 30000).multiplied(byFloat64: 2.0), 8, 120_000, rounded: false))
        // From timescale 1 up to 65536: half a second.
        #expect(hasFields(time(1, 1).multiplied(byFloat64: 0.5), 32768, 65536, rounded: false))
        #expect(hasFields(time(3, 90000).multiplied(byFloat64: -1.5), -5, 90000, rounded: true))  // -4.5 → -5
        #expect(hasFields(time(4, 90000).multiplied(byFloat64: -0.25), -1, 90000, rounded: false))
        // 0.1 is not 1/10 in binary: 900.00000000000004996 ticks, rounded.
        #expect(hasFields(time(9000, 90000).multiplied(byFloat64: 0.1), 900, 90000, rounded: true))
        #expect(hasFields(time(7, 90000).multiplied(byFloat64: 0.0), 0, 90000, rounded: false))
        // Overflow: halve the timescale from 65536 down to 2, where (2^63 - 1)/2 s is exact; then infinity.
        #expect(hasFields(time(.max, 1).multiplied(byFloat64: 0.5), .max, 2, rounded: false))
        #expect(hasFields(time(.max, 1).multiplied(byFloat64: 0.75), 6_917_529_027_641_081_855, 1, rounded: true))
        #expect(time(.max, 1).multiplied(byFloat64: 2.0).isPositiveInfinity)
        #expect(time(1, 1).multiplied(byFloat64: 1e300).isPositiveInfinity)
        #expect(time(-1, 1).multiplied(byFloat64: 1e300).isNegativeInfinity)
    }

    @Test func multiplyByTinyDoubles() {
        // (2^48 + 1) × (2^48 - 1) × 2^-97 = 1/2 - 2^-97: just under a half, rounds to 0.
        let v = Int64(1) << 48 + 1
        let below = Double(sign: .plus, exponent: -97, significand: Double((Int64(1) << 48) - 1))
        #expect(hasFields(time(v, .max).multiplied(byFloat64: below), 0, .max, rounded: true))
        // (2^48 + 1)^2 × 2^-97 = 1/2 + 2^-48 + 2^-97: just over, rounds to 1.
        let above = Double(sign: .plus, exponent: -97, significand: Double(v))
        #expect(hasFields(time(v, .max).multiplied(byFloat64: above), 1, .max, rounded: true))
        #expect(hasFields(time(.max, 1).multiplied(byFloat64: .leastNonzeroMagnitude), 0, 65536, rounded: true))
        #expect(hasFields(time(-1, 1).multiplied(byFloat64: .leastNonzeroMagnitude), 0, 65536, rounded: true))
    }

    @Test func multiplyNonNumericByDouble() {
        #expect(!time(1, 1).multiplied(byFloat64: .nan).isValid)
        #expect(time(1, 1).multiplied(byFloat64: .infinity).isPositiveInfinity)
        #expect(time(-1, 1).multiplied(byFloat64: .infinity).isNegativeInfinity)
        #expect(!time(0, 1).multiplied(byFloat64: .infinity).isValid)
        #expect(MediaTime.positiveInfinity.multiplied(byFloat64: -0.5).isNegativeInfinity)
        #expect(!MediaTime.positiveInfinity.multiplied(byFloat64: 0.0).isValid)
        #expect(MediaTime.indefinite.multiplied(byFloat64: 2.0).isIndefinite)
        #expect(!MediaTime.indefinite.multiplied(byFloat64: .nan).isValid)
        #expect(!MediaTime.invalid.multiplied(byFloat64: 1.0).isValid)
    }

    @Test func multiplyByRatio() {
        // Exact at timescale × divisor, not reduced further (as CoreMedia answers).
        #expect(hasFields(time(1, 3).multiplied(byRatio: 3, 1), 3, 3, rounded: false))
        #expect(hasFields(time(1001, 30000).multiplied(byRatio: 1, 2), 1001, 60000, rounded: false))
        #expect(hasFields(time(1, 3).multiplied(byRatio: 4, 6), 2, 9, rounded: false))  // 4/6 → 2/3
        #expect(hasFields(time(1, 3).multiplied(byRatio: 1, -2), -1, 6, rounded: false))
        #expect(hasFields(time(-1, 3).multiplied(byRatio: -1, -2), -1, 6, rounded: false))
        #expect(hasFields(time(5, 7).multiplied(byRatio: .min, .min), 5, 7, rounded: false))
        // (2^31 - 1) × 2 overflows the timescale; the reduced fraction 1/(2^31 - 1) is exact.
        #expect(hasFields(time(2, .max).multiplied(byRatio: 1, 2), 1, .max, rounded: false))
        // 1/(2 × (2^31 - 1)) has no exact form: half a tick at the largest timescale rounds up.
        #expect(hasFields(time(1, .max).multiplied(byRatio: 1, 2), 1, .max, rounded: true))
        // (2^63 - 1) × 3 / 2 s: halved from the largest timescale down to 1, then 13835058055282163710.5: infinity.
        #expect(time(.max, 1).multiplied(byRatio: 3, 2).isPositiveInfinity)
        // (2^62 - 1) × 3 / 2 = 6917529027641081854.5 s, rounded half away from zero at timescale 1.
        #expect(
            hasFields(time((1 << 62) - 1, 1).multiplied(byRatio: 3, 2), 6_917_529_027_641_081_855, 1, rounded: true))
    }

    @Test func multiplyByRatioEdgeCases() {
        #expect(time(1, 1).multiplied(byRatio: 1, 0).isPositiveInfinity)
        #expect(time(-1, 1).multiplied(byRatio: 1, 0).isNegativeInfinity)
        #expect(time(1, 1).multiplied(byRatio: -1, 0).isNegativeInfinity)
        #expect(!time(1, 1).multiplied(byRatio: 0, 0).isValid)
        #expect(!time(0, 1).multiplied(byRatio: 1, 0).isValid)
        #expect(hasFields(time(0, 5).multiplied(byRatio: 7, 3), 0, 15, rounded: false))
        #expect(MediaTime.positiveInfinity.multiplied(byRatio: -1, 2).isNegativeInfinity)
        #expect(MediaTime.negativeInfinity.multiplied(byRatio: -1, -2).isNegativeInfinity)
        #expect(!MediaTime.positiveInfinity.multiplied(byRatio: 0, 2).isValid)
        #expect(!MediaTime.positiveInfinity.multiplied(byRatio: 1, 0).isValid)
        #expect(MediaTime.indefinite.multiplied(byRatio: 1, 0).isIndefinite)
        #expect(!MediaTime.invalid.multiplied(byRatio: 1, 1).isValid)
    }

    @Test func absolute() {
        #expect(hasFields(time(-3, 4).absolute, 3, 4, rounded: false))
        #expect(hasFields(time(3, 4).absolute, 3, 4, rounded: false))
        // 2^63 does not fit: at timescale 1 it becomes +infinity; at timescale 2, 2^62/1.
        #expect(time(.min, 1).absolute.isPositiveInfinity)
        #expect(hasFields(time(.min, 2).absolute, 1 << 62, 1, rounded: false))
        #expect(MediaTime.negativeInfinity.absolute.isPositiveInfinity)
        #expect(MediaTime.positiveInfinity.absolute.isPositiveInfinity)
        #expect(MediaTime.indefinite.absolute.isIndefinite)
        #expect(!MediaTime.invalid.absolute.isValid)
        #expect(time(-1, 1, epoch: 4).absolute.epoch == 4)
    }

    // MARK: Conversion

    struct Conversion: Sendable, CustomTestStringConvertible {
        let value: Int64
        let timescale: Int32
        let newTimescale: Int32
        /// Expected new values for roundHalfAwayFromZero, roundTowardZero, roundAwayFromZero,
        /// quickTime, roundTowardPositiveInfinity and roundTowardNegativeInfinity.
        let expected: [Int64]
        let rounded: Bool

        var testDescription: String { "\(value)/\(timescale) → timescale \(newTimescale)" }

        static let all: [Conversion] = [
            // 10/3 = 3.33…; 3 → 10 is to a larger timescale, so quickTime rounds away from zero.
            Conversion(value: 1, timescale: 3, newTimescale: 10, expected: [3, 3, 4, 4, 4, 3], rounded: true),
            Conversion(value: -1, timescale: 3, newTimescale: 10, expected: [-3, -3, -4, -4, -3, -4], rounded: true),
            // Exactly half a tick; 4 → 2 is to a smaller timescale, so quickTime truncates…
            Conversion(value: 1, timescale: 4, newTimescale: 2, expected: [1, 0, 1, 0, 1, 0], rounded: true),
            // …but never takes a negative time to zero.
            Conversion(value: -1, timescale: 4, newTimescale: 2, expected: [-1, 0, -1, -1, 0, -1], rounded: true),
            // 1.5 ticks.
            Conversion(value: 3, timescale: 4, newTimescale: 2, expected: [2, 1, 2, 1, 2, 1], rounded: true),
            Conversion(value: -3, timescale: 4, newTimescale: 2, expected: [-2, -1, -2, -1, -1, -2], rounded: true),
            // 2.1 ticks.
            Conversion(value: 7, timescale: 10, newTimescale: 3, expected: [2, 2, 3, 2, 3, 2], rounded: true),
            Conversion(value: -7, timescale: 10, newTimescale: 3, expected: [-2, -2, -3, -2, -2, -3], rounded: true),
            // 0.01 ticks: quickTime keeps the negative time at -1 tick.
            Conversion(value: 1, timescale: 1000, newTimescale: 10, expected: [0, 0, 1, 0, 1, 0], rounded: true),
            Conversion(value: -1, timescale: 1000, newTimescale: 10, expected: [0, 0, -1, -1, 0, -1], rounded: true),
            // Exact conversions: 1001/30000 s is 3003/90000 s under every method.
            Conversion(
                value: 1001, timescale: 30000, newTimescale: 90000, expected: .init(repeating: 3003, count: 6),
                rounded: false),
            Conversion(
                value: -1001, timescale: 30000, newTimescale: 90000, expected: .init(repeating: -3003, count: 6),
                rounded: false),
            Conversion(
                value: 3003, timescale: 90000, newTimescale: 30000, expected: .init(repeating: 1001, count: 6),
                rounded: false),
            Conversion(
                value: 0, timescale: 1, newTimescale: 7, expected: .init(repeating: 0, count: 6), rounded: false),
            Conversion(
                value: 5, timescale: 7, newTimescale: 7, expected: .init(repeating: 5, count: 6), rounded: false),
            Conversion(
                value: .max, timescale: .max, newTimescale: .max, expected: .init(repeating: .max, count: 6),
                rounded: false),
            Conversion(
                value: .min, timescale: 2, newTimescale: 1, expected: .init(repeating: .min / 2, count: 6),
                rounded: false),
            // (2^63 - 1)/2 = 4611686018427387903.5 s at timescale 1.
            Conversion(
                value: .max, timescale: 2, newTimescale: 1,
                expected: [
                    4_611_686_018_427_387_904, 4_611_686_018_427_387_903, 4_611_686_018_427_387_904,
                    4_611_686_018_427_387_903, 4_611_686_018_427_387_904, 4_611_686_018_427_387_903,
                ],
                rounded: true),
            // -2^63/3 = -3074457345618258602.67 s at timescale 1.
            Conversion(
                value: .min, timescale: 3, newTimescale: 1,
                expected: [
                    -3_074_457_345_618_258_603, -3_074_457_345_618_258_602, -3_074_457_345_618_258_603,
                    -3_074_457_345_618_258_602, -3_074_457_345_618_258_602, -3_074_457_345_618_258_603,
                ],
                rounded: true),
        ]
    }

    @Test(arguments: Conversion.all)
    func convertScale(_ conversion: Conversion) {
        let source = time(conversion.value, conversion.timescale, epoch: 5)
        for (method, expected) in zip(MediaTime.RoundingMethod.allCases, conversion.expected) {
            let result = source.convertScale(conversion.newTimescale, method: method)
            #expect(
                hasFields(result, expected, conversion.newTimescale, rounded: conversion.rounded),
                "\(method): \(result)")
            #expect(result.epoch == 5)
        }
    }

    @Test func convertScaleDefaultsToRoundHalfAwayFromZero() {
        #expect(hasFields(time(1, 4).convertScale(2), 1, 2, rounded: true))
        #expect(hasFields(time(-1, 4).convertScale(2), -1, 2, rounded: true))
    }

    @Test func convertScaleEdgeCases() {
        for method in MediaTime.RoundingMethod.allCases {
            #expect(!time(1, 3).convertScale(0, method: method).isValid)
            #expect(!time(1, 3).convertScale(-10, method: method).isValid)
            #expect(time(.max, 1).convertScale(2, method: method).isPositiveInfinity)
            #expect(time(.min, 1).convertScale(.max, method: method).isNegativeInfinity)
            #expect(MediaTime.positiveInfinity.convertScale(10, method: method).isPositiveInfinity)
            #expect(MediaTime.negativeInfinity.convertScale(10, method: method).isNegativeInfinity)
            #expect(MediaTime.indefinite.convertScale(10, method: method).isIndefinite)
            #expect(!MediaTime.invalid.convertScale(10, method: method).isValid)
        }
    }

    // MARK: Description

    @Test func description() {
        #expect(time(1001, 30000).description == "{1001/30000 = 0.033}")
        #expect(time(3, 2).description == "{3/2 = 1.500}")
        #expect(time(-1, 3).description == "{-1/3 = -0.333}")
        #expect(time(2, 3).description == "{2/3 = 0.667}")
        #expect(time(0, 1).description == "{0/1 = 0.000}")
        #expect(time(.max, 1).description == "{9223372036854775807/1 = 9223372036854775807.000}")
        #expect(time(.min, 1).description == "{-9223372036854775808/1 = -9223372036854775808.000}")
        #expect(time(5, 1, epoch: 2).description == "{5/1 = 5.000, epoch = 2}")
        #expect(MediaTime(seconds: 0.3333, preferredTimescale: 600).description == "{200/600 = 0.333, rounded}")
        #expect(MediaTime.invalid.description == "INVALID")
        #expect(MediaTime.positiveInfinity.description == "+INFINITY")
        #expect(MediaTime.negativeInfinity.description == "-INFINITY")
        #expect(MediaTime.indefinite.description == "INDEFINITE")
    }

    // MARK: Randomized properties

    /// Exact `CMTimeCompare` of numeric times: epoch first, then cross-multiplication in 128 bits.
    private static func referenceCompare(_ a: MediaTime, _ b: MediaTime) -> Int {
        if a.epoch != b.epoch { return a.epoch < b.epoch ? -1 : 1 }
        let left = Int128(a.value) * Int128(b.timescale)
        let right = Int128(b.value) * Int128(a.timescale)
        return left < right ? -1 : (left > right ? 1 : 0)
    }

    @Test func randomizedComparisonMatchesExactCrossMultiplication() {
        var random = SeededGenerator(seed: 0x5EED_CAFE)
        for _ in 0..<10_000 {
            let a = random.numericTime()
            let b = random.numericTime()
            let expected = Self.referenceCompare(a, b)
            #expect((a < b) == (expected < 0), "\(a) < \(b)")
            #expect((b < a) == (expected > 0), "\(b) < \(a)")
            #expect((a == b) == (expected == 0), "\(a) == \(b)")
            if a == b { #expect(a.hashValue == b.hashValue) }
        }
    }

    @Test func randomizedArithmeticIsExactOrBoundedAndNeverTraps() {
        var random = SeededGenerator(seed: 42)
        for _ in 0..<10_000 {
            let a = random.numericTime(epoch: 0)
            let b = random.numericTime(epoch: 0)
            for (result, subtracting) in [(a + b, false), (a - b, true)] {
                // The exact result is numerator / denominator, with the denominator below 2^62.
                let left = Int128(a.value) * Int128(b.timescale)
                let right = Int128(b.value) * Int128(a.timescale)
                let numerator = subtracting ? left - right : left + right
                let denominator = Int128(a.timescale) * Int128(b.timescale)
                expectNearest(result, numerator: numerator, denominator: denominator, context: "\(a) ± \(b)")
            }

            let multiplier = random.int32()
            let divisor = random.int32()
            let product = a.multiplied(by: multiplier)
            expectNearest(
                product, numerator: Int128(a.value) * Int128(multiplier), denominator: Int128(a.timescale),
                context: "\(a) × \(multiplier)")
            if divisor != 0 {
                let ratio = a.multiplied(byRatio: multiplier, divisor)
                expectNearest(
                    ratio, numerator: Int128(a.value) * Int128(multiplier) * Int128(divisor.signum()),
                    denominator: Int128(a.timescale) * Int128(divisor.magnitude),
                    context: "\(a) × \(multiplier)/\(divisor)")
            }

            // Never traps on any factor, timescale or method.
            let factor = Double(bitPattern: random.next())
            _ = a.multiplied(byFloat64: factor)
            _ = a.absolute
            let method = MediaTime.RoundingMethod.allCases[Int(random.next() % 6)]
            let newTimescale = random.int32()
            let converted = a.convertScale(newTimescale, method: method)
            if newTimescale <= 0 {
                #expect(!converted.isValid)
            } else if converted.isNumeric {
                // Within one tick of the exact value, and exact exactly when not flagged.
                let difference = Int128(converted.value) * Int128(a.timescale) - Int128(a.value) * Int128(newTimescale)
                #expect(difference.magnitude < UInt128(a.timescale), "\(a) → \(newTimescale) \(method)")
                #expect(converted.hasBeenRounded == (difference != 0), "\(a) → \(newTimescale) \(method)")
            } else {
                #expect(converted.isPositiveInfinity || converted.isNegativeInfinity)
            }
        }
    }

    /// Checks a result against the exact rational `numerator / denominator` (denominator > 0,
    /// below 2^63): a numeric result is exact when not flagged and within half a tick otherwise;
    /// an infinity only when the value cannot fit at timescale 1.
    private func expectNearest(_ result: MediaTime, numerator: Int128, denominator: Int128, context: String) {
        if result.isNumeric {
            let scaled = Int128(result.value) * denominator
            let exact = numerator.multipliedReportingOverflow(by: Int128(result.timescale))
            #expect(!exact.overflow, "\(context)")
            let (difference, overflow) = scaled.subtractingReportingOverflow(exact.partialValue)
            #expect(!overflow, "\(context)")
            #expect(result.hasBeenRounded == (difference != 0), "\(context) = \(result)")
            #expect(difference.magnitude * 2 <= UInt128(denominator), "\(context) = \(result)")
        } else {
            // At timescale 1 the rounded value would have exceeded 2^63 - 1 in magnitude.
            #expect(result.isPositiveInfinity == (numerator > 0), "\(context) = \(result)")
            #expect(result.isNegativeInfinity == (numerator < 0), "\(context) = \(result)")
            #expect(numerator.magnitude >= UInt128(Int64.max) * UInt128(denominator), "\(context) = \(result)")
        }
    }
}

@Suite("SampleTimingInfo")
struct SampleTimingInfoTests {
    @Test func defaultsAreInvalid() {
        let timing = SampleTimingInfo()
        #expect(!timing.duration.isValid && !timing.presentationTimeStamp.isValid && !timing.decodeTimeStamp.isValid)
        #expect(timing == .invalid)
    }

    @Test func equalityComparesTimesRationally() {
        let a = SampleTimingInfo(duration: time(1, 30), presentationTimeStamp: time(2, 30))
        let b = SampleTimingInfo(duration: time(2, 60), presentationTimeStamp: time(4, 60))
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(
            a != SampleTimingInfo(duration: time(1, 30), presentationTimeStamp: time(2, 30), decodeTimeStamp: .zero))
    }
}

/// Draws for the randomized tests, from the suite's SplitMix64 generator (`Support/TestStreams.swift`).
extension SeededGenerator {
    /// An Int32 drawn half the time from the extremes and small numbers, else uniformly.
    fileprivate mutating func int32() -> Int32 {
        let extremes: [Int32] = [.min, .min + 1, -2, -1, 0, 1, 2, 3, .max - 1, .max]
        if next() & 1 == 0 { return extremes[Int(next() % UInt64(extremes.count))] }
        return Int32(truncatingIfNeeded: next())
    }

    /// A numeric time with values and timescales often at the extremes; the epoch is drawn from
    /// a few values when not given.
    fileprivate mutating func numericTime(epoch: Int64? = nil) -> MediaTime {
        let values: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max, 1001, -1001]
        let timescales: [Int32] = [1, 2, 3, 1000, 30000, 90000, 1_000_000_000, .max - 1, .max]
        let value: Int64
        switch next() % 4 {
        case 0: value = values[Int(next() % UInt64(values.count))]
        case 1: value = Int64.random(in: -100_000...100_000, using: &self)
        default: value = Int64(bitPattern: next())
        }
        let timescale: Int32 =
            next() % 2 == 0
            ? timescales[Int(next() % UInt64(timescales.count))] : Int32.random(in: 1...(.max), using: &self)
        let epoch = epoch ?? [0, 0, 0, 1, -1, .max, .min][Int(next() % 7)]
        return MediaTime(value: value, timescale: timescale, epoch: epoch)
    }
}
