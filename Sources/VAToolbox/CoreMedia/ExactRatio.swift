/// The signed 64-bit value of a magnitude and sign, or nil when it does not fit.
func signedValue(_ magnitude: UInt128, negative: Bool) -> Int64? {
    if negative {
        if magnitude == UInt128(Int64.min.magnitude) { return .min }
        return Int64(exactly: magnitude).map { -$0 }
    }
    return Int64(exactly: magnitude)
}

/// Euclid's greatest common divisor; `gcd(0, n) == n`.
func greatestCommonDivisor<T: UnsignedInteger>(_ a: T, _ b: T) -> T {
    var (a, b) = (a, b)
    while b != 0 { (a, b) = (b, a % b) }
    return a
}

/// An exact non-negative rational `numerator / (denominator × 2^shift)`, to be put on a
/// timescale: the arithmetic behind every rounding `MediaTime` does.
struct ExactRatio {
    /// The numerator.
    private(set) var numerator: UInt128
    /// The denominator, not zero. Whenever `shift` is not zero it is even and below 2^127, so
    /// that `scaled(by:negative:method:)` can double it.
    private(set) var denominator: UInt128
    /// A further power of two in the denominator, for factors far below 1.
    private(set) var shift: Int

    /// The ratio `numerator / denominator`.
    init(numerator: UInt128, denominator: UInt64) {
        self.numerator = numerator
        self.denominator = UInt128(denominator)
        self.shift = 0
    }

    /// The exact ratio `magnitude × factor / denominator` for a finite, non-negative `factor`,
    /// or nil when the product is too large for any 64-bit value at timescale 1.
    init?(magnitude: UInt64, times factor: Double, over denominator: Int32) {
        self.init(numerator: 0, denominator: UInt64(denominator.magnitude))
        guard factor != 0, magnitude != 0 else { return }
        // factor = significand × 2^exponent exactly, with an integer significand below 2^53.
        let fractionBits = Double.significandBitCount  // 52
        let bias = Int(Double.greatestFiniteMagnitude.exponent)  // 1023
        var significand = factor.significandBitPattern
        var exponent = Int(factor.exponentBitPattern)
        if exponent == 0 {  // subnormal
            exponent = 1 - bias - fractionBits
        } else {
            significand |= 1 << UInt64(fractionBits)
            exponent -= bias + fractionBits
        }
        let product = UInt128(magnitude) * UInt128(significand)  // below 2^116
        if exponent >= 0 {
            // The value at timescale 1 is product × 2^exponent / denominator, and denominator < 2^31:
            // past 2^126 in the numerator it cannot fit in 64 bits.
            guard UInt128.bitWidth - product.leadingZeroBitCount + exponent <= 126 else { return nil }
            numerator = product << exponent
        } else {
            numerator = product
            shift = -exponent
            // Move what of the power of two fits into the denominator, keeping one spare bit.
            // The denominator starts below 2^31, so if a shift is left over it was shifted at
            // least once and is even.
            while shift > 0 && self.denominator.leadingZeroBitCount > 1 {
                self.denominator <<= 1
                shift -= 1
            }
        }
    }

    /// The ratio times `scale`, rounded to an integer magnitude with `method` (for a value of
    /// the given sign), and whether that was exact; nil when it does not fit in 128 bits.
    ///
    /// `method` must not be `.quickTime`, which callers resolve first; it rounds away from zero.
    func scaled(
        by scale: Int32, negative: Bool, method: MediaTime.RoundingMethod
    ) -> (magnitude: UInt128, exact: Bool)? {
        var dividend = UInt256(numerator, times: UInt128(scale.magnitude))
        var divisor = denominator
        if shift > 0 {
            // Divide by 2^shift first, folding the bits shifted out into one sticky bit below a
            // doubled divisor: floor, ties and exactness are unchanged because the divisor
            // (already shifted left at least once) is even.
            let sticky = dividend.shiftRight(by: shift)
            dividend.shiftLeftOne(insertingBit: sticky)
            divisor <<= 1
        }
        guard let (quotient, remainder) = dividend.divided(by: divisor) else { return nil }
        guard remainder != 0 else { return (quotient, true) }
        let roundsUp: Bool
        switch method {
        case .roundHalfAwayFromZero: roundsUp = remainder >= divisor - remainder
        case .roundTowardZero: roundsUp = false
        case .roundAwayFromZero, .quickTime: roundsUp = true
        case .roundTowardPositiveInfinity: roundsUp = !negative
        case .roundTowardNegativeInfinity: roundsUp = negative
        }
        guard roundsUp else { return (quotient, false) }
        guard quotient != .max else { return nil }
        return (quotient + 1, false)
    }
}

/// A 256-bit unsigned integer: a 128-bit magnitude times a timescale, before division.
struct UInt256 {
    /// The upper 128 bits.
    private(set) var high: UInt128
    /// The lower 128 bits.
    private(set) var low: UInt128

    /// The full product of two 128-bit integers.
    init(_ lhs: UInt128, times rhs: UInt128) {
        (high, low) = lhs.multipliedFullWidth(by: rhs)
    }

    /// Shifts right by `count` ≥ 1 bits, returning whether any bit shifted out was set.
    mutating func shiftRight(by count: Int) -> Bool {
        let width = UInt128.bitWidth
        let sticky: Bool
        if count >= 2 * width {
            sticky = high != 0 || low != 0
            (high, low) = (0, 0)
        } else if count >= width {
            let inner = count - width
            sticky = low != 0 || (inner > 0 && high & ((1 << inner) - 1) != 0)
            (high, low) = (0, high >> inner)
        } else {
            sticky = low & ((1 << count) - 1) != 0
            (high, low) = (high >> count, (low >> count) | (high << (width - count)))
        }
        return sticky
    }

    /// Shifts left by one bit, which must be clear at the top, and sets the lowest bit to `bit`.
    mutating func shiftLeftOne(insertingBit bit: Bool) {
        high = (high << 1) | (low >> (UInt128.bitWidth - 1))
        low = (low << 1) | (bit ? 1 : 0)
    }

    /// Quotient and remainder by a nonzero divisor, or nil when the quotient needs more than
    /// 128 bits.
    func divided(by divisor: UInt128) -> (quotient: UInt128, remainder: UInt128)? {
        guard divisor != 0, high < divisor else { return nil }
        return divisor.dividingFullWidth((high, low))
    }
}
