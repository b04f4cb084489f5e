/// Finds NAL units in an Annex B byte stream that arrives in chunks of any size.
///
/// A start code split across two chunks is found; a NAL unit is emitted once the start code
/// after it has arrived, or at ``finish()``. Memory stays bounded: the scanner holds only the
/// unit in progress, and a unit that grows past ``maximumNALUnitSize`` is discarded.
struct AnnexBScanner {
    /// The largest NAL unit kept; bytes of a larger one are discarded up to the next start code.
    let maximumNALUnitSize: Int
    private var buffer: [UInt8] = []
    /// Where the unit in progress starts in `buffer` (just after its start code), or nil before
    /// the first start code and while discarding an oversized unit.
    private var unitStart: Int?
    /// Where the next search for a start code begins.
    private var searchFrom = 0
    /// Bytes discarded: before the first start code (other than zeros) and oversized units.
    private(set) var discardedBytes = 0
    /// Units discarded because they exceeded ``maximumNALUnitSize``.
    private(set) var oversizedUnits = 0

    init(maximumNALUnitSize: Int) {
        self.maximumNALUnitSize = maximumNALUnitSize
    }

    /// Adds bytes and returns the NAL units they complete, in order.
    mutating func append(_ chunk: some Collection<UInt8>) -> [[UInt8]] {
        buffer.append(contentsOf: chunk)
        var units: [[UInt8]] = []
        buffer.withUnsafeBufferPointer { bytes in
            while let code = AnnexB.nextStartCode(in: bytes, from: searchFrom) {
                if let start = unitStart { emit(start..<code, to: &units) }
                unitStart = code + 3
                searchFrom = code + 3
            }
        }
        // Keep the last two bytes searchable: they may be the start of a split start code.
        searchFrom = max(searchFrom, buffer.count - 2, unitStart ?? 0)
        if let start = unitStart, buffer.count - start > maximumNALUnitSize {
            oversizedUnits += 1
            unitStart = nil
        }
        compact()
        return units
    }

    /// Returns the last NAL unit, which no start code ends, and resets the scanner.
    mutating func finish() -> [UInt8]? {
        var units: [[UInt8]] = []
        if let start = unitStart { emit(start..<buffer.count, to: &units) }
        buffer = []
        unitStart = nil
        searchFrom = 0
        return units.first
    }

    private func emit(_ range: Range<Int>, to units: inout [[UInt8]]) {
        var end = range.upperBound
        while end > range.lowerBound && buffer[end - 1] == 0 { end -= 1 }
        if end > range.lowerBound { units.append(Array(buffer[range.lowerBound..<end])) }
    }

    /// Drops the bytes no longer needed, when that is worth a move.
    private mutating func compact() {
        let keepFrom = unitStart ?? max(0, buffer.count - 2)
        if unitStart == nil {
            discardedBytes += buffer[0..<keepFrom].lazy.filter { $0 != 0 }.count
        }
        guard keepFrom > 0, keepFrom >= 65536 || keepFrom * 2 >= buffer.count || unitStart == nil else { return }
        buffer.removeSubrange(0..<keepFrom)
        searchFrom -= keepFrom
        if let start = unitStart { unitStart = start - keepFrom }
    }
}
