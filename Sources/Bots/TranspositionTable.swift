/// What a stored score says about a position's true value.
enum ScoreBound: UInt64 {
    /// The search saw every move inside its window: the score is the value.
    case exact = 0
    /// A move was good enough to cut: the value is at least the score.
    case lower = 1
    /// No move reached the window: the value is at most the score.
    case upper = 2
}

/// One remembered search result.
struct TableEntry {
    var depth: Int
    var score: Int
    var bound: ScoreBound
    /// The best move found, in the engine's own encoding (0 to 63).
    var move: Int
}

/// A fixed-size, always-replace transposition table.
///
/// Positions recur through different move orders; remembering their scores
/// and best moves is what lets iterative deepening reach real depth.
///
/// A search that must answer the same position the same way every time
/// starts from an empty table, but a bot keeps one table and `clear()`s it
/// instead of allocating (and zeroing) megabytes each move: clearing moves
/// the table to a new generation, and an entry of another generation reads
/// as empty, so a cleared table answers exactly as a fresh one would. Only
/// once every 2^15 clears is the memory zeroed for real.
struct TranspositionTable {
    /// Key and packed entry side by side, so a probe costs one cache miss, not two.
    private var slots: [UInt64]
    private let indexShift: UInt64
    /// Bits 48 and up of a packed entry: set bit 48 (occupied) and the
    /// generation it was stored in. An entry counts only with exactly these.
    private var stamp: UInt64 = 1 << 48
    private static let generationLimit: UInt64 = 1 << 15

    /// A table of `1 << bits` entries (16 bytes each).
    init(bits: Int) {
        slots = Array(repeating: 0, count: 2 << bits)
        indexShift = UInt64(64 - bits)
    }

    /// Forgets every entry, at once (a new generation), zeroing the memory
    /// only when the generations run out.
    mutating func clear() {
        let generation = (stamp >> 49) + 1
        if generation == Self.generationLimit {
            slots.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
            stamp = 1 << 48
        } else {
            stamp = generation << 49 | 1 << 48
        }
    }

    @inline(__always)
    private func slot(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> indexShift) &* 2
    }

    /// The entry stored for `key`, if the slot still holds it.
    @inline(__always)
    func probe(_ key: UInt64) -> TableEntry? {
        let index = slot(key)
        let packed = slots[index + 1]
        guard packed >> 48 == stamp >> 48, slots[index] == key else { return nil }
        return TableEntry(
            depth: Int((packed >> 32) & 0xFF),
            score: Int(Int32(bitPattern: UInt32(truncatingIfNeeded: packed))),
            bound: ScoreBound(rawValue: (packed >> 40) & 0x3) ?? .exact,
            move: Int((packed >> 42) & 0x3F)
        )
    }

    /// Remembers a result, replacing whatever shared the slot.
    @inline(__always)
    mutating func store(_ key: UInt64, depth: Int, score: Int, bound: ScoreBound, move: Int) {
        let index = slot(key)
        slots[index] = key
        slots[index + 1] = UInt64(UInt32(bitPattern: Int32(truncatingIfNeeded: score)))
            | UInt64(min(max(depth, 0), 255)) << 32
            | bound.rawValue << 40
            | UInt64(move & 0x3F) << 42
            | stamp
    }
}
